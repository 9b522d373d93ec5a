package interp

import (
	"math"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// What a comparison of two methods (compare.go) needs of object graphs,
// done in Go so that no Smalltalk runs while it happens: copying an input
// as it was when a test reached the method, telling inputs apart, and
// telling whether two runs left their objects in the same state.

// maxCopied bounds the instances one copy makes: an input that reaches
// more (a receiver holding a whole database) is not recorded.
const maxCopied = 200_000

// copier copies object graphs as veryDeepCopy does: every instance
// reachable is copied once, so sharing and cycles are kept; classes,
// blocks and contexts are shared, immediates are values. A copy keeps the
// identity hash of its original, so a hashed collection's buckets stay
// right without sending hash, and two copies of one input hash alike.
type copier struct {
	in   *Interp
	seen map[*Instance]*Instance
	todo []*Instance
	made int
}

func (in *Interp) newCopier() *copier {
	return &copier{in: in, seen: map[*Instance]*Instance{}}
}

// errTooBig ends a copy that makes more than maxCopied instances.
type errTooBig struct{}

// copyAll copies objects into one graph (what two of them share, their
// copies share); false when they reach too many instances.
func (cp *copier) copyAll(objs []Object) (out []Object, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, big := r.(errTooBig); !big {
				panic(r)
			}
			out, ok = nil, false
		}
	}()
	out = make([]Object, len(objs))
	for i, o := range objs {
		out[i] = cp.value(o)
	}
	cp.drain()
	return out, true
}

// copyOne copies one object (see copyAll).
func (cp *copier) copyOne(o Object) (Object, bool) {
	out, ok := cp.copyAll([]Object{o})
	if !ok {
		return nil, false
	}
	return out[0], true
}

// value answers the copy of o, making a shell for an instance not met
// yet (filled by drain).
func (cp *copier) value(o Object) Object {
	x, ok := o.(*Instance)
	if !ok || x == nil {
		return o
	}
	return cp.shell(x)
}

func (cp *copier) shell(x *Instance) *Instance {
	if c, ok := cp.seen[x]; ok {
		return c
	}
	cp.made++
	if cp.made > maxCopied {
		panic(errTooBig{})
	}
	c := &Instance{class: x.class}
	cp.seen[x] = c
	if h, ok := cp.in.hashes[x]; ok {
		cp.in.hashes[c] = h
	}
	cp.todo = append(cp.todo, x)
	return c
}

// drain fills the shells made so far, making shells for what they hold:
// a work list, not recursion, so a long chain of objects copies in
// constant Go stack.
func (cp *copier) drain() {
	for len(cp.todo) > 0 {
		x := cp.todo[len(cp.todo)-1]
		cp.todo = cp.todo[:len(cp.todo)-1]
		c := cp.seen[x]
		c.vars = make([]Object, len(x.vars))
		for i, v := range x.vars {
			c.vars[i] = cp.value(v)
		}
		if x.indexed != nil {
			c.indexed = make([]Object, len(x.indexed))
			for i, v := range x.indexed {
				c.indexed[i] = cp.value(v)
			}
		}
		if x.str != nil {
			c.str = append([]rune{}, x.str...)
		}
		if x.dict != nil {
			c.dict = cp.table(x.dict)
		}
	}
}

// table copies a hashed collection's storage, its keys and values copied:
// the buckets stay right, since a copied key hashes as its original.
func (cp *copier) table(t *table) *table {
	c := &table{buckets: make(map[int64][]int, len(t.buckets)), keys: make([]Object, len(t.keys)),
		values: make([]Object, len(t.values)), live: append([]bool{}, t.live...), n: t.n, compare: t.compare}
	for i, k := range t.keys {
		c.keys[i] = cp.value(k)
	}
	for i, v := range t.values {
		c.values[i] = cp.value(v)
	}
	for h, b := range t.buckets {
		c.buckets[h] = append([]int{}, b...)
	}
	if t.assocs != nil {
		c.assocs = make([]*Instance, len(t.assocs))
		for i, a := range t.assocs {
			if a != nil {
				c.assocs[i] = cp.shell(a)
			}
		}
	}
	return c
}

// keyOf writes objects as one text that tells inputs apart: the classes
// and contents of the whole graph (sharing and cycles as back
// references), cut at limit bytes.
func (in *Interp) keyOf(limit int, objs ...Object) string {
	k := keyWriter{in: in, limit: limit, seen: map[*Instance]int{}}
	for _, o := range objs {
		k.write(o, 0)
		k.b.WriteByte(';')
	}
	return k.b.String()
}

type keyWriter struct {
	in    *Interp
	b     strings.Builder
	limit int
	seen  map[*Instance]int
}

// maxKeyDepth bounds how deep keyOf looks into a graph.
const maxKeyDepth = 64

func (k *keyWriter) write(o Object, depth int) {
	if k.b.Len() > k.limit {
		return
	}
	switch v := o.(type) {
	case nil:
		k.b.WriteString("nil")
	case bool:
		k.b.WriteString(strconv.FormatBool(v))
	case int64:
		k.b.WriteString(strconv.FormatInt(v, 10))
	case *big.Int:
		k.b.WriteString("L" + v.String())
	case *big.Rat:
		k.b.WriteString("F" + v.String())
	case float64:
		k.b.WriteString("D" + strconv.FormatUint(math.Float64bits(v), 16))
	case Char:
		k.b.WriteString("$" + string(rune(v)))
	case Symbol:
		k.b.WriteString("#" + strconv.Quote(string(v)))
	case *Class:
		k.b.WriteString("C" + v.name)
	case *Block:
		k.b.WriteString("[]")
	case *Instance:
		if n, ok := k.seen[v]; ok {
			k.b.WriteString("@" + strconv.Itoa(n))
			return
		}
		k.seen[v] = len(k.seen)
		k.b.WriteString(v.class.name + "{")
		if depth >= maxKeyDepth {
			k.b.WriteString("…}")
			return
		}
		for _, x := range v.vars {
			k.write(x, depth+1)
			k.b.WriteByte(' ')
		}
		if v.indexed != nil {
			k.b.WriteString("|")
			for _, x := range v.indexed {
				k.write(x, depth+1)
				k.b.WriteByte(' ')
			}
		}
		if v.str != nil {
			k.b.WriteString("|" + strconv.Quote(string(v.str)))
		}
		if v.dict != nil {
			k.b.WriteString("|")
			for i := range v.dict.keys {
				if v.dict.live[i] {
					k.write(v.dict.keys[i], depth+1)
					k.b.WriteString("->")
					k.write(v.dict.valueAt(i), depth+1)
					k.b.WriteByte(' ')
				}
			}
		}
		k.b.WriteString("}")
	default:
		k.b.WriteString("?")
	}
}

// pathStep is where in a graph a walk is: the step from its parent.
type pathStep struct {
	parent *pathStep
	label  string
	a, b   Object // what each graph holds there
}

// steps answers the path's steps from the root's first on.
func (p *pathStep) steps() []*pathStep {
	var out []*pathStep
	for s := p; s != nil; s = s.parent {
		out = append(out, s)
	}
	slices.Reverse(out)
	return out
}

// String answers the path from the root, e.g. "items at: 2".
func (p *pathStep) String() string {
	var parts []string
	for _, s := range p.steps() {
		parts = append(parts, s.label)
	}
	return strings.Join(parts, " ")
}

// stateDiff is where two graphs first differ: the path from their roots,
// and the two objects found there.
type stateDiff struct {
	at   *pathStep
	a, b Object
	// shared is set when the graphs share objects differently (one
	// object in one, two equal ones in the other)
	shared bool
}

// sameState walks two object graphs in step and answers where they first
// differ, or nil: the same classes, the same named variables, indexed
// slots and characters, numbers by value, hashed collections by their
// contents (in any order), and each object of one met as the same single
// object of the other (a graph that shares one collection in two places
// differs from one holding two equal collections). Blocks compare by
// their argument count, classes by identity.
func (in *Interp) sameState(a, b Object) *stateDiff {
	w := stateWalk{in: in, fwd: map[*Instance]*Instance{}, back: map[*Instance]*Instance{}}
	return w.walk(a, b, nil)
}

type stateWalk struct {
	in        *Interp
	fwd, back map[*Instance]*Instance
}

type statePair struct {
	a, b Object
	at   *pathStep
}

func (w *stateWalk) walk(a, b Object, at *pathStep) *stateDiff {
	stack := []statePair{{a, b, at}}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		x, xok := p.a.(*Instance)
		y, yok := p.b.(*Instance)
		if !xok || !yok || x == nil || y == nil {
			if !sameValue(p.a, p.b) {
				return &stateDiff{at: p.at, a: p.a, b: p.b}
			}
			continue
		}
		if m, ok := w.fwd[x]; ok {
			if m != y {
				return &stateDiff{at: p.at, a: p.a, b: p.b, shared: true}
			}
			continue
		}
		if m, ok := w.back[y]; ok && m != x {
			return &stateDiff{at: p.at, a: p.a, b: p.b, shared: true}
		}
		if x.class != y.class || len(x.vars) != len(y.vars) || (x.indexed == nil) != (y.indexed == nil) ||
			len(x.indexed) != len(y.indexed) || (x.str == nil) != (y.str == nil) || string(x.str) != string(y.str) ||
			(x.dict == nil) != (y.dict == nil) {
			return &stateDiff{at: p.at, a: p.a, b: p.b}
		}
		w.fwd[x], w.back[y] = y, x
		if x.dict != nil {
			pairs, ok := w.in.matchEntries(x.dict, y.dict)
			if !ok {
				return &stateDiff{at: p.at, a: p.a, b: p.b}
			}
			for _, e := range pairs {
				stack = append(stack, statePair{e.a, e.b, &pathStep{p.at, "at: " + shortKey(e.key), e.a, e.b}})
			}
		}
		for i := len(x.indexed) - 1; i >= 0; i-- {
			stack = append(stack, statePair{x.indexed[i], y.indexed[i], &pathStep{p.at, "at: " + strconv.Itoa(i+1), x.indexed[i], y.indexed[i]}})
		}
		for i := len(x.vars) - 1; i >= 0; i-- {
			label := "instVarAt: " + strconv.Itoa(i+1)
			if i < len(x.class.ivarNames) {
				label = x.class.ivarNames[i]
			}
			step := &pathStep{p.at, label, x.vars[i], y.vars[i]}
			if label == "orderedKeys" && inheritsFrom(x.class, "OrderedDictionary") {
				if pairs, ok := w.usedSlots(x.vars[i], y.vars[i], step); ok {
					stack = append(stack, pairs...)
					continue
				}
			}
			stack = append(stack, statePair{x.vars[i], y.vars[i], step})
		}
	}
	return nil
}

// usedSlots pairs the slots of two OrderedDictionaries' orderedKeys up to
// the last key either holds: the nils past it are room to spare, which
// new: and growth size differently in two runs that hold the same keys.
// False when they are not two Arrays met for the first time.
func (w *stateWalk) usedSlots(a, b Object, at *pathStep) ([]statePair, bool) {
	x, xok := a.(*Instance)
	y, yok := b.(*Instance)
	if !xok || !yok || x == nil || y == nil || x.class != w.in.known.array || y.class != w.in.known.array {
		return nil, false
	}
	if _, seen := w.fwd[x]; seen {
		return nil, false
	}
	if _, seen := w.back[y]; seen {
		return nil, false
	}
	used := func(slots []Object) int {
		n := len(slots)
		for n > 0 && slots[n-1] == nil {
			n--
		}
		return n
	}
	n := max(used(x.indexed), used(y.indexed))
	if n > len(x.indexed) || n > len(y.indexed) {
		return []statePair{{a, b, at}}, true
	}
	w.fwd[x], w.back[y] = y, x
	var out []statePair
	for i := n - 1; i >= 0; i-- {
		out = append(out, statePair{x.indexed[i], y.indexed[i], &pathStep{at, "at: " + strconv.Itoa(i+1), x.indexed[i], y.indexed[i]}})
	}
	return out, true
}

// entryPair is a value of each of two tables, under keys found equal.
type entryPair struct {
	key, a, b Object
}

// matchEntries pairs the entries of two hashed collections by their keys
// (compared as sameState compares, each pair on its own) and answers their
// values to compare; false when the keys differ. The entry at the same
// place in the other is tried first (runs of one method add in one
// order), then the entries whose keys read alike (keyOf); a small table is
// searched whole.
func (in *Interp) matchEntries(x, y *table) ([]entryPair, bool) {
	if x.n != y.n {
		return nil, false
	}
	var ys []int
	for j := range y.keys {
		if y.live[j] {
			ys = append(ys, j)
		}
	}
	used := make([]bool, len(ys))
	var byKey map[string][]int
	matches := func(i, j int) bool {
		return !used[j] && in.sameState(x.keys[i], y.keys[ys[j]]) == nil
	}
	var out []entryPair
	pos := 0
	for i := range x.keys {
		if !x.live[i] {
			continue
		}
		found := -1
		if pos < len(ys) && matches(i, pos) {
			found = pos
		}
		if found < 0 {
			if byKey == nil {
				byKey = map[string][]int{}
				for j, yi := range ys {
					k := in.keyOf(matchKeyLimit, y.keys[yi])
					byKey[k] = append(byKey[k], j)
				}
			}
			for _, j := range byKey[in.keyOf(matchKeyLimit, x.keys[i])] {
				if matches(i, j) {
					found = j
					break
				}
			}
		}
		for j := 0; found < 0 && j < len(ys) && len(ys) <= maxSearchedEntries; j++ {
			if matches(i, j) {
				found = j
			}
		}
		if found < 0 {
			return nil, false
		}
		used[found] = true
		out = append(out, entryPair{key: x.keys[i], a: x.valueAt(i), b: y.valueAt(ys[found])})
		pos++
	}
	return out, true
}

const (
	// matchKeyLimit bounds the text a key is looked up by.
	matchKeyLimit = 512
	// maxSearchedEntries bounds the tables searched whole for a key.
	maxSearchedEntries = 256
)

// sameValue compares what is not an instance: numbers by value (a NaN
// equals a NaN, as a state), the rest by identity; blocks by their
// argument count.
func sameValue(a, b Object) bool {
	switch x := a.(type) {
	case *big.Int:
		y, ok := b.(*big.Int)
		return ok && x.Cmp(y) == 0
	case *big.Rat:
		y, ok := b.(*big.Rat)
		return ok && x.Cmp(y) == 0
	case float64:
		y, ok := b.(float64)
		return ok && (x == y || math.IsNaN(x) && math.IsNaN(y))
	case *Block:
		y, ok := b.(*Block)
		return ok && x.code.nargs == y.code.nargs
	case *Context:
		_, ok := b.(*Context)
		return ok
	case *Instance:
		return false // one is an instance and the other is not
	}
	if _, ok := b.(*Instance); ok {
		return false
	}
	return a == b
}

// shortKey prints a key of a hashed collection for a path, as Smalltalk
// would write it where it can.
func shortKey(k Object) string {
	switch v := k.(type) {
	case nil:
		return "nil"
	case bool:
		return strconv.FormatBool(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case *big.Int:
		return v.String()
	case Symbol:
		return "#" + string(v)
	case Char:
		return "$" + string(rune(v))
	case *Class:
		return v.name
	case *Instance:
		if v.str != nil {
			s := string(v.str)
			if len(s) > 40 {
				s = s[:40] + "…"
			}
			return "'" + strings.ReplaceAll(s, "'", "''") + "'"
		}
		return article(v.class.name)
	}
	return "…"
}

// article names an object by its class, as printOn: does: "a Foo", "an
// Order".
func article(class string) string {
	if class != "" && strings.ContainsRune("AEIOU", rune(class[0])) {
		return "an " + class
	}
	return "a " + class
}

// world is what a run of a method may change outside its receiver and
// arguments: every class variable and class-side instance variable, the
// globals, the counter of identity hashes. Each run of a comparison starts
// from the same world (a fresh copy of it), so Random new, a class's
// counter and a cache read the same on both sides of an input.
type world struct {
	nextHash int64
	bindings []*Binding // class variables and globals, in a fixed order
	values   []Object   // their values, copied when taken
	classes  []*Class   // every class and metaclass with class-side variables
	civals   [][]Object // their values, copied when taken
	globals  map[string]*Binding
	version  int // the interpreter's globalsVersion when taken
	// mutable are the indexes, in values then civals laid end to end, of
	// the objects a run can change in place: only these are copied again
	// for each run (a class or a number is put back as it is)
	mutable []int
	// live is set once a restore put a copy of the snapshot in place, and
	// cleared when the globals changed: before that the world in place is
	// the one the snapshot was taken from, not a copy of it
	live *world
}

// maxIntactCheck bounds the objects worldIntact compares.
const maxIntactCheck = 2000

// worldIntact tells whether the world in place is the snapshot's: the
// same globals, every variable holding the snapshot's object or, for what
// is copied for each run, an object still equal to it (compared as a
// tree, within a bound; a hashed collection or anything larger counts as
// changed).
func (in *Interp) worldIntact(w *world) bool {
	if in.globalsVersion != w.version || w.live == nil {
		w.live = nil
		return false
	}
	budget := maxIntactCheck
	j := 0
	for i, b := range w.bindings {
		if j < len(w.mutable) && w.mutable[j] == i {
			if !sameTree(b.Value, w.values[i], &budget) {
				return false
			}
			j++
			continue
		}
		if b.Value != w.values[i] {
			return false
		}
	}
	i := len(w.bindings)
	for ci, c := range w.classes {
		for k, v := range w.civals[ci] {
			live := c.civals[k]
			if j < len(w.mutable) && w.mutable[j] == i {
				if !sameTree(live, v, &budget) {
					return false
				}
				j++
			} else if live != v {
				return false
			}
			i++
		}
	}
	return true
}

// sameTree compares two objects as trees of instances: the same classes,
// variables, indexed slots and characters, numbers by value, the rest by
// identity; false past the budget, for a hashed collection, or where an
// object is its own original (a run may have put the snapshot's object in
// place).
func sameTree(a, b Object, budget *int) bool {
	x, xok := a.(*Instance)
	y, yok := b.(*Instance)
	if !xok || !yok || x == nil || y == nil {
		return sameValue(a, b)
	}
	*budget--
	if *budget < 0 || x == y || x.dict != nil || y.dict != nil || x.class != y.class ||
		len(x.vars) != len(y.vars) || len(x.indexed) != len(y.indexed) || (x.str == nil) != (y.str == nil) || string(x.str) != string(y.str) {
		return false
	}
	for i := range x.vars {
		if !sameTree(x.vars[i], y.vars[i], budget) {
			return false
		}
	}
	for i := range x.indexed {
		if !sameTree(x.indexed[i], y.indexed[i], budget) {
			return false
		}
	}
	return true
}

// valueAt answers the i-th value of the snapshot, the bindings' then the
// class-side variables', laid end to end.
func (w *world) valueAt(i int) Object {
	if i < len(w.values) {
		return w.values[i]
	}
	i -= len(w.values)
	for _, vs := range w.civals {
		if i < len(vs) {
			return vs[i]
		}
		i -= len(vs)
	}
	return nil
}

// takeWorld snapshots the world; false when it holds too many objects to
// copy.
func (in *Interp) takeWorld() (*world, bool) {
	w := &world{nextHash: in.nextHash, globals: map[string]*Binding{}, version: in.globalsVersion}
	names := make([]string, 0, len(in.classes))
	for n := range in.classes {
		names = append(names, n)
	}
	sort.Strings(names)
	seen := map[*Binding]bool{}
	add := func(b *Binding) {
		if !seen[b] {
			seen[b] = true
			w.bindings = append(w.bindings, b)
		}
	}
	for _, n := range names {
		c := in.classes[n]
		vars := make([]string, 0, len(c.classVars))
		for v := range c.classVars {
			vars = append(vars, v)
		}
		sort.Strings(vars)
		for _, v := range vars {
			add(c.classVars[v])
		}
		if len(c.civals) > 0 {
			w.classes = append(w.classes, c)
		}
	}
	globals := make([]string, 0, len(in.globals))
	for n, b := range in.globals {
		w.globals[n] = b
		globals = append(globals, n)
	}
	sort.Strings(globals)
	for _, n := range globals {
		add(in.globals[n])
	}
	objs := make([]Object, 0, len(w.bindings))
	for _, b := range w.bindings {
		objs = append(objs, b.Value)
	}
	for _, c := range w.classes {
		objs = append(objs, c.civals...)
	}
	copied, ok := in.newCopier().copyAll(objs)
	if !ok {
		return nil, false
	}
	for i, o := range copied {
		if _, ok := o.(*Instance); ok {
			w.mutable = append(w.mutable, i)
		}
	}
	w.values = copied[:len(w.bindings)]
	rest := copied[len(w.bindings):]
	for _, c := range w.classes {
		w.civals = append(w.civals, rest[:len(c.civals)])
		rest = rest[len(c.civals):]
	}
	return w, true
}

// restoreWorld puts a fresh copy of the snapshot in place — unless the
// world in place is still the snapshot's (the last run changed nothing of
// it, as most do not): then only the hash counter goes back.
func (in *Interp) restoreWorld(w *world) {
	if in.worldIntact(w) {
		in.nextHash = w.nextHash
		return
	}
	var copied []Object
	if len(w.mutable) > 0 {
		// one copier for all: objects shared between variables stay shared
		fresh := make([]Object, len(w.mutable))
		for j, i := range w.mutable {
			fresh[j] = w.valueAt(i)
		}
		copied, _ = in.newCopier().copyAll(fresh) // it copied once: it copies again
	}
	j := 0
	next := func(i int, v Object) Object {
		if j < len(w.mutable) && w.mutable[j] == i {
			v = copied[j]
			j++
		}
		return v
	}
	for i, b := range w.bindings {
		// most bindings hold a class no run changes: a store only where
		// it differs spares the collector's write barrier on each
		if v := next(i, w.values[i]); b.Value != v {
			b.Value = v
		}
	}
	i := len(w.bindings)
	for ci, c := range w.classes {
		for k, v := range w.civals[ci] {
			if v = next(i, v); c.civals[k] != v {
				c.civals[k] = v
			}
			i++
		}
	}
	w.live = w // the world in place is a fresh copy of the snapshot
	if in.globalsVersion != w.version {
		for n := range in.globals {
			if _, ok := w.globals[n]; !ok {
				delete(in.globals, n)
			}
		}
		for n, b := range w.globals {
			in.globals[n] = b
		}
		in.globalsVersion = w.version
	}
	in.nextHash = w.nextHash
}
