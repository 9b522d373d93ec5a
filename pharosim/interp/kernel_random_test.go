package interp

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestRandomDrawsPharosNumbers: a seeded Random draws the numbers Pharo
// 13's draws for that seed (its RandomTest's sequences), and the
// collection protocol over it answers as Pharo's does.
func TestRandomDrawsPharosNumbers(t *testing.T) {
	t.Parallel()
	cases := []struct{ expr, want string }{
		{"| g | g := Random seed: 42. (1 to: 5) collect: [ :i | g nextIntegerBetween: 0 and: 16r7FFFFFFF ]", "#(1123384278 1795671209 1924641435 1143034755 1974427309)"},
		{"| g | g := Random seed: 123456. (1 to: 3) collect: [ :i | g nextIntegerBetween: 0 and: 16r7FFFFFFF ]", "#(566038743 1171143710 196292920)"},
		{"{1. 2. 3. 4. 5} shuffleBy: (Random seed: 42)", "#(1 2 5 4 3)"},
		{"({1. 2. 3. 4. 5} shuffledBy: (Random seed: 42)) -> #(1 2 3 4 5) copy", "#(1 2 5 4 3)->#(1 2 3 4 5)"},
		{"(Random seed: 10.5) seed", "10"},
		{"[ (Random seed: 1) nextInteger: 0 ] on: Error do: [ :e | e messageText ]", "'Range must be positive'"},
		{"| g | g := Random seed: 7. (1 to: 1000) allSatisfy: [ :i | | x | x := g next. x >= 0 and: [ x < 1 ] ]", "true"},
		{"| g | g := Random seed: 7. (1 to: 1000) allSatisfy: [ :i | (g nextIntegerBetween: -3 and: 5) between: -3 and: 5 ]", "true"},
		{"Random new next = Random new next", "false"},
		{"(1 to: 100) allSatisfy: [ :i | 5 atRandom between: 1 and: 5 ]", "true"},
		{"(1 to: 100) allSatisfy: [ :i | -5 atRandom between: -5 and: -1 ]", "true"},
		{"[ #() atRandom ] on: CollectionIsEmpty do: [ :e | #empty ]", "#empty"},
		{"#(7) asSet atRandom", "7"},
		{"#(3 1 2) shuffled asSortedCollection asArray", "#(1 2 3)"},
		{"| a | a := #(1 2 3) copy. a shuffle == a", "true"},
		{"#(1 2 3) atRandom: (Random seed: 42)", "2"},
	}
	for _, tc := range cases {
		t.Run(tc.expr, func(t *testing.T) {
			assert.Equal(t, tc.want, evalIn(t, tc.expr))
		})
	}
}

// TestRandomNewIsTheSameInEveryRun: a generator made without a seed draws
// the same numbers in each interpreter, so the runs of a test class before
// and after a release see the same draws.
func TestRandomNewIsTheSameInEveryRun(t *testing.T) {
	t.Parallel()
	expr := "| g | g := Random new. (1 to: 5) collect: [ :i | g nextInteger: 1000 ]"
	first := evalIn(t, expr)
	assert.Equal(t, first, evalIn(t, expr))
	assert.Equal(t, evalIn(t, "#(1 2 3 4 5 6 7 8) shuffled"), evalIn(t, "#(1 2 3 4 5 6 7 8) shuffled"))
}
