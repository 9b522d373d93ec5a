package interp

import (
	"cmp"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// The steps a test gets, as the real runs give them.
const realSteps = 20_000_000

const tooDeepError = "ERROR: the stack grew too deep (an endless recursion?)"

// evalThenNext evaluates expr with extra methods compiled in, as a test
// runs (a step budget, a guard), and then, in the same interpreter, an
// ordinary expression: what a hostile test does must leave the
// interpreter able to run the next one.
func evalThenNext(t *testing.T, extra []MethodSource, expr string) (out, next string) {
	t.Helper()
	return evalThenNextWithin(t, Limits{Steps: realSteps}, extra, expr)
}

// evalThenNextWithin is evalThenNext under other limits.
func evalThenNextWithin(t *testing.T, limits Limits, extra []MethodSource, expr string) (out, next string) {
	t.Helper()
	methods := append([]MethodSource{
		{Class: "UndefinedObject", Source: "doIt\n\t^ [ " + expr + " ] value printString"},
		{Class: "UndefinedObject", Source: "next\n\t^ (#(3 4) inject: 0 into: [ :a :b | a + b ]) printString"},
	}, extra...)
	in, err := New(&Program{Methods: methods}, limits)
	require.NoError(t, err)
	in.guard(limits.Steps, func() { out = str(in.Send(nil, "doIt")) }, func(d string) { out = "ERROR: " + d })
	in.guard(limits.Steps, func() { next = str(in.Send(nil, "next")) }, func(d string) { next = "ERROR: " + d })
	return out, next
}

// TestEndlessRecursionEndsAsAnError: every way Smalltalk code nests counts
// toward one depth limit — methods, blocks, primitives that send back
// (perform:, value:, deepCopy, on:do:, ensure:, printing, = and hash) — so
// an endless recursion through any of them is an error before Go's stack
// overflows (which no recover catches), and the interpreter runs the next
// evaluation.
func TestEndlessRecursionEndsAsAnError(t *testing.T) {
	extra := []MethodSource{
		{Class: "UndefinedObject", Source: "viaPerform: n\n\t^ self perform: #viaPerform: with: n"},
		{Class: "UndefinedObject", Source: "viaPerform\n\t^ self perform: #viaPerform"},
		{Class: "UndefinedObject", Source: "viaArguments: n\n\t^ self perform: #viaArguments: withArguments: { n }"},
		{Class: "UndefinedObject", Source: "viaHandler\n\t^ [ self viaHandler ] on: ZeroDivide do: [ :e | 0 ]"},
		{Class: "UndefinedObject", Source: "viaHandlerBlock\n\t^ [ 1 / 0 ] on: ZeroDivide do: [ :e | self viaHandlerBlock ]"},
		{Class: "UndefinedObject", Source: "viaEnsure\n\t^ [ self viaEnsure ] ensure: [ ]"},
		{Class: "UndefinedObject", Source: "bothEnsure\n\t^ [ self bothEnsure ] ensure: [ self bothEnsure ]"},
		{Class: "UndefinedObject", Source: "inEnsure\n\t^ [ 1 ] ensure: [ self inEnsure ]"},
		{Class: "UndefinedObject", Source: "viaCurtailed\n\t^ [ self viaCurtailed ] ifCurtailed: [ self viaCurtailed ]"},
		{Class: "UndefinedObject", Source: "nested\n\t^ 1 + (1 + (1 + (1 + (1 + (1 + (1 + (1 + (1 + (1 + (1 + (1 + (self nested))))))))))))"},
		{Class: "UndefinedObject", Source: "selfContaining\n\t| a |\n\ta := Array new: 1.\n\ta at: 1 put: a.\n\t^ a"},
	}
	cases := []struct{ name, expr string }{
		{"a block", "| loop | loop := nil. loop := [ :c | loop value: c ]. loop value: 1"},
		{"a block without arguments", "| loop | loop := nil. loop := [ loop value ]. loop value"},
		{"perform:", "nil viaPerform"},
		{"perform:with:", "nil viaPerform: 1"},
		{"perform:withArguments:", "nil viaArguments: 1"},
		{"deepCopy of an array that holds itself", "nil selfContaining deepCopy"},
		{"printString of an array that holds itself", "nil selfContaining printString"},
		{"= of two arrays that hold themselves", "nil selfContaining = nil selfContaining"},
		{"hash of an array that holds itself", "nil selfContaining hash"},
		{"on:do:", "nil viaHandler"},
		{"a handler block", "nil viaHandlerBlock"},
		{"an on:do: that handles Error", "[ nil viaPerform ] on: Error do: [ :e | e retry ]"},
		{"ensure:", "nil viaEnsure"},
		{"ensure: blocks that recurse too", "nil bothEnsure"},
		{"an ensure: block", "nil inEnsure"},
		{"ifCurtailed:", "nil viaCurtailed"},
		{"a send nested deep in its method", "nil nested"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, next := evalThenNext(t, extra, tc.expr)
			assert.Equal(t, tooDeepError, out)
			assert.Equal(t, "7", next)
		})
	}
}

// TestDeepRecursionStillRuns: legitimate code recursing a few thousand
// levels — through a method, through do: and inject:into: blocks — runs.
func TestDeepRecursionStillRuns(t *testing.T) {
	extra := []MethodSource{
		{Class: "UndefinedObject", Source: "down: n\n\t^ n = 0 ifTrue: [ 0 ] ifFalse: [ 1 + (self down: n - 1) ]"},
		{Class: "UndefinedObject", Source: "doDown: n\n\t| sum |\n\tn = 0 ifTrue: [ ^ 0 ].\n\tsum := 0.\n\t#(1) do: [ :x | sum := x + (self doDown: n - 1) ].\n\t^ sum"},
		{Class: "UndefinedObject", Source: "injectDown: n\n\tn = 0 ifTrue: [ ^ 0 ].\n\t^ #(1) inject: 0 into: [ :a :x | a + x + (self injectDown: n - 1) ]"},
		{Class: "UndefinedObject", Source: "performDown: n\n\tn = 0 ifTrue: [ ^ 0 ].\n\t^ 1 + (self perform: #performDown: with: n - 1)"},
		{Class: "UndefinedObject", Source: "handledDown: n\n\tn = 0 ifTrue: [ ^ 0 ].\n\t^ [ 1 + (self handledDown: n - 1) ] on: ZeroDivide do: [ :e | -1 ]"},
	}
	cases := []struct{ name, expr string }{
		{"a method", "nil down: 3000"},
		{"do:", "nil doDown: 3000"},
		{"inject:into:", "nil injectDown: 3000"},
		{"perform:with:", "nil performDown: 3000"},
		{"on:do:", "nil handledDown: 3000"},
		{"a block", "| f | f := nil. f := [ :n | n = 0 ifTrue: [ 0 ] ifFalse: [ 1 + (f value: n - 1) ] ]. f value: 3000"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, _ := evalThenNext(t, extra, tc.expr)
			assert.Equal(t, "3000", out)
		})
	}
}

// TestEndlessAllocationEndsAsAnError: what a test holds counts toward a
// memory budget, checked before Go allocates what would pass it, so a
// test that asks for gigabytes — at once or a little at a time — is an
// error instead of killing pharo-sim, and the interpreter runs the next
// evaluation. The cases that ask for the most at once run under the
// default budget; the others under a smaller one, which they reach
// sooner.
func TestEndlessAllocationEndsAsAnError(t *testing.T) {
	const small = 64 << 20
	cases := []struct {
		name   string
		memory int64 // 0: the default
		expr   string
	}{
		{"a string doubled forty times", 0, "| s | s := 'ab'. 40 timesRepeat: [ s := s , s ]. s size"},
		{"64 arrays of the largest size", 0, "| keep | keep := OrderedCollection new. 64 timesRepeat: [ keep add: (Array new: 1 << 26) ]. keep size"},
		{"strings of the largest size", 0, "| keep | keep := OrderedCollection new. 64 timesRepeat: [ keep add: (String new: 1 << 26) ]. keep size"},
		{"a large integer squared thirty times", 0, "| x | x := 2 raisedTo: 1000. 30 timesRepeat: [ x := x * x ]. x highBit"},
		{"a symbol doubled forty times", small, "| s | s := #ab. 40 timesRepeat: [ s := s , s ]. s size"},
		{"basicNew: of the largest size", small, "| keep | keep := OrderedCollection new. 64 timesRepeat: [ keep add: (Array basicNew: 1 << 26) ]. keep size"},
		{"small arrays kept", small, "| keep | keep := OrderedCollection new. [ keep add: (Array new: 10) ] repeat"},
		{"blocks kept", small, "| keep | keep := OrderedCollection new. 1 to: 1000000000 do: [ :i | keep add: [ i ] ]"},
		{"dictionary entries kept", small, "| d i | d := Dictionary new. i := 0. [ d at: (i := i + 1) put: (Array new: 100) ] repeat"},
		{"copies of a large array", small, "| a keep | a := Array new: 1000000. keep := OrderedCollection new. [ keep add: a copy ] repeat"},
		{"deep copies", small, "| a keep | a := Array with: (String new: 1000000) with: (String new: 1000000). keep := OrderedCollection new. [ keep add: a deepCopy ] repeat"},
		{"very deep copies of a large array", small, "| a keep | a := Array new: 1000000. keep := OrderedCollection new. [ keep add: a veryDeepCopy ] repeat"},
		{"a string's bytes", small, "| s keep | s := String new: 1000000. keep := OrderedCollection new. [ keep add: s utf8Encoded ] repeat"},
		{"a large integer printed in base 2", small, "| x keep | x := 1 bitShift: 1000000. keep := OrderedCollection new. [ keep add: (x printString: 2) ] repeat"},
		{"a stream grown", 16 << 20, "| w | w := WriteStream on: String new. [ w nextPutAll: (String new: 100000) ] repeat"},
		{"every match of a pattern that matches nothing", small, "| s | s := String new: 10000000. (s allRegexMatches: 'x*') size"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			budget := cmp.Or(tc.memory, DefaultMemory)
			want := fmt.Sprintf("ERROR: memory budget exceeded: the computation holds more than %d MiB (an endless allocation?)", budget>>20)
			out, next := evalThenNextWithin(t, Limits{Steps: realSteps, Memory: tc.memory}, nil, tc.expr)
			assert.Equal(t, want, out)
			assert.Equal(t, "7", next)
		})
	}
}

// TestCreatingMoreThanTheBudgetWhileHoldingLittleRuns: the budget bounds
// what a test holds, not what it creates: computing large integers over
// and over (as Pharo's IntegerTest>>#testSlowFactorial does, 340 MB in
// all), or strings and arrays thrown away at once, runs however much it
// creates in all, and so do the matches of a pattern over a long string.
func TestCreatingMoreThanTheBudgetWhileHoldingLittleRuns(t *testing.T) {
	cases := []struct{ name, expr, want string }{
		{"factorials", "| n | n := 0. 1 to: 1000 do: [ :i | n := n + i factorial highBit ]. n", "3911240"},
		{"strings thrown away", "| n | n := 0. 1 to: 200 do: [ :i | n := n + (String new: 100000) size ]. n", "20000000"},
		{"arrays thrown away", "| n | n := 0. 1 to: 100 do: [ :i | n := n + (Array new: 100000) size ]. n", "10000000"},
		{"every match of a pattern", "((String new: 10000) allRegexMatches: 'x*') size", "10001"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// 16 MiB: each creates several times that
			out, _ := evalThenNextWithin(t, Limits{Steps: realSteps, Memory: 16 << 20}, nil, tc.expr)
			assert.Equal(t, tc.want, out)
		})
	}
}

// TestHostileTestsErrorAndTheirClassRuns: a TestCase class whose tests
// recurse without end or allocate without end runs as SUnit does: each of
// those tests is an error saying why, and the class's other tests, before
// and after them, pass.
func TestHostileTestsErrorAndTheirClassRuns(t *testing.T) {
	const tooDeep = "the stack grew too deep (an endless recursion?)"
	memory := fmt.Sprintf("memory budget exceeded: the computation holds more than %d MiB (an endless allocation?)", DefaultMemory>>20)
	tests := []struct{ selector, body, detail string }{
		{"testArithmetic", "self assert: 3 + 4 equals: 7", ""},
		{"testBlockRecursion", "| loop | loop := nil. loop := [ :c | loop value: c ]. loop value: 1", tooDeep},
		{"testCycleDeepCopied", "self selfContaining deepCopy", tooDeep},
		{"testCyclePrinted", "self selfContaining printString", tooDeep},
		{"testCyclesCompared", "self assert: self selfContaining = self selfContaining", tooDeep},
		{"testCycleHashed", "self selfContaining hash", tooDeep},
		{"testCycleVeryDeepCopied", "| a b | a := self selfContaining. b := a veryDeepCopy. self assert: (b at: 1) == b. self deny: b == a", ""},
		{"testDeepRecursion", "self assert: (self down: 3000) equals: 3000", ""},
		{"testEnsureRecursion", "self ensured", tooDeep},
		{"testHandlerRecursion", "self handled", tooDeep},
		{"testLargestArrays", "| keep | keep := OrderedCollection new. 64 timesRepeat: [ keep add: (Array new: 1 << 26) ]", memory},
		{"testLargestStrings", "| keep | keep := OrderedCollection new. 64 timesRepeat: [ keep add: (String new: 1 << 26) ]", memory},
		{"testPerformRecursion", "self performed", tooDeep},
		{"testSquaring", "| x | x := 2 raisedTo: 1000. 30 timesRepeat: [ x := x * x ]", memory},
		{"testStringDoubling", "| s | s := 'ab'. 40 timesRepeat: [ s := s , s ]", memory},
		{"testStrings", "self assert: ('ab' , 'cd') size equals: 4", ""},
	}
	methods := []MethodSource{
		{Class: "HostileTest", Source: "selfContaining\n\t| a |\n\ta := Array new: 1.\n\ta at: 1 put: a.\n\t^ a"},
		{Class: "HostileTest", Source: "down: n\n\t^ n = 0 ifTrue: [ 0 ] ifFalse: [ 1 + (self down: n - 1) ]"},
		{Class: "HostileTest", Source: "ensured\n\t^ [ self ensured ] ensure: [ self ensured ]"},
		{Class: "HostileTest", Source: "handled\n\t^ [ self handled ] on: Error do: [ :e | e return: 0 ]"},
		{Class: "HostileTest", Source: "performed\n\t^ self perform: #performed"},
	}
	for _, tc := range tests {
		methods = append(methods, MethodSource{Class: "HostileTest", Source: tc.selector + "\n\t" + tc.body})
	}
	ran := runTestClassOf(t, "HostileTest", methods, len(tests))
	for _, tc := range tests {
		o, ok := ran[tc.selector]
		require.True(t, ok, tc.selector)
		if tc.detail == "" {
			assert.Equal(t, Passed, o.Outcome, "%s: %s", tc.selector, o.Detail)
			continue
		}
		assert.Equal(t, Errored, o.Outcome, tc.selector)
		assert.Equal(t, tc.detail, o.Detail, tc.selector)
	}
}

// TestWhatTestsLeaveBehindIsBounded: what tests leave in class variables
// outlives them and counts for none of them; the interpreter as a whole
// may hold leftBehind memory budgets beyond what it held when it was built, and
// once it does, each test it starts errors at once — the run's memory
// stops growing there instead of growing until the process dies.
func TestWhatTestsLeaveBehindIsBounded(t *testing.T) {
	const budget = 64 << 20 / leftBehind // the interpreter may then hold 64 MiB
	program := &Program{
		Classes: []tonel.Definition{{Kind: tonel.KindClass, Name: "HoardingTest", Superclass: "TestCase", ClassVars: []string{"Hoard"}, Category: "Hostile-Tests"}},
	}
	var selectors []string
	for i := 1; i <= 12; i++ {
		// each keeps 10 MB, under the budget of a test
		sel := fmt.Sprintf("test%02d", i)
		selectors = append(selectors, sel)
		program.Methods = append(program.Methods, MethodSource{Class: "HoardingTest",
			Source: sel + "\n\tHoard ifNil: [ Hoard := OrderedCollection new ].\n\tHoard add: (Array new: 625000)"})
	}
	in, err := New(program, Limits{Steps: realSteps, Memory: budget})
	require.NoError(t, err)
	out, err := in.RunTestClass("HoardingTest", realSteps)
	require.NoError(t, err)
	require.Len(t, out, len(selectors))
	leftBehind := fmt.Sprintf("memory budget exceeded: the interpreter holds more than %d MiB, left by earlier tests (in class variables or globals?)", leftBehind*budget>>20)
	stopped := false
	for i, o := range out {
		require.Equal(t, selectors[i], o.Selector)
		switch {
		case i < 5: // 50 MB kept: under the bound, whatever the garbage when the interpreter was built
			assert.Equal(t, Passed, o.Outcome, "%s: %s", o.Selector, o.Detail)
		case i >= 9: // 90 MB kept: past it
			assert.Equal(t, Errored, o.Outcome, o.Selector)
			assert.Equal(t, leftBehind, o.Detail, o.Selector)
		}
		if stopped {
			assert.Equal(t, leftBehind, o.Detail, "%s runs after one that could not", o.Selector)
		}
		stopped = stopped || o.Outcome == Errored
	}
}

// TestATestsBudgetIsTime: a test's budget is its call's time, as on
// Pharo; the step guard is far above what legitimate work takes. Under
// the budget the real runs give (StepGuard and a deadline), a loop of
// fifty million sends completes, and an endless loop ends at the
// deadline; with no deadline, the guard still ends it.
func TestATestsBudgetIsTime(t *testing.T) {
	t.Parallel()
	const (
		heavyLoop   = "| n |\n\tn := 0.\n\t1 to: 50000000 do: [ :i | n := n + self one ].\n\tself assert: n equals: 50000000"
		endlessLoop = "| n |\n\tn := 0.\n\t[ n := n + self one ] repeat"
	)
	cases := []struct {
		name     string
		body     string
		steps    int64
		deadline time.Duration // from the run's start; 0: none
		outcome  Outcome
		detail   string
	}{
		{"fifty million sends complete under the real budget", heavyLoop, StepGuard, 10 * time.Minute, Passed, ""},
		{"an endless loop ends at the deadline", endlessLoop, StepGuard, 300 * time.Millisecond, Errored, "the time limit ran out"},
		{"an endless loop without a deadline ends at the guard", endlessLoop, 10_000_000, 0, Errored, "the step budget ran out (an endless loop?)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			program := &Program{
				Classes: []tonel.Definition{{Kind: tonel.KindClass, Name: "BudgetTest", Superclass: "TestCase", Category: "Budget-Tests"}},
				Methods: []MethodSource{
					{Class: "BudgetTest", Source: "one\n\t^ 1"},
					{Class: "BudgetTest", Source: "testLoop\n\t" + tc.body},
				},
			}
			limits := Limits{Steps: tc.steps}
			if tc.deadline > 0 {
				limits.Deadline = time.Now().Add(tc.deadline)
			}
			in, err := New(program, limits)
			require.NoError(t, err)
			out, err := in.RunTestClass("BudgetTest", tc.steps)
			require.NoError(t, err)
			require.Len(t, out, 1)
			assert.Equal(t, tc.outcome, out[0].Outcome, out[0].Detail)
			assert.Equal(t, tc.detail, out[0].Detail)
		})
	}
}

// TestGeneratorsEndWithTheirTest: a Generator's block runs on a goroutine
// of its own; one left suspended, one that loops or recurses without
// end, and one that a limit ends inside its block all end with their
// test — the limit errors the test, the next test runs — and no
// goroutine outlives the run. The stack a suspended generator holds
// counts with its consumer's toward the one depth limit. Not parallel: it counts the process's
// goroutines.
func TestGeneratorsEndWithTheirTest(t *testing.T) {
	tests := []struct{ selector, body, detail string }{
		{"testEndlessRecursionInside", "| g | g := Generator on: [ :x | x yield: 1. self down: x ]. g next; next", "the stack grew too deep (an endless recursion?)"},
		{"testEndlessLoopInside", "| g | g := Generator on: [ :x | x yield: 1. [ true ] whileTrue ]. g next; next", "the step budget ran out (an endless loop?)"},
		{"testLeftSuspended", "| g | g := Generator on: [ :x | [ x yield: 1 ] repeat ]. self assert: g next equals: 1", ""},
		{"testSuspendedStacksCount", "| g | g := Generator on: [ :x | self nest: 25000 then: [ x yield: 1; yield: 2 ] ]. g next. self nest: 25000 then: [ 0 ]", "the stack grew too deep (an endless recursion?)"},
		{"testStacksOneAtATime", "self nest: 25000 then: [ 0 ]. (Generator on: [ :x | self nest: 25000 then: [ x yield: 1 ] ]) contents", ""},
		{"testManySuspended", "1 to: 50 do: [ :i | (Generator on: [ :x | [ x yield: i; yield: i ] ensure: [ Smalltalk at: #Reached put: true ] ]) next ]", ""},
		{"testManyRunToTheirEnd", "1 to: 1500 do: [ :i | self assert: (Generator on: [ :x | x yield: i ]) contents equals: { i } ]", ""},
		{"testTooManyUnderWay", "| keep | keep := OrderedCollection new. 1 to: 1500 do: [ :i | keep add: ((Generator on: [ :x | x yield: i; yield: i ]) next; yourself) ]", "more than 1000 generators under way at once (an endless creation?)"},
		{"testNothingOfTheEarlierRuns", "self assert: (Smalltalk at: #Reached ifAbsent: [ false ]) equals: false", ""},
	}
	methods := []MethodSource{
		{Class: "GeneratorLimitsTest", Source: "down: x\n\t^ 1 + (self down: x)"},
		{Class: "GeneratorLimitsTest", Source: "nest: n then: aBlock\n\t^ n = 0 ifTrue: [ aBlock value ] ifFalse: [ self nest: n - 1 then: aBlock ]"},
	}
	for _, tc := range tests {
		methods = append(methods, MethodSource{Class: "GeneratorLimitsTest", Source: tc.selector + "\n\t" + tc.body})
	}
	before := runtime.NumGoroutine()
	ran := runTestClassOf(t, "GeneratorLimitsTest", methods, len(tests))
	for _, tc := range tests {
		o := ran[tc.selector]
		if tc.detail == "" {
			assert.Equal(t, Passed, o.Outcome, "%s: %s", tc.selector, o.Detail)
			continue
		}
		assert.Equal(t, Errored, o.Outcome, tc.selector)
		assert.Equal(t, tc.detail, o.Detail, tc.selector)
	}
	// a goroutine that has reported its end may take a moment to exit;
	// polled here, not by assert.Eventually, whose own goroutine counts
	left := runtime.NumGoroutine()
	for wait := 0; left > before && wait < 1000; wait++ {
		time.Sleep(10 * time.Millisecond)
		left = runtime.NumGoroutine()
	}
	assert.LessOrEqual(t, left, before, "a generator's goroutine outlived its test")
}

// TestADelayEndsByTheDeadline: a Delay's wait sleeps, but never past the
// computation's deadline, and with no deadline never longer than a
// minute: a wait too long ends as the time limit or an endless wait,
// not as a hang.
func TestADelayEndsByTheDeadline(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		expr     string
		deadline time.Duration // from the start; 0: none
		want     string
	}{
		{"a short wait completes", "(Delay forMilliseconds: 5) wait; beingWaitedOn", time.Minute, "false"},
		{"a wait past the deadline ends at it", "(Delay forSeconds: 3600) wait", 200 * time.Millisecond, "ERROR: the time limit ran out"},
		{"a wait of an hour with no deadline is refused", "1 hour wait", 0, "ERROR: a wait of more than a minute with no time limit to end it, and no process to run meanwhile (an endless wait?)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			limits := Limits{Steps: realSteps}
			if tc.deadline > 0 {
				limits.Deadline = time.Now().Add(tc.deadline)
			}
			p := &Program{Methods: []MethodSource{{Class: "UndefinedObject", Source: "doIt\n\t^ [ " + tc.expr + " ] value printString"}}}
			in, err := New(p, limits)
			require.NoError(t, err)
			var out string
			in.guard(realSteps, func() { out = str(in.Send(nil, "doIt")) }, func(d string) { out = "ERROR: " + d })
			assert.Equal(t, tc.want, out)
		})
	}
}

// TestAGeneratorCannotWaitForItself: a generator's block that asks its
// own generator to go on (next, reset, close) would wait for its own
// goroutine forever: it is an Error instead, which the block may handle.
func TestAGeneratorCannotWaitForItself(t *testing.T) {
	t.Parallel()
	cases := []struct{ expr, want string }{
		{"| g | g := Generator on: [ :x | x yield: 1. x yield: ([ g next ] on: Error do: [ :e | e messageText ]) ]. g next; next", "'a generator''s block asks its own generator to go on (next, reset or close inside its block)'"},
		{"| g | g := Generator on: [ :x | x yield: 1. [ x close ] on: Error do: [ :e | x yield: #refused ] ]. g next; next", "#refused"},
		{"| g h | g := Generator on: [ :x | x yield: 1. x yield: ([ h next ] on: Error do: [ :e | #refused ]) ]. h := Generator on: [ :y | y yield: g next; yield: g next ]. h next; next", "#refused"},
	}
	for _, tc := range cases {
		t.Run(tc.expr, func(t *testing.T) {
			assert.Equal(t, tc.want, evalIn(t, tc.expr))
		})
	}
}

// TestValueWithinEndsTheBlockInTime: valueWithin:onTimeout: ends a block
// that loops as one that waits, by a TimedOut signalled where it stands;
// a block that leaves by ^ ends its timeout, which then never fires.
func TestValueWithinEndsTheBlockInTime(t *testing.T) {
	t.Parallel()
	extra := []MethodSource{
		{Class: "UndefinedObject", Source: "leave\n\t[ ^ #left ] valueWithin: 20 milliSeconds onTimeout: [ #late ].\n\t^ #stayed"},
	}
	cases := []struct{ name, expr, want string }{
		{"a loop is cut", "[ [ true ] whileTrue ] valueWithin: 20 milliSeconds onTimeout: [ #late ]", "#late"},
		{"a wait is cut", "[ (Delay forSeconds: 30) wait ] valueWithin: 20 milliSeconds onTimeout: [ #late ]", "#late"},
		{"a block left by ^ ends its timeout", "[ nil leave. [ (Delay forMilliseconds: 60) wait. #calm ] valueWithin: 5 seconds onTimeout: [ #cut ] ] on: TimedOut do: [ :e | #stale ]", "#calm"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, next := evalThenNextWithin(t, Limits{Steps: realSteps, Deadline: time.Now().Add(time.Minute)}, extra, tc.expr)
			assert.Equal(t, tc.want, out)
			assert.Equal(t, "7", next)
		})
	}
}

// runTestClassOf runs a TestCase subclass of the given methods with the
// real steps of a test run, and answers its n outcomes by selector.
func runTestClassOf(t *testing.T, class string, methods []MethodSource, n int) map[string]TestOutcome {
	t.Helper()
	program := &Program{
		Classes: []tonel.Definition{{Kind: tonel.KindClass, Name: class, Superclass: "TestCase", Category: "Hostile-Tests"}},
		Methods: methods,
	}
	in, err := New(program, Limits{Steps: realSteps})
	require.NoError(t, err)
	out, err := in.RunTestClass(class, realSteps)
	require.NoError(t, err)
	require.Len(t, out, n)
	ran := map[string]TestOutcome{}
	for _, o := range out {
		ran[o.Selector] = o
	}
	return ran
}
