package interp

import "github.com/pharo-refactor/refactord/smalltalk"

// blockPrimitives are the Go primitives of BlockClosure: evaluation,
// ensure: and ifCurtailed:, what a block knows of its source.
var blockPrimitives = map[string]primitive{
	"numArgs": func(in *Interp, r Object, a []Object) (Object, bool) {
		b, ok := asBlock(r)
		if !ok {
			return nil, false
		}
		return int64(len(b.node.Args)), true
	},
	"blockReceiver": func(in *Interp, r Object, a []Object) (Object, bool) {
		b, ok := asBlock(r)
		if !ok || b.home == nil {
			return nil, false
		}
		return b.home.self, true
	},
	"value": primValue,
	"valueWithArguments": func(in *Interp, r Object, a []Object) (Object, bool) {
		b, isBlock := asBlock(r)
		arr, ok := asInstance(a[0])
		if !isBlock || !ok || len(arr.indexed) != len(b.node.Args) {
			return nil, false
		}
		return in.callBlock(b, append([]Object{}, arr.indexed...)), true
	},
	"blockSource": func(in *Interp, r Object, a []Object) (Object, bool) {
		b, ok := asBlock(r)
		if !ok {
			return nil, false
		}
		return in.newString(b.m.source[b.node.Start():b.node.End()]), true
	},
	"blockHome": func(in *Interp, r Object, a []Object) (Object, bool) {
		b, ok := asBlock(r)
		if !ok || b.home == nil {
			return nil, false
		}
		return in.contextOf(b.home), true
	},
	"blockOuterContext": func(in *Interp, r Object, a []Object) (Object, bool) {
		b, ok := asBlock(r)
		if !ok || b.outer == nil {
			return nil, false
		}
		return in.contextOf(b.outer), true
	},
	"blockHomeMethod": func(in *Interp, r Object, a []Object) (Object, bool) {
		b, ok := asBlock(r)
		if !ok || b.m == nil {
			return nil, false
		}
		return in.methodObject(b.m), true
	},
	"blockHasNonLocalReturn": func(in *Interp, r Object, a []Object) (Object, bool) {
		b, ok := asBlock(r)
		if !ok {
			return nil, false
		}
		return anyNode(b.node.Body, func(n smalltalk.Node) bool { _, ok := n.(*smalltalk.Return); return ok }), true
	},
	"blockIsClean": func(in *Interp, r Object, a []Object) (Object, bool) {
		b, ok := asBlock(r)
		if !ok {
			return nil, false
		}
		return isCleanBlock(b), true
	},
	"ensure":      primEnsure,
	"ifCurtailed": primIfCurtailed,
	"blockArgumentNames": func(in *Interp, r Object, a []Object) (Object, bool) {
		b, ok := asBlock(r)
		if !ok {
			return nil, false
		}
		names := make([]Object, len(b.node.Args))
		for i, v := range b.node.Args {
			names[i] = Symbol(v.Name)
		}
		return in.newArray(names), true
	},
}

func primEnsure(in *Interp, r Object, a []Object) (Object, bool) {
	return guardedBlock(in, r, a[0], true)
}

func primIfCurtailed(in *Interp, r Object, a []Object) (Object, bool) {
	return guardedBlock(in, r, a[0], false)
}

// guardedBlock runs the receiver block; the guard block runs when the
// block is curtailed (unless a limit is unwinding: it would only run out
// again), and also after it returns when always (ensure:).
func guardedBlock(in *Interp, r, guard Object, always bool) (result Object, ok bool) {
	b, ok := asBlock(r)
	if !ok {
		return nil, false
	}
	done := false
	defer func() {
		if !done && !in.aborting {
			in.runUnwindBlock(guard)
		}
	}()
	result = in.callBlock(b, nil)
	done = true
	if always {
		in.runUnwindBlock(guard)
	}
	return result, true
}

// runUnwindBlock runs an ensure: or ifCurtailed: block. A process
// terminated while such a block runs completes it first, as Pharo's
// termination completes the unwind blocks under way: its termination
// takes effect when the outermost one ends.
func (in *Interp) runUnwindBlock(guard Object) {
	outer := in.inUnwind
	in.inUnwind++
	defer func() { in.inUnwind = outer }()
	in.Send(guard, "value")
	in.inUnwind = outer
	if p := in.sched.running; outer == 0 && p.terminateDeferred {
		p.terminateDeferred = false
		panic(&processEnd{proc: p})
	}
}

func primValue(in *Interp, r Object, a []Object) (Object, bool) {
	b, ok := asBlock(r)
	if !ok || len(b.node.Args) != len(a) {
		return nil, false
	}
	return in.callBlock(b, a), true
}

// isCleanBlock tells whether a block closes over nothing of its home, as
// Pharo's compiler's clean blocks (OCBlockScope>>isClean): no ^, no self,
// super or instance variable, no temporary or argument of an enclosing
// method or block; its own (its nested blocks' included), thisContext and
// globals are allowed.
func isCleanBlock(b *Block) bool {
	own := map[string]bool{"thisContext": true, "nil": true, "true": true, "false": true}
	anyNode(b.node, func(n smalltalk.Node) bool {
		switch n := n.(type) {
		case *smalltalk.Block:
			for _, v := range n.Args {
				own[v.Name] = true
			}
			for _, v := range n.Body.Temps {
				own[v.Name] = true
			}
		}
		return false
	})
	refersOut := func(name string) bool {
		if own[name] {
			return false
		}
		if name == "self" || name == "super" {
			return true
		}
		// an instance variable, or a temporary of the home or of an
		// enclosing block; a global, a class or pool variable is shared
		return b.m == nil || ivarIndex(b.m.class, name) >= 0 || !isGlobalName(name)
	}
	return !anyNode(b.node.Body, func(n smalltalk.Node) bool {
		switch n := n.(type) {
		case *smalltalk.Return:
			return true
		case *smalltalk.Variable:
			return refersOut(n.Name)
		case *smalltalk.Assignment:
			return refersOut(n.Variable.Name)
		}
		return false
	})
}

// isGlobalName tells whether a name not declared in a method reads a
// global, a class or a pool variable: it is capitalized.
func isGlobalName(name string) bool {
	return name != "" && name[0] >= 'A' && name[0] <= 'Z'
}
