package interp

import "slices"

// primBecomeForward makes every reference to the receiver a reference to
// the argument, as Pharo's one-way become does by a walk of the whole
// heap: here a walk of what the computation can reach — the globals and
// the classes' variables, the stacks of every process and generator (their
// activations, arguments and handlers) and, through them, every object,
// block and activation. A reference the walk cannot reach — one a Go
// primitive holds while it runs — stays the receiver, whose contents are
// made the argument's (its variables shared) so that it still answers as
// the argument, if not as the same object. The argument takes the
// receiver's identity hash unless told not to (becomeForward:copyHash:)
// or it is a value (a number, a character), whose hash is its own.
func primBecomeForward(in *Interp, r Object, a []Object) (Object, bool) {
	x, ok := r.(*Instance)
	copyHash := true
	if len(a) > 1 {
		b, isBool := a[1].(bool)
		if !isBool {
			return nil, false
		}
		copyHash = b
	}
	if !ok {
		return nil, false
	}
	in.becomeForward(x, a[0], copyHash)
	return a[0], true
}

// primElementsForward makes each element of the receiver, an Array,
// become forward the element of the argument, an Array of its size, at
// its index — without a message to any of them (a proxy's would be
// intercepted), as Pharo's elementsForwardIdentityTo:copyHash:.
func primElementsForward(in *Interp, r Object, a []Object) (Object, bool) {
	from, ok := r.(*Instance)
	to, ok2 := a[0].(*Instance)
	copyHash, isBool := a[1].(bool)
	if !ok || !ok2 || !isBool || len(from.indexed) != len(to.indexed) {
		return nil, false
	}
	for i, o := range from.indexed {
		if _, heap := o.(*Instance); !heap {
			return nil, false
		}
		if i > 0 && slices.ContainsFunc(from.indexed[:i], func(p Object) bool { return identical(p, o) }) {
			return nil, false
		}
	}
	pairs := slices.Clone(to.indexed)
	for i, o := range slices.Clone(from.indexed) {
		in.becomeForward(o.(*Instance), pairs[i], copyHash)
	}
	return r, true
}

func (in *Interp) becomeForward(x *Instance, y Object, copyHash bool) {
	if identical(x, y) {
		return
	}
	yi, heap := y.(*Instance)
	if heap && copyHash {
		in.hashes[yi] = in.identityHash(x).(int64)
	}
	w := forwarder{in: in, from: x, to: y, seenInstances: map[*Instance]bool{}, seenFrames: map[*frame]bool{}, seenClasses: map[*Class]bool{}}
	w.walkRoots()
	for _, t := range w.tables {
		t.owner.dict = t.owner.dict.rebuilt(in, t.owner.dict.compare)
	}
	if heap {
		*x = *yi
		delete(in.hashes, x)
		if h, ok := in.hashes[yi]; ok {
			in.hashes[x] = h
		}
	}
}

// forwarder rewrites references from one object to another.
type forwarder struct {
	in *Interp
	// from is the object whose references become to; nil for a walk that
	// only marks what it reaches (a garbage collection)
	from *Instance
	to   Object
	// weak: the walk does not follow the indexed slots of a weak object
	// (a WeakArray's), keeping the objects that hold them in weakHolders
	weak        bool
	weakHolders []*Instance
	// ephemerons are the objects of an ephemeron class the weak walk
	// reached: their key (first variable) is not followed from them
	ephemerons    []*Instance
	seenInstances map[*Instance]bool
	seenFrames    map[*frame]bool
	seenClasses   map[*Class]bool
	pending       []any
	tables        []rehash
}

// rehash is a hashed collection one of whose keys was rewritten: it is
// rebuilt once the walk is over.
type rehash struct{ owner *Instance }

func (w *forwarder) fix(o *Object) {
	if x, ok := (*o).(*Instance); ok && x == w.from && x != nil {
		*o = w.to
	}
	w.visit(*o)
}

func (w *forwarder) fixAll(objs []Object) {
	for i := range objs {
		w.fix(&objs[i])
	}
}

func (w *forwarder) visit(o any) {
	if o != nil {
		w.pending = append(w.pending, o)
	}
}

func (w *forwarder) walkRoots() {
	in := w.in
	for _, b := range in.globals {
		w.fix(&b.Value)
	}
	for _, c := range in.classes {
		w.visit(c)
	}
	for _, c := range in.madeClasses {
		w.visit(c)
	}
	w.walkStack(in.active, in.argStack, in.handlers)
	for _, p := range in.sched.procs {
		if p.state != processTerminated || w.from != nil {
			w.visit(p.obj) // a process that ended is the scheduler's no more
		}
		w.walkStack(p.saved.active, p.saved.argStack, p.saved.handlers)
		if p.pending != nil {
			w.visit(p.pending)
		}
	}
	for gen, co := range in.coroutines {
		w.visit(gen)
		w.walkStack(co.active, co.argStack, co.handlers)
	}
	for i := range in.timeouts {
		w.fix(&in.timeouts[i].tag)
		if b := in.timeouts[i].action; b != nil {
			w.visit(b)
		}
	}
	for k := range in.madeValues {
		v := in.madeValues[k]
		w.fix(&v)
		in.madeValues[k] = v
	}
	for _, m := range in.methodObjects {
		w.visit(m)
	}
	w.drain()
}

func (w *forwarder) walkStack(active *frame, args []Object, handlers []*handler) {
	if active != nil {
		w.visit(active)
	}
	w.fixAll(args)
	for _, h := range handlers {
		w.fix(&h.selector)
		w.fix(&h.action)
	}
}

func (w *forwarder) drain() {
	for len(w.pending) > 0 {
		o := w.pending[len(w.pending)-1]
		w.pending = w.pending[:len(w.pending)-1]
		switch v := o.(type) {
		case *Instance:
			w.walkInstance(v)
		case *Block:
			w.visit(v.outer)
			w.visit(v.home)
		case *frame:
			w.walkFrame(v)
		case *Context:
			w.visit(v.f)
		case *Class:
			w.walkClass(v)
		}
	}
}

func (w *forwarder) walkInstance(v *Instance) {
	if v == nil || w.seenInstances[v] {
		return
	}
	w.seenInstances[v] = true
	w.visit(v.class)
	if w.weak && v.class.kind == "ephemeron" && len(v.vars) > 0 {
		w.ephemerons = append(w.ephemerons, v)
		w.fixAll(v.vars[1:])
	} else {
		w.fixAll(v.vars)
	}
	if w.weak && v.class.kind == "weak" {
		w.weakHolders = append(w.weakHolders, v)
	} else {
		w.fixAll(v.indexed)
	}
	if t := v.dict; t != nil {
		rewritten := false
		for i := range t.keys {
			if k, ok := t.keys[i].(*Instance); ok && k == w.from {
				rewritten = true
			}
			w.fix(&t.keys[i])
		}
		w.fixAll(t.values)
		for i, a := range t.assocs {
			if to, ok := w.to.(*Instance); ok && a == w.from {
				t.assocs[i] = to
			}
			if t.assocs[i] != nil {
				w.visit(t.assocs[i])
			}
		}
		if rewritten {
			w.tables = append(w.tables, rehash{owner: v})
		}
	}
}

func (w *forwarder) walkFrame(f *frame) {
	if f == nil || w.seenFrames[f] {
		return
	}
	w.seenFrames[f] = true
	w.fixAll(f.vars)
	w.fix(&f.self)
	for _, g := range []*frame{f.parent, f.home, f.sender} {
		if g != nil {
			w.visit(g)
		}
	}
	if f.closure != nil {
		w.visit(f.closure)
	}
}

func (w *forwarder) walkClass(c *Class) {
	if c == nil || w.seenClasses[c] {
		return
	}
	w.seenClasses[c] = true
	for _, b := range c.classVars {
		w.fix(&b.Value)
	}
	w.fixAll(c.civals)
	for _, m := range c.methods {
		for _, lf := range m.literals {
			w.fixAll(lf.made)
		}
	}
	if c.meta != nil {
		w.visit(c.meta)
	}
}
