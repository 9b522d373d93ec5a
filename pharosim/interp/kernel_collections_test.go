package interp

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCollectionsAnswerAsPharo: the kernel's collections answer what Pharo
// 13's do; each case is an answer one of Pharo's collection tests expects.
func TestCollectionsAnswerAsPharo(t *testing.T) {
	cases := []struct{ name, expr, want string }{
		// enumerating
		{"select:thenDo:", "| out | out := OrderedCollection new. #(1 2 3 4) select: [ :x | x even ] thenDo: [ :x | out add: x * 10 ]. out", "an OrderedCollection(20 40)"},
		{"reject:thenCollect:", "#(1 2 3 4) reject: [ :x | x even ] thenCollect: [ :x | x * 10 ]", "#(10 30)"},
		{"collect:thenDo:", "| out | out := OrderedCollection new. #(1 2) collect: [ :x | x + 1 ] thenDo: [ :x | out add: x ]. out", "an OrderedCollection(2 3)"},
		{"detect:ifFound: answers the block's answer", "#(1 2 3) detect: [ :x | x > 1 ] ifFound: [ :x | x * 100 ]", "200"},
		{"detect:ifFound: with none answers nil", "#(1 2 3) detect: [ :x | x > 5 ] ifFound: [ :x | x ]", "nil"},
		{"a Set's flatCollect: is a Set", "(#(1 2) asSet flatCollect: [ :x | 1 to: 2 * x ]) = #(1 2 3 4) asSet", "true"},
		{"a Bag's flatCollect: is a Bag", "((Bag new add: #(1 2); add: #(3); yourself) flatCollect: [ :x | x ]) class", "Bag"},
		{"an Array's flatCollect: is an Array", "#(#(2 -3) #(4)) flatCollect: [ :e | e collect: [ :x | x abs ] ]", "#(2 3 4)"},
		{"an IdentitySet's collect: is an IdentitySet", "(#(1 2) asIdentitySet collect: [ :x | 5 ]) class", "IdentitySet"},
		{"sum: of nothing is 0", "#() sum: [ :x | x ]", "0"},
		{"sumNumbers:", "#(1 -2 4) sumNumbers: [ :x | x abs ]", "7"},
		{"max: answers the largest value of the block", "#(1 2) asSet max: [ :x | x + 1 ]", "3"},
		// converting and printing
		{"asCommaString", "#(1 2 3) asCommaString", "'1, 2, 3'"},
		{"asCommaStringAnd", "#(1 2 3) asCommaStringAnd", "'1, 2 and 3'"},
		{"printOn:delimiter:", "String streamContents: [ :s | #(1 'a') printOn: s delimiter: ', ' ]", "'1, ''a'''"},
		{"printOn:delimiter:last:", "String streamContents: [ :s | #(1 2 3) printOn: s delimiter: ', ' last: ' & ' ]", "'1, 2 & 3'"},
		{"joinUsing:", "#('a' 'b' 'c') joinUsing: '-'", "'a-b-c'"},
		{"joinUsing:last:", "#(1 2 3 4) joinUsing: ', ' last: ' and '", "'1, 2, 3 and 4'"},
		{"splitOn: an element", "(#(1 2 3 3 4 1 2 3 5 4 6) splitOn: 4) asArray", "#(#(1 2 3 3) #(1 2 3 5) #(6))"},
		{"splitOn: a subsequence", "(#(1 2 3 3 4 1 2 3 3 5 6) splitOn: #(3 3)) asArray", "#(#(1 2) #(4 1 2) #(5 6))"},
		{"newFromArray:", "(Set newFromArray: #(1 2 2)) size", "2"},
		{"<- builds from a collection", "(OrderedCollection <- #(1 2)) ", "an OrderedCollection(1 2)"},
		// sequenceable access and copying
		{"copyUpTo:", "#(1 2 3 4) copyUpTo: 3", "#(1 2)"},
		{"copyUpTo: absent copies all", "#(1 2) copyUpTo: 9", "#(1 2)"},
		{"copyAfter:", "#(1 2 3 4) copyAfter: 2", "#(3 4)"},
		{"copyAfterLast:", "#(1 2 1 4) copyAfterLast: 1", "#(4)"},
		{"copyUpToLast:", "#(1 2 1 4) copyUpToLast: 1", "#(1 2)"},
		{"copyWithoutFirst", "#(1 2 3) copyWithoutFirst", "#(2 3)"},
		{"copyWithoutAll:", "#(1 2 3 2) copyWithoutAll: #(2)", "#(1 3)"},
		{"copyWithoutFirstOccurrenceOf:", "#(1 2 3 2) copyWithoutFirstOccurrenceOf: 2", "#(1 3 2)"},
		{"copyReplaceFrom:to:with:", "#(1 2 3 4) copyReplaceFrom: 2 to: 3 with: #(9)", "#(1 9 4)"},
		{"truncatedToSize:", "#(1 2 3) truncatedToSize: 2", "#(1 2)"},
		{"forceTo:paddingWith:", "#(1 2) forceTo: 4 paddingWith: 0", "#(1 2 0 0)"},
		{"forceTo:paddingStartWith:", "#(1 2) forceTo: 4 paddingStartWith: 0", "#(0 0 1 2)"},
		{"lastIndexOf:", "#(1 2 1) lastIndexOf: 1", "3"},
		{"indexOf:startingAt:ifAbsent:", "#(1 2 1) indexOf: 1 startingAt: 2 ifAbsent: [ 0 ]", "3"},
		{"findFirst:", "#(1 2 3) findFirst: [ :x | x > 1 ]", "2"},
		{"findLast:", "#(1 2 3) findLast: [ :x | x < 3 ]", "2"},
		{"atWrap:", "#(1 2 3) atWrap: 4", "1"},
		{"atPin:", "#(1 2 3) atPin: 8", "3"},
		{"atLast:", "#(1 2 3) atLast: 1", "3"},
		{"atAll:", "#(10 20 30) atAll: #(1 3)", "#(10 30)"},
		{"before:", "#(1 2 3) before: 2", "1"},
		{"after:", "#(1 2 3) after: 2", "3"},
		{"middle", "#(1 2 3 4) middle", "3"},
		{"isSorted", "#(1 2 2 3) isSorted", "true"},
		{"isSortedBy:", "#(3 2 1) isSortedBy: [ :a :b | a >= b ]", "true"},
		{"pairsCollect:", "#(1 2 3 4) pairsCollect: [ :a :b | a + b ]", "#(3 7)"},
		{"groupsOf:atATimeCollect:", "#(1 1 1 10 10 10) groupsOf: 3 atATimeCollect: [ :x :y :z | x + y + z ]", "#(3 30)"},
		{"an OrderedCollection's with:collect: is an OrderedCollection", "(OrderedCollection withAll: #(1 2)) with: #(10 20) collect: [ :a :b | a + b ]", "an OrderedCollection(11 22)"},
		{"includesAny:", "#(1 2) includesAny: #(3 2)", "true"},
		{"includesAll:", "#(1 2) includesAll: #(3 2)", "false"},
		{"add:before:", "(OrderedCollection withAll: #(1 3)) add: 2 before: 3; yourself", "an OrderedCollection(1 2 3)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, runDoIt(t, nil, c.expr))
		})
	}
}

// TestTraitCompositionExclusions: a class that uses a trait less some of
// its selectors (`TFoo - {#a. #b:}`) does not get those methods, as in
// Pharo; the others it does.
func TestTraitCompositionExclusions(t *testing.T) {
	uses := traitUses("TA + (TB - {#testOne. #at:put:}) + TC classTrait - {#two} + TD @ {#alias->#orig}")
	names := []string{}
	for _, u := range uses {
		names = append(names, u.name)
	}
	assert.Equal(t, []string{"TA", "TB", "TC", "TD"}, names)
	assert.Empty(t, uses[0].without)
	assert.Equal(t, map[string]bool{"testOne": true, "at:put:": true}, uses[1].without)
	assert.Equal(t, map[string]bool{"two": true}, uses[2].without)
	assert.Empty(t, uses[3].without)
}
