package interp

import (
	"strconv"
	"strings"

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
}

const (
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
	for _, seed := range recorded {
		places = append(places, g.placesOf(seed)...)
	}
	type try struct {
		p *place
		v Object
	}
	var fresh, again []try
	tried := map[string]bool{}
	for r := 0; ; r++ {
		more := false
		for i := range places {
			p := &places[i]
			if r >= len(p.variants) {
				continue
			}
			more = true
			v := p.variants[r]
			k := p.at.key() + "=" + g.valueKey(v)
			if tried[k] {
				again = append(again, try{p, v})
				continue
			}
			tried[k] = true
			fresh = append(fresh, try{p, v})
		}
		if !more {
			break
		}
	}
	for _, t := range append(fresh, again...) {
		rcv, args, ok := g.with(t.p.seed, t.p.at, t.v)
		if !ok {
			continue
		}
		if !g.add(rcv, args) {
			return
		}
	}
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
		ps = append(ps, place{seed, slot{arg: -1}, vs})
	} else {
		ps = g.ivarPlaces(ps, seed, -1, seed.rcv, nil, near)
	}
	for i, a := range seed.args {
		vs := g.variants(a, true, near)
		vs = append(vs, g.argumentValues(i, a)...)
		if x, ok := a.(*Instance); ok && x != nil && x.class == g.in.classOf(seed.rcv) {
			vs = append(vs, sameAsReceiver{})
		}
		ps = append(ps, place{seed, slot{arg: i}, vs})
		ps = g.ivarPlaces(ps, seed, i, a, nil, near)
	}
	return ps
}

// ivarPlaces adds the instance variables of an object that variations do
// not know as a whole, and one level further down.
func (g *generator) ivarPlaces(ps []place, seed *input, arg int, v Object, path []int, near []Object) []place {
	x, ok := v.(*Instance)
	if !ok || x == nil || g.isValue(x) {
		return ps
	}
	for i := 0; i < len(x.vars) && i < maxVariedIvars; i++ {
		at := slot{arg, append(append([]int{}, path...), i)}
		vs := g.variants(x.vars[i], false, near)
		// what another object of the class holds there, and its
		// variations (the items of another cart, grown)
		for _, o := range g.observed[observedAt{x.class, i}] {
			vs = append(vs, o)
			if o != nil && g.valueKey(o) != g.valueKey(x.vars[i]) {
				vs = append(vs, g.variants(o, false, near)...)
			}
		}
		if x.vars[i] == nil {
			vs = append(vs, g.ivarValues(x.class, i)...)
		}
		if len(vs) > 0 {
			ps = append(ps, place{seed, at, vs})
		}
		if len(path) == 0 {
			ps = g.ivarPlaces(ps, seed, arg, x.vars[i], at.path, near)
		}
	}
	return ps
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
	if k == kindObject && recorded != nil {
		return nil
	}
	return g.valuesFor(k, arity)
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
		return nil
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
		switch {
		case n.Selector == ",":
			return kindString, true
		case arithmeticSends[n.Selector]:
			return kindNumber, true
		}
	}
	return kindObject, false
}
