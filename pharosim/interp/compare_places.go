package interp

import (
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/pharo-refactor/refactord/smalltalk"
)

// The places of a recorded input that the generated inputs vary (see
// fromRecorded): the receiver or an argument itself where variations
// know its kind (a number, a string, a collection), else their instance
// variables and those of the objects these hold, one level down (a cart's
// customer's orders).

// slot is a place of an input: the receiver (arg -1) or an argument, and
// the instance variables followed from it (none: the value itself).
type slot struct {
	arg  int
	path []int
}

func (s slot) key() string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(s.arg))
	for _, i := range s.path {
		b.WriteByte('.')
		b.WriteString(strconv.Itoa(i))
	}
	return b.String()
}

// sameAsReceiver stands, among an argument's variations, for the input's
// own receiver: x = x, a merge with itself.
type sameAsReceiver struct{}

// place is a slot of one recorded input with the values it takes in turn.
type place struct {
	seed     *input
	at       slot
	variants []Object
	// keys are the variants' valueKeys, made once
	keys []string
	// far: an instance variable the method does not name
	far bool
}

// keyed fills p.keys.
func (g *generator) keyed(p *place) {
	if p.keys == nil {
		p.keys = make([]string, len(p.variants))
		for i, v := range p.variants {
			p.keys[i] = g.variantKey(v)
		}
	}
}

// variantKey tells which variations of a place are one: equal values,
// and streams that give the same next (a reader's stream at its end,
// whatever it read before).
func (g *generator) variantKey(v Object) string {
	x, ok := v.(*Instance)
	if !ok || x == nil || x.class != g.in.known.readStream {
		return g.valueKey(v)
	}
	_, position, limit, ok := g.in.kernelStream(x)
	if !ok {
		return g.valueKey(v)
	}
	if position >= limit {
		return "a stream at its end"
	}
	if next, ok := g.in.element(x.vars[g.in.known.slots.streamCollection], position+1); ok {
		return "a stream before " + g.valueKey(next)
	}
	return g.valueKey(v)
}

const (
	// maxUnknownIvarValues bounds the values a nil variable takes when
	// nothing the class does with it says of what kind they are.
	maxUnknownIvarValues = 3
	// maxVariedIvars bounds the instance variables varied of one object.
	maxVariedIvars = 8
	// maxObserved bounds the values kept of one instance variable.
	maxObserved = 4
)

// fromRecorded varies the recorded inputs one place at a time. Every
// value a place takes is tried once before any is tried again on another
// recorded input: round r takes the r-th variation of every place of
// every input, the values new to their place first, then the rest.
func (g *generator) fromRecorded(recorded []*input) {
	g.observe(recorded)
	var places []place
	g.places = map[*input][]place{}
	// the places the method names come first: a receiver's variables it
	// reads or writes itself, and the arguments
	mentioned := g.mentioned()
	for _, seed := range recorded {
		ps := g.placesOf(seed)
		for i := range ps {
			at := ps[i].at
			ps[i].far = at.arg < 0 && len(at.path) > 0 && !mentioned[ivarName(seed.rcv, at.path[0])]
		}
		g.places[seed] = ps
		places = append(places, ps...)
	}
	// first, the first recorded inputs with every number in them negated,
	// those in collections or those in the objects' variables (a price
	// and its quantity both negated would make a positive line): a total
	// whose every line is negative, a range below zero
	for _, seed := range recorded[:min(len(recorded), maxNegatedSeeds)] {
		for _, inCollections := range []bool{true, false} {
			rcv, args, ok := g.negatedEverywhere(seed, inCollections)
			if !ok {
				continue
			}
			n := len(g.out)
			more := g.add(rcv, args)
			if len(g.out) > n {
				g.out[n].seed = seed
			}
			if !more {
				return
			}
		}
	}
	var fresh, again []variation
	tried := map[string]bool{}
	var near, far []*place
	for i := range places {
		if p := &places[i]; p.far {
			far = append(far, p)
		} else {
			near = append(near, p)
		}
	}
	for _, tier := range [][]*place{near, far} {
		fresh, again = g.rounds(tier, tried, fresh, again)
	}
	g.again = again
	for i, t := range append(fresh, again...) {
		if !g.addVariation(t, g.max) {
			g.again = again[max(0, i-len(fresh)):]
			return
		}
	}
	g.again = nil
}

// rounds lays out the variations of places in rounds: the r-th value of
// every place, those new to their slot in fresh, the others in again.
func (g *generator) rounds(places []*place, tried map[string]bool, fresh, again []variation) ([]variation, []variation) {
	for r := 0; ; r++ {
		more := false
		for _, p := range places {
			if r >= len(p.variants) {
				continue
			}
			more = true
			v := p.variants[r]
			g.keyed(p)
			k := p.at.key() + "=" + p.keys[r]
			if tried[k] {
				again = append(again, variation{p, v})
				continue
			}
			tried[k] = true
			fresh = append(fresh, variation{p, v})
		}
		if !more {
			return fresh, again
		}
	}
}

// mentioned answers the names the method's source uses.
func (g *generator) mentioned() map[string]bool {
	names := map[string]bool{}
	if g.m.ast == nil {
		return names
	}
	smalltalk.Walk(g.m.ast, func(n smalltalk.Node) bool {
		if v, ok := n.(*smalltalk.Variable); ok {
			names[v.Name] = true
		}
		return true
	})
	return names
}

// ivarName answers the name of an object's instance variable i.
func ivarName(o Object, i int) string {
	if x, ok := o.(*Instance); ok && x != nil && i < len(x.class.ivarNames) {
		return x.class.ivarNames[i]
	}
	return ""
}

// variation is a value at a place of a recorded input.
type variation struct {
	p *place
	v Object
}

// addVariation adds the input a variation makes, remembering where it
// came from; false once there are max inputs.
func (g *generator) addVariation(t variation, max int) bool {
	rcv, args, ok := g.with(t.p.seed, t.p.at, t.v)
	if !ok {
		return true
	}
	n := len(g.out)
	more := g.addBeyond(rcv, args, max)
	if len(g.out) > n {
		g.out[n].seed, g.out[n].at = t.p.seed, t.p
	}
	return more
}

// pairedRanks bounds the variations of a second place tried with each
// variation that took the method elsewhere.
const pairedRanks = 8

// followUps tries again, on the other recorded inputs, the values of the
// places that took the method another way, then varies a second place of
// the variations that took the method elsewhere than their recorded
// input did (another answer, an
// exception: aString = 'add' took the add branch, eleven orders the
// loyalty branch), on a budget of its own: a negative amount in that
// branch. The nearest variations of each second place come first, for
// every such variation in turn.
func (g *generator) followUps(took []*input) []*input {
	budget := 2 * g.max
	from := len(g.out)
	// first the values a place that took another way held on one input,
	// on the other recorded inputs (eleven orders for the cart that has
	// items, not only for the empty one that met them first); that
	// place's other values later
	values, places := map[string]bool{}, map[string]bool{}
	for _, t := range took {
		if t.at == nil {
			continue
		}
		places[t.at.at.key()] = true
		if v, ok := valueAt(t, t.at.at); ok {
			values[t.at.at.key()+"="+g.valueKey(v)] = true
		}
	}
	for _, t := range g.again {
		switch {
		case values[t.p.at.key()+"="+g.valueKey(t.v)]:
			if !g.addVariation(t, budget) {
				return g.out[from:]
			}
		case places[t.p.at.key()]:
			g.rest = append(g.rest, t)
		}
	}
	// then each of them, and the recorded input it varies, with all
	// their numbers moved below zero in order (see belowZero)
	for _, t := range took {
		for _, o := range []*input{t.seed, t} {
			if g.belowTried[o] {
				continue
			}
			g.belowTried[o] = true
			if rcv, args, ok := g.belowZero(o); ok && !g.addBeyond(rcv, args, budget) {
				return g.out[from:]
			}
		}
	}
	// then a second place varied (see secondPlaces)
	for _, p := range g.secondPlaces(took) {
		if rcv, args, ok := g.with(p.from, p.at, p.v); ok && !g.addBeyond(rcv, args, budget) {
			return g.out[from:]
		}
	}
	return g.out[from:]
}

// restOfPlaces answers, once the follow-ups found no other way, the
// other values of the places that took the method another way, on the
// other recorded inputs (five orders, the boundary, for the cart with
// items), on a budget of their own.
func (g *generator) restOfPlaces() []*input {
	from := len(g.out)
	// the values at the method's boundaries first (five orders for
	// "> 5")
	var atBounds, others []variation
	for _, t := range g.rest {
		if g.atBound(t.v) {
			atBounds = append(atBounds, t)
		} else {
			others = append(others, t)
		}
	}
	for _, t := range append(atBounds, others...) {
		if !g.addVariation(t, 2*g.max+g.max/4) {
			break
		}
	}
	g.rest = nil
	return g.out[from:]
}

// atBound tells whether a value is a number, or a collection of a size,
// within one of a number the method compares with.
func (g *generator) atBound(v Object) bool {
	n, ok := toFloat(v)
	if !ok {
		x, isColl := v.(*Instance)
		if !isColl || x == nil || x.str != nil || !inheritsFrom(x.class, "Collection") {
			return false
		}
		size, ok := g.send(x, "size")
		if n, ok = toFloat(size); !ok {
			return false
		}
	}
	for _, l := range g.bounds {
		if f, ok := toFloat(l); ok && math.Abs(f-n) <= 1 {
			return true
		}
	}
	return false
}

// pairedPlace is a variation of a second place of an input that took
// the method another way.
type pairedPlace struct {
	from *input
	at   slot
	v    Object
}

// secondPlaces lays out the variations of a second place of each input
// that took the method another way: the nearest of each place first, for
// every such input in turn.
func (g *generator) secondPlaces(took []*input) []pairedPlace {
	var out []pairedPlace
	second := map[*input]map[int][]Object{}
	for r := 0; r < pairedRanks; r++ {
		more := false
		for _, t := range took {
			if second[t] == nil {
				second[t] = map[int][]Object{}
			}
			ps := g.places[t.seed]
			for qi := range ps {
				q := &ps[qi]
				if q.far || t.at != nil && q.at.key() == t.at.at.key() {
					continue
				}
				vs, ok := second[t][qi]
				if !ok {
					vs = g.secondValues(t, q)
					second[t][qi] = vs
				}
				if r >= len(vs) {
					continue
				}
				more = true
				out = append(out, pairedPlace{t, q.at, vs[r]})
			}
		}
		if !more {
			return out
		}
	}
	return out
}

// secondValues are the values a second place takes in a follow-up: for
// a number its sign flipped, zero and its neighbours first (a negative
// amount in the branch just found), then its variations.
func (g *generator) secondValues(t *input, q *place) []Object {
	var out []Object
	seen := map[string]bool{}
	if v, ok := valueAt(t, q.at); ok && isNumber(v) {
		for _, n := range []Object{numNeg(v), int64(0), numAdd(v, 1), numAdd(v, -1)} {
			if k := g.valueKey(n); !seen[k] {
				seen[k] = true
				out = append(out, n)
			}
		}
	}
	g.keyed(q)
	for i, v := range q.variants {
		if len(out) >= pairedRanks {
			break
		}
		if !seen[q.keys[i]] {
			seen[q.keys[i]] = true
			out = append(out, v)
		}
	}
	return out
}

// valueAt answers what an input holds at a slot.
func valueAt(inp *input, at slot) (Object, bool) {
	v := inp.rcv
	if at.arg >= 0 {
		if at.arg >= len(inp.args) {
			return nil, false
		}
		v = inp.args[at.arg]
	}
	for _, i := range at.path {
		x, ok := v.(*Instance)
		if !ok || x == nil || i >= len(x.vars) {
			return nil, false
		}
		v = x.vars[i]
	}
	return v, true
}

// distinct answers vs without repeated values, in order.
func distinct(g *generator, vs []Object) []Object {
	seen := map[string]bool{}
	var out []Object
	for _, v := range vs {
		if k := g.valueKey(v); !seen[k] {
			seen[k] = true
			out = append(out, v)
		}
	}
	return out
}

func (g *generator) valueKey(v Object) string {
	if _, ok := v.(sameAsReceiver); ok {
		return "self"
	}
	return g.in.keyOf(256, v)
}

// placesOf answers the places of a recorded input and their values.
func (g *generator) placesOf(seed *input) []place {
	near := g.numbersNear(seed.rcv)
	var ps []place
	if vs := g.variants(seed.rcv, false, nil); len(vs) > 0 {
		ps = append(ps, place{seed: seed, at: slot{arg: -1}, variants: vs})
	} else {
		ps = g.ivarPlaces(ps, seed, -1, seed.rcv, nil, near)
	}
	for i, a := range seed.args {
		vs := g.variants(a, true, near)
		vs = append(vs, g.argumentValues(i, a)...)
		if x, ok := a.(*Instance); ok && x != nil && x.class == g.in.classOf(seed.rcv) {
			vs = append(vs, sameAsReceiver{})
		}
		ps = append(ps, place{seed: seed, at: slot{arg: i}, variants: vs})
		ps = g.ivarPlaces(ps, seed, i, a, nil, near)
	}
	return ps
}

// ivarPlaces adds the instance variables of an object that variations do
// not know as a whole, and one level further down.
func (g *generator) ivarPlaces(ps []place, seed *input, arg int, v Object, path []int, near []Object) []place {
	x, ok := v.(*Instance)
	if !ok || x == nil || g.isValue(x) || g.isKernel(x.class) {
		// a stream's or a date's insides are the kernel's: what varies
		// them makes states no program can reach
		return ps
	}
	for i := 0; i < len(x.vars) && i < maxVariedIvars; i++ {
		at := slot{arg, append(append([]int{}, path...), i)}
		own := x.vars[i]
		if fuller := g.fuller(observedAt{x.class, i}, own); fuller != nil {
			// an empty collection grows with the elements another object
			// of the class holds there, not with made-up ones
			own = fuller
		}
		vs := g.variants(own, false, near)
		// what another object of the class holds there, and its
		// variations (the items of another cart, grown)
		held := g.valueKey(x.vars[i])
		for _, o := range g.observed[observedAt{x.class, i}] {
			if g.valueKey(o) == held {
				// what this object holds there already is no variation
				continue
			}
			vs = append(vs, o)
			if o != nil && o != own && !g.isEmptyCollection(o) {
				vs = append(vs, g.variants(o, false, near)...)
			}
		}
		if x.vars[i] == nil {
			vs = append(vs, g.ivarValues(x.class, i)...)
		} else if g.nilAfterNew(x.class, i) {
			// the class's own new leaves it nil (a reader's buffer
			// before anything was peeked)
			vs = append(vs, nil)
		}
		if len(vs) > 0 {
			ps = append(ps, place{seed: seed, at: at, variants: vs})
		}
		if len(path) == 0 {
			ps = g.ivarPlaces(ps, seed, arg, x.vars[i], at.path, near)
		}
	}
	return ps
}

// isKernel tells whether a class is the kernel's, not the image's.
func (g *generator) isKernel(c *Class) bool {
	return kernelClassNames()[c.name]
}

// kernelClassNames are the names of the kernel's classes, read once, as
// the kernel is.
var kernelClassNames = sync.OnceValue(func() map[string]bool {
	names := map[string]bool{}
	if k, err := kernel(); err == nil {
		for _, d := range k.Classes {
			names[d.Name] = true
		}
	}
	return names
})

// nilAfterNew tells whether an instance variable is nil in what the
// class's new makes (asked once per class).
func (g *generator) nilAfterNew(c *Class, i int) bool {
	if g.fresh == nil {
		g.fresh = map[*Class]*Instance{}
	}
	x, asked := g.fresh[c]
	if !asked {
		if v, ok := g.send(c, "new"); ok {
			x, _ = v.(*Instance)
		}
		g.fresh[c] = x
	}
	return x != nil && x.class == c && i < len(x.vars) && x.vars[i] == nil
}

// fuller answers, for an empty collection, the first non-empty one of
// its class observed at the same place; nil otherwise.
func (g *generator) fuller(at observedAt, v Object) Object {
	x, ok := v.(*Instance)
	if !ok || !g.isEmptyCollection(x) {
		return nil
	}
	for _, o := range g.observed[at] {
		y, ok := o.(*Instance)
		if !ok || y == nil || y.class != x.class {
			continue
		}
		if n, ok := g.send(y, "size"); ok && n != int64(0) {
			return y
		}
	}
	return nil
}

// isEmptyCollection tells an empty collection (not a string).
func (g *generator) isEmptyCollection(v Object) bool {
	x, ok := v.(*Instance)
	if !ok || x == nil || x.str != nil || !inheritsFrom(x.class, "Collection") {
		return false
	}
	n, ok := g.send(x, "size")
	return ok && n == int64(0)
}

// maxNegatedSeeds bounds the recorded inputs negated everywhere.
const maxNegatedSeeds = 8

// negatedEverywhere answers a copy of an input whose numbers are negated:
// the receiver and the arguments themselves, and then either those in
// collections (elements, a pair's number) or those in the objects'
// variables (see mapNumbers).
func (g *generator) negatedEverywhere(seed *input, inCollections bool) (Object, []Object, bool) {
	return g.mapNumbers(seed, inCollections, numNeg)
}

// belowZero answers a copy of an input whose numbers, the receiver's and
// the arguments' and those in the objects' variables, are all moved down
// by one amount, so far that all are negative: every comparison between
// them comes out as before (a temperature still below its lower bound),
// but each lies below zero (a bound and a temperature negative at once,
// where negating them would swap the bounds).
func (g *generator) belowZero(seed *input) (Object, []Object, bool) {
	highest, any := 0.0, false
	g.mapNumbers(seed, false, func(o Object) Object {
		if f, ok := toFloat(o); ok && (!any || f > highest) {
			highest, any = f, true
		}
		return o
	})
	if !any || highest < 0 || highest > 1<<50 {
		return nil, nil, false
	}
	by := -int64(math.Floor(highest)) - 1
	return g.mapNumbers(seed, false, func(o Object) Object { return numAdd(o, by) })
}

// mapNumbers answers a copy of an input with f applied to its numbers:
// the receiver and the arguments themselves, and then either those in
// collections (elements, a pair's number) or those in the objects'
// variables, however deep — never inside the kernel's own objects (a
// stream's position, a date's day) nor a hashed collection's keys.
func (g *generator) mapNumbers(seed *input, inCollections bool, f func(Object) Object) (Object, []Object, bool) {
	copied, ok := g.in.newCopier().copyAll(append([]Object{seed.rcv}, seed.args...))
	if !ok {
		return nil, nil, false
	}
	changed := false
	for i, o := range copied {
		if isNumber(o) {
			copied[i], changed = f(o), true
		}
	}
	seen := map[*Instance]bool{}
	queue := append([]Object{}, copied...)
	for n := 0; len(queue) > 0 && n < maxHarvested; n++ {
		x, ok := queue[0].(*Instance)
		queue = queue[1:]
		if !ok || x == nil || seen[x] || x.str != nil || x.dict != nil {
			continue
		}
		seen[x] = true
		pair := x.class.name == "Association"
		if !g.isKernel(x.class) || pair {
			for i, v := range x.vars {
				if isNumber(v) && inCollections == pair {
					x.vars[i], changed = f(v), true
				}
			}
			queue = append(queue, x.vars...)
		}
		if inheritsFrom(x.class, "SequenceableCollection") {
			for i, v := range x.indexed {
				if isNumber(v) && inCollections {
					x.indexed[i], changed = f(v), true
				}
			}
			queue = append(queue, x.indexed...)
		}
	}
	return copied[0], copied[1:], changed
}

// with answers a copy of seed with v at a place.
func (g *generator) with(seed *input, at slot, v Object) (Object, []Object, bool) {
	copied, ok := g.in.newCopier().copyAll(append([]Object{seed.rcv}, seed.args...))
	if !ok {
		return nil, nil, false
	}
	rcv, args := copied[0], copied[1:]
	if _, self := v.(sameAsReceiver); self {
		v = rcv
	}
	root := &rcv
	if at.arg >= 0 {
		root = &args[at.arg]
	}
	if len(at.path) == 0 {
		*root = v
		return rcv, args, true
	}
	x, ok := (*root).(*Instance)
	for _, i := range at.path[:len(at.path)-1] {
		if !ok || x == nil || i >= len(x.vars) {
			return nil, nil, false
		}
		x, ok = x.vars[i].(*Instance)
	}
	last := at.path[len(at.path)-1]
	if !ok || x == nil || last >= len(x.vars) {
		return nil, nil, false
	}
	x.vars[last] = v
	return rcv, args, true
}

// observedAt is an instance variable of a class.
type observedAt struct {
	class *Class
	ivar  int
}

// observe collects the values the instance variables of each class hold
// in the recorded inputs, nil included: what one object of a class holds,
// another may (a cart without a customer, an account at its limit).
func (g *generator) observe(recorded []*input) {
	g.observed = map[observedAt][]Object{}
	keys := map[observedAt]map[string]bool{}
	seen := map[*Instance]bool{}
	var queue []Object
	for _, r := range recorded {
		queue = append(append(queue, r.rcv), r.args...)
	}
	for n := 0; len(queue) > 0 && n < maxHarvested; n++ {
		x, ok := queue[0].(*Instance)
		queue = queue[1:]
		if !ok || x == nil || seen[x] {
			continue
		}
		seen[x] = true
		if g.isValue(x) {
			continue
		}
		for i, v := range x.vars {
			at := observedAt{x.class, i}
			if keys[at] == nil {
				keys[at] = map[string]bool{}
			}
			if k := g.in.keyOf(256, v); !keys[at][k] && len(keys[at]) < maxObserved {
				keys[at][k] = true
				g.observed[at] = append(g.observed[at], v)
			}
			queue = append(queue, v)
		}
	}
}

// numbersNear answers the numbers an object's instance variables hold and
// the sums of two of them: the boundaries a method compares its arguments
// with (a pass mark, a balance plus its limit).
func (g *generator) numbersNear(o Object) []Object {
	x, ok := o.(*Instance)
	if !ok || x == nil || g.isValue(x) {
		return nil
	}
	var nums []Object
	for _, v := range x.vars {
		if isNumber(v) && len(nums) < 4 {
			nums = append(nums, v)
		}
	}
	out := append([]Object{}, nums...)
	for i := range nums {
		for j := i + 1; j < len(nums); j++ {
			if s, ok := g.send(nums[i], "+", nums[j]); ok && isNumber(s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// argumentValues answers the values of an argument's kind, by its name
// and its use, besides the variations of what the tests gave it: where
// the tests gave nil, or the kind is known.
func (g *generator) argumentValues(i int, recorded Object) []Object {
	k, arity := argKind(g.m.ast, i)
	var out []Object
	if k != kindObject || recorded == nil {
		out = g.valuesFor(k, arity)
	}
	// stringOrStream, aNumberOrNil: each kind the name joins
	for _, alt := range alternativeKinds(g.m.ast.Args[i].Name) {
		if alt != k {
			out = append(out, g.valuesFor(alt, arity)...)
		}
	}
	return out
}

// alternativeKinds reads a name that joins kinds with Or.
func alternativeKinds(name string) []kind {
	words := camelWords(name)
	var kinds []kind
	start := 0
	for i := 0; i <= len(words); i++ {
		if i < len(words) && words[i] != "or" {
			continue
		}
		if i > start && (i < len(words) || start > 0) {
			if k, ok := nameKinds[words[i-1]]; ok {
				kinds = append(kinds, k)
			}
		}
		start = i + 1
	}
	return kinds
}

// ivarValues answers, for an instance variable that is nil, the values of
// the kind its class's methods use it as (sent + or do:, assigned a sum).
func (g *generator) ivarValues(c *Class, i int) []Object {
	if i >= len(c.ivarNames) {
		return nil
	}
	name := c.ivarNames[i]
	score := map[kind]int{}
	arity := -1
	for k := c; k != nil && k.name != "Object"; k = k.super {
		for _, m := range k.methods {
			if m.ast == nil {
				m.compileBody()
			}
			if m.ast != nil {
				arity = max(arity, scoreUses(m.ast, name, score))
			}
		}
	}
	best, bestScore := kindObject, 0
	for k, s := range score {
		if s > bestScore || s == bestScore && k < best {
			best, bestScore = k, s
		}
	}
	if best == kindObject {
		// nothing says what it holds: objects of the commonest kinds, so
		// that what compares with it (object = emptyFieldValue) meets one
		var out []Object
		for _, v := range g.valuesFor(kindObject, 1) {
			if v != nil && len(out) < maxUnknownIvarValues {
				out = append(out, v)
			}
		}
		return out
	}
	if arity < 0 {
		arity = 1
	}
	return g.valuesFor(best, arity)
}

// arithmeticSends answer numbers.
var arithmeticSends = setOf("+", "-", "*", "/", "//", "\\\\", "abs", "negated", "squared", "sqrt", "rounded",
	"truncated", "floor", "ceiling", "max:", "min:", "raisedTo:", "rem:", "quo:")

// assignedKind reads what an assignment's value makes a variable: a
// number from arithmetic or a number literal, a string from a string
// literal or a concatenation.
func assignedKind(v smalltalk.Node) (kind, bool) {
	switch n := v.(type) {
	case *smalltalk.Literal:
		switch n.Kind {
		case smalltalk.LitNumber:
			return kindNumber, true
		case smalltalk.LitString:
			return kindString, true
		case smalltalk.LitArray:
			return kindArray, true
		case smalltalk.LitTrue, smalltalk.LitFalse:
			return kindBoolean, true
		}
	case *smalltalk.Message:
		if r, ok := n.Receiver.(*smalltalk.Variable); ok && r.Name == "Date" {
			return kindDate, true
		}
		switch {
		case n.Selector == ",":
			return kindString, true
		case arithmeticSends[n.Selector]:
			return kindNumber, true
		}
	}
	return kindObject, false
}
