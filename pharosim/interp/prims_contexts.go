package interp

import "github.com/pharo-refactor/refactord/smalltalk"

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
		if f.closure != nil && f.closure.node != nil {
			// a block's activation runs its CompiledBlock, as in Pharo
			return in.blockCodeObject(f.m, f.closure.node)
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
	"contextHasMethodReturn": onContext(func(in *Interp, f *frame) Object {
		return f.closure != nil && hasOwnReturn(f.closure.node.Body)
	}),
	// a context's indexable fields are its stack, whose bottom holds the
	// activation's arguments and temporaries: all of it here, as the
	// interpreter pushes no operands there (Pharo counts them too)
	"contextSize":   onContext(func(in *Interp, f *frame) Object { return int64(len(f.vars)) }),
	"contextNew":    primContextNew,
	"contextReturn": primContextReturn,
	"blockAsContext": func(in *Interp, r Object, a []Object) (Object, bool) {
		b, ok := asBlock(r)
		if !ok || b.code == nil {
			return nil, false
		}
		in.chargeSlots(b.code.size)
		f := &frame{parent: b.outer, m: b.m, home: b.home, closure: b, vars: make([]Object, b.code.size)}
		if b.home != nil {
			f.self = b.home.self
		}
		return in.contextOf(f), true
	},
}

// primContextNew makes the context of an activation that has not begun,
// as Pharo's Context class>>sender:receiver:method:arguments: does: a
// method's arguments are set, its temporaries nil; nothing runs it (the
// interpreter has no program counter to step it from).
func primContextNew(in *Interp, r Object, a []Object) (Object, bool) {
	if c, ok := r.(*Class); !ok || c != in.classes["Context"] {
		return nil, false
	}
	var sender *frame
	if a[0] != nil {
		s, ok := a[0].(*Context)
		if !ok || s.f == nil {
			return nil, false
		}
		sender = s.f
	}
	m, ok := in.methodOf(a[2])
	args, isArray := asInstance(a[3])
	if !ok || !isArray || m.ast == nil || m.ast.Body == nil || args.class != in.classes["Array"] || len(args.indexed) > len(m.ast.Args) {
		return nil, false
	}
	n := len(m.ast.Args) + len(m.ast.Body.Temps)
	in.chargeSlots(n)
	f := &frame{self: a[1], m: m, sender: sender, vars: make([]Object, n)}
	f.home = f
	copy(f.vars, args.indexed)
	return in.contextOf(f), true
}

// primContextReturn answers from the send its receiver's sender is
// making, as Pharo's Context>>return: resumes that sender: the sender must
// be the activation that sent return:, as nothing above it is then to
// unwind. A sender further down the stack fails it (its fallback names the
// lack); a dead one or none is the body's cannotReturn.
func primContextReturn(in *Interp, r Object, a []Object) (Object, bool) {
	c, ok := r.(*Context)
	if !ok || c.f == nil || c.f.sender == nil || c.f.sender.dead || in.active == nil {
		return nil, false
	}
	if activationOf(in.active) != activationOf(c.f.sender) {
		return nil, false
	}
	return a[0], true
}

// activationOf answers the method's or the block's activation an inlined
// block's frame belongs to (contextOf's walk, without keeping frames).
func activationOf(f *frame) *frame {
	for f.home != f && f.closure == nil && f.parent != nil {
		f = f.parent
	}
	return f
}

// blocksReturn tells whether a block of the code under n, one that runs as
// a block of its own, has a ^ (Pharo's CompiledMethod>>hasNonLocalReturn).
func blocksReturn(n smalltalk.Node) bool {
	found := false
	walkOwnCode(n, func(x smalltalk.Node) bool {
		if b, ok := x.(*smalltalk.Block); ok {
			found = found || anyNode(b.Body, func(y smalltalk.Node) bool { _, ok := y.(*smalltalk.Return); return ok })
		}
		return !found
	})
	return found
}

// hasOwnReturn tells whether a block's own code has a ^, leaving out the
// blocks inside it that run as blocks of their own (an inlined block's ^
// is the block's own), as Pharo's CompiledBlock>>hasMethodReturn scans
// one block's bytecodes.
func hasOwnReturn(body *smalltalk.Sequence) bool {
	found := false
	walkOwnCode(body, func(x smalltalk.Node) bool {
		_, isReturn := x.(*smalltalk.Return)
		found = found || isReturn
		return !found
	})
	return found
}

// walkOwnCode walks the code compiled into one method or block: the
// bodies of the blocks inlined in it (ifTrue:, whileTrue:, to:do:…) are
// its own; a block that runs as a block of its own is shown to visit but
// not entered. visit answers whether to go on below the node.
func walkOwnCode(n smalltalk.Node, visit func(smalltalk.Node) bool) {
	var walk func(x smalltalk.Node) bool
	walk = func(x smalltalk.Node) bool {
		switch x := x.(type) {
		case *smalltalk.Block:
			visit(x)
			return false
		case *smalltalk.Message:
			if inlinedSend(x) {
				eachInlinedPart(x, func(b *smalltalk.Block) { smalltalk.Walk(b.Body, walk) }, func(part smalltalk.Node) { smalltalk.Walk(part, walk) })
				return false
			}
		}
		return visit(x)
	}
	smalltalk.Walk(n, walk)
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
