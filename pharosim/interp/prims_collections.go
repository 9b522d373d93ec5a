package interp

// collectionPrimitives are the Go primitives of the kernel's collections:
// Array and OrderedCollection storage, sorting, hashed storage.
var collectionPrimitives = map[string]primitive{
	"arrayNew": func(in *Interp, r Object, a []Object) (Object, bool) {
		c, n, ok := newOfSize(r, a[0])
		if !ok {
			return nil, false
		}
		in.chargeSlots(int(n))
		o := in.newInstance(c)
		o.indexed = make([]Object, n)
		return o, true
	},
	"orderedNew": func(in *Interp, r Object, a []Object) (Object, bool) {
		c, n, ok := newOfSize(r, a[0])
		if !ok {
			return nil, false
		}
		o := in.newInstance(c)
		o.indexed = []Object{}
		o.capacity, o.first = int32(n), 1
		return o, true
	},
	"growAdd": primGrowAdd,
	// growAddUnlessOverridden is add: as Pharo's, self addLast: — done in
	// place unless the receiver's class answers addLast: with a method of
	// its own, which the Smalltalk fallback then sends
	"growAddUnlessOverridden": func(in *Interp, r Object, a []Object) (Object, bool) {
		o, ok := asInstance(r)
		if !ok {
			return nil, false
		}
		if o.class != in.known.orderedCollection {
			if m := o.class.lookup("addLast:"); m == nil || m.primitive != "growAdd" {
				return nil, false
			}
		}
		return primGrowAdd(in, r, a)
	},
	"growAddFirst": func(in *Interp, r Object, a []Object) (Object, bool) {
		o, ok := asInstance(r)
		if !ok {
			return nil, false
		}
		in.chargeSlots(1)
		roomAtFirst(o)
		o.indexed = append([]Object{a[0]}, o.indexed...)
		return a[0], true
	},
	"growInsert": func(in *Interp, r Object, a []Object) (Object, bool) {
		o, isInstance := asInstance(r)
		i, ok := a[1].(int64)
		if !isInstance || !ok || i < 1 || i > int64(len(o.indexed))+1 {
			return nil, false
		}
		in.chargeSlots(1)
		// Pharo's insert:before: moves the elements before the new one
		// toward the front, wherever it goes
		roomAtFirst(o)
		o.indexed = append(o.indexed[:i-1], append([]Object{a[0]}, o.indexed[i-1:]...)...)
		return a[0], true
	},
	"growRemoveIndex": func(in *Interp, r Object, a []Object) (Object, bool) {
		o, isInstance := asInstance(r)
		i, ok := a[0].(int64)
		if !isInstance || !ok || i < 1 || i > int64(len(o.indexed)) {
			return nil, false
		}
		v := o.indexed[i-1]
		setOrderedLayout(o)
		o.indexed = append(o.indexed[:i-1:i-1], o.indexed[i:]...)
		return v, true
	},
	"growRemoveFirst": func(in *Interp, r Object, a []Object) (Object, bool) {
		o, isInstance := asInstance(r)
		if !isInstance || len(o.indexed) == 0 {
			return nil, false
		}
		v := o.indexed[0]
		setOrderedLayout(o)
		// Pharo's removeFirst leaves an empty slot at the front
		o.first++
		o.indexed = append(o.indexed[:0:0], o.indexed[1:]...)
		return v, true
	},
	"growRemoveAll": func(in *Interp, r Object, a []Object) (Object, bool) {
		o, ok := asInstance(r)
		if !ok {
			return nil, false
		}
		capacity, _ := orderedLayout(o)
		o.indexed = []Object{}
		o.capacity, o.first = int32(capacity), 1
		return r, true
	},
	"orderedCopyFromTo": func(in *Interp, r Object, a []Object) (Object, bool) {
		// Pharo's copyFrom:to: copies the receiver (its class and its
		// other variables, a SortedCollection's sortBlock) with an array
		// of the elements copied only
		o, isInstance := asInstance(r)
		start, ok1 := a[0].(int64)
		stop, ok2 := a[1].(int64)
		if !isInstance || !ok1 || !ok2 || (stop >= start && (start < 1 || stop > int64(len(o.indexed)))) {
			return nil, false
		}
		in.chargeInstance(o)
		c := &Instance{class: o.class, vars: append([]Object{}, o.vars...), indexed: []Object{}, first: 1}
		if stop >= start {
			c.indexed = append(c.indexed, o.indexed[start-1:stop]...)
		}
		c.capacity = int32(len(c.indexed))
		return c, true
	},
	"orderedCapacity": func(in *Interp, r Object, a []Object) (Object, bool) {
		o, ok := asInstance(r)
		if !ok {
			return nil, false
		}
		capacity, _ := orderedLayout(o)
		return int64(capacity), true
	},
	"orderedGrowAtFirst": onOrdered(growAtFirst),
	"orderedGrowAtLast":  onOrdered(growAtLast),
	"orderedMakeRoomAtFirst": onOrdered(func(o *Instance) {
		if _, first := orderedLayout(o); first == 1 {
			makeRoomAtFirst(o)
		}
	}),
	"orderedMakeRoomAtLast": onOrdered(func(o *Instance) {
		if capacity, first := orderedLayout(o); first+len(o.indexed)-1 == capacity {
			makeRoomAtLast(o)
		}
	}),
	"orderedCompact": onOrdered(func(o *Instance) {
		// Pharo's compact drops the empty slots after the last element,
		// not those before the first
		_, first := orderedLayout(o)
		o.capacity, o.first = int32(first+len(o.indexed)-1), int32(first)
	}),
	"sortBlock":   primSort,
	"tableAt":     primTableAt,
	"tableAtPut":  primTableAtPut,
	"tableRemove": primTableRemove,
	"tableKeys":   primTableKeys,
	"tableValues": primTableValues,
	"tableSize": func(in *Interp, r Object, a []Object) (Object, bool) {
		_, t, ok := in.table(r)
		if !ok {
			return nil, false
		}
		return int64(t.len()), true
	},
	"tableIncludes": func(in *Interp, r Object, a []Object) (Object, bool) {
		_, t, ok := in.table(r)
		if !ok {
			return nil, false
		}
		_, found := t.get(in, a[0])
		return found, true
	},
	// tableAssociationAt answers the Association of the entry of the
	// argument key (the same one every time); fails when there is none.
	"tableAssociationAt": func(in *Interp, r Object, a []Object) (Object, bool) {
		_, t, ok := in.table(r)
		if !ok {
			return nil, false
		}
		assoc, ok := t.association(in, a[0])
		if !ok {
			return nil, false
		}
		return assoc, true
	},
	// tableAddAssociation enters the argument, an Association, as
	// Dictionary>>add: does; fails for anything else.
	"tableAddAssociation": func(in *Interp, r Object, a []Object) (Object, bool) {
		_, t, isTable := in.table(r)
		assoc, ok := asInstance(a[0])
		if !isTable || !ok || !inheritsFrom(assoc.class, "Association") {
			return nil, false
		}
		var key, value Object
		for i, name := range assoc.class.ivarNames {
			switch name {
			case "key":
				key = assoc.vars[i]
			case "value":
				value = assoc.vars[i]
			}
		}
		t.putAssociation(in, assoc, key, value)
		return assoc, true
	},
	// float32Rounded answers the receiver, a number, as the nearest
	// single-precision float: what a Float32Array keeps of it.
	"float32Rounded": func(in *Interp, r Object, a []Object) (Object, bool) {
		f, ok := a[0].(float64)
		if !ok {
			return nil, false
		}
		return float64(float32(f)), true
	},
	// tableCompareByIdentity makes the receiver's hashed storage tell its
	// keys apart with == (IdentityDictionary, IdentitySet, IdentityBag).
	"tableCompareByIdentity": func(in *Interp, r Object, a []Object) (Object, bool) {
		o, t, ok := in.table(r)
		if !ok {
			return nil, false
		}
		o.dict = t.rebuilt(in, keyComparison{identity: true})
		return r, true
	},
	// tableCompareWith: hashBlock and equalBlock (either may be nil, for
	// hash and =) tell the receiver's keys apart (PluggableDictionary,
	// PluggableSet).
	"tableCompareWith": func(in *Interp, r Object, a []Object) (Object, bool) {
		o, t, ok := in.table(r)
		if !ok {
			return nil, false
		}
		o.dict = t.rebuilt(in, keyComparison{hashBlock: a[0], equalBlock: a[1]})
		return r, true
	},
	// tableIsHealthy: every key of the receiver's hashed storage is where
	// its hash now puts it (a key changed after it was added is not).
	"tableIsHealthy": func(in *Interp, r Object, a []Object) (Object, bool) {
		_, t, ok := in.table(r)
		if !ok {
			return nil, false
		}
		for h, b := range t.buckets {
			for _, i := range b {
				if t.live[i] && t.hash(in, t.keys[i]) != h {
					return false, true
				}
			}
		}
		return true, true
	},
	// tableRemoveAll empties the receiver's hashed storage, healthy or not.
	"tableRemoveAll": func(in *Interp, r Object, a []Object) (Object, bool) {
		o, t, ok := in.table(r)
		if !ok {
			return nil, false
		}
		o.dict = newTable().rebuilt(in, t.compare)
		return r, true
	},
	// tableRehash puts every key where its hash now puts it.
	"tableRehash": func(in *Interp, r Object, a []Object) (Object, bool) {
		o, t, ok := in.table(r)
		if !ok {
			return nil, false
		}
		o.dict = t.rebuilt(in, t.compare)
		return r, true
	},
}

// sortLikePharo sorts items as Pharo's merge sort does: each range is
// split at its middle, and a merge takes the left element whenever
// precedes(left, right) answers true. Under a <= block equal elements
// keep their order; under a < block they end up as Pharo leaves them.
func sortLikePharo(items []Object, precedes func(x, y Object) bool) {
	if len(items) < 2 {
		return
	}
	scratch := append([]Object{}, items...)
	mergeSortRange(scratch, items, 0, len(items)-1, precedes)
}

// mergeSortRange sorts src[first..last] into dst[first..last]; both hold
// the same elements on entry, and each half is sorted into src first.
func mergeSortRange(src, dst []Object, first, last int, precedes func(x, y Object) bool) {
	if first == last {
		return
	}
	middle := (first + last) / 2
	mergeSortRange(dst, src, first, middle, precedes)
	mergeSortRange(dst, src, middle+1, last, precedes)
	i, j, out := first, middle+1, first
	for i <= middle && j <= last {
		if precedes(src[i], src[j]) {
			dst[out] = src[i]
			i++
		} else {
			dst[out] = src[j]
			j++
		}
		out++
	}
	out += copy(dst[out:last+1], src[i:middle+1])
	copy(dst[out:last+1], src[j:last+1])
}

// inheritsFrom: c is the class named name or one of its subclasses.
func inheritsFrom(c *Class, name string) bool {
	for ; c != nil; c = c.super {
		if c.name == name {
			return true
		}
	}
	return false
}

func primSort(in *Interp, r Object, a []Object) (Object, bool) {
	o, ok := asInstance(r)
	if !ok || o.str != nil {
		return nil, false
	}
	items := o.indexed
	sortLikePharo(items, func(x, y Object) bool {
		if a[0] == nil {
			return truthy(in.Send(x, "<=", y))
		}
		return truthy(in.Send(a[0], "value:value:", x, y))
	})
	return r, true
}

func primTableAt(in *Interp, r Object, a []Object) (Object, bool) {
	_, t, ok := in.table(r)
	if !ok {
		return nil, false
	}
	return t.get(in, a[0])
}

func primTableAtPut(in *Interp, r Object, a []Object) (Object, bool) {
	_, t, ok := in.table(r)
	if !ok {
		return nil, false
	}
	t.put(in, a[0], a[1])
	return a[1], true
}

func primTableRemove(in *Interp, r Object, a []Object) (Object, bool) {
	_, t, ok := in.table(r)
	if !ok {
		return nil, false
	}
	return t.remove(in, a[0])
}

func primTableKeys(in *Interp, r Object, a []Object) (Object, bool) {
	_, t, ok := in.table(r)
	if !ok {
		return nil, false
	}
	return in.newArray(t.keyList()), true
}

func primTableValues(in *Interp, r Object, a []Object) (Object, bool) {
	_, t, ok := in.table(r)
	if !ok {
		return nil, false
	}
	return in.newArray(t.valueList()), true
}

// newOfSize reads the receiver and argument of new: — a class and a size
// from 0 to 2^26 — or fails the primitive.
func newOfSize(r, size Object) (*Class, int64, bool) {
	n, ok := size.(int64)
	if !ok || n < 0 || n > 1<<26 {
		return nil, 0, false
	}
	c, ok := asClass(r)
	return c, n, ok
}

// hashedStorageVariable answers which of Pharo's HashedCollection
// variables, tally or array, the receiver's variable at index i is: the
// kernel keeps a Set's or a Dictionary's entries in Go (a table), and
// shows them through those two variables to code that reads an object's
// variables by index (a serializer's reader or writer), as Pharo's
// layout has them.
func hashedStorageVariable(o *Instance, i int) (string, bool) {
	if o.class.kind != "hashed" || !inheritsFrom(o.class, "HashedCollection") {
		return "", false
	}
	switch name := o.class.ivarNames[i]; name {
	case "tally", "array":
		return name, true
	}
	return "", false
}

// hashedStorageAt answers the view of a hashed collection's variable:
// tally its size, array a new Array of its entries — a Dictionary's
// Associations (the entries themselves: changing one changes the
// dictionary), a Set's elements — without Pharo's empty slots.
func (in *Interp) hashedStorageAt(o *Instance, variable string) Object {
	_, t, _ := in.table(o)
	if variable == "tally" {
		return int64(t.len())
	}
	keys := t.keyList()
	if !inheritsFrom(o.class, "Dictionary") {
		return in.newArray(keys)
	}
	entries := make([]Object, 0, len(keys))
	for _, k := range keys {
		a, ok := t.association(in, k)
		if !ok {
			return nil
		}
		entries = append(entries, a)
	}
	return in.newArray(entries)
}

// hashedStorageAtPut writes a hashed collection's variable: array
// becomes its entries (each Association of a Dictionary's, each element
// of a Set's, nil slots skipped), hashed again; tally, which the table
// counts itself, takes only its size. False when the value cannot be
// that variable.
func (in *Interp) hashedStorageAtPut(o *Instance, variable string, v Object) bool {
	_, t, _ := in.table(o)
	if variable == "tally" {
		n, ok := v.(int64)
		return ok && n == int64(t.len())
	}
	arr, ok := v.(*Instance)
	if !ok || arr.str != nil {
		return false
	}
	dictionary := inheritsFrom(o.class, "Dictionary")
	out := newTable()
	out.compare = t.compare
	for _, e := range arr.indexed {
		if e == nil {
			continue
		}
		if !dictionary {
			out.put(in, e, e)
			continue
		}
		a, isInstance := e.(*Instance)
		if !isInstance || !inheritsFrom(a.class, "Association") {
			return false
		}
		out.putAssociation(in, a, in.Send(a, "key"), in.Send(a, "value"))
	}
	o.dict = out
	return true
}

// orderedStorageVariable answers which of Pharo's OrderedCollection
// variables, array, firstIndex or lastIndex, the receiver's variable at
// index i is: the kernel keeps an OrderedCollection's elements as its
// indexed slots, and shows them through those variables to code that
// reads an object's variables by index (a serializer's reader or writer),
// as Pharo's layout has them.
func orderedStorageVariable(o *Instance, i int) (string, bool) {
	if !inheritsFrom(o.class, "OrderedCollection") {
		return "", false
	}
	switch name := o.class.ivarNames[i]; name {
	case "array", "firstIndex", "lastIndex":
		return name, true
	}
	return "", false
}

// isOrderedView tells whether an instance variable name of c is one of
// the OrderedCollection variables the kernel only shows by index.
func isOrderedView(c *Class, name string) bool {
	if c.thisClass != nil || !inheritsFrom(c, "OrderedCollection") {
		return false
	}
	switch name {
	case "array", "firstIndex", "lastIndex":
		return true
	}
	return false
}

// orderedStorageAt answers the view of an OrderedCollection's variable:
// array a new Array of its elements, firstIndex 1, lastIndex its size.
func (in *Interp) orderedStorageAt(o *Instance, variable string) Object {
	switch variable {
	case "firstIndex":
		return int64(1)
	case "lastIndex":
		return int64(len(o.indexed))
	}
	return in.newArray(append([]Object{}, o.indexed...))
}

// orderedStorageAtPut writes an OrderedCollection's variable as Pharo's
// layout means it, for a reader that sets array, then firstIndex, then
// lastIndex (the order of the variables): array becomes the elements,
// firstIndex drops those before it, lastIndex those after it. The
// variable's own slot keeps how many firstIndex dropped, so that
// lastIndex, counted in the array's indexes, ends at the right one.
func (in *Interp) orderedStorageAtPut(o *Instance, variable string, v Object) bool {
	firstSlot := ivarIndex(o.class, "firstIndex")
	dropped, _ := o.vars[firstSlot].(int64)
	switch variable {
	case "array":
		arr, ok := v.(*Instance)
		if !ok || arr.str != nil || arr.dict != nil {
			return false
		}
		in.chargeSlots(len(arr.indexed))
		o.indexed = append([]Object{}, arr.indexed...)
		o.vars[firstSlot] = int64(0)
		o.capacity, o.first = int32(len(arr.indexed)), 1
	case "firstIndex":
		first, ok := v.(int64)
		if !ok || first < 1 || first-1 > int64(len(o.indexed)) {
			return false
		}
		setOrderedLayout(o)
		o.indexed = o.indexed[first-1:]
		o.vars[firstSlot] = dropped + first - 1
		o.first = int32(dropped + first)
	case "lastIndex":
		last, ok := v.(int64)
		n := last - dropped
		if !ok || n < 0 || n > int64(len(o.indexed)) {
			return false
		}
		o.indexed = o.indexed[:n]
	}
	return true
}

// orderedLayout answers an OrderedCollection's capacity and the index of
// its first element as Pharo's array would hold them (its array's size and
// its firstIndex); one whose layout nothing set holds its elements from 1
// and has no room to spare.
func orderedLayout(o *Instance) (capacity, first int) {
	if o.first == 0 {
		return len(o.indexed), 1
	}
	return int(o.capacity), int(o.first)
}

// setOrderedLayout fixes the layout orderedLayout answers, before an
// operation moves the first index.
func setOrderedLayout(o *Instance) {
	capacity, first := orderedLayout(o)
	o.capacity, o.first = int32(capacity), int32(first)
}

// onOrdered makes a primitive that changes an OrderedCollection's layout,
// not its elements, and answers the receiver.
func onOrdered(change func(o *Instance)) primitive {
	return func(in *Interp, r Object, a []Object) (Object, bool) {
		o, ok := asInstance(r)
		if !ok {
			return nil, false
		}
		change(o)
		return r, true
	}
}

// growAtLast doubles the capacity, the new slots after the last element,
// as Pharo's OrderedCollection>>growAtLast.
func growAtLast(o *Instance) {
	capacity, first := orderedLayout(o)
	o.capacity, o.first = int32(max(capacity*2, 1)), int32(first)
}

// growAtFirst doubles the capacity, the new slots before the first
// element, as Pharo's OrderedCollection>>growAtFirst.
func growAtFirst(o *Instance) {
	capacity, first := orderedLayout(o)
	grown := max(capacity*2, 1)
	o.capacity, o.first = int32(grown), int32(grown-capacity+first)
}

// makeRoomAtLast makes room after the last element, which ends the array,
// as Pharo's OrderedCollection>>makeRoomAtLast: it grows the array when the
// elements fill half of it or more, else moves them toward the front.
func makeRoomAtLast(o *Instance) {
	capacity, first := orderedLayout(o)
	n, last := len(o.indexed), first+len(o.indexed)-1
	switch {
	case n*2 >= last:
		growAtLast(o)
		return
	case n == 0:
		first = 1
	default:
		first += last/2 - last
	}
	o.capacity, o.first = int32(capacity), int32(first)
}

// makeRoomAtFirst makes room before the first element, which starts the
// array, as Pharo's OrderedCollection>>makeRoomAtFirst: it grows the array
// when the elements fill half of it or more, else moves them toward the
// middle.
func makeRoomAtFirst(o *Instance) {
	capacity, _ := orderedLayout(o)
	n := len(o.indexed)
	switch {
	case n*2 >= capacity:
		growAtFirst(o)
		return
	case n == 0:
		o.capacity, o.first = int32(capacity), int32(capacity+1)
	default:
		o.capacity, o.first = int32(capacity), int32(capacity/2+1)
	}
}

// roomAtFirst takes the slot before the first element for a new one, as
// Pharo's addFirst: and insert:before: do, making room when there is none.
func roomAtFirst(o *Instance) {
	if _, first := orderedLayout(o); first == 1 {
		makeRoomAtFirst(o)
	}
	o.first--
}

// primGrowAdd adds an element at the end of an OrderedCollection, making
// room as Pharo's makeRoomAtLast does.
func primGrowAdd(in *Interp, r Object, a []Object) (Object, bool) {
	o, ok := asInstance(r)
	if !ok {
		return nil, false
	}
	in.chargeSlots(1)
	if capacity, first := orderedLayout(o); first+len(o.indexed)-1 == capacity {
		makeRoomAtLast(o)
	}
	o.indexed = append(o.indexed, a[0])
	return a[0], true
}
