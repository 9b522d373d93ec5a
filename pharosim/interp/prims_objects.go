package interp

// objectPrimitives are the Go primitives of the kernel's objects, classes, blocks and exceptions.
var objectPrimitives = map[string]primitive{
	"exIsNested": func(in *Interp, r Object, a []Object) (Object, bool) {
		exc, ok := r.(*Instance)
		if !ok {
			return nil, false
		}
		return in.isNested(exc), true
	},
	"exResignal": func(in *Interp, r Object, a []Object) (Object, bool) {
		exc, ok := r.(*Instance)
		if !ok || in.state(exc).h == nil || a[0] == nil {
			return nil, false
		}
		panic(&resuming{exc: exc, instead: a[0]})
	},
}
