package interp

// numberedPrimitives are the VM primitives a package's own method may
// name by Pharo's number (<primitive: 111>), as mocking and proxy
// libraries do (Ghost, Mocketry): each is the kernel's primitive of that
// meaning. A numbered primitive also has Pharo's mirror form, which
// takes the object it works on as its first argument instead of the
// receiver (GHMetaMessages class>>extractClassOf:). A number not here
// is an unknown primitive, which signals an Error naming it.
var numberedPrimitives = map[string]numbered{
	"60":  {0, 1, primBasicAt},
	"61":  {0, 2, primBasicAtPut},
	"62":  {0, 0, primBasicSize},
	"73":  {0, 1, primInstVarAt},
	"74":  {0, 2, primInstVarAtPut},
	"75":  {0, 0, objectPrimitives["identityHash"]},
	"83":  {1, -1, primPerform},
	"84":  {0, 2, primPerformWithArgs},
	"100": {0, 3, objectPrimitives["performInSuperclass"]},
	"110": {0, 1, objectPrimitives["identical"]},
	"111": {0, 0, objectPrimitives["class"]},
	"148": {0, 0, primShallowCopy},
	"160": {0, 1, primAdoptInstance},
}

// numbered is a numbered primitive: the kernel's primitive and how many
// arguments it takes in its plain form (-1: any number from min on).
type numbered struct {
	min, args int
	prim      primitive
}

// numberedPrimitive answers the primitive for a method that names number
// with nArgs arguments: the plain form, or the mirror form (one argument
// more, the object first), or nil.
func numberedPrimitive(number string, nArgs int) primitive {
	n, ok := numberedPrimitives[number]
	if !ok || n.prim == nil {
		return nil
	}
	if n.args < 0 || nArgs == n.args {
		if nArgs < n.min {
			return nil
		}
		return n.prim
	}
	if nArgs != n.args+1 {
		return nil
	}
	return func(in *Interp, r Object, a []Object) (Object, bool) {
		return n.prim(in, a[0], a[1:])
	}
}

// primAdoptInstance makes an object an instance of the receiver, a class
// whose instances are laid out as the object is (Behavior>>adoptInstance:).
func primAdoptInstance(in *Interp, r Object, a []Object) (Object, bool) {
	c, ok := r.(*Class)
	o, isInstance := a[0].(*Instance)
	if !ok || !isInstance || c.meta == nil || o.class.kind != c.kind || len(o.vars) != len(c.ivarNames) {
		return nil, false
	}
	o.class = c
	return r, true
}
