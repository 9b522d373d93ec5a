package interp

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
			in.Send(guard, "value")
		}
	}()
	result = in.callBlock(b, nil)
	done = true
	if always {
		in.Send(guard, "value")
	}
	return result, true
}

func primValue(in *Interp, r Object, a []Object) (Object, bool) {
	b, ok := asBlock(r)
	if !ok || len(b.node.Args) != len(a) {
		return nil, false
	}
	return in.callBlock(b, a), true
}
