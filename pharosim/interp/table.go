package interp

// table is the storage of Dictionary, Set and Bag: keys compared with =
// and hashed with hash, sent to the keys themselves — or compared with ==
// (an IdentityDictionary's), or by a pluggable collection's blocks;
// insertion order is kept, so a walk over it is reproducible.
type table struct {
	buckets map[int64][]int // hash → indexes into keys
	keys    []Object
	values  []Object
	live    []bool
	n       int
	compare keyComparison
	// assocs holds, at the index of an entry a program has had as an
	// Association (associationAt:, associationsDo:, add:), that
	// Association: the entry's value is read and written through it, so
	// that changing the association changes the dictionary, as in Pharo.
	// nil until the first such entry.
	assocs []*Instance
}

// keyComparison is how a table tells its keys apart.
type keyComparison struct {
	identity   bool   // == and identityHash
	hashBlock  Object // a one-argument block answering a key's hash, or nil
	equalBlock Object // a two-argument block answering whether keys are equal, or nil
}

func newTable() *table { return &table{buckets: map[int64][]int{}} }

// rebuilt answers a table holding t's entries, in t's order, told apart
// by compare.
func (t *table) rebuilt(in *Interp, compare keyComparison) *table {
	out := newTable()
	out.compare = compare
	for i, k := range t.keys {
		if !t.live[i] {
			continue
		}
		if t.assocs != nil && t.assocs[i] != nil {
			out.putAssociation(in, t.assocs[i], k, t.valueAt(i))
			continue
		}
		out.put(in, k, t.valueAt(i))
	}
	return out
}

// valueSlot is the index of an Association's value variable.
func valueSlot(a *Instance) int {
	for i, name := range a.class.ivarNames {
		if name == "value" {
			return i
		}
	}
	return -1
}

// valueAt is the value of entry i, through its association if it has one.
func (t *table) valueAt(i int) Object {
	if t.assocs != nil {
		if a := t.assocs[i]; a != nil {
			if slot := valueSlot(a); slot >= 0 {
				return a.vars[slot]
			}
		}
	}
	return t.values[i]
}

// association answers the Association of key k's entry, making it the
// first time; false when there is no such entry.
func (t *table) association(in *Interp, k Object) (*Instance, bool) {
	i, _ := t.find(in, k)
	if i < 0 {
		return nil, false
	}
	if t.assocs == nil {
		t.assocs = make([]*Instance, len(t.keys))
	}
	if t.assocs[i] == nil {
		c := in.classes["Association"]
		if c == nil {
			return nil, false
		}
		a := in.newInstance(c)
		for j, name := range c.ivarNames {
			switch name {
			case "key":
				a.vars[j] = t.keys[i]
			case "value":
				a.vars[j] = t.values[i]
			}
		}
		t.assocs[i] = a
	}
	return t.assocs[i], true
}

// putAssociation enters a (an Association): a new key's entry is a
// itself; an existing key's takes a's value, as Pharo's Dictionary>>add:.
func (t *table) putAssociation(in *Interp, a *Instance, key, value Object) {
	if i, _ := t.find(in, key); i >= 0 {
		t.put(in, key, value)
		return
	}
	t.put(in, key, value)
	i, _ := t.find(in, key)
	if t.assocs == nil {
		t.assocs = make([]*Instance, len(t.keys))
	}
	t.assocs[i] = a
}

func (t *table) hash(in *Interp, k Object) int64 {
	switch {
	case t.compare.identity:
		h, _ := in.identityHash(k).(int64)
		return h
	case t.compare.hashBlock != nil:
		h, _ := in.Send(t.compare.hashBlock, "value:", k).(int64)
		return h
	}
	return in.hashOf(k)
}

func (t *table) same(in *Interp, a, b Object) bool {
	switch {
	case t.compare.identity:
		return identical(a, b)
	case t.compare.equalBlock != nil:
		return truthy(in.Send(t.compare.equalBlock, "value:value:", a, b))
	}
	return in.equal(a, b)
}

func (t *table) len() int { return t.n }

func (t *table) copy() *table {
	// a copy has its own associations, made when asked for (Pharo's
	// Dictionary>>postCopy copies them)
	c := &table{buckets: map[int64][]int{}, keys: append([]Object{}, t.keys...), values: make([]Object, len(t.values)),
		live: append([]bool{}, t.live...), n: t.n, compare: t.compare}
	for i := range t.values {
		c.values[i] = t.valueAt(i)
	}
	for h, b := range t.buckets {
		c.buckets[h] = append([]int{}, b...)
	}
	return c
}

func (in *Interp) hashOf(k Object) int64 {
	switch v := k.(type) {
	case int64:
		return v
	case Symbol:
		return hashString(string(v))
	case Char:
		return int64(v)
	case nil:
		return 3
	}
	h, _ := in.Send(k, "hash").(int64)
	return h
}

func (in *Interp) equal(a, b Object) bool {
	switch x := a.(type) {
	case int64:
		if y, ok := b.(int64); ok {
			return x == y
		}
	case Symbol:
		if y, ok := b.(Symbol); ok {
			return x == y
		}
	}
	return truthy(in.Send(a, "=", b))
}

func (t *table) find(in *Interp, k Object) (int, int64) {
	h := t.hash(in, k)
	for _, i := range t.buckets[h] {
		if t.live[i] && t.same(in, t.keys[i], k) {
			return i, h
		}
	}
	return -1, h
}

func (t *table) get(in *Interp, k Object) (Object, bool) {
	i, _ := t.find(in, k)
	if i < 0 {
		return nil, false
	}
	return t.valueAt(i), true
}

func (t *table) put(in *Interp, k, v Object) {
	i, h := t.find(in, k)
	if i >= 0 {
		t.values[i] = v
		if t.assocs != nil {
			if a := t.assocs[i]; a != nil {
				if slot := valueSlot(a); slot >= 0 {
					a.vars[slot] = v
				}
			}
		}
		return
	}
	in.charge(entryBytes)
	t.keys = append(t.keys, k)
	t.values = append(t.values, v)
	t.live = append(t.live, true)
	if t.assocs != nil {
		t.assocs = append(t.assocs, nil)
	}
	t.buckets[h] = append(t.buckets[h], len(t.keys)-1)
	t.n++
}

func (t *table) remove(in *Interp, k Object) (Object, bool) {
	i, h := t.find(in, k)
	if i < 0 {
		return nil, false
	}
	t.live[i] = false
	b := t.buckets[h]
	for j, x := range b {
		if x == i {
			t.buckets[h] = append(b[:j:j], b[j+1:]...)
			break
		}
	}
	t.n--
	v := t.valueAt(i)
	t.keys[i], t.values[i] = nil, nil
	if t.assocs != nil {
		t.assocs[i] = nil
	}
	if t.n == 0 {
		compare := t.compare
		*t = *newTable()
		t.compare = compare
	}
	return v, true
}

func (t *table) keyList() []Object {
	out := make([]Object, 0, t.n)
	for i, k := range t.keys {
		if t.live[i] {
			out = append(out, k)
		}
	}
	return out
}

func (t *table) valueList() []Object {
	out := make([]Object, 0, t.n)
	for i := range t.values {
		if t.live[i] {
			out = append(out, t.valueAt(i))
		}
	}
	return out
}

// table answers r's hashed storage, made empty on first use; ok is false
// when r is no instance to hold one.
func (in *Interp) table(r Object) (o *Instance, t *table, ok bool) {
	o, ok = asInstance(r)
	if !ok {
		return nil, nil, false
	}
	if o.dict == nil {
		o.dict = newTable()
	}
	return o, o.dict, true
}
