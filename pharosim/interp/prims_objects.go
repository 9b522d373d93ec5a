package interp

import "maps"

// objectPrimitives are the Go primitives of the kernel's objects, classes, blocks and exceptions.
var objectPrimitives = map[string]primitive{
	"deepCopy":        primDeepCopy,
	"classIsVariable": classKindIn("variable", "bytes", "words", "weak", "string"),
	"classIsBytes":    classKindIn("bytes", "string"),
	"classIsWords":    classKindIn("words"),
	"classIsWeak":     classKindIn("weak"),
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
	"performInSuperclass": func(in *Interp, r Object, a []Object) (Object, bool) {
		sel := symOf(a[0])
		args, ok := a[1].(*Instance)
		cls, isClass := a[2].(*Class)
		if !ok || !isClass || numArgs(sel) != len(args.indexed) || !in.classOf(r).includesBehavior(cls) {
			return nil, false
		}
		return in.sendFrom(cls, r, sel, append([]Object{}, args.indexed...)), true
	},
	"classVarNames": func(in *Interp, r Object, a []Object) (Object, bool) {
		c, ok := r.(*Class)
		if !ok {
			return nil, false
		}
		return in.sortedSymbols(maps.Keys(c.classVars)), true
	},
	"exIsNested": func(in *Interp, r Object, a []Object) (Object, bool) {
		exc, ok := r.(*Instance)
		if !ok {
			return nil, false
		}
		return in.isNested(exc), true
	},
	"exRetryUsing": func(in *Interp, r Object, a []Object) (Object, bool) {
		exc, ok := r.(*Instance)
		b, isBlock := a[0].(*Block)
		if !ok || !isBlock || len(b.node.Args) != 0 || in.state(exc).h == nil {
			return nil, false
		}
		in.retry(in.state(exc).h, b)
		return nil, false
	},
	"exResignal": func(in *Interp, r Object, a []Object) (Object, bool) {
		exc, ok := r.(*Instance)
		if !ok || in.state(exc).h == nil || a[0] == nil {
			return nil, false
		}
		in.resume(&resuming{exc: exc, instead: a[0]})
		return nil, false
	},
}

// primDeepCopy copies an object and, each by its own deepCopy, what it
// holds: instance variables, indexed elements, a hashed collection's keys
// and values. Like Pharo's, it does not follow cycles.
func primDeepCopy(in *Interp, r Object, a []Object) (Object, bool) {
	o, ok := r.(*Instance)
	if !ok || o.class.name == "Object" {
		return r, true
	}
	c := &Instance{class: o.class, vars: make([]Object, len(o.vars))}
	for i, v := range o.vars {
		c.vars[i] = in.Send(v, "deepCopy")
	}
	if o.indexed != nil {
		c.indexed = make([]Object, len(o.indexed))
		for i, v := range o.indexed {
			c.indexed[i] = in.Send(v, "deepCopy")
		}
	}
	if o.str != nil {
		c.str = append([]rune{}, o.str...)
	}
	if o.dict != nil {
		c.dict = newTable()
		for i, k := range o.dict.keys {
			if o.dict.live[i] {
				c.dict.put(in, in.Send(k, "deepCopy"), in.Send(o.dict.values[i], "deepCopy"))
			}
		}
	}
	return c, true
}

// classKindIn answers whether a class's layout (its Tonel #type) is one of
// kinds: a String's is "string", bytes as Pharo's ByteString.
func classKindIn(kinds ...string) primitive {
	return func(in *Interp, r Object, a []Object) (Object, bool) {
		c, ok := r.(*Class)
		if !ok {
			return nil, false
		}
		for _, k := range kinds {
			if c.kind == k {
				return true, true
			}
		}
		return false, true
	}
}
