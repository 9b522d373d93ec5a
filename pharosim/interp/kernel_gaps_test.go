package interp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// gapsFixtures are user subclasses of the kernel's collections and
// numbers, as an image's code makes them.
var gapsFixtures = map[string]string{
	"KernelGapsOrdered": "Class { #name : #KernelGapsOrdered, #superclass : #OrderedCollection, #category : #Fixture }\n",
	"KernelGapsArray":   "Class { #name : #KernelGapsArray, #superclass : #Array, #type : #variable, #category : #Fixture }\n",
	"KernelGapsSet":     "Class { #name : #KernelGapsSet, #superclass : #Set, #category : #Fixture }\n",
	"KernelGapsDict":    "Class { #name : #KernelGapsDict, #superclass : #Dictionary, #category : #Fixture }\n",
	"KernelGapsLiterals": "Class { #name : #KernelGapsLiterals, #superclass : #Object, #category : #Fixture }\n" +
		"KernelGapsLiterals >> same [ ^ { #(1 2) == #(1 2). 'ab' == 'ab'. #(1 $a #(b)) == #(1 $a #(b)). 100000000000000000000 == 100000000000000000000. #[1 2] == #[1 2]. (true ifTrue: [ #(3) ]) == #(3) } ]\n" +
		"KernelGapsLiterals >> different [ ^ { #(1) == #(1.0). 'a' == #a. #(1 2) == [ #(1 2) ] value. #(1 2) == self other } ]\n" +
		"KernelGapsLiterals >> other [ ^ #(1 2) ]\n" +
		"KernelGapsLiterals >> loop [ | a | a := OrderedCollection new. 1 to: 2 do: [ :i | a add: 'x' ]. ^ a first == a last ]\n",
	// a number of the image's own, that converts the kernel's numbers to itself
	"KernelGapsNumber": "Class { #name : #KernelGapsNumber, #superclass : #Number, #instVars : [ 'v' ], #category : #Fixture }\n" +
		"KernelGapsNumber class >> v: x [ ^ self new setV: x ]\n" +
		"KernelGapsNumber >> setV: x [ v := x ]\n" +
		"KernelGapsNumber >> v [ ^ v ]\n" +
		"KernelGapsNumber >> of: x [ ^ x class == self class ifTrue: [ x v ] ifFalse: [ x ] ]\n" +
		"KernelGapsNumber >> + x [ ^ self class v: v + (self of: x) ]\n" +
		"KernelGapsNumber >> * x [ ^ self class v: v * (self of: x) ]\n" +
		"KernelGapsNumber >> < x [ ^ v < (self of: x) ]\n" +
		"KernelGapsNumber >> = x [ ^ x class == self class and: [ v = x v ] ]\n" +
		"KernelGapsNumber >> hash [ ^ v hash ]\n" +
		"KernelGapsNumber >> printOn: aStream base: b [ aStream nextPutAll: 'N'; nextPutAll: (v printString: b) ]\n" +
		"KernelGapsNumber >> adaptToInteger: n andSend: s [ ^ (self class v: n) perform: s with: self ]\n" +
		"KernelGapsNumber >> adaptToFraction: n andSend: s [ ^ (self class v: n) perform: s with: self ]\n" +
		"KernelGapsNumber >> adaptToFloat: n andSend: s [ ^ (self class v: n) perform: s with: self ]\n",
	"KernelGapsPool":     "Class { #name : #KernelGapsPool, #superclass : #SharedPool, #classVars : [ 'Answer' ], #category : #Fixture }\nKernelGapsPool class >> initialize [ Answer := 42 ]\n",
	"KernelGapsPoolUser": "Class { #name : #KernelGapsPoolUser, #superclass : #Object, #pools : [ 'KernelGapsPool' ], #category : #Fixture }\nKernelGapsPoolUser >> answer [ ^ Answer ]\nKernelGapsPoolUser >> pool [ ^ KernelGapsPool ]\nKernelGapsPoolUser >> none [ ^ 1 ]\n",
	"KernelGapsContexts": "Class { #name : #KernelGapsContexts, #superclass : #Object, #category : #Fixture }\n" +
		"KernelGapsContexts >> caller [ ^ self callee ]\n" +
		"KernelGapsContexts >> callee [ | c | c := thisContext sender. ^ { c receiver == self. c method selector. c selector. c sender selector. thisContext selector. thisContext methodClass. c printString } ]\n" +
		"KernelGapsContexts >> inBlock [ ^ [ { thisContext isBlockContext. thisContext sender selector. thisContext home selector. thisContext home == thisContext outerContext. thisContext receiver == self } ] value ]\n" +
		"KernelGapsContexts >> recursion: n [ RecursionStopper during: [ n add: 1. self recursion: n ]. ^ n ]\n" +
		"KernelGapsContexts >> localRecursion: n [ LocalRecursionStopper during: [ n add: 1. LocalRecursionStopper during: [ n add: 2 ]. self localRecursion: n ]. ^ n ]\n" +
		"KernelGapsContexts >> sendsFromBlock [ ^ [ self senderOfMe ] value ]\n" +
		"KernelGapsContexts >> senderOfMe [ ^ { thisContext sender isBlockContext. thisContext sender homeMethod selector. thisContext sender sender selector } ]\n" +
		"KernelGapsContexts >> blockHome [ | b | b := [ self ]. ^ { b home == thisContext. b homeMethod == thisContext method. b receiver == self. [ 3 ] home } ]\n",
}

// gapsProgram reads gapsFixtures.
func gapsProgram(t *testing.T) *Program {
	t.Helper()
	var files []*tonel.File
	for name, src := range gapsFixtures {
		f, err := tonel.ParseFile(name+".class.st", []byte(src))
		require.NoError(t, err)
		files = append(files, f)
	}
	return ReadProgram(files)
}

// TestTheKernelAnswersAsPharo13WhereUsersFoundGaps: what an outside
// user measured the kernel answering otherwise than Pharo 13 (commit
// 9b55ea4 of pharo-project/pharo; each group names the method whose code
// or comment holds the answer).
func TestTheKernelAnswersAsPharo13WhereUsersFoundGaps(t *testing.T) {
	t.Parallel()
	program := gapsProgram(t)
	cases := []struct{ name, expr, want string }{
		// OrderedCollection>>capacity is its array's size: OrderedCollection class>>new (new: 10),
		// new: (an array of that size), makeRoomAtLast, makeRoomAtFirst, growAtLast, growAtFirst, compact
		// (their comments' examples and OrderedCollectionTest>>#testCapacityFromAsOrderedCollection, #testCompact)
		{"new has room for 10", "OrderedCollection new capacity", "10"},
		{"new: has room for its argument", "{ (OrderedCollection new: 4) capacity. (OrderedCollection new: 0) capacity }", "#(4 0)"},
		{"a fifth addLast: onto new: 4 doubles the array", "| s | s := OrderedCollection new: 4. 5 timesRepeat: [ s addLast: 1 ]. s capacity", "8"},
		{"a fifth addFirst: onto new: 4 doubles the array", "| s | s := OrderedCollection new: 4. 5 timesRepeat: [ s addFirst: 1 ]. s capacity", "8"},
		{"addLast: moves the elements toward the front when they fill less than half", "| s | s := OrderedCollection new: 4. 4 timesRepeat: [ s addLast: 1 ]. 3 timesRepeat: [ s removeFirst ]. s addLast: 2. { s capacity. s asArray }", "#(4 #(1 2))"},
		{"addLast: grows when the elements fill half, wherever they start", "| s | s := OrderedCollection new: 4. 4 timesRepeat: [ s addLast: 1 ]. 2 timesRepeat: [ s removeFirst ]. s addLast: 2. s capacity", "8"},
		{"addFirst: twenty times onto new", "| c | c := OrderedCollection new. 1 to: 20 do: [ :i | c addFirst: i ]. { c capacity. c first. c last }", "#(20 20 1)"},
		{"asOrderedCollection and withAll: fit the elements", "{ #(1 2) asOrderedCollection capacity. (OrderedCollection withAll: #(1 2 3)) capacity. (OrderedCollection newFrom: #(1 2 3)) capacity }", "#(2 3 3)"},
		{"addAll: of 15 onto new", "(OrderedCollection new addAll: (1 to: 15); yourself) capacity", "20"},
		{"growAtFirst and makeRoomAtFirst", "{ OrderedCollection new growAtFirst; capacity. #(1 2 3) asOrderedCollection makeRoomAtFirst; capacity }", "#(20 6)"},
		{"compact drops the slots after the last element only", "| c | c := OrderedCollection new. c add: 1. c compact. c growAtLast. c compact. c growAtFirst. c compact. { c capacity. c asArray }", "#(2 #(1))"},
		{"removeAll keeps the array", "| c | c := OrderedCollection new: 3. c add: 1. c removeAll. c capacity", "3"},
		{"new:withAll:, ofSize:, collect:, copyFrom:to: and , size their array to fit", "{ (OrderedCollection new: 3 withAll: 7) capacity. (OrderedCollection ofSize: 3) capacity. ((1 to: 5) asOrderedCollection collect: [ :x | x ]) capacity. ((1 to: 5) asOrderedCollection copyFrom: 2 to: 3) capacity. (#(1 2) asOrderedCollection , #(3 4 5)) capacity }", "#(3 3 5 2 5)"},
		{"a copy keeps the capacity", "| c | c := OrderedCollection new: 7. c add: 1. c copy capacity", "7"},
		{"the array view still holds the elements only", "| c | c := #(1 2 3) asOrderedCollection. c removeFirst. { c instVarNamed: 'array'. c instVarNamed: 'firstIndex'. c instVarNamed: 'lastIndex' }", "#(#(2 3) 1 2)"},
		// OrderedCollection>>copyReplaceFrom:to:with: inserts before the first element for a start below 1, appends for one past the last
		{"copyReplaceFrom:to:with: before the first", "#(1 2 3) asOrderedCollection copyReplaceFrom: 0 to: 5 with: #(9)", "an OrderedCollection(9 1 2 3)"},
		{"copyReplaceFrom:to:with: past the last", "#(1 2 3) asOrderedCollection copyReplaceFrom: 7 to: 2 with: #(8 9)", "an OrderedCollection(1 2 3 8 9)"},
		{"copyReplaceFrom:to:with: inside", "#(1 2 3) asOrderedCollection copyReplaceFrom: 2 to: 2 with: #(8 9)", "an OrderedCollection(1 8 9 3)"},
		// OrderedCollection>>withIndexCollect:, with:collect:, collect: and reversed fill `self speciesForTransform new: self size`
		{"withIndexCollect: on a subclass answers the subclass", "(KernelGapsOrdered withAll: #(1 2)) withIndexCollect: [ :x :i | x + i ]", "a KernelGapsOrdered(2 4)"},
		{"collect:, with:collect:, reversed on a subclass", "| c | c := KernelGapsOrdered withAll: #(1 2). { (c collect: [ :x | x ]) class. (c with: #(3 4) collect: [ :x :y | x + y ]) class. c reversed class. (c copyFrom: 1 to: 1) class }", "{KernelGapsOrdered. KernelGapsOrdered. KernelGapsOrdered. KernelGapsOrdered}"},
		// SortedCollection: copyFrom:to: is a copy (OrderedCollection>>copyFrom:to:, shallowCopy postCopyFrom:to:), its sortBlock kept
		{"a SortedCollection's copyFrom:to: keeps its sortBlock", "| s | s := SortedCollection sortBlock: [ :x :y | x > y ]. s addAll: #(1 2 3 4 5). (s copyFrom: 1 to: 3) add: 9; asArray", "#(9 5 4 3)"},
		// Collection class>>withAll: (new: then addAll:), Dictionary>>addAll: (keysAndValuesDo:), OrderedDictionary>>addAll: (associationsDo:)
		{"Dictionary withAll: an Array keys it by index", "Dictionary withAll: #(10 20)", "a Dictionary(1->10 2->20 )"},
		{"Dictionary addAll: a Dictionary", "(Dictionary new at: 1 put: 2; yourself) addAll: (Dictionary new at: 3 put: 4; yourself); yourself", "a Dictionary(1->2 3->4 )"},
		{"OrderedDictionary addAll: associations", "(OrderedDictionary new addAll: { #b -> 1. #a -> 2 }; yourself) keys", "#(#b #a)"},
		{"newFrom: and withAll: answer the receiving class", "{ (Array newFrom: #(1 2)) class. (KernelGapsArray newFrom: #(1 2)) class. (KernelGapsArray withAll: #(1 2)) class. (KernelGapsOrdered newFrom: #(1 2)) class. (KernelGapsSet newFrom: #(1 2)) class. (KernelGapsSet withAll: #(1 2)) class. (KernelGapsDict newFrom: { 1 -> 2 }) class. (OrderedCollection newFrom: #(1 2)) class }", "{Array. KernelGapsArray. KernelGapsArray. KernelGapsOrdered. KernelGapsSet. KernelGapsSet. KernelGapsDict. OrderedCollection}"},
		{"Dictionary newFrom: associations or a Dictionary", "{ Dictionary newFrom: { 1 -> 2 }. Dictionary newFrom: (Dictionary new at: 3 put: 4; yourself) }", "an Array(a Dictionary(1->2 ) a Dictionary(3->4 ))"},
		{"Set newFrom: a Dictionary takes its values", "Set newFrom: (Dictionary new at: 1 put: 2; yourself)", "a Set(2)"},
		// Collection>>collect:as: fills `aClass new: self size` (fillFrom:with:)
		{"collect:as: Dictionary", "#(1 2) collect: [ :x | x -> x printString ] as: Dictionary", "a Dictionary(1->'1' 2->'2' )"},
		{"collect:as: Array from a String", "'hi' collect: [ :c | c asInteger ] as: Array", "#(104 105)"},
		{"collect:as: Set", "(#(10 15 22) collect: [ :x | x // 10 ] as: Set) size", "2"},
		// OCLiteralList>>addLiteral: (IRBytecodeGenerator's literal frame): equal literals
		// (Object>>literalEqual:, Array>>literalEqual:) of one method are one object; a block
		// that is not inlined (a CompiledBlock) has a frame of its own
		{"equal literals of one method are identical", "KernelGapsLiterals new same", "#(true true true true true true)"},
		{"literals of another class, another block or method are not", "KernelGapsLiterals new different", "#(false false false false)"},
		{"a literal evaluated twice is one object", "KernelGapsLiterals new loop", "true"},
		// Integer>>+ and Integer>>< (adaptToInteger:andSend:, Object>>adaptToInteger:andCompare:),
		// Fraction>>+ (adaptToFraction:andSend:), Float>>+ (adaptToFloat:andSend:), Magnitude>>>,
		// >=, <=, max: (in terms of <), Number>>// ((self / n) floor), Number>>printString
		// (printStringBase: 10, printOn:base:), Object>>isLiteral (false: an Array of them is no literal)
		{"an Integer adapts to a Number of the image's", "{ 3 + (KernelGapsNumber v: 4). (2 raisedTo: 70) + (KernelGapsNumber v: 1). 3 * (KernelGapsNumber v: 4) }", "an Array(N7 N1180591620717411303425 N12)"},
		{"a Fraction and a Float adapt to it", "{ (1/2) + (KernelGapsNumber v: 4). 1.5 + (KernelGapsNumber v: 4) }", "an Array(N(9/2) N5.5)"},
		{"comparisons adapt too", "{ 3 < (KernelGapsNumber v: 4). 3 = (KernelGapsNumber v: 3). 5 > (KernelGapsNumber v: 4) }", "#(true true true)"},
		{"Magnitude's comparisons in terms of <", "{ (KernelGapsNumber v: 7) > 3. (KernelGapsNumber v: 7) >= 8. (KernelGapsNumber v: 7) <= 7. (3 max: (KernelGapsNumber v: 4)) v }", "#(true false true 4)"},
		{"the subclass's responsibility: - and /", "[ (KernelGapsNumber v: 4) - 3 ] on: Error do: [ :e | e messageText ]", "'KernelGapsNumber had the subclass responsibility to implement #-'"},
		{"// in terms of /", "[ (KernelGapsNumber v: 4) // 3 ] on: Error do: [ :e | e messageText ]", "'KernelGapsNumber had the subclass responsibility to implement #/'"},
		{"a Number of the image's is made with new", "{ (KernelGapsNumber v: 4) class. KernelGapsNumber new isNumber. (KernelGapsNumber v: 4) printString }", "{KernelGapsNumber. true. 'N4'}"},
		// Fraction's instance variables (Fraction's definition: numerator, denominator)
		// SharedPool class>>poolUsers, methodsAccessingPoolVariables, usingMethods (SharedPoolTest)
		{"a pool's users", "KernelGapsPool poolUsers", "{KernelGapsPoolUser}"},
		{"the methods that read a pool's variables", "(KernelGapsPool methodsAccessingPoolVariables collect: [ :m | m selector ]) asSortedCollection asArray", "#(#answer #initialize)"},
		{"the methods that name the pool too", "| s | s := (KernelGapsPool usingMethods collect: [ :m | m selector ]) asSet. { s includesAll: #(#answer #pool #initialize). s includes: #none }", "#(true false)"},
		// DependentsArray (DependentsArrayTest>>#testSize): its nil slots do not count
		{"a DependentsArray's size leaves out nil", "{ (DependentsArray with: nil) size. (DependentsArray with: nil with: 1 with: nil) size. (DependentsArray with: 1 with: 3) size }", "#(0 1 2)"},
		{"a DependentsArray's elements", "| d | d := DependentsArray with: nil with: 1 with: 2. { d at: 2. d first. d last. (d collect: [ :x | x * 10 ]) size. (d copyWith: 5) size }", "#(2 1 2 2 3)"},
		// Character's class variables (MetaClassTest>>#testHasClassVarNamed)
		{"Character's class variables", "{ Character classVarNames. Character class hasClassVarNamed: #CharSet }", "#(#(#CharSet #DigitValues) true)"},
		// Behavior>>basicNew: signals OutOfMemory for a size it cannot allocate (AllocationTest);
		// FloatPrintPolicy, a DynamicVariable whose default is ExactFloatPrintPolicy (FloatTest>>#testFloatPrintPolicy)
		{"an allocation too large signals OutOfMemory", "{ [ ByteArray new: 1024 * 1024 * 1024 ] on: OutOfMemory do: [ :e | #oom ]. [ Array new: 1024 * 1024 * 1024 ] on: OutOfMemory do: [ :e | #oom ]. (ByteArray new: 1024 * 1024) size. [ [ Array new: -1 ] on: OutOfMemory do: [ :e | #oom ] ] on: Error do: [ :e | #error ] }", "#(#oom #oom 1048576 #error)"},
		{"FloatPrintPolicy", "{ FloatPrintPolicy value: InexactFloatPrintPolicy new during: [ Float pi printString ]. FloatPrintPolicy value class }", "{'3.141592653589793'. ExactFloatPrintPolicy}"},
		// ProcessSpecificVariable>>index and Process>>psValueAt: (ProcessSpecificTest>>#testDynamicVariableRemovedAfterUse)
		{"a dynamic variable's value is gone after value:during:", "FloatPrintPolicy value: 3 during: [ ]. { FloatPrintPolicy soleInstance index isInteger. Processor activeProcess psValueAt: FloatPrintPolicy soleInstance index }", "#(true nil)"},
		// BlockClosure>>memoized (System-Caching), Float class>>twoPi, OSPlatform class>>current
		// (one object, Unix64Platform on a 64-bit Linux: UnixPlatform>>family, isUnix, Unix64Platform>>isUnix64)
		{"memoized computes once per argument", "| f n | n := 0. f := [ :x | n := n + 1. x * 2 ] memoized. { f value: 3. f value: 3. f value: 4. n }", "#(6 6 8 2)"},
		{"twoPi and halfPi", "{ Float twoPi. Float halfPi }", "#(6.283185307179586 1.5707963267948966)"},
		{"OSPlatform current is one Unix64Platform", "{ OSPlatform current class. OSPlatform current == OSPlatform current. OSPlatform current isUnix64. OSPlatform current platformFamily. Smalltalk os == OSPlatform current }", "{Unix64Platform. true. true. #Unix. true}"},
		// Context>>sender, receiver, method, selector, methodClass, home, isBlockContext, outerContext,
		// printOn:; BlockClosure>>home (nil for a clean block), homeMethod, receiver
		{"thisContext sender", "KernelGapsContexts new caller", "{true. #caller. #caller. #doIt. #callee. KernelGapsContexts. 'KernelGapsContexts>>caller'}"},
		{"a block's context", "KernelGapsContexts new inBlock", "#(true #inBlock #inBlock true true)"},
		{"a block's home is its method's context", "KernelGapsContexts new blockHome", "#(true true true nil)"},
		{"thisContext is one object", "thisContext == thisContext", "true"},
		{"a block's activation is the sender of what it sends", "KernelGapsContexts new sendsFromBlock", "#(true #sendsFromBlock #sendsFromBlock)"},
		// RecursionStopperTest, LocalRecursionStopperTest: a method inside RecursionStopper during: runs its block once
		{"RecursionStopper stops a recursion", "(KernelGapsContexts new recursion: OrderedCollection new) asArray", "#(1)"},
		{"LocalRecursionStopper stops a recursion, a nested during: of the same method too", "(KernelGapsContexts new localRecursion: OrderedCollection new) asArray", "#(1)"},
		// BlockClosureTest>>#testHasNonLocalReturn, #testIsClean
		{"hasNonLocalReturn", "{ [ ^ 1 ] hasNonLocalReturn. [ 1 ] hasNonLocalReturn. [ #(1) do: [ ^ 1 ] ] hasNonLocalReturn }", "#(true false true)"},
		{"isClean", "| t | t := 1. { [ :a | a ] isClean. [ thisContext ] isClean. [ Object ] isClean. [ self ] isClean. [ t ] isClean. [ ^ 1 ] isClean. [ :x | x do: [ x + 1 ] ] isClean }", "#(true true true false false false true)"},
		{"a Fraction's variables", "{ Fraction instVarNames. (1/2) instVarNamed: 'numerator'. (3/4) instVarAt: 2. Fraction instSize }", "#(#(#numerator #denominator) 1 4 2)"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, runInProgram(t, program, c.expr), c.name)
	}
}
