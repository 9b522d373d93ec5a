package interp

// streamPrimitives run the kernel's stream methods that a reader or a
// writer sends once per character (atEnd, next, peek, peekFor:, nextPut:)
// without the sends their Smalltalk bodies make: a JSON or CSV test spent
// most of its sends inside them. Each fails, and the method's Smalltalk
// body runs, unless the receiver is an instance of the kernel's own
// ReadStream, WriteStream or ReadWriteStream (a subclass may override what
// the body sends) over a String or an Array of the kernel.
var streamPrimitives = map[string]primitive{
	"streamAtEnd":   primStreamAtEnd,
	"streamNext":    primStreamNext,
	"streamPeek":    primStreamPeek,
	"streamPeekFor": primStreamPeekFor,
	"streamNextPut": primStreamNextPut,
}

// kernelStream answers the stream's position and read limit when the
// receiver is one the primitives may run for.
func (in *Interp) kernelStream(r Object) (s *Instance, position, limit int64, ok bool) {
	s, ok = r.(*Instance)
	if !ok {
		return nil, 0, 0, false
	}
	k := &in.known
	if s.class != k.readStream && s.class != k.writeStream && s.class != k.readWriteStream {
		return nil, 0, 0, false
	}
	position, ok1 := s.vars[in.known.slots.streamPosition].(int64)
	limit, ok2 := s.vars[in.known.slots.streamReadLimit].(int64)
	return s, position, limit, ok1 && ok2
}

// element answers the collection's element at a 1-based index, when the
// collection is a kernel String or Array and the index is in its bounds.
func (in *Interp) element(coll Object, i int64) (Object, bool) {
	c, ok := coll.(*Instance)
	if !ok || i < 1 {
		return nil, false
	}
	switch c.class {
	case in.known.string:
		if i > int64(len(c.str)) {
			return nil, false
		}
		return Char(c.str[i-1]), true
	case in.known.array:
		if i > int64(len(c.indexed)) {
			return nil, false
		}
		return c.indexed[i-1], true
	}
	return nil, false
}

func primStreamAtEnd(in *Interp, r Object, a []Object) (Object, bool) {
	s, ok := r.(*Instance)
	if !ok || len(s.vars) <= max(in.known.slots.streamPosition, in.known.slots.streamReadLimit) {
		return nil, false
	}
	position, ok1 := s.vars[in.known.slots.streamPosition].(int64)
	limit, ok2 := s.vars[in.known.slots.streamReadLimit].(int64)
	return position >= limit, ok1 && ok2
}

// upcoming answers, for a stream the primitives may run for, what next
// would answer (atEnd when nothing is left) and the position before it.
func (in *Interp) upcoming(r Object) (s *Instance, position int64, v Object, atEnd, ok bool) {
	s, position, limit, ok := in.kernelStream(r)
	if !ok {
		return nil, 0, nil, false, false
	}
	if position >= limit {
		return s, position, nil, true, true
	}
	v, ok = in.element(s.vars[in.known.slots.streamCollection], position+1)
	return s, position, v, false, ok
}

func primStreamNext(in *Interp, r Object, a []Object) (Object, bool) {
	s, position, v, atEnd, ok := in.upcoming(r)
	if !ok || atEnd {
		return nil, ok
	}
	s.vars[in.known.slots.streamPosition] = position + 1
	return v, true
}

func primStreamPeek(in *Interp, r Object, a []Object) (Object, bool) {
	_, _, v, _, ok := in.upcoming(r)
	return v, ok
}

// primStreamPeekFor compares in Go only what = compares by identity in the
// kernel (characters); anything else runs the Smalltalk body.
func primStreamPeekFor(in *Interp, r Object, a []Object) (Object, bool) {
	s, position, v, atEnd, ok := in.upcoming(r)
	if !ok || atEnd {
		return false, ok
	}
	c, isChar := v.(Char)
	want, wantChar := a[0].(Char)
	if !isChar || !wantChar {
		return nil, false
	}
	if c != want {
		return false, true
	}
	s.vars[in.known.slots.streamPosition] = position + 1
	return true, true
}

func primStreamNextPut(in *Interp, r Object, a []Object) (Object, bool) {
	s, position, limit, ok := in.kernelStream(r)
	if !ok || s.class == in.known.readStream {
		return nil, false
	}
	c, ok := s.vars[in.known.slots.streamCollection].(*Instance)
	if !ok {
		return nil, false
	}
	x := a[0]
	switch c.class {
	case in.known.string:
		ch, ok := x.(Char)
		if !ok {
			return nil, false
		}
		if position >= int64(len(c.str)) {
			in.chargeRunes(len(c.str) + max(len(c.str), 16))
			c = in.growStream(s, c, func(grown *Instance) int { grown.str = grownRunes(c.str); return len(grown.str) })
		}
		c.str[position] = rune(ch)
	case in.known.array:
		if position >= int64(len(c.indexed)) {
			in.chargeSlots(len(c.indexed) + max(len(c.indexed), 16))
			c = in.growStream(s, c, func(grown *Instance) int { grown.indexed = grownObjects(c.indexed); return len(grown.indexed) })
		}
		c.indexed[position] = x
	default:
		return nil, false
	}
	// one boxed position serves both variables: a SmallInteger past 255
	// costs an allocation each time it is stored
	position++
	boxed := Object(position)
	s.vars[in.known.slots.streamPosition] = boxed
	if position > limit {
		s.vars[in.known.slots.streamReadLimit] = boxed
	}
	return x, true
}

// growStream puts in the stream a new collection of c's class, which fill
// makes a larger copy of c and answers the size of, and keeps writeLimit
// that size.
func (in *Interp) growStream(s, c *Instance, fill func(grown *Instance) int) *Instance {
	grown := in.newInstance(c.class)
	s.vars[in.known.slots.streamWriteLimit] = int64(fill(grown))
	s.vars[in.known.slots.streamCollection] = grown
	return grown
}

// grownRunes and grownObjects copy a collection into a new one larger by
// its size (at least 16), as ArrayedCollection>>grownBy: does: the stream
// then holds a new collection and the one it was made on keeps its size.
func grownRunes(rs []rune) []rune {
	out := make([]rune, len(rs)+max(len(rs), 16))
	copy(out, rs)
	return out
}

func grownObjects(os []Object) []Object {
	out := make([]Object, len(os)+max(len(os), 16))
	copy(out, os)
	return out
}
