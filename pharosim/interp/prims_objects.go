package interp

// objectPrimitives are the Go primitives of Object's protocol: identity,
// copying, instance variables and indexed slots, perform:.
var objectPrimitives = map[string]primitive{
	"class":        func(in *Interp, r Object, a []Object) (Object, bool) { return in.classOf(r), true },
	"identical":    func(in *Interp, r Object, a []Object) (Object, bool) { return identical(r, a[0]), true },
	"identityHash": func(in *Interp, r Object, a []Object) (Object, bool) { return in.identityHash(r), true },
	"shallowCopy":  primShallowCopy,
	"instVarAt":    primInstVarAt,
	"instVarAtPut": primInstVarAtPut,
	"basicSize":    primBasicSize,
	"basicAt":      primBasicAt,
	"basicAtPut":   primBasicAtPut,
	"perform":      primPerform,
	"performWith":  primPerformWithArgs,
	"respondsTo": func(in *Interp, r Object, a []Object) (Object, bool) {
		return in.classOf(r).lookup(symOf(a[0])) != nil, true
	},
	"becomeForward":   primBecomeForward,
	"elementsForward": primElementsForward,
	"become":          primBecome,
	"changeClass":     primChangeClass,
	"missing": func(in *Interp, r Object, a []Object) (Object, bool) {
		panic(&Missing{What: str(a[0])})
	},
	"deepCopy":     primDeepCopy,
	"veryDeepCopy": primVeryDeepCopy,
	"performInSuperclass": func(in *Interp, r Object, a []Object) (Object, bool) {
		sel := symOf(a[0])
		args, ok := a[1].(*Instance)
		cls, isClass := a[2].(*Class)
		if !ok || !isClass || numArgs(sel) != len(args.indexed) || !in.classOf(r).includesBehavior(cls) {
			return nil, false
		}
		return in.sendFrom(cls, r, sel, append([]Object{}, args.indexed...)), true
	},
}

func primShallowCopy(in *Interp, r Object, a []Object) (Object, bool) {
	o, ok := r.(*Instance)
	if !ok {
		return r, true
	}
	in.chargeInstance(o)
	c := &Instance{class: o.class, vars: append([]Object{}, o.vars...), capacity: o.capacity, first: o.first}
	if o.indexed != nil {
		c.indexed = append([]Object{}, o.indexed...)
	}
	if o.str != nil {
		c.str = append([]rune{}, o.str...)
	}
	if o.dict != nil {
		in.charge(entryBytes * int64(len(o.dict.keys)))
		c.dict = o.dict.copy()
	}
	return c, true
}

func primInstVarAt(in *Interp, r Object, a []Object) (Object, bool) {
	i, ok := a[0].(int64)
	o, ok2 := r.(*Instance)
	if !ok || !ok2 || i < 1 || i > int64(len(o.vars)) {
		return nil, false
	}
	if view, isView := hashedStorageVariable(o, int(i-1)); isView {
		return in.hashedStorageAt(o, view), true
	}
	if view, isView := orderedStorageVariable(o, int(i-1)); isView {
		return in.orderedStorageAt(o, view), true
	}
	return o.vars[i-1], true
}

func primInstVarAtPut(in *Interp, r Object, a []Object) (Object, bool) {
	i, ok := a[0].(int64)
	o, ok2 := r.(*Instance)
	if !ok || !ok2 || i < 1 || i > int64(len(o.vars)) {
		return nil, false
	}
	if view, isView := hashedStorageVariable(o, int(i-1)); isView {
		return a[1], in.hashedStorageAtPut(o, view, a[1])
	}
	if view, isView := orderedStorageVariable(o, int(i-1)); isView {
		return a[1], in.orderedStorageAtPut(o, view, a[1])
	}
	o.vars[i-1] = a[1]
	return a[1], true
}

func primBasicSize(in *Interp, r Object, a []Object) (Object, bool) {
	o, ok := r.(*Instance)
	if !ok {
		return int64(0), true
	}
	if o.str != nil {
		return int64(len(o.str)), true
	}
	return int64(len(o.indexed)), true
}

func primBasicAt(in *Interp, r Object, a []Object) (Object, bool) {
	o, ok := r.(*Instance)
	i, ok2 := a[0].(int64)
	if !ok || !ok2 || i < 1 || i > int64(len(o.indexed)) {
		return nil, false
	}
	return o.indexed[i-1], true
}

func primBasicAtPut(in *Interp, r Object, a []Object) (Object, bool) {
	o, ok := r.(*Instance)
	i, ok2 := a[0].(int64)
	if !ok || !ok2 || i < 1 || i > int64(len(o.indexed)) {
		return nil, false
	}
	if o.class.kind == "bytes" {
		if v, ok := a[1].(int64); !ok || v < 0 || v > 255 {
			return nil, false
		}
	}
	o.indexed[i-1] = a[1]
	return a[1], true
}

func primPerform(in *Interp, r Object, a []Object) (Object, bool) {
	sel := symOf(a[0])
	if numArgs(sel) != len(a)-1 {
		return nil, false
	}
	return in.Send(r, sel, a[1:]...), true
}

func primPerformWithArgs(in *Interp, r Object, a []Object) (Object, bool) {
	sel := symOf(a[0])
	arr, ok := a[1].(*Instance)
	if !ok || numArgs(sel) != len(arr.indexed) {
		return nil, false
	}
	return in.Send(r, sel, append([]Object{}, arr.indexed...)...), true
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

// primBecome swaps the receiver and the argument, two objects of the
// heap: every reference to one is then a reference to the other, as
// Pharo's become: makes it. A reference here is a pointer to the
// object's Instance, so the two Instances exchange what they hold — class,
// variables, elements — and their identity hashes.
func primBecome(in *Interp, r Object, a []Object) (Object, bool) {
	x, ok := r.(*Instance)
	y, ok2 := a[0].(*Instance)
	if !ok || !ok2 || x == y {
		return nil, false
	}
	*x, *y = *y, *x
	hx, hasX := in.hashes[x]
	hy, hasY := in.hashes[y]
	delete(in.hashes, x)
	delete(in.hashes, y)
	if hasY {
		in.hashes[x] = hy
	}
	if hasX {
		in.hashes[y] = hx
	}
	return r, true
}

// primChangeClass makes the receiver an instance of the argument's class,
// when both classes lay their instances out alike (the same kind and the
// same number of named variables), as Pharo's primitiveChangeClassTo:.
func primChangeClass(in *Interp, r Object, a []Object) (Object, bool) {
	o, ok := r.(*Instance)
	model, ok2 := a[0].(*Instance)
	if !ok || !ok2 || o.class.kind != model.class.kind || len(o.vars) != len(model.class.ivarNames) {
		return nil, false
	}
	o.class = model.class
	return r, true
}
