package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/smalltalk"
)

// Each operator makes a mutant that parses, keeps the selector, differs
// from the original, and holds the change it names.
func TestMutationOperators(t *testing.T) {
	t.Parallel()
	cases := []struct {
		op, src, want string
	}{
		{OpRelational, "at: x\n\t^ x < 3", "^ x <= 3"},
		{OpRelational, "at: x\n\t^ x >= 3", "^ x > 3"},
		{OpArithmetic, "at: x\n\t^ x + 1", "^ x - 1"},
		{OpArithmetic, "at: x\n\t^ x * 2", "^ x / 2"},
		{OpConstant, "at: x\n\t^ x + 5", "^ x + 6"},
		{OpConstant, "at: x\n\t^ x + 5", "^ x + 4"},
		{OpConstant, "at: x\n\t^ x-0", "^ x- -1"},
		{OpDivision, "at: x\n\t^ x / 2 + 1", "^ x // 2 + 1"},
		{OpDivision, "at: x\n\t^ x / 2 + 1", "^ (x quo: 2) + 1"},
		{OpNegate, "at: x\n\t^ x > 0 ifTrue: [ 1 ] ifFalse: [ 2 ]", "^ (x > 0) not ifTrue: [ 1 ] ifFalse: [ 2 ]"},
		{OpNegate, "at: x\n\t^ x isNil and: [ true ]", "^ x isNil not and: [ true ]"},
		{OpSwapBranches, "at: x\n\t^ x > 0 ifTrue: [ 1 ] ifFalse: [ 2 ]", "^ x > 0 ifFalse: [ 1 ] ifTrue: [ 2 ]"},
		{OpSwapBranches, "at: x\n\tx > 0 ifTrue: [ ^ 1 ].\n\t^ 2", "x > 0 ifFalse: [ ^ 1 ]"},
		{OpDropStatement, "at: x\n\t| y |\n\ty := x.\n\ty := y + 1.\n\t^ y", "\ty := x.\n\t^ y"},
		{OpDropStatement, "at: x\n\t| y |\n\ty := x.\n\t^ y", "| y |\n\ty := x"},
		{OpOtherVariable, "at: x put: z\n\t^ x", "^ z"},
		{OpOtherVariable, "at: x\n\t^ #( 1 ) collect: [ :e | | t | t := e. t ]", "[ :e | | t | t := e. e ]"},
		{OpAbsNegated, "at: x\n\t^ x - 1", "^ (x - 1) abs"},
		{OpAbsNegated, "at: x\n\t^ x - 1", "^ (x - 1) negated"},
		{OpAbsNegated, "at: x\n\t^ -3", "^ -3 abs"},
	}
	covered := map[string]bool{}
	for _, c := range cases {
		t.Run(c.op+"/"+c.want, func(t *testing.T) {
			mutants := Mutants(c.src, 0)
			var found bool
			for _, m := range mutants {
				require.Equal(t, KindMutant, m.Kind)
				assert.NotEqual(t, c.src, m.Source)
				got, err := smalltalk.ParseMethod(m.Source)
				require.NoError(t, err, "%s: %q", m.Operator, m.Source)
				assert.Equal(t, "at:", strings.SplitAfter(got.Selector, ":")[0])
				if m.Operator == c.op && strings.Contains(m.Source, c.want) {
					found = true
				}
			}
			assert.True(t, found, "no %s mutant holds %q among %v", c.op, c.want, sources(mutants))
		})
		covered[c.op] = true
	}
	for _, op := range MutationOperators {
		assert.True(t, covered[op], "%s has no case", op)
	}
}

// No mutant repeats the original, none repeats another, and what is the
// same number by construction (12 abs, 0 negated) is not made.
func TestMutantsAreDistinctAndNotTriviallyEquivalent(t *testing.T) {
	t.Parallel()
	src := "at: x\n\tx > 0 ifTrue: [ ^ 12 ].\n\tx = 0 ifTrue: [ ^ 0 ].\n\t^ x * 2 / 3"
	seen := map[string]bool{src: true}
	for _, m := range Mutants(src, 0) {
		assert.False(t, seen[m.Source], "%s repeats %q", m.Operator, m.Source)
		seen[m.Source] = true
		assert.NotContains(t, m.Source, "12 abs")
		assert.NotContains(t, m.Source, "0 negated")
	}
	assert.Len(t, Mutants(src, 1), len(MutationOperators)-1, "one per operator (no variable to answer instead)")
	assert.Empty(t, Mutants("at: x\n\t^ x +", 0), "a source that does not parse has none")
}

func sources(cs []Candidate) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Source
	}
	return out
}
