package interp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	methods := append([]MethodSource{
		{Class: "UndefinedObject", Source: "doIt\n\t^ [ " + expr + " ] value printString"},
		{Class: "UndefinedObject", Source: "next\n\t^ (#(3 4) inject: 0 into: [ :a :b | a + b ]) printString"},
	}, extra...)
	in, err := New(&Program{Methods: methods}, Limits{Steps: realSteps})
	require.NoError(t, err)
	in.guard(realSteps, func() { out = str(in.Send(nil, "doIt")) }, func(d string) { out = "ERROR: " + d })
	in.guard(realSteps, func() { next = str(in.Send(nil, "next")) }, func(d string) { next = "ERROR: " + d })
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
