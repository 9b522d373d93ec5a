package interp

import "maps"

// objectPrimitives are the Go primitives of the kernel's objects, classes, blocks and exceptions.
var objectPrimitives = map[string]primitive{
	"deepCopy":        primDeepCopy,
	"veryDeepCopy":    primVeryDeepCopy,
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
	in.chargeInstance(o)
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

// primVeryDeepCopy copies an object and everything it reaches, each object
// once, as Pharo's DeepCopier does: an object reached twice is copied once
// and shared in the copy, and a cycle stays a cycle. Classes, blocks,
// symbols, numbers, characters, nil and booleans are not copied. It walks
// the objects with a worklist, not with Go's recursion: a structure
// nested a million deep copies as well as a flat one. A hashed
// collection's table is rebuilt over the copied keys once every copy is
// complete (its keys' hashes may read what they hold; an identity table's
// copies have identities of their own).
func primVeryDeepCopy(in *Interp, r Object, a []Object) (Object, bool) {
	root, ok := r.(*Instance)
	if !ok {
		return r, true
	}
	copies := map[*Instance]*Instance{}
	var work, tables []*Instance // originals
	copyOf := func(o Object) Object {
		src, ok := o.(*Instance)
		if !ok {
			return o
		}
		if c, ok := copies[src]; ok {
			return c
		}
		in.chargeInstance(src)
		c := &Instance{class: src.class, vars: append([]Object{}, src.vars...)}
		if src.indexed != nil {
			c.indexed = append([]Object{}, src.indexed...)
		}
		if src.str != nil {
			c.str = append([]rune{}, src.str...)
		}
		copies[src] = c
		work = append(work, src)
		return c
	}
	copied := copyOf(root)
	for len(work) > 0 {
		src := work[len(work)-1]
		work = work[:len(work)-1]
		c := copies[src]
		for i, v := range c.vars {
			c.vars[i] = copyOf(v)
		}
		for i, v := range c.indexed {
			c.indexed[i] = copyOf(v)
		}
		if t := src.dict; t != nil {
			tables = append(tables, src)
			for i, k := range t.keys {
				if t.live[i] {
					copyOf(k)
					copyOf(t.valueAt(i))
					if t.assocs != nil && t.assocs[i] != nil {
						copyOf(t.assocs[i])
					}
				}
			}
		}
	}
	for _, src := range tables {
		t := src.dict
		out := newTable()
		out.compare = t.compare
		copies[src].dict = out
		for i, k := range t.keys {
			if !t.live[i] {
				continue
			}
			key, value := copyOf(k), copyOf(t.valueAt(i))
			if t.assocs != nil && t.assocs[i] != nil {
				out.putAssociation(in, copyOf(t.assocs[i]).(*Instance), key, value)
				continue
			}
			out.put(in, key, value)
		}
	}
	return copied, true
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
