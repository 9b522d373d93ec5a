package interp

// contextPrimitives are the Go primitives of thisContext: an activation
// of a method or of a block, its receiver, its method and the
// activation that sent the message (sender). The interpreter keeps no
// stack of Smalltalk contexts; a frame stands for one, so a context can
// be read, not stepped, restarted or returned from.
var contextPrimitives = map[string]primitive{
	"contextSender": onContext(func(in *Interp, f *frame) Object {
		if f.sender == nil {
			return nil
		}
		return &Context{f: f.sender}
	}),
	"contextReceiver": onContext(func(in *Interp, f *frame) Object { return f.self }),
	"contextMethod": onContext(func(in *Interp, f *frame) Object {
		if f.m == nil {
			return nil
		}
		return in.methodObject(f.m)
	}),
	"contextClosure": onContext(func(in *Interp, f *frame) Object {
		if f.closure == nil {
			return nil
		}
		return f.closure
	}),
	"contextHome": onContext(func(in *Interp, f *frame) Object { return in.contextOf(f.home) }),
}

// onContext makes a primitive of one that reads a context.
func onContext(p func(in *Interp, f *frame) Object) primitive {
	return func(in *Interp, r Object, a []Object) (Object, bool) {
		c, ok := r.(*Context)
		if !ok || c.f == nil {
			return nil, false
		}
		return p(in, c.f), true
	}
}

// contextOf answers thisContext in frame f: the activation of the method
// or block f runs in (an inlined block's frame is its enclosing one's).
// The frames of its sender chain are kept from reuse from now on, so
// that the context's senders stay what they were.
func (in *Interp) contextOf(f *frame) Object {
	if f == nil {
		return nil
	}
	for f.inline && f.parent != nil {
		f = f.parent
	}
	in.capture(f)
	for p := f; p != nil && !p.chained; p = p.sender {
		in.capture(p)
		p.chained = true
	}
	return &Context{f: f}
}
