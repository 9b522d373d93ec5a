package interp

import (
	"hash/fnv"
	"math/big"
	"math/rand/v2"
	"sort"
	"strings"
	"unicode"

	"github.com/pharo-refactor/refactord/smalltalk"
)

// The inputs of a comparison (compare.go): those the tests gave the method
// (recorded while they ran), and variations of them, or, where no test
// reaches it, inputs made from its literals and from how its arguments are
// named and used.

// input is one receiver and its arguments, as they were when the method
// was entered; runs take copies of it.
type input struct {
	rcv      Object
	args     []Object
	key      string
	recorded bool
	// seed and at: a variation of a recorded input at one place (at nil:
	// at all its numbers, see negatedEverywhere)
	seed *input
	at   *place
	// world, when set, is the world the input runs in instead of the
	// one the tests left (see comparison.inWorld)
	world *world
}

const (
	// keyLimit bounds the text that tells one input from another.
	keyLimit = 4096
	// maxExamined bounds the activations whose inputs are looked at (all
	// are counted): a method a test calls a million times is copied at
	// most this often.
	maxExamined = 10_000
	// maxReceiverSamples bounds the receivers kept from the activations
	// of the class's other methods.
	maxReceiverSamples = 8
	// valueSteps bounds making one generated value in Smalltalk.
	valueSteps = 100_000
)

// recorder keeps the inputs of the method's activations during the test
// runs, and receivers of the class's methods for a method no test reaches.
// Past max distinct inputs it keeps a sample spread over the whole run (a
// reservoir, seeded the same every time): the inputs late in a test run
// (a parser's last character, an error path) count as much as the first.
type recorder struct {
	in          *Interp
	max         int
	activations int
	examined    int
	distinct    int
	seen        map[uint64]bool
	pick        *rand.Rand
	inputs      []*input
	sampled     int
	rseen       map[string]bool
	receivers   []Object
}

func newRecorder(in *Interp, max int) *recorder {
	return &recorder{in: in, max: max, seen: map[uint64]bool{}, rseen: map[string]bool{},
		pick: rand.New(rand.NewPCG(1, 2))}
}

// activation records one entry into the method: a copy of its receiver
// and arguments, unless an equal input is already kept or the reservoir
// passes it over.
func (r *recorder) activation(rcv Object, args []Object) {
	r.activations++
	if r.examined >= maxExamined {
		return
	}
	r.examined++
	all := append([]Object{rcv}, args...)
	key := r.in.keyOf(keyLimit, all...)
	h := fnv.New64a()
	h.Write([]byte(key))
	if r.seen[h.Sum64()] {
		return
	}
	r.seen[h.Sum64()] = true
	r.distinct++
	at := len(r.inputs)
	if at >= r.max {
		at = r.pick.IntN(r.distinct)
		if at >= r.max {
			return
		}
	}
	copied, ok := r.in.newCopier().copyAll(all)
	if !ok {
		return
	}
	inp := &input{rcv: copied[0], args: copied[1:], key: key, recorded: true}
	if at == len(r.inputs) {
		r.inputs = append(r.inputs, inp)
		return
	}
	r.inputs[at] = inp
}

// sample keeps a copy of a receiver of one of the class's methods, while
// no test has reached the method itself (the samples are the receivers of
// a method no test reaches).
func (r *recorder) sample(rcv Object) {
	if r.activations > 0 || len(r.receivers) >= maxReceiverSamples || r.sampled >= maxExamined {
		return
	}
	r.sampled++
	key := r.in.keyOf(keyLimit, rcv)
	if r.rseen[key] {
		return
	}
	r.rseen[key] = true
	if c, ok := r.in.newCopier().copyOne(rcv); ok {
		r.receivers = append(r.receivers, c)
	}
}

// wrapped is a method whose body or primitive was wrapped to watch its
// activations, with what it had before.
type wrapped struct {
	m     *Method
	body  stmt
	quick func(in *Interp, rcv Object) Object
	prim  primitive
}

// watch wraps a method so that on sees the receiver and the arguments of
// each activation, at entry. Send sites read the method's body, quick
// form and primitive when they run it, so the wrapping holds wherever a
// send site cached the method. nil for a method that does not parse.
func watch(m *Method, on func(rcv Object, args []Object)) *wrapped {
	m.compileBody()
	if m.err != nil || m.ast == nil {
		return nil
	}
	w := &wrapped{m: m, body: m.body, quick: m.quick, prim: m.prim}
	nargs := len(m.ast.Args)
	m.quick = nil
	if m.primitive != "" && m.prim != nil {
		prim := m.prim
		m.prim = func(in *Interp, r Object, a []Object) (Object, bool) {
			on(r, a)
			return prim(in, r, a)
		}
		return w
	}
	body := m.body
	m.body = func(in *Interp, f *frame) (Object, bool) {
		on(f.self, f.vars[:nargs])
		return body(in, f)
	}
	return w
}

func (w *wrapped) restore() {
	w.m.body, w.m.quick, w.m.prim = w.body, w.quick, w.prim
}

// generator makes inputs the tests did not give.
type generator struct {
	in   *Interp
	m    *Method // the method as the image has it
	lits []Object
	strs []string
	syms []Symbol
	// bounds are the method's number literals it compares with (> 10)
	bounds []Object
	// chars are the method's character literals, and the characters
	// whose code points are its small integer literals (10 for a line
	// feed compared by its code point)
	chars []Char
	max   int
	seen  map[string]bool
	out   []*input
	// numbersMet are numbers the receivers the tests made hold: where no
	// test reaches the method, its number arguments try them too
	numbersMet []Object
	// observed are the values each instance variable of a class holds in
	// the recorded inputs (see observe)
	observed map[observedAt][]Object
	// places are each recorded input's places (see fromRecorded), again
	// the variations not yet made because their value was tried at the
	// same place of another recorded input
	places map[*input][]place
	again  []variation
	// rest are the variations of the places that took the method
	// another way, left for the end of the follow-ups
	rest []variation
	// belowTried are the inputs whose numbers were moved below zero
	belowTried map[*input]bool
	// fresh are instances as each class's new makes them (see
	// nilAfterNew)
	fresh map[*Class]*Instance
}

func newGenerator(in *Interp, m *Method, max int, recorded []*input) *generator {
	g := &generator{in: in, m: m, max: max, seen: map[string]bool{}, belowTried: map[*input]bool{}}
	for _, r := range recorded {
		g.seen[r.key] = true
	}
	g.literals()
	return g
}

// literals collects the method's number, string and symbol literals.
func (g *generator) literals() {
	if g.m.ast == nil {
		return
	}
	seen := map[string]bool{}
	smalltalk.Walk(g.m.ast, func(n smalltalk.Node) bool {
		if msg, ok := n.(*smalltalk.Message); ok && comparisons[msg.Selector] {
			for _, side := range append([]smalltalk.Node{msg.Receiver}, msg.Args...) {
				if l, ok := side.(*smalltalk.Literal); ok && l.Kind == smalltalk.LitNumber {
					if v := g.in.literalNumber(l.Value); isNumber(v) {
						g.bounds = append(g.bounds, v)
					}
				}
			}
		}
		l, ok := n.(*smalltalk.Literal)
		if !ok {
			return true
		}
		key := string(rune('0'+l.Kind)) + l.Value
		if seen[key] {
			return true
		}
		seen[key] = true
		switch l.Kind {
		case smalltalk.LitNumber:
			if v := g.in.literalNumber(l.Value); isNumber(v) {
				g.lits = append(g.lits, v)
				if n, ok := v.(int64); ok && n > 0 && n < 128 {
					g.chars = append(g.chars, Char(n))
				}
			}
		case smalltalk.LitCharacter:
			if c, ok := g.in.literal(l).(Char); ok {
				g.chars = append(g.chars, c)
			}
		case smalltalk.LitString:
			g.strs = append(g.strs, l.Value)
		case smalltalk.LitSymbol:
			g.syms = append(g.syms, Symbol(l.Value))
		}
		return true
	})
}

// comparisons are the selectors whose number literal is a boundary.
var comparisons = setOf("<", ">", "<=", ">=", "=", "~=", "between:and:", "max:", "min:")

func isNumber(o Object) bool {
	switch o.(type) {
	case int64, *big.Int, *big.Rat, float64:
		return true
	}
	return false
}

// add keeps an input unless an equal one is kept; false once there are
// enough.
func (g *generator) add(rcv Object, args []Object) bool {
	return g.addBeyond(rcv, args, g.max)
}

// addBeyond is add with another bound: the pairs of places have a budget
// of their own beyond max.
func (g *generator) addBeyond(rcv Object, args []Object, max int) bool {
	if len(g.out) >= max {
		return false
	}
	all := append([]Object{rcv}, args...)
	key := g.in.keyOf(keyLimit, all...)
	if g.seen[key] {
		return true
	}
	g.seen[key] = true
	g.out = append(g.out, &input{rcv: rcv, args: append([]Object{}, args...), key: key})
	return len(g.out) < max
}

// isValue tells whether an instance is of the kinds variations know:
// collections and strings.
func (g *generator) isValue(x *Instance) bool {
	return x.str != nil || inheritsFrom(x.class, "Collection")
}

// variants answers the variations of one recorded value, the likeliest to
// find a moved boundary first: for a number the method's own literals and
// their neighbours, 0, ±1, its negation and neighbours, the numbers near
// it in the input (the receiver's, their sums) and their neighbours, a
// large one; for a
// collection, one with an element dropped, empty, of one element,
// reversed, negated, with one more; for a string or symbol an empty one
// and one of one character, then the method's literals; a boolean
// flipped; for an argument, nil last.
func (g *generator) variants(v Object, argument bool, near []Object) []Object {
	var out []Object
	switch x := v.(type) {
	case int64, *big.Int, *big.Rat, float64:
		out = g.numberVariants(x, near)
	case bool:
		out = []Object{!x}
	case Symbol:
		out = []Object{Symbol("")}
		if r := []rune(string(x)); len(r) > 0 {
			out = append(out, Symbol(string(r[0])))
		}
		for _, s := range g.syms {
			out = append(out, s)
		}
	case Char:
		for _, c := range g.chars {
			out = append(out, c)
		}
		out = append(out, Char('a'), Char(' '), Char('Z'))
	case *Instance:
		switch {
		case x.str != nil:
			out = []Object{g.stringLike(x, nil)}
			if len(x.str) > 0 {
				out = append(out, g.stringLike(x, x.str[:1]))
			}
			for _, s := range g.strs {
				out = append(out, g.stringLike(x, []rune(s)))
			}
		case inheritsFrom(x.class, "Collection"):
			out = g.collectionVariants(x)
		case x.class == g.in.known.readStream:
			out = g.streamVariants(x)
		case x.class.name == "Date":
			// every day of the week, and the day before
			for _, n := range []int64{1, 2, 3, 4, 5, 6, -1} {
				if d, ok := g.send(x, "addDays:", n); ok {
					out = append(out, d)
				}
			}
		}
	}
	if argument && v != nil {
		out = append(out, nil)
	}
	return out
}

// streamVariants: a read stream over a string, with what it has read kept,
// and next one of the method's characters (a sign before an exponent's
// digits, a line feed), or at its end.
func (g *generator) streamVariants(x *Instance) []Object {
	slots := g.in.known.slots
	s, position, limit, ok := g.in.kernelStream(x)
	if !ok || len(x.vars) <= slots.streamCollection {
		return nil
	}
	text, ok := x.vars[slots.streamCollection].(*Instance)
	if !ok || text == nil || text.class != g.in.known.string || position < 0 || limit < position || limit > int64(len(text.str)) {
		return nil
	}
	read, rest := text.str[:position], text.str[position:limit]
	over := func(next []rune) Object {
		t := g.stringLike(text, append(append([]rune{}, read...), next...))
		v := &Instance{class: s.class, vars: append([]Object{}, s.vars...)}
		v.vars[slots.streamCollection] = t
		v.vars[slots.streamReadLimit] = int64(len(t.str))
		return v
	}
	var out []Object
	for _, c := range g.chars {
		out = append(out, over(append([]rune{rune(c)}, rest...)))
	}
	if len(rest) > 0 {
		out = append(out, over(nil))
	}
	return out
}

func (g *generator) stringLike(x *Instance, rs []rune) *Instance {
	return &Instance{class: x.class, vars: make([]Object, len(x.vars)), str: append([]rune{}, rs...)}
}

// numberVariants: see variants.
func (g *generator) numberVariants(v Object, near []Object) []Object {
	_, isFloat := v.(float64)
	var out []Object
	for _, l := range g.lits {
		if isFloat {
			l = asFloat(l)
		}
		out = append(out, l, numAdd(l, -1), numAdd(l, 1))
	}
	zero, one := Object(int64(0)), Object(int64(1))
	large := Object(new(big.Int).Lsh(big.NewInt(1), 64))
	if isFloat {
		zero, one, large = 0.0, 1.0, asFloat(large)
	}
	out = append(out, zero, one, numNeg(one), numNeg(v), numAdd(v, 1), numAdd(v, -1))
	for _, l := range g.lits {
		// below a negated literal: celsius + 273 turns negative past -273
		if isFloat {
			l = asFloat(l)
		}
		out = append(out, numNeg(l), numAdd(numNeg(l), -1))
	}
	for _, n := range near {
		if isFloat {
			n = asFloat(n)
		}
		out = append(out, n, numAdd(n, -1), numAdd(n, 1))
	}
	out = append(out, large)
	if _, isFraction := v.(*big.Rat); isFraction {
		out = append(out, normRat(big.NewRat(1, 2)))
	}
	return out
}

// collectionVariants: see variants. A variation is made of the same class
// (withAll:), an Interval's as an Array; a dictionary varies to an empty
// one and to one whose values are all one number (see dictionaryVariants).
// Besides dropping, adding and reordering elements, a collection grows to
// the sizes the method's literals name and one less (orders size > 10
// needs eleven, or ten before one is added),
// gets the method's numbers and their neighbours as one more element, and
// its negated elements (a sum of zero).
func (g *generator) collectionVariants(x *Instance) []Object {
	if inheritsFrom(x.class, "Dictionary") || inheritsFrom(x.class, "KeyedTree") || inheritsFrom(x.class, "OrderedDictionary") {
		return g.dictionaryVariants(x)
	}
	arr, ok := g.send(x, "asArray")
	elems, isArr := arr.(*Instance)
	if !ok || !isArr || elems.indexed == nil {
		return nil
	}
	var out []Object
	for _, l := range g.elementLists(elems.indexed) {
		if c, ok := g.collectionLike(x.class, l); ok {
			out = append(out, c)
		}
	}
	return out
}

// maxGrownSize bounds the sizes a collection grows to.
const maxGrownSize = 100

// elementLists answers the element lists of collectionVariants, the
// likeliest to cross a boundary first: an element dropped, none, one, a
// pair's number changed, the sizes around the method's literals, then the
// rest.
func (g *generator) elementLists(es []Object) [][]Object {
	n := len(es)
	var lists [][]Object
	if n > 0 {
		lists = append(lists, es[1:])
	}
	lists = append(lists, nil)
	if n > 1 {
		lists = append(lists, es[:1])
	}
	ends := []int{0, n - 1}
	if n < 2 {
		ends = ends[:n]
	}
	// a pair's number (a product and its quantity) at either end one more
	// and negated, then the first pair's at each of the method's numbers
	// (a total weight of exactly 5 where the method asks w < 5)
	pair := func(at int, vs ...Object) {
		if a, ok := es[at].(*Instance); ok && a != nil && a.class.name == "Association" && len(a.vars) == 2 && isNumber(a.vars[1]) {
			for _, v := range vs {
				changed := append([]Object{}, es...)
				changed[at] = &Instance{class: a.class, vars: []Object{a.vars[0], v}}
				lists = append(lists, changed)
			}
		}
	}
	for _, at := range ends {
		if a, ok := es[at].(*Instance); ok && a != nil && len(a.vars) == 2 {
			pair(at, numAdd(a.vars[1], 1), numNeg(a.vars[1]))
		}
	}
	if n > 0 {
		pair(0, g.lits...)
	}
	fill := es
	if n == 0 {
		fill = []Object{int64(1)}
	}
	for _, l := range g.lits {
		size, ok := l.(int64)
		if !ok || size < 2 || size > maxGrownSize {
			continue
		}
		for _, k := range []int64{size - 1, size, size + 1} {
			if int(k) != n {
				lists = append(lists, cycled(fill, int(k)))
			}
		}
	}
	if n > 0 {
		lists = append(lists, es[:n-1])
	}
	if n > 1 {
		rev := make([]Object, n)
		for i, e := range es {
			rev[n-1-i] = e
		}
		lists = append(lists, rev)
	}
	neg := make([]Object, n)
	negated := false
	for i, e := range es {
		neg[i] = e
		if isNumber(e) {
			neg[i], negated = numNeg(e), true
		}
	}
	if negated {
		lists = append(lists, neg)
	}
	extra := Object(int64(0))
	if n > 0 {
		extra = es[n-1]
		if isNumber(extra) {
			extra = numAdd(extra, 1)
		}
	}
	lists = append(lists, append(append([]Object{}, es...), extra))
	if negated {
		lists = append(lists, append(append([]Object{}, es...), neg...))
	}
	if n == 0 || isNumber(es[n-1]) {
		for _, l := range g.lits {
			for _, v := range []Object{l, numAdd(l, -1), numAdd(l, 1)} {
				lists = append(lists, append(append([]Object{}, es...), v))
			}
		}
	}
	return lists
}

// cycled answers k elements taken from es in turn (a collection the
// tests left empty grows with ones).
func cycled(es []Object, k int) []Object {
	out := make([]Object, k)
	for i := range out {
		out[i] = es[i%len(es)]
	}
	return out
}

// dictionaryVariants: an empty one of the same class, and copies whose
// values, where they are numbers, are all the method's numbers and their
// neighbours in turn (so whichever key the method reads holds them).
func (g *generator) dictionaryVariants(x *Instance) []Object {
	var out []Object
	if e, ok := g.send(x.class, "new"); ok {
		out = append(out, e)
	}
	keys, values := g.entries(x)
	if len(keys) == 0 {
		return out
	}
	numeric := false
	for _, v := range values {
		numeric = numeric || isNumber(v)
	}
	if !numeric {
		return out
	}
	for _, l := range g.lits {
		for _, v := range []Object{l, numAdd(l, -1), numAdd(l, 1)} {
			d, ok := g.in.newCopier().copyOne(x)
			if !ok {
				return out
			}
			done := true
			for _, k := range keys {
				if _, ok := g.send(d, "at:put:", k, v); !ok {
					done = false
					break
				}
			}
			if done {
				out = append(out, d)
			}
		}
	}
	return out
}

// entries answers a dictionary's keys and values: a hashed one's from its
// table, any other's (an OrderedDictionary, a Collection holding a
// Dictionary and its keys' order) from its keys and values.
func (g *generator) entries(x *Instance) (keys, values []Object) {
	if x.dict != nil {
		return x.dict.keyList(), x.dict.valueList()
	}
	ks, ok := g.send(x, "keys")
	vs, ok2 := g.send(x, "values")
	ka, isK := ks.(*Instance)
	va, isV := vs.(*Instance)
	if !ok || !ok2 || !isK || !isV || ka.indexed == nil || va.indexed == nil || len(ka.indexed) != len(va.indexed) {
		return nil, nil
	}
	return ka.indexed, va.indexed
}

// collectionLike makes a collection of class c holding elems.
func (g *generator) collectionLike(c *Class, elems []Object) (Object, bool) {
	arr := g.in.newArray(append([]Object{}, elems...))
	if c == g.in.known.array || inheritsFrom(c, "Interval") {
		return arr, true
	}
	return g.send(c, "withAll:", arr)
}

// send sends a message to make a value, under its own small budget.
func (g *generator) send(rcv Object, sel string, args ...Object) (Object, bool) {
	var v Object
	ok := false
	g.in.guard(valueSteps, func() {
		v = g.in.Send(rcv, sel, args...)
		ok = true
	}, func(string) {})
	return v, ok
}

// eval evaluates an expression to make a value; false when it fails.
func (in *Interp) evalValue(expr string) (Object, bool) {
	if v, ok := in.madeValues[expr]; ok {
		return v, true
	}
	v, ok := in.makeValue(expr)
	if ok {
		// a made value is never changed: each run works on a copy
		if in.madeValues == nil {
			in.madeValues = map[string]Object{}
		}
		in.madeValues[expr] = v
	}
	return v, ok
}

func (in *Interp) makeValue(expr string) (Object, bool) {
	nilClass := in.classes["UndefinedObject"]
	if nilClass == nil {
		return nil, false
	}
	m := compile(nilClass, "comparisonValue\n\t^ "+expr)
	m.compileBody()
	if m.err != nil {
		return nil, false
	}
	var v Object
	ok := false
	in.guard(valueSteps, func() {
		v = in.invoke(m, nil, nil)
		ok = true
	}, func(string) {})
	return v, ok
}

// numAdd adds a small integer to a number.
func numAdd(o Object, d int64) Object {
	switch v := o.(type) {
	case int64:
		return normInt(new(big.Int).Add(big.NewInt(v), big.NewInt(d)))
	case *big.Int:
		return normInt(new(big.Int).Add(v, big.NewInt(d)))
	case *big.Rat:
		return normRat(new(big.Rat).Add(v, new(big.Rat).SetInt64(d)))
	case float64:
		return v + float64(d)
	}
	return o
}

// numNeg negates a number.
func numNeg(o Object) Object {
	switch v := o.(type) {
	case int64:
		return normInt(new(big.Int).Neg(big.NewInt(v)))
	case *big.Int:
		return normInt(new(big.Int).Neg(v))
	case *big.Rat:
		return normRat(new(big.Rat).Neg(v))
	case float64:
		return -v
	}
	return o
}

// asFloat answers a number as a Float.
func asFloat(o Object) Object {
	if f, ok := toFloat(o); ok {
		return f
	}
	return o
}

// kind is what an argument seems to be, from its name and its use.
type kind int

const (
	kindObject kind = iota
	kindInteger
	kindNumber
	kindFloat
	kindCollection
	kindArray
	kindOrdered
	kindSet
	kindString
	kindSymbol
	kindBlock
	kindBoolean
	kindCharacter
	kindDictionary
	kindPoint
	kindDate
	kindStream
)

// kindValues are the values made for an argument of each kind, as
// expressions (the method's own literals join them).
var kindValues = map[kind][]string{
	kindInteger:    {"0", "1", "-1", "2", "3", "10", "-7", "100", "(2 raisedTo: 64)"},
	kindNumber:     {"0", "1", "-1", "2", "(1/2)", "10", "-7", "2.5", "-0.5", "(2 raisedTo: 64)"},
	kindFloat:      {"0.0", "1.0", "-1.0", "0.5", "2.5", "-2.5", "1.0e10"},
	kindCollection: {"#()", "#(1)", "#(1 2)", "#(1 2 3 6)", "#(3 -1 2)", "#(-2 -4)", "(OrderedCollection withAll: #(1 2 3))", "#('a' 'bb' 'ccc')", "(Set withAll: #(1 2))"},
	kindArray:      {"#()", "#(1)", "#(1 2)", "#(1 2 3 6)", "#(3 -1 2)", "#(-2 -4)", "#('a' 'bb' 'ccc')"},
	kindOrdered:    {"OrderedCollection new", "(OrderedCollection with: 1)", "(OrderedCollection withAll: #(1 2))", "(OrderedCollection withAll: #(1 2 3 6))", "(OrderedCollection withAll: #(3 -1 2))", "(OrderedCollection withAll: #(-2 -4))"},
	kindSet:        {"Set new", "(Set with: 1)", "(Set withAll: #(1 2))", "(Set withAll: #(3 -1 2))"},
	kindString:     {"''", "'a'", "'abc'", "'Hello World'", "'ABC'", "' a b '"},
	kindSymbol:     {"#foo", "#a", "#with:with:"},
	kindBoolean:    {"true", "false"},
	kindCharacter:  {"$a", "$Z", "$0", "$ "},
	kindDictionary: {"Dictionary new", "(Dictionary new at: #a put: 1; yourself)", "(Dictionary new at: #a put: 1; at: #b put: 2; yourself)"},
	kindPoint:      {"(0 @ 0)", "(1 @ 2)", "(-3 @ 4)"},
	kindDate: {"(Date year: 2024 month: 2 day: 29)", "(Date year: 2023 month: 12 day: 31)", "(Date year: 2024 month: 1 day: 1)",
		"(Date year: 2024 month: 1 day: 2)", "(Date year: 2024 month: 1 day: 3)", "(Date year: 2024 month: 1 day: 4)",
		"(Date year: 2024 month: 1 day: 5)", "(Date year: 2024 month: 1 day: 6)", "(Date year: 2024 month: 1 day: 7)"},
	kindStream: {"(WriteStream on: String new)", "(ReadStream on: 'abc 12')", "(ReadStream on: '')", "(ReadStream on: #(1 2 3))"},
	kindObject: {"nil", "0", "1", "-1", "'abc'", "#(1 2 3)", "true", "#foo", "(3/4)", "$a"},
}

// blockValues are the blocks made for a block argument, by how many
// arguments it takes.
var blockValues = map[int][]string{
	0: {"[ 1 ]", "[ nil ]", "[ true ]", "[ false ]"},
	1: {"[ :x | x ]", "[ :x | nil ]", "[ :x | true ]", "[ :x | false ]", "[ :x | x printString ]"},
	2: {"[ :a :b | a ]", "[ :a :b | a < b ]", "[ :a :b | a + b ]"},
}

// nameKinds reads a Pharo argument name's last word: aCollection,
// anInteger, someItems, aString, aBlock…
var nameKinds = map[string]kind{
	"collection": kindCollection, "items": kindCollection, "elements": kindCollection, "list": kindCollection,
	"sequence": kindCollection, "values": kindCollection, "numbers": kindCollection, "amounts": kindCollection,
	"entries": kindCollection, "objects": kindCollection, "array": kindArray, "ordered": kindOrdered, "set": kindSet, "bag": kindCollection,
	"dictionary": kindDictionary, "dict": kindDictionary, "map": kindDictionary,
	"string": kindString, "name": kindString, "text": kindString, "title": kindString, "label": kindString, "word": kindString,
	"str": kindString, "prefix": kindString, "suffix": kindString, "message": kindString, "description": kindString, "pattern": kindString,
	"symbol": kindSymbol, "selector": kindSymbol,
	"integer": kindInteger, "int": kindInteger, "index": kindInteger, "count": kindInteger, "size": kindInteger, "n": kindInteger,
	"i": kindInteger, "j": kindInteger, "k": kindInteger, "times": kindInteger, "year": kindInteger, "month": kindInteger,
	"day": kindInteger, "age": kindInteger, "length": kindInteger, "level": kindInteger,
	"number": kindNumber, "num": kindNumber, "amount": kindNumber, "quantity": kindNumber, "qty": kindNumber, "price": kindNumber,
	"total": kindNumber, "x": kindNumber, "y": kindNumber, "z": kindNumber, "limit": kindNumber, "max": kindNumber, "min": kindNumber,
	"weight": kindNumber, "width": kindNumber, "height": kindNumber, "percent": kindNumber, "rate": kindNumber, "factor": kindNumber,
	"score": kindNumber, "balance": kindNumber, "cost": kindNumber, "sum": kindNumber, "delta": kindNumber, "offset": kindNumber,
	"step": kindNumber, "magnitude": kindNumber, "value": kindNumber,
	"float": kindFloat, "fraction": kindNumber,
	"boolean": kindBoolean, "bool": kindBoolean, "flag": kindBoolean,
	"character": kindCharacter, "char": kindCharacter,
	"point": kindPoint, "date": kindDate, "stream": kindStream,
	"block": kindBlock, "action": kindBlock, "callback": kindBlock, "predicate": kindBlock,
}

// kindOfName reads an argument's name: its last word, as Pharo names
// arguments (aCollection, anInteger, someItems, aSortBlock); a plural is
// a collection.
func kindOfName(name string) (kind, bool) {
	words := camelWords(name)
	if len(words) == 0 {
		return kindObject, false
	}
	last := words[len(words)-1]
	if len(words) > 1 && words[len(words)-2] == "ordered" && last == "collection" {
		return kindOrdered, true
	}
	if k, ok := nameKinds[last]; ok {
		return k, true
	}
	if len(last) > 3 && strings.HasSuffix(last, "s") && !strings.HasSuffix(last, "ss") && !strings.HasSuffix(last, "us") && !strings.HasSuffix(last, "is") {
		return kindCollection, true
	}
	return kindObject, false
}

// camelWords splits aSortBlock into sort, block (the article dropped),
// lower-cased.
func camelWords(name string) []string {
	var words []string
	var cur []rune
	for i, r := range name {
		if unicode.IsUpper(r) && i > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = nil
		}
		cur = append(cur, r)
	}
	if len(cur) > 0 {
		words = append(words, strings.ToLower(string(cur)))
	}
	if len(words) > 1 && (words[0] == "a" || words[0] == "an" || words[0] == "some" || words[0] == "the") {
		words = words[1:]
	}
	return words
}

// The selectors that tell what an argument is when it receives them.
var (
	collectionSends = setOf("do:", "collect:", "select:", "reject:", "detect:", "detect:ifNone:", "inject:into:",
		"allSatisfy:", "anySatisfy:", "noneSatisfy:", "sum", "sum:", "max", "min", "asOrderedCollection", "asSet", "asBag",
		"doWithIndex:", "withIndexDo:", "reverseDo:", "do:separatedBy:", "count:", "anyOne", "detectMax:", "detectMin:",
		"average", "sorted", "sorted:", "asSortedCollection", "asSortedCollection:", "addAll:", "removeAll:", "with:collect:")
	sequenceOrStringSends = setOf("size", "isEmpty", "notEmpty", "isEmptyOrNil", "ifEmpty:", "ifNotEmpty:", "includes:",
		"first", "last", "at:", "at:put:", ",", "reverse", "reversed", "asArray", "indexOf:", "occurrencesOf:", "allButFirst", "allButLast", "copyFrom:to:")
	numberSends = setOf("+", "-", "*", "/", "//", "\\\\", "<", ">", "<=", ">=", "abs", "negated", "negative", "positive",
		"isZero", "sqrt", "squared", "max:", "min:", "between:and:", "even", "odd", "rem:", "quo:", "raisedTo:", "rounded",
		"truncated", "floor", "ceiling", "roundTo:", "printString:", "asFloat", "isPrime", "factorial", "timesRepeat:",
		"to:", "to:do:", "@", "sign", "reciprocal", "ln", "log:", "strictlyPositive", "asInteger", "printPaddedWith:to:")
	stringSends = setOf("asUppercase", "asLowercase", "trimBoth", "trimmed", "includesSubstring:", "beginsWith:",
		"endsWith:", "asSymbol", "asNumber", "substrings", "substrings:", "lines", "capitalized", "asString", "matchesRegex:", "isString")
	blockSends      = map[string]int{"value": 0, "value:": 1, "cull:": 1, "value:value:": 2, "cull:cull:": 2, "numArgs": 1, "whileTrue:": 0, "whileFalse:": 0, "ensure:": 0, "on:do:": 0}
	booleanSends    = setOf("ifTrue:", "ifFalse:", "ifTrue:ifFalse:", "ifFalse:ifTrue:", "and:", "or:", "not", "&", "|", "xor:")
	dictionarySends = setOf("keysAndValuesDo:", "associationsDo:", "at:ifAbsent:", "includesKey:", "keys", "values", "removeKey:",
		"at:ifPresent:", "at:ifAbsentPut:", "keysDo:", "valuesDo:", "associations")
	streamSends = setOf("nextPutAll:", "nextPut:", "print:", "<<", "space", "tab", "cr", "lf", "contents", "next", "next:",
		"atEnd", "upToEnd", "upTo:", "peek", "peekFor:", "skip:", "skipSeparators", "position", "position:", "nextLine", "reset")
	characterSends = setOf("isVowel", "isLetter", "isDigit", "isSeparator", "asCharacter", "charCode", "codePoint", "isUppercase", "isLowercase")
	// blockArgs: an argument passed to these is a block of the given
	// arguments, by its place among the message's arguments.
	blockArgs = map[string][]int{"do:": {1}, "collect:": {1}, "select:": {1}, "reject:": {1}, "detect:": {1},
		"detect:ifNone:": {1, 0}, "inject:into:": {-1, 2}, "anySatisfy:": {1}, "allSatisfy:": {1}, "count:": {1},
		"ifNone:": {0}, "ifAbsent:": {0}, "ifEmpty:": {0}, "at:ifAbsent:": {-1, 0}, "sort:": {2}, "sorted:": {2},
		"asSortedCollection:": {2}, "reverseDo:": {1}, "keysAndValuesDo:": {2}, "on:do:": {-1, 1}, "ensure:": {0}}
)

func setOf(sels ...string) map[string]bool {
	m := map[string]bool{}
	for _, s := range sels {
		m[s] = true
	}
	return m
}

// argKind guesses an argument's kind: its name counts, what it is sent
// counts more, and for a block how many arguments it is given.
func argKind(m *smalltalk.Method, i int) (kind, int) {
	return kindOfUse(m, m.Args[i].Name)
}

// kindOfUse answers the kind of a method's argument, or of an argument
// of one of its blocks, by its name and by what the method sends it,
// and the arity of the block it is called as.
func kindOfUse(m *smalltalk.Method, name string) (kind, int) {
	score := map[kind]int{}
	nameKind, named := kindOfName(name)
	if named {
		score[nameKind] += 2
	}
	arity := scoreUses(m, name, score)
	best, bestScore := kindObject, 0
	for k, s := range score {
		if s > bestScore || s == bestScore && k == nameKind && named {
			best, bestScore = k, s
		}
	}
	if best == kindNumber && named && nameKind == kindInteger {
		best = kindInteger
	}
	if best == kindCollection && named && (nameKind == kindArray || nameKind == kindOrdered || nameKind == kindSet) {
		best = nameKind
	}
	if arity < 0 {
		arity = 1
	}
	return best, arity
}

// scoreUses adds to score what a method does with a variable: what it
// sends it, what it passes it to, what it assigns it; it answers the
// most arguments the variable is given as a block (-1: none).
func scoreUses(m *smalltalk.Method, name string, score map[kind]int) int {
	arity := -1
	isVar := func(n smalltalk.Node) bool {
		v, ok := n.(*smalltalk.Variable)
		return ok && v.Name == name
	}
	sent := func(sel string) {
		switch {
		case collectionSends[sel]:
			score[kindCollection] += 3
		case numberSends[sel]:
			score[kindNumber] += 3
		case stringSends[sel]:
			score[kindString] += 3
		case booleanSends[sel]:
			score[kindBoolean] += 3
		case dictionarySends[sel]:
			score[kindDictionary] += 3
		case characterSends[sel]:
			score[kindCharacter] += 3
		case streamSends[sel]:
			score[kindStream] += 3
		case sequenceOrStringSends[sel]:
			score[kindCollection]++
			score[kindString]++
		}
		if n, ok := blockSends[sel]; ok {
			score[kindBlock] += 3
			arity = max(arity, n)
		}
	}
	smalltalk.Walk(m, func(n smalltalk.Node) bool {
		switch n := n.(type) {
		case *smalltalk.Message:
			if n.Receiver != nil && isVar(n.Receiver) {
				sent(n.Selector)
			}
			for j, a := range n.Args {
				if !isVar(a) {
					continue
				}
				if places, ok := blockArgs[n.Selector]; ok && j < len(places) && places[j] >= 0 {
					score[kindBlock] += 3
					arity = max(arity, places[j])
				}
				if numberSends[n.Selector] && len(n.Args) == 1 {
					score[kindNumber] += 2
				}
				if n.Selector == "at:" || n.Selector == "at:put:" && j == 0 {
					score[kindInteger]++
				}
			}
		case *smalltalk.Cascade:
			if isVar(n.Receiver) {
				for _, msg := range n.Messages {
					sent(msg.Selector)
				}
			}
		case *smalltalk.Assignment:
			if n.Variable != nil && n.Variable.Name == name {
				if k, ok := assignedKind(n.Value); ok {
					score[k] += 3
				}
			}
		}
		return true
	})
	return arity
}

// valuesFor makes the values of an argument of a kind: the kind's own,
// then (for numbers, strings and symbols) the method's literals and their
// neighbours first.
func (g *generator) valuesFor(k kind, arity int) []Object {
	var out []Object
	switch k {
	case kindInteger, kindNumber, kindFloat:
		for _, l := range g.lits {
			if k == kindFloat {
				l = asFloat(l)
			}
			out = append(out, l, numAdd(l, -1), numAdd(l, 1))
		}
		out = append(out, g.numbersMet...)
	case kindString:
		for _, s := range g.strs {
			out = append(out, g.in.newString(s))
		}
	case kindSymbol:
		for _, s := range g.syms {
			out = append(out, s)
		}
	}
	exprs := kindValues[k]
	if k == kindBlock {
		exprs = blockValues[min(arity, 2)]
	}
	for _, e := range exprs {
		if v, ok := g.in.evalValue(e); ok {
			out = append(out, v)
		}
	}
	if k == kindCollection || k == kindArray {
		for _, l := range g.lits {
			out = append(out, g.in.newArray([]Object{l}), g.in.newArray([]Object{numAdd(l, -1), l, numAdd(l, 1)}))
		}
	}
	if k != kindObject {
		out = append(out, nil)
	}
	return out
}

// pool answers every value of every kind, for a receiver of a class the
// kernel knows (a method added to Integer, String, a collection).
func (g *generator) pool() []Object {
	var out []Object
	kinds := make([]int, 0, len(kindValues))
	for k := range kindValues {
		kinds = append(kinds, int(k))
	}
	sort.Ints(kinds)
	for _, k := range kinds {
		out = append(out, g.valuesFor(kind(k), 1)...)
	}
	return out
}

// unreached makes inputs for a method no test reached: receivers as the
// tests make them (one a test gave another method of the class), else
// new, else of the kinds the kernel has where the method extends one of
// its classes (for a class-side method, the class); arguments by their
// names and uses. Each place varies on its own first, then together.
func (g *generator) unreached(class *Class, classSide bool, samples []Object) {
	g.harvest(samples)
	var receivers []Object
	switch {
	case classSide:
		receivers = []Object{class}
	case strings.HasPrefix(g.m.selector, "initialize"):
		// an initialize runs on what basicNew made, as new sends it;
		// on a made receiver it would find its work done
		if v, ok := g.send(class, "basicNew"); ok {
			receivers = append(receivers, v)
		}
	default:
		receivers = append(receivers, samples...)
		for _, v := range g.pool() {
			if v != nil && g.in.classOf(v).includesBehavior(class) {
				receivers = append(receivers, v)
			}
		}
		if len(receivers) == 0 {
			if v, ok := g.send(class, "new"); ok && v != nil {
				receivers = append(receivers, v)
			} else if v, ok := g.send(class, "basicNew"); ok {
				receivers = append(receivers, v)
			}
		}
		// the receiver that holds the most comes first, then its
		// variations (a writer with a stream and an empty field's value
		// set), then the others the tests made
		fullestFirst(receivers)
		if len(receivers) > 0 {
			variants := g.receiverVariants(receivers)
			receivers = append(append([]Object{receivers[0]}, variants...), receivers[1:]...)
		}
	}
	if len(receivers) == 0 {
		return
	}
	lists := [][]Object{receivers}
	for i := range g.m.ast.Args {
		k, arity := argKind(g.m.ast, i)
		vs := g.valuesFor(k, arity)
		if len(vs) == 0 {
			vs = []Object{nil}
		}
		lists = append(lists, vs)
	}
	for _, idx := range tuplesBySum(lists) {
		args := make([]Object, len(idx)-1)
		for j := 1; j < len(idx); j++ {
			args[j-1] = lists[j][idx[j]]
		}
		if !g.add(lists[0][idx[0]], args) {
			return
		}
	}
}

// maxReceiverVariants bounds the receivers made by varying the sampled
// ones.
const maxReceiverVariants = 16

// receiverVariants varies the instance variables of the receivers the
// tests made, one at a time (see ivarPlaces): a method no test reaches
// may read what those tests never set.
// fullestFirst moves to the front the first of the objects with the
// most variables that are not nil.
func fullestFirst(objs []Object) {
	best, most := 0, -1
	for i, o := range objs {
		x, ok := o.(*Instance)
		if !ok || x == nil {
			continue
		}
		n := 0
		for _, v := range x.vars {
			if v != nil {
				n++
			}
		}
		if n > most {
			best, most = i, n
		}
	}
	if best > 0 {
		o := objs[best]
		copy(objs[1:best+1], objs[:best])
		objs[0] = o
	}
}

func (g *generator) receiverVariants(samples []Object) []Object {
	seeds := make([]*input, len(samples))
	for i, s := range samples {
		seeds[i] = &input{rcv: s}
	}
	g.observe(seeds)
	var places []place
	for _, seed := range seeds {
		places = g.ivarPlaces(places, seed, -1, seed.rcv, nil, nil)
	}
	var out []Object
	for r := 0; len(out) < maxReceiverVariants; r++ {
		more := false
		for _, p := range places {
			if r >= len(p.variants) || len(out) >= maxReceiverVariants {
				continue
			}
			more = true
			if rcv, _, ok := g.with(p.seed, p.at, p.variants[r]); ok {
				out = append(out, rcv)
			}
		}
		if !more {
			break
		}
	}
	return out
}

// maxNumbersMet bounds the numbers taken from the receivers the tests
// made, and maxHarvested the objects looked at for them.
const (
	maxNumbersMet = 8
	maxHarvested  = 1000
)

// harvest collects the numbers the sampled receivers hold (see
// numbersMet).
func (g *generator) harvest(samples []Object) {
	seen := map[*Instance]bool{}
	met := map[string]bool{}
	queue := append([]Object{}, samples...)
	for n := 0; len(queue) > 0 && n < maxHarvested && len(g.numbersMet) < maxNumbersMet; n++ {
		o := queue[0]
		queue = queue[1:]
		if isNumber(o) {
			if k := g.in.keyOf(64, o); !met[k] {
				met[k] = true
				g.numbersMet = append(g.numbersMet, o)
			}
			continue
		}
		x, ok := o.(*Instance)
		if !ok || seen[x] {
			continue
		}
		seen[x] = true
		queue = append(append(queue, x.vars...), x.indexed...)
		if x.dict != nil {
			queue = append(append(queue, x.dict.keyList()...), x.dict.valueList()...)
		}
	}
}

// maxTuples bounds the combinations of places considered.
const maxTuples = 20_000

// tuplesBySum answers index tuples into lists, those nearest the first
// values first (by the sum of their indexes): one place varied at a time
// comes before two. Past maxTuples combinations, only one place varies.
func tuplesBySum(lists [][]Object) [][]int {
	total := 1
	for _, l := range lists {
		total *= len(l)
		if total > maxTuples {
			break
		}
	}
	var out [][]int
	if total > maxTuples {
		out = append(out, make([]int, len(lists)))
		for p, l := range lists {
			for v := 1; v < len(l); v++ {
				t := make([]int, len(lists))
				t[p] = v
				out = append(out, t)
			}
		}
		return out
	}
	idx := make([]int, len(lists))
	for {
		out = append(out, append([]int{}, idx...))
		p := len(idx) - 1
		for p >= 0 {
			idx[p]++
			if idx[p] < len(lists[p]) {
				break
			}
			idx[p] = 0
			p--
		}
		if p < 0 {
			break
		}
	}
	sum := func(t []int) int {
		s := 0
		for _, v := range t {
			s += v
		}
		return s
	}
	sort.SliceStable(out, func(i, j int) bool { return sum(out[i]) < sum(out[j]) })
	return out
}
