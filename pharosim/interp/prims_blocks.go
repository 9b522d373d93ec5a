package interp

// blockPrimitives are the Go primitives of BlockClosure: evaluation,
// ensure: and ifCurtailed:, what a block knows of its source.
var blockPrimitives = map[string]primitive{
	"numArgs": func(in *Interp, r Object, a []Object) (Object, bool) { return int64(len(r.(*Block).node.Args)), true },
	"value":   primValue,
	"valueWithArguments": func(in *Interp, r Object, a []Object) (Object, bool) {
		arr, ok := a[0].(*Instance)
		if !ok || len(arr.indexed) != len(r.(*Block).node.Args) {
			return nil, false
		}
		return in.callBlock(r.(*Block), append([]Object{}, arr.indexed...)), true
	},
	"blockSource": func(in *Interp, r Object, a []Object) (Object, bool) {
		b := r.(*Block)
		return in.newString(b.m.source[b.node.Start():b.node.End()]), true
	},
	"ensure":      primEnsure,
	"ifCurtailed": primIfCurtailed,
	"blockArgumentNames": func(in *Interp, r Object, a []Object) (Object, bool) {
		b, ok := r.(*Block)
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

func primEnsure(in *Interp, r Object, a []Object) (result Object, ok bool) {
	done := false
	defer func() {
		if !done && !in.aborting {
			in.Send(a[0], "value")
		}
	}()
	result = in.callBlock(r.(*Block), nil)
	done = true
	in.Send(a[0], "value")
	return result, true
}

func primIfCurtailed(in *Interp, r Object, a []Object) (result Object, ok bool) {
	done := false
	defer func() {
		if !done && !in.aborting {
			in.Send(a[0], "value")
		}
	}()
	result = in.callBlock(r.(*Block), nil)
	done = true
	return result, true
}

func primValue(in *Interp, r Object, a []Object) (Object, bool) {
	b := r.(*Block)
	if len(b.node.Args) != len(a) {
		return nil, false
	}
	return in.callBlock(b, a), true
}
