package interp

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/smalltalk"
	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// compareFixture is a class whose methods the comparison tests replace,
// and its thin tests.
const compareFixture = `Class {
	#name : #Tally,
	#superclass : #Object,
	#instVars : [ #items ],
	#classVars : [ #Made ],
	#category : #Fixture
}

Tally class >> made [ ^ Made ]
Tally class >> note [ Made := (Made ifNil: [ 0 ]) + 1 ]
Tally >> initialize [ items := OrderedCollection new ]
Tally >> add: x [ items add: x ]
Tally >> items [ ^ items ]
Tally >> yourselfAgain [ ^ self ]
Tally >> size [ ^ items size ]
Tally >> spin [ [ true ] whileTrue ]
Tally >> down: n [ ^ n = 0 ifTrue: [ 0 ] ifFalse: [ self down: n - 1 ] ]
Tally >> tick [ | c | c := #(0). c at: 1 put: (c at: 1) + 1. ^ c at: 1 ]
Tally >> fill: anArray [ anArray at: 1 put: 0 ]
Tally >> largest: aCollection [ ^ aCollection inject: 0 into: [ :m :e | m max: e ] ]
`

const compareFixtureTest = `Class {
	#name : #TallyTest,
	#superclass : #TestCase,
	#category : #Fixture
}

TallyTest >> testSize [ | t | t := Tally new. t add: 1; add: 2. self assert: t size equals: 2 ]
TallyTest >> testYourselfAgain [ | t | t := Tally new. self assert: t yourselfAgain size equals: 0 ]
TallyTest >> testTick [ self assert: Tally new tick > 0 ]
TallyTest >> testFill [ | a | a := Array new: 2. Tally new fill: a. self assert: a first equals: 0 ]
TallyTest >> testNote [ Tally note. self assert: Tally made > 0 ]
TallyTest >> testDown [ self assert: (Tally new down: 3) equals: 0 ]
`

func newCompareFixture(t *testing.T) *Interp {
	t.Helper()
	return interpOf(t, map[string]string{"Tally": compareFixture, "TallyTest": compareFixtureTest})
}

// interpOf builds an interpreter holding the classes sources names (a
// class's name to its Tonel source).
func interpOf(t *testing.T, sources map[string]string) *Interp {
	t.Helper()
	var files []*tonel.File
	for name, src := range sources {
		f, err := tonel.ParseFile(name+".class.st", []byte(src))
		require.NoError(t, err)
		files = append(files, f)
	}
	in, err := New(ReadProgram(files), Limits{Steps: DefaultStepsPerCall})
	require.NoError(t, err)
	return in
}

// TestCompareMethodEndsEveryRun: whatever the original or the candidate
// does — loop, recurse without end, fail in the interpreter, change an
// argument or a class variable, answer a copy of its receiver, mutate its
// own literal — the comparison ends with an outcome that says so.
func TestCompareMethodEndsEveryRun(t *testing.T) {
	cases := []struct {
		name                string
		classSide           bool
		selector, candidate string
		deadline            time.Time
		outcome, aspect     string
		reason              string // for not_checked
		original, cand      string // what the witness's texts hold
	}{
		{"an endless candidate", false, "size", "size\n\t[ true ] whileTrue.\n\t^ 0", time.Time{},
			Changed, AspectSteps, "", "answered 2", "ran out of its limits"},
		{"an endless recursion", false, "size", "size\n\t^ self size + 1", time.Time{},
			Changed, AspectSteps, "", "answered", "ran out of its limits"},
		{"an original that never ends", false, "spin", "spin\n\t[ true ] whileTrue: [ ]", time.Time{},
			NotChecked, "", "ran out of its limits on every input", "", ""},
		{"an original that mutates its own literal", false, "tick", "tick\n\t^ 1", time.Time{},
			NotChecked, "", "answered differently in two runs", "", ""},
		{"a candidate whose primitive fails without a fallback", false, "size", "size\n\t^ Fraction basicNew numerator", time.Time{},
			Changed, AspectException, "", "answered", "signalled PrimitiveFailed: primitive failed"},
		{"a copy of the receiver for the receiver", false, "yourselfAgain", "yourselfAgain\n\t^ self copy", time.Time{},
			Changed, AspectAnswer, "", "answered its receiver", "answered a Tally"},
		{"an argument left alone", false, "fill:", "fill: anArray\n\tanArray copy at: 1 put: 0", time.Time{},
			Changed, "argument 1", "", "after the call, argument 1: #(0 nil)", "after the call, argument 1: #(nil nil)"},
		{"a class variable left alone", true, "note", "note\n\tMade := Made ifNil: [ 0 ]", time.Time{},
			Changed, AspectReceiver, "", "after the call, the receiver's Made: 2", "after the call, the receiver's Made: 1"},
		{"no time left", false, "size", "size\n\t^ items size", time.Now().Add(-time.Second),
			NotChecked, "", "the time limit came", "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := newCompareFixture(t)
			v, err := in.CompareMethod(Comparison{Class: "Tally", ClassSide: tc.classSide, Selector: tc.selector,
				Candidate: tc.candidate, TestClasses: []string{"TallyTest"}, MaxInputs: 8, Deadline: tc.deadline})
			require.NoError(t, err)
			t.Logf("%+v", v)
			require.Equal(t, tc.outcome, v.Outcome, "reason %q witness %+v", v.Reason, v.Witness)
			if tc.outcome == NotChecked {
				assert.Contains(t, v.Reason, tc.reason)
				assert.Nil(t, v.Witness)
				assert.Zero(t, v.Compared)
				return
			}
			require.NotNil(t, v.Witness)
			t.Logf("%+v", *v.Witness)
			assert.Equal(t, tc.aspect, v.Witness.Aspect)
			assert.Contains(t, v.Witness.Original, tc.original)
			assert.Contains(t, v.Witness.Candidate, tc.cand)
			// the image's method is back in place
			out := ""
			in.guard(DefaultStepsPerCall, func() { out = str(in.Send(in.Send(in.classes["Tally"], "new"), "printString")) }, func(string) {})
			assert.Equal(t, "a Tally", out)
		})
	}
}

// TestCompareMethodRefusesWhatItCannotCompare: the request's errors.
func TestCompareMethodRefusesWhatItCannotCompare(t *testing.T) {
	in := newCompareFixture(t)
	cases := []struct {
		name string
		req  Comparison
		want string
	}{
		{"no class", Comparison{Class: "Nope", Selector: "size", Candidate: "size ^ 1"}, "no class Nope"},
		{"no method", Comparison{Class: "Tally", Selector: "nope", Candidate: "nope ^ 1"}, "Tally has no method #nope"},
		{"a candidate that does not parse", Comparison{Class: "Tally", Selector: "size", Candidate: "size ^ (1"}, "the candidate does not parse"},
		{"another selector", Comparison{Class: "Tally", Selector: "size", Candidate: "count ^ 1"}, "the candidate defines #count, not #size"},
		{"a helper of the selector", Comparison{Class: "Tally", Selector: "size", Candidate: "size ^ 1", Helpers: []string{"size ^ 2"}}, "a helper defines #size"},
		{"no test class", Comparison{Class: "Tally", Selector: "size", Candidate: "size ^ 1", TestClasses: []string{"Nope"}}, "no test class Nope"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := in.CompareMethod(tc.req)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestCompareMethodBoundsItsInputs: at most MaxInputs recorded and
// MaxInputs generated, each compared.
func TestCompareMethodBoundsItsInputs(t *testing.T) {
	in := newCompareFixture(t)
	for _, limit := range []int{1, 3, 300} {
		v, err := in.CompareMethod(Comparison{Class: "Tally", Selector: "largest:", MaxInputs: limit,
			Candidate: "largest: aCollection\n\t| m |\n\tm := 0.\n\taCollection do: [ :e | m := m max: e ].\n\t^ m"})
		require.NoError(t, err)
		assert.Equal(t, Same, v.Outcome, "%+v", v)
		assert.Zero(t, v.Recorded, "no test class: nothing recorded")
		assert.LessOrEqual(t, v.Generated, min(limit, MaxMaxInputs))
		assert.Positive(t, v.Generated)
		assert.Equal(t, v.Generated, v.Compared)
	}
}

// TestCopierKeepsSharingCyclesAndHashes: a copy is a graph of its own
// with the original's shape: what is shared stays shared, a cycle stays a
// cycle, a Set still finds its elements, and changing the copy leaves the
// original alone.
func TestCopierKeepsSharingCyclesAndHashes(t *testing.T) {
	in := newCompareFixture(t)
	v, ok := in.evalValue("[ | shared a s d | shared := OrderedCollection with: 1. a := Array new: 5. a at: 1 put: a; at: 2 put: shared; at: 3 put: shared. s := Set new. s add: Object new; add: 'x'. a at: 4 put: s. d := IdentityDictionary new. d at: shared put: 7. a at: 5 put: d. a ] value")
	require.True(t, ok)
	orig := v.(*Instance)
	c, ok := in.newCopier().copyOne(orig)
	require.True(t, ok)
	cp := c.(*Instance)
	require.NotSame(t, orig, cp)
	assert.Same(t, cp, cp.indexed[0], "the cycle")
	assert.Same(t, cp.indexed[1], cp.indexed[2], "the sharing")
	assert.NotSame(t, orig.indexed[1], cp.indexed[1])
	probe := func(expr string, recv Object) Object {
		var out Object
		in.guard(DefaultStepsPerCall, func() {
			m := compile(in.classes["UndefinedObject"], "probe: a\n\t^ "+expr)
			m.compileBody()
			out = in.invoke(m, nil, []Object{recv})
		}, func(d string) { out = "error: " + d })
		return out
	}
	assert.Equal(t, true, probe("(a at: 4) includes: 'x'", cp))
	assert.Equal(t, true, probe("(a at: 4) includes: ((a at: 4) detect: [ :e | e isString not ])", cp), "an element hashed by identity is found")
	assert.Equal(t, int64(7), probe("(a at: 5) at: (a at: 2)", cp), "an identity key is found")
	probe("(a at: 2) add: 2", cp)
	assert.Len(t, orig.indexed[1].(*Instance).indexed, 1, "the original is untouched")
	assert.Nil(t, in.sameState(orig, v), "a graph is the same as itself")
	assert.NotNil(t, in.sameState(orig, cp), "the copy changed")
}

// TestSameStateWalksBothGraphs: the structural comparison of a run's
// objects.
func TestSameStateWalksBothGraphs(t *testing.T) {
	in := newCompareFixture(t)
	cases := []struct {
		name, a, b string
		same       bool
		path       string
	}{
		{"equal arrays", "#(1 $a 'x' #y 2.5)", "#(1 $a 'x' #y 2.5)", true, ""},
		{"an element differs", "#(1 2 3)", "#(1 5 3)", false, "at: 2"},
		{"a size differs", "#(1 2)", "#(1 2 3)", false, ""},
		{"a class differs", "#(1 2) asOrderedCollection", "#(1 2)", false, ""},
		{"a number of another class", "#(1)", "#(1.0)", false, "at: 1"},
		{"a large integer by value", "{ 2 raisedTo: 70 }", "{ 2 raisedTo: 70 }", true, ""},
		{"a fraction by value", "{ 1/3 }", "{ 2/6 }", true, ""},
		{"sets in another order", "Set withAll: #(1 2 3)", "Set withAll: #(3 2 1)", true, ""},
		{"dictionaries by their contents", "Dictionary new at: #a put: 1; at: #b put: 2; yourself", "Dictionary new at: #b put: 2; at: #a put: 1; yourself", true, ""},
		{"a dictionary's value differs", "Dictionary new at: #a put: 1; yourself", "Dictionary new at: #a put: 2; yourself", false, "at: #a"},
		{"a named variable differs", "Tally new add: 1; yourself", "Tally new add: 2; yourself", false, "items at: 1"},
		{"one collection shared against two", "[ | o | o := OrderedCollection new. { o. o } ] value", "{ OrderedCollection new. OrderedCollection new }", false, "at: 2"},
		{"a cycle on both sides", "[ | a | a := Array new: 1. a at: 1 put: a. a ] value", "[ | a | a := Array new: 1. a at: 1 put: a. a ] value", true, ""},
		{"blocks by their arguments", "{ [ :x | x ] }", "{ [ :y | y + 1 ] }", true, ""},
		{"large sets in another order", "(1 to: 5000) asSet", "(5000 to: 1 by: -1) asSet", true, ""},
		{"large sets of other elements", "(1 to: 5000) asSet", "(2 to: 5001) asSet", false, ""},
		{"ordered dictionaries whose orderedKeys have other room to spare", "OrderedDictionary new at: #a put: 1; yourself", "(OrderedDictionary new: 1) at: #a put: 1; yourself", true, ""},
		{"ordered dictionaries' keys in another order", "OrderedDictionary new at: #a put: 1; at: #b put: 2; yourself", "OrderedDictionary new at: #b put: 2; at: #a put: 1; yourself", false, "orderedKeys at: 1"},
		{"an ordered dictionary with a key more", "OrderedDictionary new at: #a put: 1; yourself", "OrderedDictionary new at: #a put: 1; at: #b put: 2; yourself", false, "dictionary"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, ok := in.evalValue(tc.a)
			require.True(t, ok)
			b, ok := in.evalValue(tc.b)
			require.True(t, ok)
			d := in.sameState(a, b)
			if tc.same {
				assert.Nil(t, d)
				return
			}
			require.NotNil(t, d)
			assert.Equal(t, tc.path, d.at.String())
		})
	}
	assert.Nil(t, in.sameState(math.NaN(), math.NaN()), "a NaN state is the same NaN state")
	assert.NotNil(t, in.sameState(int64(1), 1.0))
}

// TestArgumentKindsFromNamesAndUses: how an argument no test gives is
// guessed.
func TestArgumentKindsFromNamesAndUses(t *testing.T) {
	cases := []struct {
		source string
		kind   kind
		arity  int
	}{
		{"m: aCollection ^ aCollection", kindCollection, 1},
		{"m: anInteger ^ anInteger", kindInteger, 1},
		{"m: aString ^ aString", kindString, 1},
		{"m: aBlock ^ aBlock value: 1 value: 2", kindBlock, 2},
		{"m: aSortBlock ^ #(1 2) asSortedCollection: aSortBlock", kindBlock, 2},
		{"m: anOrderedCollection ^ anOrderedCollection", kindOrdered, 1},
		{"m: products ^ products", kindCollection, 1},
		{"m: x ^ x do: [ :e | e ]", kindCollection, 1},
		{"m: x ^ x + 1", kindNumber, 1},
		{"m: x ^ 3 < x", kindNumber, 1},
		{"m: x ^ x ifTrue: [ 1 ]", kindBoolean, 1},
		{"m: x ^ x asUppercase", kindString, 1},
		{"m: x ^ #(1 2) detect: [ :e | e > 1 ] ifNone: x", kindBlock, 0},
		{"m: aDictionary ^ aDictionary keysAndValuesDo: [ :k :v | k ]", kindDictionary, 1},
		{"m: anObject ^ anObject", kindObject, 1},
		{"m: aClass ^ aClass", kindObject, 1},
	}
	for _, tc := range cases {
		t.Run(tc.source, func(t *testing.T) {
			m, err := smalltalk.ParseMethod(tc.source)
			require.NoError(t, err)
			k, arity := argKind(m, 0)
			assert.Equal(t, tc.kind, k)
			assert.Equal(t, tc.arity, arity)
		})
	}
}

// TestGeneratedValuesAreMade: every expression the generator makes
// values with evaluates on the kernel (a typo would silently make none).
func TestGeneratedValuesAreMade(t *testing.T) {
	in := newCompareFixture(t)
	var exprs []string
	for _, es := range kindValues {
		exprs = append(exprs, es...)
	}
	for _, es := range blockValues {
		exprs = append(exprs, es...)
	}
	for _, e := range exprs {
		_, ok := in.evalValue(e)
		assert.True(t, ok, e)
	}
}

// TestOrderedDictionaryVariesAsADictionary: an OrderedDictionary (a
// Collection holding a Dictionary, no table of its own) varies as a
// dictionary does: an empty one, and copies whose values are the
// method's numbers.
func TestOrderedDictionaryVariesAsADictionary(t *testing.T) {
	in := newCompareFixture(t)
	d, ok := in.evalValue("OrderedDictionary new at: #a put: 1; at: #b put: 2; yourself")
	require.True(t, ok)
	g := &generator{in: in, lits: []Object{int64(7)}, seen: map[string]bool{}}
	var printed []string
	for _, v := range g.collectionVariants(d.(*Instance)) {
		printed = append(printed, str(in.Send(v, "printString")))
	}
	assert.Equal(t, []string{"an OrderedDictionary()", "an OrderedDictionary(#a->7 #b->7)", "an OrderedDictionary(#a->6 #b->6)", "an OrderedDictionary(#a->8 #b->8)"}, printed)
}
