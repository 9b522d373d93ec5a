package interp

// contextPrimitives give thisContext what code that reads its stack
// needs: its sender chain, receiver, method and home. A context is an
// activation of a method or of a block that has names of its own; a
// block without one runs in its outer activation, which its thisContext
// then answers (Pharo has a context for every block run).
var contextPrimitives = map[string]primitive{
	"contextSender": onContext(func(in *Interp, f *frame) Object {
		if f.sender == nil {
			return nil
		}
		return in.contextOf(f.sender)
	}),
	"contextReceiver": onContext(func(in *Interp, f *frame) Object { return f.self }),
	"contextMethod": onContext(func(in *Interp, f *frame) Object {
		if f.m == nil || f.m.class == nil {
			return nil
		}
		return in.methodObject(f.m)
	}),
	"contextHome": onContext(func(in *Interp, f *frame) Object {
		if f.home == nil {
			return nil
		}
		return in.contextOf(f.home)
	}),
	"contextOuter": onContext(func(in *Interp, f *frame) Object {
		if f.home == f || f.parent == nil {
			return nil
		}
		return in.contextOf(f.parent)
	}),
	"contextIsBlock": onContext(func(in *Interp, f *frame) Object { return f.home != f }),
	"contextClosure": onContext(func(in *Interp, f *frame) Object {
		if f.closure == nil {
			return nil
		}
		return f.closure
	}),
	"contextIsDead": onContext(func(in *Interp, f *frame) Object { return f.dead }),
	"contextArguments": onContext(func(in *Interp, f *frame) Object {
		n := 0
		if f.home == f && f.m != nil && f.m.ast != nil {
			n = min(len(f.m.ast.Args), len(f.vars))
		}
		return in.newArray(append([]Object(nil), f.vars[:n]...))
	}),
}

// onContext makes a primitive of one that reads the activation a
// Context stands for.
func onContext(p func(in *Interp, f *frame) Object) primitive {
	return func(in *Interp, r Object, a []Object) (Object, bool) {
		c, ok := r.(*Context)
		if !ok || c.f == nil {
			return nil, false
		}
		return p(in, c.f), true
	}
}

// contextOf answers the one Context of the activation f runs in: an
// inlined block's frame belongs to the activation around it. The frame
// and every activation below it are kept from reuse from then on.
func (in *Interp) contextOf(f *frame) *Context {
	for f.home != f && f.closure == nil && f.parent != nil {
		f = f.parent
	}
	in.captureSenders(f)
	if f.context == nil {
		f.context = &Context{f: f}
	}
	return f.context
}
