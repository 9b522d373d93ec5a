package interp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// odictABC is an OrderedDictionary of three keys, added in the order b, a, c.
const odictABC = "(OrderedDictionary new at: #b put: 2; at: #a put: 1; at: #c put: 3; yourself)"

// TestOrderedDictionaryAnswersAsPharo: OrderedDictionary and
// OrderedIdentityDictionary as Pharo 13's (commit 9b55ea4 of
// pharo-project/pharo, Collections-Sequenceable's OrderedDictionary.class.st
// and OrderedIdentityDictionary.class.st, Collections-Unordered's
// extensions with dictionaryClass; each group names the method whose code
// or comment holds the answer): a Collection holding dictionary and
// orderedKeys, enumerating, printing and answering keys in their order.
func TestOrderedDictionaryAnswersAsPharo(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, expr, want string }{
		// the class definitions: superclass Collection, variables dictionary and orderedKeys
		{"OrderedDictionary is a Collection, not a Dictionary", "{ OrderedDictionary superclass. OrderedDictionary new isKindOf: Dictionary. OrderedIdentityDictionary superclass }", "{Collection. false. OrderedDictionary}"},
		{"its variables", "{ OrderedDictionary instVarNames. OrderedIdentityDictionary instVarNames }", "#(#(#dictionary #orderedKeys) #())"},
		// isDictionary
		{"it is a dictionary and a collection", "{ OrderedDictionary new isDictionary. OrderedDictionary new isCollection }", "#(true true)"},
		// dictionaryClass (Collections-Unordered's extensions), initialize:
		{"dictionary is an instance of dictionaryClass", "{ OrderedDictionary new dictionaryClass. OrderedDictionary new dictionary class. OrderedIdentityDictionary new dictionaryClass. OrderedIdentityDictionary new dictionary class }",
			"{Dictionary. Dictionary. IdentityDictionary. IdentityDictionary}"},
		// class>>new (new: 10), class>>new:, initialize: (orderedKeys := Array new: aCapacity)
		{"orderedKeys is an Array of the capacity asked for", "{ OrderedDictionary new orderedKeys. (OrderedDictionary new: 3) orderedKeys }", "#(#(nil nil nil nil nil nil nil nil nil nil) #(nil nil nil))"},
		// growOrderedKeys (half as many again, 10 at least), value:registeringAtOrderedKeys:
		{"a full orderedKeys grows to 10 at least", "(OrderedDictionary new: 2) at: #a put: 1; at: #b put: 2; at: #c put: 3; orderedKeys", "#(#a #b #c nil nil nil nil nil nil nil)"},
		{"a full orderedKeys grows by half", "| d | d := OrderedDictionary new. 1 to: 11 do: [ :i | d at: i put: i ]. { d orderedKeys size. d size }", "#(15 11)"},
		{"an empty orderedKeys grows to 10", "(OrderedDictionary new: 0) at: #a put: 1; orderedKeys", "#(#a nil nil nil nil nil nil nil nil nil)"},
		// keys, values, associations: Arrays in the keys' order
		{"keys in their order", odictABC + " keys", "#(#b #a #c)"},
		{"values in the keys' order", odictABC + " values", "#(2 1 3)"},
		{"associations in the keys' order", odictABC + " associations", "{#b->2. #a->1. #c->3}"},
		{"an empty one's keys are an empty Array", "OrderedDictionary new keys", "#()"},
		// keysDo:, valuesDo:, associationsDo:, keysAndValuesDo:, do: (the values)
		{"enumerations follow the keys' order", "| d out | d := " + odictABC + ". out := OrderedCollection new. d keysDo: [ :k | out add: k ]. d valuesDo: [ :v | out add: v ]. d associationsDo: [ :a | out add: a key ]. d keysAndValuesDo: [ :k :v | out add: v ]. d do: [ :v | out add: v ]. out asArray",
			"#(#b #a #c 2 1 3 #b #a #c 2 1 3 2 1 3)"},
		{"Collection's protocol sees the values", "| d | d := " + odictABC + ". { d asArray. d inject: 0 into: [ :a :b | a + b ]. d detect: [ :v | v > 1 ]. d anyOne. d includes: 3. d includes: #a. d occurrencesOf: 1 }", "#(#(2 1 3) 6 2 2 true false 1)"},
		// at:put: and add: of a key already there keep its place
		{"at:put: of a key already there keeps its place", odictABC + " at: #b put: 20; keys", "#(#b #a #c)"},
		{"add: of a key already there keeps its place and takes the value", "(OrderedDictionary new at: #a put: 1; at: #b put: 2; add: #a -> 3; yourself) printString", "'an OrderedDictionary(#a->3 #b->2)'"},
		{"add: keeps the association itself", "| a d | a := #k -> 1. d := OrderedDictionary new. d add: a. a value: 5. { d at: #k. (d associationAt: #k) == a }", "#(5 true)"},
		{"add: answers the association, at:put: the value", "| d | d := OrderedDictionary new. { d add: #k -> 1. d at: #j put: 2 }", "{#k->1. 2}"},
		{"addAll: takes associations and answers its argument", "| d | d := OrderedDictionary new. { d addAll: { #x -> 1. #y -> 2 }. d keys }", "{{#x->1. #y->2}. #(#x #y)}"},
		// printElementsOn: (in order, no space after the last, size past 100), Collection>>printOn:
		{"printString in order", odictABC + " printString", "'an OrderedDictionary(#b->2 #a->1 #c->3)'"},
		{"an empty one's printString", "OrderedDictionary new printString", "'an OrderedDictionary()'"},
		{"more than 100 entries print as their number", "| d | d := OrderedDictionary new. 1 to: 101 do: [ :i | d at: i put: i ]. d printString", "'an OrderedDictionary(size 101)'"},
		{"an OrderedIdentityDictionary's printString", "(OrderedIdentityDictionary new at: #a put: 1; yourself) printString", "'an OrderedIdentityDictionary(#a->1)'"},
		// storeOn:
		{"storeString", odictABC + " storeString", "'((OrderedDictionary new) add: (#b->2); add: (#a->1); add: (#c->3); yourself)'"},
		{"an empty one's storeString", "OrderedDictionary new storeString", "'((OrderedDictionary new))'"},
		// = (the same species and entries, in any order), hash (dictionary's)
		{"= ignores the keys' order", odictABC + " = (OrderedDictionary new at: #c put: 3; at: #a put: 1; at: #b put: 2; yourself)", "true"},
		{"= compares the values", odictABC + " = (OrderedDictionary new at: #c put: 3; at: #a put: 1; at: #b put: 0; yourself)", "false"},
		{"= needs the same species", "| d | d := Dictionary new at: #a put: 1; yourself. { (OrderedDictionary newFrom: d) = d. d = (OrderedDictionary newFrom: d). (OrderedDictionary newFrom: d) = (OrderedIdentityDictionary newFrom: d) }", "#(false false false)"},
		{"hash is the dictionary's, so equal ones hash alike", "| d e | d := " + odictABC + ". e := OrderedDictionary new at: #c put: 3; at: #a put: 1; at: #b put: 2; yourself. { d hash = d dictionary hash. d hash = e hash }", "#(true true)"},
		// postCopy (orderedKeys and dictionary copied), species (Object's: the class)
		{"a copy has its own keys and dictionary", "| d c | d := OrderedDictionary new at: #a put: 1; yourself. c := d copy. c at: #b put: 2. { d size. c size. d orderedKeys == c orderedKeys. d dictionary == c dictionary. d keys. c keys }", "#(1 2 false false #(#a) #(#a #b))"},
		{"a copy's associations are its own", "| d | d := OrderedDictionary new at: #a put: 1; yourself. (d copy associationAt: #a) == (d associationAt: #a)", "false"},
		{"species is the class", "{ OrderedDictionary new species. OrderedIdentityDictionary new species }", "{OrderedDictionary. OrderedIdentityDictionary}"},
		// collect:, select:, Collection>>reject: through select:, associationsSelect: — of the species, in order
		{"collect: answers an OrderedDictionary of the same keys", "(" + odictABC + " collect: [ :v | v * 10 ]) printString", "'an OrderedDictionary(#b->20 #a->10 #c->30)'"},
		{"select: keeps the order", "(" + odictABC + " select: [ :v | v > 1 ]) printString", "'an OrderedDictionary(#b->2 #c->3)'"},
		{"reject: keeps the order", "(" + odictABC + " reject: [ :v | v > 1 ]) printString", "'an OrderedDictionary(#a->1)'"},
		{"associationsSelect: gives the block associations", "(" + odictABC + " associationsSelect: [ :a | a key ~= #a ]) printString", "'an OrderedDictionary(#b->2 #c->3)'"},
		{"an OrderedIdentityDictionary's collect: is one too", "((OrderedIdentityDictionary new at: #a put: 1; yourself) collect: [ :v | v + 1 ]) class", "OrderedIdentityDictionary"},
		// removeKey:, removeKey:ifAbsent:, orderedKeysRemove: (the keys after shift left, the freed slot nil)
		{"removeKey: answers the value and closes the gap", "| d | d := " + odictABC + ". { d removeKey: #a. d keys. d orderedKeys }", "#(1 #(#b #c) #(#b #c nil nil nil nil nil nil nil nil))"},
		{"removeKey: of an absent key is KeyNotFound", "[ OrderedDictionary new removeKey: #x ] on: KeyNotFound do: [ :e | e class ]", "KeyNotFound"},
		{"removeKey:ifAbsent: of an absent key answers the block's value", "| d | d := " + odictABC + ". { d removeKey: #x ifAbsent: [ #none ]. d keys }", "#(#none #(#b #a #c))"},
		{"a key removed and added again goes last", "| d | d := " + odictABC + ". d removeKey: #b. d at: #b put: 5. d printString", "'an OrderedDictionary(#a->1 #c->3 #b->5)'"},
		// removeKeys: (one key: removeKey:ifAbsent:; more: orderedKeys an Array of the old size), answers self
		{"removeKeys: of several keys", "| d | d := " + odictABC + ". { (d removeKeys: #(#b #x #c)) == d. d keys. d orderedKeys }", "#(true #(#a) #(#a nil nil))"},
		{"removeKeys: of one key", "| d | d := " + odictABC + ". d removeKeys: #(#a). { d keys. d orderedKeys size }", "#(#(#b #c) 10)"},
		// keysAndValuesRemove:, removeAll, remove:ifAbsent: (shouldNotImplement)
		{"keysAndValuesRemove: removes what the block answers true for", "| d | d := " + odictABC + ". d keysAndValuesRemove: [ :k :v | v odd ]. d printString", "'an OrderedDictionary(#b->2)'"},
		{"removeAll empties the dictionary and the keys' slots", "| d | d := " + odictABC + ". d removeAll. { d size. d keys. d orderedKeys size. d orderedKeys first }", "#(0 #() 10 nil)"},
		{"remove: is not for a dictionary", "[ OrderedDictionary new remove: 1 ] on: Error do: [ :e | #refused ]", "#refused"},
		// keyAtIndex:, keyAtIndex:ifAbsent:, errorInvalidIndex: (SubscriptOutOfBounds)
		{"keyAtIndex:", odictABC + " keyAtIndex: 2", "#a"},
		{"keyAtIndex: past the size is SubscriptOutOfBounds", "[ " + odictABC + " keyAtIndex: 4 ] on: SubscriptOutOfBounds do: [ :e | e class ]", "SubscriptOutOfBounds"},
		{"keyAtIndex:ifAbsent: outside 1 to size", "| d | d := " + odictABC + ". { d keyAtIndex: 0 ifAbsent: [ #no ]. d keyAtIndex: 4 ifAbsent: [ #no ]. d keyAtIndex: 3 ifAbsent: [ #no ] }", "#(#no #no #c)"},
		// indexOfKey:, indexOfKey:ifAbsent:, identityIndexOfKey: (OrderedIdentityDictionary's indexOfKey: is by identity)
		{"indexOfKey:", "| d | d := " + odictABC + ". { d indexOfKey: #c. d indexOfKey: #x. d indexOfKey: #x ifAbsent: [ #no ] }", "#(3 0 #no)"},
		{"indexOfKey: is by =, identityIndexOfKey: by ==", "| d | d := OrderedDictionary new at: 'k' put: 1; yourself. { d indexOfKey: 'k' copy. d identityIndexOfKey: 'k' copy. d identityIndexOfKey: d keys first }", "#(1 0 1)"},
		// at:ifAbsentPut: (at:put: of the block's value when absent), at:ifPresent:ifAbsentPut:
		{"at:ifAbsentPut:", "| d | d := " + odictABC + ". { d at: #a ifAbsentPut: [ 9 ]. d at: #z ifAbsentPut: [ 9 ]. d keys }", "#(1 9 #(#b #a #c #z))"},
		{"at:ifPresent:ifAbsentPut:", "| d | d := " + odictABC + ". { d at: #a ifPresent: [ :v | v * 100 ] ifAbsentPut: [ 9 ]. d at: #z ifPresent: [ :v | v ] ifAbsentPut: [ 8 ]. d keys last }", "#(100 8 #z)"},
		// at:, at:ifAbsent:, at:ifPresent:, at:ifPresent:ifAbsent: (the dictionary's)
		{"at: of an absent key is KeyNotFound", "[ OrderedDictionary new at: #x ] on: KeyNotFound do: [ :e | e class ]", "KeyNotFound"},
		{"at:ifPresent: and at:ifPresent:ifAbsent:", "| d | d := " + odictABC + ". { d at: #a ifPresent: [ :v | v + 1 ]. d at: #x ifPresent: [ :v | v ]. d at: #x ifPresent: [ :v | v ] ifAbsent: [ 0 ]. d at: #x ifAbsent: [ -1 ] }", "#(2 nil 0 -1)"},
		// at:update:initial: (a nil value counts as absent), at:update: (KeyNotFound when absent)
		{"at:update:initial:", "| d | d := OrderedDictionary new. d at: #a update: [ :v | v + 1 ] initial: 1. d at: #a update: [ :v | v + 1 ] initial: 1. d at: #n put: nil. d at: #n update: [ :v | 5 ] initial: 7. d printString", "'an OrderedDictionary(#a->2 #n->7)'"},
		{"at:update: of an absent key is KeyNotFound", "[ OrderedDictionary new at: #a update: [ :v | v ] ] on: KeyNotFound do: [ :e | e class ]", "KeyNotFound"},
		// at:at:put:, at:at:, at:at:ifAbsent:, at:at:ifAbsentPut: (their comments' examples)
		{"nested dictionaries", "(OrderedDictionary new at: #top at: #below1 put: 1; at: #top at: #below1 put: 2; at: #top at: #below1)", "2"},
		{"at:at:ifAbsent:", "OrderedDictionary new at: #top at: #below1 ifAbsent: [ 1 ]", "1"},
		{"at:at:put: registers the first key", "| d | d := OrderedDictionary new. d at: #z put: 0. d at: #top at: #x put: 1. d at: #top at: #y ifAbsentPut: [ 2 ]. { d keys. (d at: #top) class. d at: #top at: #y }", "{#(#z #top). Dictionary. 2}"},
		// associationAt: family, keyAtValue:, includesKey:, includesAssociation:, bindingOf:, keysSortedSafely (the dictionary's)
		{"associationAt: and its variants", "| d | d := " + odictABC + ". { d associationAt: #a. d associationAt: #x ifAbsent: [ 0 ]. d associationAt: #a ifPresent: [ :a | a value ]. d bindingOf: #x }", "{#a->1. 0. 1. nil}"},
		{"keys and values looked up", "| d | d := " + odictABC + ". { d keyAtValue: 3. d keyAtValue: 9 ifAbsent: [ #none ]. d includesKey: #a. d includesKey: 1. d includesAssociation: #a -> 1. d keysSortedSafely }", "#(#c #none true false true #(#a #b #c))"},
		// class>>newFrom: (new associations, in order), newFromKeys:andValues: (its comment's example), newFromPairs:
		{"newFrom: an Array of associations keeps their order", "(OrderedDictionary newFrom: { #b -> 1. #a -> 2 }) printString", "'an OrderedDictionary(#b->1 #a->2)'"},
		{"newFrom: another OrderedDictionary", "(OrderedDictionary newFrom: " + odictABC + ") keys", "#(#b #a #c)"},
		{"newFromKeys:andValues:", "(OrderedDictionary newFromKeys: #(#x #y) andValues: #(3 6)) = (OrderedDictionary new at: #x put: 3; at: #y put: 6; yourself)", "true"},
		{"newFromKeys:andValues: sizes orderedKeys to the keys", "(OrderedDictionary newFromKeys: #(#x #y) andValues: #(3 6)) orderedKeys", "#(#x #y)"},
		{"newFromPairs: ignores an odd element at the end", "(OrderedDictionary newFromPairs: #(#a 1 #b 2 #c)) printString", "'an OrderedDictionary(#a->1 #b->2)'"},
		{"withAll: and with: take associations", "{ (OrderedDictionary withAll: { #b -> 1. #a -> 2 }) keys. (OrderedDictionary with: #x -> 1 with: #y -> 2) values }", "#(#(#b #a) #(1 2))"},
		// Collection>>asOrderedDictionary (its example), Collection>>asDictionary (as: Dictionary)
		{"asOrderedDictionary", "{'one' -> 1. 'two' -> 2} asOrderedDictionary keys first", "'one'"},
		{"an OrderedDictionary's asDictionary is a Dictionary of its entries", "| d | d := " + odictABC + " asDictionary. { d class. d size. d at: #c }", "{Dictionary. 3. 3}"},
		{"as: its own class answers the receiver", "| d | d := " + odictABC + ". (d as: OrderedDictionary) == d", "true"},
		// OrderedIdentityDictionary: dictionaryClass IdentityDictionary, indexOfKey:ifAbsent: and orderedKeysIndexOf: by identity
		{"an OrderedIdentityDictionary tells equal keys apart", "| k d | k := 'k'. d := OrderedIdentityDictionary new at: k put: 1; at: k copy put: 2; yourself. { d size. d indexOfKey: k. d indexOfKey: 'k' copy }", "#(2 1 0)"},
		{"an OrderedIdentityDictionary removes the identical key's place", "| k j d | k := 'k'. j := k copy. d := OrderedIdentityDictionary new at: k put: 1; at: j put: 2; yourself. d removeKey: j. { d size. (d keys first) == k. d values }", "#(1 true #(1))"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, evalIn(t, c.expr), c.name)
	}
}

// seriesFixture is an OrderedDictionary subclass that sets dictionary and
// orderedKeys itself, as DataFrame's DataSeries>>keys: does, and whose
// initialize: sends initialize, as DataSeries>>initialize: does.
const seriesFixture = `Class { #name : #KernelSeriesFixture, #superclass : #OrderedDictionary, #instVars : [ 'name' ], #category : #Fixture }
KernelSeriesFixture >> initialize [ super initialize. name := #unnamed ]
KernelSeriesFixture >> initialize: aCapacity [ self initialize. ^ super initialize: aCapacity ]
KernelSeriesFixture >> name [ ^ name ]
KernelSeriesFixture >> adaptToCollection: rcvr andSend: selector [ ^ { rcvr. selector } ]
KernelSeriesFixture >> keys: anArray [
	| keys |
	keys := anArray asArray deepCopy.
	dictionary := self dictionaryClass newFromKeys: keys andValues: self values.
	orderedKeys := keys
]
`

// TestOrderedDictionarySubclassSetsItsVariables: a subclass that assigns
// dictionary and orderedKeys (DataFrame's DataSeries>>keys:) keeps working
// as Pharo 13's OrderedDictionary does with them: the size is the
// dictionary's, orderedKeys without room to spare grows when a key is
// added (growOrderedKeys), and species, collect: and printing are the
// subclass's.
func TestOrderedDictionarySubclassSetsItsVariables(t *testing.T) {
	t.Parallel()
	f, err := tonel.ParseFile("Fixture/KernelSeriesFixture.class.st", []byte(seriesFixture))
	require.NoError(t, err)
	program := ReadProgram([]*tonel.File{f})
	series := "(KernelSeriesFixture new at: 1 put: #a; at: 2 put: #b; yourself)"
	cases := []struct{ name, expr, want string }{
		{"new: sends initialize: (which here sends initialize)", "{ KernelSeriesFixture new name. (KernelSeriesFixture new: 3) orderedKeys size }", "#(#unnamed 3)"},
		{"keys: sets the keys in place of the old ones", "| s | s := " + series + ". s keys: #(#x #y). { s keys. s values. s at: #y. s orderedKeys. s dictionary class }", "{#(#x #y). #(#a #b). #b. #(#x #y). Dictionary}"},
		{"a key added after keys: grows orderedKeys", "| s | s := " + series + ". s keys: #(#x #y). s at: #z put: #c. { s orderedKeys size. s keys. s size }", "#(10 #(#x #y #z) 3)"},
		{"printing after keys:", "| s | s := " + series + ". s keys: #(#x #y). s printString", "'a KernelSeriesFixture(#x->#a #y->#b)'"},
		{"removing after keys:", "| s | s := " + series + ". s keys: #(#x #y). s removeKey: #x. { s keys. s orderedKeys. s printString }", "#(#(#y) #(#y nil) 'a KernelSeriesFixture(#y->#b)')"},
		{"collect: answers the subclass, made with new:", "| s c | s := " + series + ". s keys: #(#x #y). c := s collect: [ :v | v size ]. { c class. c name. c keys. c values }", "{KernelSeriesFixture. #unnamed. #(#x #y). #(1 1)}"},
		{"a collection's arithmetic with a collection asks the argument to adapt (Collection>>+)", "#(1 2) + " + series, "#(#(1 2) #+)"},
		{"= after keys: compares the entries", "| s t | s := " + series + ". s keys: #(#x #y). t := KernelSeriesFixture new at: #y put: #b; at: #x put: #a; yourself. s = t", "true"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, runInProgram(t, program, c.expr), c.name)
	}
}

// TestDataFrameKernelAnswersAsPharo: what DataFrame's tests use of the
// kernel beside OrderedDictionary, with Pharo 13's answers (commit
// 9b55ea4; each group names the method whose code or comment holds the
// answer).
func TestDataFrameKernelAnswersAsPharo(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, expr, want string }{
		// Collection>>+ and its family (Collections-Arithmetic: arg adaptToCollection: self andSend:), their examples;
		// Collection>>adaptToCollection:andSend: (Collections-Abstract: rcvr with: self collect:, its example)
		{"a collection plus a collection", "#(0 1 2) + #(10 20 30)", "#(10 21 32)"},
		{"a collection divided by a collection", "#(10 20 30) / #(1 3 4.0)", "{10. (20/3). 7.5}"},
		{"a collection plus a number", "#(1 2) + 3", "#(4 5)"},
		{"adaptToCollection:andSend:", "#(10 20 30) adaptToCollection: #(0 1 2) andSend: #@", "{(0@10). (1@20). (2@30)}"},
		{"the result is the receiver's with:collect:", "((OrderedCollection withAll: #(1 2)) + #(10 20)) printString", "'an OrderedCollection(11 22)'"},
		{"only sequenceable collections combine", "[ (Set withAll: #(1 2)) + #(1 2) ] on: Error do: [ :e | e messageText ]", "'Only sequenceable collections may be combined arithmetically'"},
		// Point>>isSelfEvaluating (self class == Point): an Array of Points prints in braces
		{"an Array of Points prints in braces", "{ 1 @ 2. 3 @ 4 } printString", "'{(1@2). (3@4)}'"},
		// Collection>>median (emptyCheck, asSortedCollection median), its examples
		{"median of an odd number of elements", "{1 . 2 . 3 . 4 . 5} median", "3"},
		{"median of an even number of elements", "{ {1 . 2 . 4 . 5} median. {1 . 2 . 5 . 5} median. {3} median. #(5 1 3) median }", "{3. (7/2). 3. 3}"},
		{"median of nothing", "[ {} median ] on: CollectionIsEmpty do: [ 'oops' ]", "'oops'"},
		// no max: or min: for a String or a Collection in Pharo 13 (TComparable's and Magnitude's are not theirs): only Set>>max:, from 0
		// (DataFrameTest>>#testRangeError expects a string column's range to end in MessageNotUnderstood)
		{"a String and an Array do not understand max:", "{ [ 'London' max: 'Barcelona' ] on: MessageNotUnderstood do: [ :e | e message selector ]. [ #(1 2) max: [ :x | x ] ] on: MessageNotUnderstood do: [ :e | e message selector ]. [ 'a' min: 'b' ] on: MessageNotUnderstood do: [ :e | e message selector ] }", "#(#max: #max: #min:)"},
		{"Set>>max: starts from 0", "{ (Set withAll: #(-3 -1)) max: [ :x | x ]. (Set withAll: #(1 5)) max: [ :x | x * 2 ]. Set new max: [ :x | x ] }", "#(0 10 nil)"},
		// SmallFloat64 and BoxedFloat64 (Kernel): a 64-bit Pharo's Float is immediate when its exponent fits in 8 bits, or zero
		{"the classes of Floats", "{ 3.5 class. 0.0 class. 1.0e38 class. 1.0e39 class. 1.0e-37 class. 1.0e-40 class. Float infinity class. Float nan class }",
			"{SmallFloat64. SmallFloat64. SmallFloat64. BoxedFloat64. SmallFloat64. BoxedFloat64. BoxedFloat64. BoxedFloat64}"},
		{"both are Floats", "{ SmallFloat64 superclass. BoxedFloat64 superclass. 3.5 isFloat. 3.5 isKindOf: Float. 3.5 class == Float. 1.0e39 + 1 > 1.0e39 }", "{Float. Float. true. true. false. false}"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, evalIn(t, c.expr), c.name)
	}
}
