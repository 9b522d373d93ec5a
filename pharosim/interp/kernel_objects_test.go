package interp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// TestObjectsAnswerAsPharo: objects, exceptions, blocks and classes answer
// what Pharo 13 answers; each case comes from a test of Pharo's
// Kernel-Tests (or Collections-Support-Tests for Association).
func TestObjectsAnswerAsPharo(t *testing.T) {
	t.Parallel()
	cases := []struct{ expr, want string }{
		// MessageNotUnderstoodTest
		{"[ 1 a ] on: Error do: [ :e | e messageText ]", "'Message not understood: SmallInteger >> #a'"},
		{"[ nil foo ] on: MessageNotUnderstood do: [ :e | e messageText ]", "'receiver of \"foo\" is nil'"},
		{"[ Object foo ] on: MessageNotUnderstood do: [ :e | e description ]", "'Instance of Object class did not understand #foo'"},
		{"[ nil foo ] on: MessageNotUnderstood do: [ :e | e description ]", "'#foo was sent to nil'"},
		{"[ Object foo ] on: MessageNotUnderstood do: [ :e | e description = e defaultDescription ]", "false"},
		{"[ 3 zork: 4 ] on: MessageNotUnderstood do: [ :e | e message printString ]", "'zork: 4'"},
		{"[ 3 zork ] on: MessageNotUnderstood do: [ :e | e message lookupClass ]", "SmallInteger"},
		// ExceptionTest: description, messageText, tag
		{"Exception new description", "'Exception'"},
		{"Exception new messageText", "''"},
		{"Exception new description = Exception new defaultDescription", "true"},
		{"(Error new messageText: 'x') description", "'Error: x'"},
		{"(Error new messageText: 'x') printString", "'Error: x'"},
		{"[ Error signal ] on: Error do: [ :e | e messageText ]", "''"},
		{"[ Error signal: 'boom' ] on: Error do: [ :e | e description ]", "'Error: boom'"},
		{"| tag | tag := Object new. [ Error signal: 'm' withTag: tag ] on: Error do: [ :e | { e messageText. e tag == tag } ]", "#('m' true)"},
		// ExceptionTest: exclusions
		{"[ ZeroDivide signalWithDividend: 1 ] on: Error - MessageNotUnderstood do: [ :e | e return: 7 ]", "7"},
		{"[ [ ZeroDivide signalWithDividend: 1 ] on: Error - ZeroDivide do: [ :e | 1 ] ] on: ZeroDivide do: [ :e | 2 ]", "2"},
		{"[ [ ZeroDivide signalWithDividend: 1 ] on: Error - Warning - ZeroDivide do: [ :e | 1 ] ] on: ZeroDivide do: [ :e | 2 ]", "2"},
		{"[ [ ZeroDivide signalWithDividend: 1 ] on: Error - (Warning , ZeroDivide) do: [ :e | 1 ] ] on: ZeroDivide do: [ :e | 2 ]", "2"},
		{"[ [ ZeroDivide signalWithDividend: 1 ] on: Error , ArithmeticError - ZeroDivide do: [ :e | 1 ] ] on: ZeroDivide do: [ :e | 2 ]", "2"},
		{"[ Error signal ] on: Error - (MessageNotUnderstood , Warning) do: [ :e | 3 ]", "3"},
		// ExceptionTest: resignalAs:, isNested
		{"[ [ 3 zork ] on: ZeroDivide do: [ :ex | ex return: 5 ] ] on: Error do: [ :ex | ex resignalAs: ZeroDivide ]", "5"},
		{"| unwound | unwound := false. { [ [ 3 zork ] on: ZeroDivide do: [ :ex | ex return: unwound ] ] on: Error do: [ :ex | [ ex resignalAs: ZeroDivide ] ifCurtailed: [ unwound := true ] ]. unwound }", "#(true true)"},
		{"[ Warning signal. 1 ] on: Warning do: [ :ex | ex resignalAs: (Notification new) ]", "1"},
		{"[ [ Error signal ] on: Error do: [ :e | e isNested ] ] on: Error do: [ :e | 0 ]", "true"},
		{"[ [ Error signal ] on: Error do: [ :e | e isNested ] ] on: ZeroDivide do: [ :e | 0 ]", "false"},
		// ExceptionTester>>simpleRetryUsingTest: the new block runs under the same handler
		{"| n | n := 0. [ Error signal. 1 ] on: Error do: [ :e | e retryUsing: [ n := n + 1. n < 3 ifTrue: [ Error signal ]. n ] ]", "3"},
		{"| log | log := OrderedCollection new. [ [ log add: 1. Error signal ] ensure: [ log add: 2 ] ] on: Error do: [ :e | e retryUsing: [ log add: 3 ] ]. log asArray", "#(1 2 3)"},
		{"Exception captureIfSignalledWhenStepping", "false"},
		{"Error captureIfSignalledWhenStepping", "true"},
		{"ZeroDivide captureIfSignalledWhenStepping", "false"},
		{"(UnhandledException withAllSubclasses select: [ :c | c captureIfSignalledWhenStepping ]) asArray", "{Halt}"},
		// ExceptionTest>>testDefaultAction, testUnhandledErrorWhenNoHandlers: an unhandled Error signals UnhandledError
		{"[ 1 / 0 ] on: UnhandledError do: [ :e | e exception class ]", "ZeroDivide"},
		{"[ (ZeroDivide new signal: 'x') + 1 ] on: UnhandledError do: [ :e | e resume: 41 ]", "42"},
		{"[ Error signal: 'x' ] on: UnhandledError do: [ :e | e description ]", "'Error: x'"},
		{"[ [ Error signal: 'x' ] on: Error do: [ :e | e pass ] ] on: UnhandledError do: [ :e | e exception messageText ]", "'x'"},
		{"Error signal: 'not handled'", "ERROR: unhandled Error: not handled"},
		{"[ Warning signal: 'w'. 3 ] on: UnhandledError do: [ :e | 4 ]", "4"},
		{"[ (Warning signal: 'w') + 1 ] on: UnhandledError do: [ :e | e resume: 5 ]", "6"},
		{"Warning signal: 'unhandled'", "ERROR: unhandled Warning: unhandled"},
		{"Notification signal: 'n'", "nil"},
		{"[ Exception signal: 'e' ] on: UnhandledError do: [ :e | e exception messageText ]", "'e'"},
		// IllegalResumeAttempt is no Error: a handler of Error does not take it
		{"[ [ [ Error signal ] on: Error do: [ :e | e resume: 1 ] ] on: Error do: [ :e | #error ] ] on: IllegalResumeAttempt do: [ :e | #illegal ]", "#illegal"},
		{"[ Error signal ] on: Error do: [ :e | e resume: 1 ]", "ERROR: unhandled IllegalResumeAttempt"},
		// classes that refuse new (BooleanTest, UndefinedObjectTest, BlockClosureTest)
		{"[ Boolean new ] on: Error do: [ :e | e messageText ]", "'You may not create any more Booleans - this is two-valued logic'"},
		{"[ UndefinedObject new ] on: Error do: [ :e | e class ]", "Error"},
		{"[ Context new: 5 ] onErrorDo: [ :e | e description ]", "'Error: Contexts must only be created with newForMethod:'"},
		{"[ Context basicNew ] onErrorDo: [ :e | e description ]", "'Error: Contexts must only be created with newForMethod:'"},
		// BehaviorTest
		{"{ Object instSize. Point instSize. Metaclass instSize }", "#(0 2 6)"},
		{"{ Behavior isAbstract. ClassDescription isAbstract. Class isAbstract. Object isAbstract }", "#(false true false false)"},
		{"Point whichClassIncludesSelector: #printString", "Object"},
		// BehaviorTest, ObjectTest>>testReadSlot, testWriteSlotValue
		{"{ Point instVarNames = #(#x #y). Point allInstVarNames first. Object instVarNames isEmpty. ClassTestCase instVarNames isEmpty. (ClassTestCase allInstVarNames includes: #testSelector) }", "#(true #x true true true)"},
		{"{ 5 @ 3 readSlot: (Point slotNamed: #x). (Point slotNamed: #y) name. Point hasSlotNamed: #x. Point hasSlotNamed: #z }", "#(5 #y true false)"},
		{"| p | p := 5 @ 6. { p writeSlot: (Point slotNamed: #x) value: 7. p = (7 @ 6) }", "#(7 true)"},
		{"[ Point slotNamed: #z ] on: SlotNotFound do: [ :e | e name ]", "#z"},
		{"[ Point instanceVariableNames ] on: MessageNotUnderstood do: [ :e | e message selector ]", "#instanceVariableNames"},
		{"{ ProtoObject allSelectors asSet = ProtoObject selectors asSet. Object allSelectors asSet = (Object selectors asSet addAll: ProtoObject selectors; yourself). (Object allSelectorsBelow: ProtoObject) asSet = Object selectors asSet }", "#(true true true)"},
		{"| s | s := TestCase allSelectorsAboveUntil: TestAsserter. { s includes: #assert:. s includes: #yourself }", "#(true false)"},
		{"| c | c := ArrayedCollection allSuperclassesIncluding: Collection. { c includes: ArrayedCollection. c includes: Object. c includes: Collection. c includes: SequenceableCollection }", "#(false false true true)"},
		{"{ Object isInClassHierarchyOf: Object. Behavior isInClassHierarchyOf: Object. Object isInClassHierarchyOf: Behavior. Metaclass class isInClassHierarchyOf: Class }", "#(true true true true)"},
		{"{ Object originalName. Object nonObsoleteClass. ProtoObject isRootInEnvironment. Object isRootInEnvironment }", "{#Object. Object. true. false}"},
		{"{ Object binding key. Object binding value. Object class binding key }", "{#Object. Object. nil}"},
		{"{ Deprecation class classVarNames includes: #RaiseWarning. Deprecation hasClassVarNamed: #RaiseWarning. Deprecation hasClassVarNamed: #None }", "#(true true false)"},
		{"{ Array isVariable. String isBytes. Object isVariable. ByteArray isBytes. Set isVariable. Point isFixed. Array isPointers }", "#(true true false true false true true)"},
		{"{ Object classDepth. Behavior isBehavior. 3 isBehavior. (Point whichClassDefinesInstVar: #x) }", "{2. true. false. Point}"},
		{"(TestCase withAllSuperclassesDo: [ :c | ]) == TestCase", "true"},
		{"| names | names := OrderedCollection new. TestAsserter withAllSuperclassesDo: [ :c | names add: c name ]. names asArray", "#(#TestAsserter #Object #ProtoObject)"},
		{"{ Object name == #Object. Object name printString. Object class name printString. Object printString. Object class printString }", "#(true '#Object' '''Object class''' 'Object' 'Object class')"},
		{"3 perform: #between:and: withEnoughArguments: #(1 5 9)", "true"},
		{"{ (3 @ 4) perform: #= withArguments: { 3 @ 4 } inSuperclass: Object. (3 @ 4) perform: #= withArguments: { 3 @ 4 } inSuperclass: Point }", "#(false true)"},
		{"[ :a :b | a ] argumentNames", "#(#a #b)"},
		{"[ 3 foo ] onDNU: #foo do: [ :e | e message selector ]", "#foo"},
		{"[ [ 3 bar ] onDNU: #foo do: [ :e | 1 ] ] on: MessageNotUnderstood do: [ :e | e message selector ]", "#bar"},
		{"[ 3 caseOf: { [ 1 ] -> [ #one ] } ] on: Error do: [ :e | e messageText ]", "'Case not found (3), and no otherwise clause'"},
		// ProtoObjectTest
		{"| o | o := ProtoObject new. { o isNil. o ~~ o. (o ifNil: [ 1 ]) == o. o ifNotNil: [ :x | x == o ] }", "#(false false true true)"},
		{"ProtoObject new flag: #hallo; isNil", "false"},
		{"[ ProtoObject new yourself ] on: MessageNotUnderstood do: [ :e | e message selector ]", "#yourself"},
		{"[ true and: [ true ] and: [ false ] ] on: MessageNotUnderstood do: [ :e | e message selector ]", "#and:and:"},
		{"{ true asInteger. false asInteger }", "#(1 0)"},
		{"{ Object new isImmediateObject. Array new isImmediateObject. 1 isImmediateObject. $a isImmediateObject }", "#(false false true true)"},
		// ObjectTest
		{"Object new printStringLimitedTo: 8", "'an O[..]'"},
		{"Object new displayStringLimitedTo: 8", "'an O[..]'"},
		{"Object new printStringLimitedTo: 20", "'an Object'"},
		{"(5 @ 3) readSlotNamed: #x", "5"},
		{"| p | p := 5 @ 6. { p writeSlotNamed: #x value: 7. p = (7 @ 6) }", "#(7 true)"},
		{"[ Object new instVarNamed: 'timoleon' ] on: InstanceVariableNotFound do: [ :e | e instVarName ]", "'timoleon'"},
		{"[ Object new instVarNamed: 'z' put: 1 ] on: InstanceVariableNotFound do: [ :e | e messageText ]", "'z not found in an Object'"},
		{"| c | c := { 1. 2. 3 }. { (c as: OrderedCollection) = (OrderedCollection with: 1 with: 2 with: 3). (c as: Array) == c }", "#(true true)"},
		{"[ Object new assert: 1 ] on: AssertionFailure do: [ :e | e messageText ]", "'Assertion failed'"},
		{"[ Object new assert: true. 1 ] on: AssertionFailure do: [ :e | 2 ]", "1"},
		{"Object new handles: Error new", "false"},
		{"[ [ 3 ] whileTrue ] on: NonBooleanReceiver do: [ :e | { e object. e messageText } ]", "#(3 'proceed for truth.')"},
		{"[ Object new deprecated: 'use foo' ] on: Deprecation do: [ :d | d messageText notNil ]", "true"},
		// Object>>deepCopy: a copy of each instance variable and element, all the way down
		{"| a b | a := OrderedCollection with: 'x' with: (Array with: 'y'). b := a deepCopy. (b at: 1) at: 1 put: $z. ((b at: 2) at: 1) at: 1 put: $w. { a. b }", "an Array(an OrderedCollection('x' #('y')) an OrderedCollection('z' #('w')))"},
		{"| d e | d := Dictionary new. d at: #k put: 'v'. e := d deepCopy. (e at: #k) at: 1 put: $w. { d at: #k. e at: #k }", "#('v' 'w')"},
		{"| a | a := 1 -> 'one'. { a deepCopy = a. a deepCopy value == a value }", "#(true false)"},
		{"| o | o := Object new. o deepCopy == o", "true"},
		// Object>>veryDeepCopy (DeepCopier): each object copied once, so a cycle stays a cycle and what is shared stays shared
		{"| a b | a := Array new: 1. a at: 1 put: a. b := a veryDeepCopy. { b == a. (b at: 1) == b. (b at: 1) == a }", "#(false true false)"},
		{"| x a b | x := 'shared' copy. a := Array with: x with: x. b := a veryDeepCopy. { (b at: 1) == (b at: 2). (b at: 1) == x. b first = x }", "#(true false true)"},
		{"| p q | p := 1 @ 2. q := (OrderedCollection with: p with: (Array with: p)) veryDeepCopy. { q first == p. q first == (q at: 2) first. q first = p }", "#(false true true)"},
		{"| a b | a := Array with: Object with: #sym with: 3 with: [ 1 ]. b := a veryDeepCopy. { b == a. (b at: 1) == Object. (b at: 2) == #sym. (b at: 4) == (a at: 4) }", "#(false true true true)"},
		{"| k d e | k := 'key' copy. d := IdentityDictionary new. d at: k put: (Array with: k). e := d veryDeepCopy. { e keys first == k. (e at: e keys first) first == e keys first. e includesKey: k }", "#(false true false)"},
		{"| k d e | k := 'key' copy. d := Dictionary new. d at: k put: 1. e := d veryDeepCopy. (e associationAt: 'key') value: 2. { e at: k. d at: k. e keys first == k }", "#(2 1 false)"},
		{"| a b n | a := nil. 50000 timesRepeat: [ a := Array with: a ]. b := a veryDeepCopy. n := 0. [ b notNil ] whileTrue: [ b := b first. n := n + 1 ]. n", "50000"},
		{"3 veryDeepCopy + #a veryDeepCopy size", "4"},
		// Object's dependents (System-Model's protocol): changed: tells each dependent once
		{"| model d | model := Object new. d := Object new. model addDependent: d; addDependent: d. model changed: #x. model changed: #y with: 3. model changed. model dependents size", "1"},
		{"| model | model := Object new. model addDependent: 3; removeDependent: 3. model dependents isEmpty", "true"},
		{"Object new dependents isEmpty", "true"},
		// what Pharo 13's Object does not understand, the kernel's does not either
		{"[ 3 isBoolean ] on: MessageNotUnderstood do: [ :e | e messageText ]", "'Message not understood: SmallInteger >> #isBoolean'"},
		{"[ Object new name ] on: MessageNotUnderstood do: [ :e | e message selector ]", "#name"},
		{"[ 3 cull: 4 ] on: MessageNotUnderstood do: [ :e | e message selector ]", "#cull:"},
		{"{ [ 3 isEmptyOrNil ] on: MessageNotUnderstood do: [ :e | e return: #dnu ]. nil isEmptyOrNil. '' isEmptyOrNil }", "#(#dnu true true)"},
		{"[ 3 asOrderedCollection ] on: MessageNotUnderstood do: [ :e | e message selector ]", "#asOrderedCollection"},
		// SmalltalkImageTest
		{"SmalltalkImage current == Smalltalk", "true"},
		{"{ Smalltalk at: #Object ifPresent: [ :c | true ] ifAbsent: [ false ]. Smalltalk at: #NoSuchGlobal123 ifPresent: [ :c | true ] ifAbsent: [ false ] }", "#(true false)"},
		{"| d | d := Smalltalk extractMinusParametersFrom: #('a1' '-m1' 'a2' 'a3' '-m2'). { (d at: #*) = #('a1'). (d at: 'm1') = #('a2' 'a3'). (d at: 'm2') isEmpty. d size }", "#(true true true 3)"},
		{"(Smalltalk extractMinusParametersFrom: nil) isEmpty", "true"},
		// OSPlatformTest>>testAPI
		{"| os | os := Smalltalk os. { os isUnix. os isLinux. os isWindows. os isMacOS. os family. os lineEnding = String lf. os == OSPlatform current | (os class == OSPlatform current class) }", "#(true true false false #Unix true true)"},
		// AssociationTest
		{"(1 -> 'one') isSelfEvaluating", "true"},
		{"(Object new -> 1) isSelfEvaluating", "false"},
		{"{ Object isSelfEvaluating. Object class isSelfEvaluating. Object new isSelfEvaluating }", "#(true true false)"},
		{"[ Object obsolete ] on: Error do: [ :e | e description ]", "'Error: Object is NOT obsolete'"},
		{"String streamContents: [ :s | ('a' -> -1) storeOn: s ]", "'(''a''-> -1)'"},
		{"String streamContents: [ :s | ('a' -> 1) storeOn: s ]", "'(''a''->1)'"},
		// BlockClosureTest
		{"{ [ 0 ] cull: 1 cull: 2 cull: 3 cull: 4. [ :a :b :c :d | d ] cull: 1 cull: 2 cull: 3 cull: 4. [ :a :b | b ] cull: 1 cull: 2 cull: 3 cull: 4 }", "#(0 4 2)"},
		{"[ [ :a :b :c :d :e | ] cull: 1 cull: 2 cull: 3 cull: 4 ] on: Error do: [ :e | e class ]", "ArgumentsCountMismatch"},
		{"| n r | n := 1. r := [ n := n + 1. n * 2 ] doWhileTrue: [ n < 5 ]. { n. r }", "#(5 10)"},
		{"| n r | n := 1. r := [ n := n + 1. n * 2 ] doWhileFalse: [ n > 5 ]. { n. r }", "#(6 12)"},
		{"[ ] doWhileTrue: [ false ]", "nil"},
		{"[ 1 foo ] onErrorDo: [ :err | 'huh?' ]", "'huh?'"},
		{"[ 1 / 0 ] onErrorDo: [ 'no argument' ]", "'no argument'"},
		{"[ :exit | 1 ] valueWithExit", "1"},
		{"| val | 1 to: 10 do: [ :i | [ :break | val := i. i = 4 ifTrue: [ break value ] ] valueWithExit ]. val", "10"},
		{"| val | [ :break | 1 to: 10 do: [ :i | val := i. i = 4 ifTrue: [ break value ] ] ] valueWithExit. val", "4"},
		{"{ [ 1 ] valueWithPossibleArgs: #(). [ :a | a ] valueWithPossibleArgs: #(). [ :a :b | { a. b } ] valueWithPossibleArgs: #(1). [ :a :b | { a. b } ] valueWithPossibleArgs: #(1 2 3) } = { 1. nil. #(1 nil). #(1 2) }", "true"},
		{"[ :a :b | { a. b } ] valueWithPossibleArgument: 1", "#(1 nil)"},
		{"[ [ :i | i ] valueWithArguments: #(1 2) ] on: ArgumentsCountMismatch do: [ :e | { e expectedArgumentsCount. e calledArgumentsCount } ]", "#(1 2)"},
		{"| n | n := 0. [ n := n + 1. n = 3 ifTrue: [ 'done' ] ifFalse: [ nil ] ] whileNil: [ ]. n", "3"},
	}
	for _, tc := range cases {
		t.Run(tc.expr, func(t *testing.T) {
			assert.Equal(t, tc.want, evalIn(t, tc.expr))
		})
	}
}

// sunitFixture is a test class of every outcome, as SUnit-Tests' SUnitTest
// uses itself: run from Smalltalk (TestCase>>run, TestSuite>>run) it must
// count what the real image counts.
const sunitFixture = `Class {
	#name : #KernelSUnitFixture,
	#superclass : #TestCase,
	#instVars : [ #log ],
	#category : #'Kernel-Fixture'
}

KernelSUnitFixture >> setUp [ log := OrderedCollection new. log add: #setUp ]
KernelSUnitFixture >> tearDown [ log add: #tearDown ]
KernelSUnitFixture >> noop [ ]
KernelSUnitFixture >> fail [ self assert: false ]
KernelSUnitFixture >> error [ 3 zork ]
KernelSUnitFixture >> skipping [ self skip ]
KernelSUnitFixture >> unequal [ self assert: 'actual' equals: 'expected' ]
KernelSUnitFixture >> expectedFailureFails [ <expectedFailure> self assert: false ]
KernelSUnitFixture >> expectedFailurePasses [ <expectedFailure> self assert: true ]
KernelSUnitFixture >> warns [ Warning signal: 'careful'. self assert: true ]
KernelSUnitFixture >> update: anAspect [ log add: anAspect ]
KernelSUnitFixture >> deprecates [ self deprecated: 'use another'. log add: #afterDeprecation ]
`

// resourceFixture is a test resource and a test case that needs it, as
// SUnit-Tests' SimpleTestResourceTestCase has them.
// classTestFixture tests a class the ClassTestCase way: it inherits
// testNew, testCoverage and testUnCategorizedMethods, as in the real image.
const classTestFixture = `Class {
	#name : #KernelClassTestFixtureTest,
	#superclass : #ClassTestCase,
	#category : #'Kernel-Fixture'
}

KernelClassTestFixtureTest >> testOwn [ self assert: self targetClass equals: KernelSUnitFixture ]
KernelClassTestFixtureTest >> classToBeTested [ ^ KernelSUnitFixture ]
`

const resourceFixture = `Class {
	#name : #KernelResourceFixture,
	#superclass : #TestResource,
	#instVars : [ #state ],
	#classVars : [ #Log, #Refuse ],
	#category : #'Kernel-Fixture'
}

KernelResourceFixture class >> log [ ^ Log ifNil: [ Log := OrderedCollection new ] ]
KernelResourceFixture class >> refuse: aBoolean [ Refuse := aBoolean ]
KernelResourceFixture >> setUp [ self class log add: #setUp. state := #ready ]
KernelResourceFixture >> tearDown [ self class log add: #tearDown. state := nil ]
KernelResourceFixture >> isAvailable [ ^ Refuse ~~ true and: [ state == #ready ] ]
KernelResourceFixture >> state [ ^ state ]
`

const resourceUserFixture = `Class {
	#name : #KernelResourceUserFixture,
	#superclass : #TestCase,
	#category : #'Kernel-Fixture'
}

KernelResourceUserFixture class >> resources [ ^ { KernelResourceFixture } ]
KernelResourceUserFixture >> usesIt [ self assert: KernelResourceFixture current state equals: #ready ]
`

// parametrizedFixture runs each test once per case of its matrix, as
// SUnit-Tests' PaSimpleMatrixExampleTest does.
const parametrizedFixture = `Class {
	#name : #KernelParametrizedFixture,
	#superclass : #ParametrizedTestCase,
	#instVars : [ #number, #word ],
	#category : #'Kernel-Fixture'
}

KernelParametrizedFixture class >> testParameters [
	^ ParametrizedTestMatrix new
		forSelector: #number addOptions: #(1 2 3);
		forSelector: #word addOptions: { 'a'. [ 'b' ] };
		yourself
]
KernelParametrizedFixture >> number: n [ number := n ]
KernelParametrizedFixture >> word: w [ word := w ]
KernelParametrizedFixture >> testSmall [ self assert: number < 3 ]
KernelParametrizedFixture >> testWord [ self assert: word size equals: 1 ]
`

func TestSUnitCountsAsPharo(t *testing.T) {
	t.Parallel()
	var files []*tonel.File
	for name, src := range map[string]string{"KernelSUnitFixture": sunitFixture, "KernelResourceFixture": resourceFixture,
		"KernelResourceUserFixture": resourceUserFixture, "KernelParametrizedFixture": parametrizedFixture, "KernelClassTestFixtureTest": classTestFixture} {
		f, err := tonel.ParseFile(name+".class.st", []byte(src))
		require.NoError(t, err)
		files = append(files, f)
	}
	program := ReadProgram(files)
	cases := []struct{ expr, want string }{
		// SUnitTest>>testResult, testFail, testError, testDefects, testFileOutResult
		{"(F selector: #noop) run printString", "'1 ran, 1 passed, 0 skipped, 0 expected failures, 0 failures, 0 errors, 0 passed unexpected'"},
		{"| r | r := (F selector: #fail) run. { r runCount. r passedCount. r failureCount. r errorCount }", "#(1 0 1 0)"},
		{"| r | r := (F selector: #error) run. { r runCount. r passedCount. r failureCount. r errorCount }", "#(1 0 0 1)"},
		{"| s e f r | s := TestSuite new. s addTest: (e := F selector: #error). s addTest: (f := F selector: #fail). r := s run. { r defects asArray = { e. f }. r runCount }", "#(true 2)"},
		{"| s | s := TestSuite new. s addTest: (F selector: #noop); addTest: (F selector: #fail); addTest: (F selector: #error). String streamContents: [ :str | s run fileOutOn: str ]",
			"'3 ran, 1 passed, 0 skipped, 0 expected failures, 1 failure, 1 error, 0 passed unexpected\rFailures:\rKernelSUnitFixture>>#fail\r\rErrors:\rKernelSUnitFixture>>#error\r'"},
		{"| r | r := (F selector: #skipping) run. { r runCount. r skippedCount. r hasPassed }", "#(0 1 true)"},
		{"TestResult new printString", "'No tests ran'"},
		// SUnitTest>>testExpectedFailure, testExpectedFailurePass, testExpectedFailureDetection
		{"| c r | c := F selector: #expectedFailureFails. r := c run. { c shouldPass. r runCount. r expectedPassCount. r failureCount. r errorCount. r expectedDefectCount }", "#(false 1 0 0 0 1)"},
		{"| c r | c := F selector: #expectedFailurePasses. r := c run. { c shouldPass. r runCount. r expectedPassCount. r failureCount. r errorCount. r expectedDefectCount. r unexpectedPassCount }", "#(false 1 0 1 0 0 1)"},
		{"((F selector: #noop) expectedFailures asSortedCollection: [ :a :b | a <= b ]) asArray", "#(#expectedFailureFails #expectedFailurePasses)"},
		// TestCaseTest>>testAssertEqualsActualAndExpectedOrder
		{"(F selector: #unequal) runCaseOutcome", "#(#failed 'Got ''actual'' instead of ''expected''.')"},
		{"(F selector: #error) runCaseOutcome last", "'Instance of SmallInteger did not understand #zork'"},
		{"(F selector: #skipping) runCaseOutcome first", "#skipped"},
		{"(F selector: #warns) runCaseOutcome", "#(#errored 'Warning: careful')"},
		{"| r | r := (F selector: #warns) run. { r errorCount. r passedCount }", "#(1 0)"},
		// SUnitTest>>testRan: the fixture is let go after the run, setUp and tearDown ran
		{"| c | c := F selector: #noop. c run. { c instVarNamed: 'log'. c selector }", "#(nil #noop)"},
		{"| c log | c := F selector: #fail. c setUp. log := c instVarNamed: 'log'. c tearDown. log asArray", "#(#setUp #tearDown)"},
		// TestCase>>printOn: names the defining class of an inherited selector
		{"(F selector: #assert:) printString", "'KernelSUnitFixture(TestAsserter)>>#assert:'"},
		// SUnitTest>>testDialectLocalizedException, testException
		{"[ TestResult signalFailureWith: 'Foo' ] on: (F selector: #noop) defaultTestFailure do: [ :e | e messageText ]", "'Foo'"},
		{"[ TestResult signalErrorWith: 'Foo' ] on: (F selector: #noop) defaultTestError do: [ :e | e messageText ]", "'Foo'"},
		{"[ (F selector: #noop) skip. 2 ] on: TestFailure do: [ :e | 1 ]", "2"},
		{"[ (F selector: #noop) assert: false ] on: TestFailure do: [ :e | e isResumable ]", "false"},
		{"[ (F selector: #noop) assert: false description: 'r' resumable: true. 3 ] on: TestFailure do: [ :e | e resume: 4 ]", "3"},
		// SUnitExtensionsTest>>testValidShouldNotTakeMoreThan: a quick block passes and answers its value
		{"(F selector: #noop) should: [ 3 + 4 ] notTakeMoreThan: 1 minute", "7"},
		{"(F selector: #noop) should: [ 3 + 4 ] notTakeMoreThanMilliseconds: 60000", "7"},
		// Object>>changed: tells each dependent, update:with: goes on to update:
		{"| m t | t := F selector: #noop. t setUp. m := Object new. m addDependent: t; addDependent: t. m changed: #x. m changed: #y with: 2. (t instVarNamed: 'log') asArray", "#(#setUp #x #y)"},
		// the suite of a class
		{"(F buildSuiteFromMethods: #(#noop #fail)) run runCount", "2"},
		{"(TestCase suite tests collect: [ :each | each name ]) includes: 'KernelSUnitFixture'", "true"},
		// ClassTestCase: its concrete subclasses run its tests too
		{"(KernelClassTestFixtureTest buildSuite tests collect: [ :each | each selector ]) asArray", "#(#testCoverage #testNew #testOwn #testUnCategorizedMethods)"},
		{"KernelClassTestFixtureTest buildSuite run printString", "'4 ran, 4 passed, 0 skipped, 0 expected failures, 0 failures, 0 errors, 0 passed unexpected'"},
		{"{ ClassTestCase isAbstract. AbstractEnvironmentTestCase isAbstract. KernelClassTestFixtureTest isAbstract }", "#(true true false)"},
		// SUnitTest>>testRaiseDeprecationWarnings, testIgnoreDeprecationWarnings
		{"| seen r | seen := false. r := [ (F selector: #deprecates) run ] on: Deprecation do: [ :d | seen := true. d resume ]. { seen. r passedCount. r defects size }", "#(true 1 0)"},
		{"(F selector: #deprecates) run passedCount", "1"},
		{"{ Deprecation raiseWarning. Deprecation showWarning }", "#(false true)"},
		// SimpleTestResourceTestCase: a resource is set up once for the tests that need it, torn down when the run ends
		{"KernelResourceFixture log removeAll: KernelResourceFixture log copy. (KernelResourceUserFixture selector: #usesIt) run printString , ' ' , KernelResourceFixture log asArray printString",
			"'1 ran, 1 passed, 0 skipped, 0 expected failures, 0 failures, 0 errors, 0 passed unexpected #(#setUp #tearDown)'"},
		{"| s r | KernelResourceFixture log removeAll: KernelResourceFixture log copy. s := TestSuite new. s addTest: (KernelResourceUserFixture selector: #usesIt); addTest: (KernelResourceUserFixture selector: #usesIt). r := s run. { r passedCount. KernelResourceFixture log asArray = #(#setUp #tearDown) }", "#(2 true)"},
		{"KernelResourceFixture refuse: true. [ (KernelResourceUserFixture selector: #usesIt) run failureCount ] ensure: [ KernelResourceFixture refuse: false ]", "1"},
		{"KernelResourceFixture refuse: true. [ (TestSuite new addTest: (KernelResourceUserFixture selector: #usesIt); yourself) run ] on: TestFailure do: [ :e | e messageText ]", "'Resource KernelResourceFixture could not be initialized'"},
		{"KernelResourceFixture isAvailable & KernelResourceFixture isAlreadyAvailable", "true"},
		{"KernelResourceFixture isAvailable. KernelResourceFixture reset. KernelResourceFixture isAlreadyAvailable", "false"},
		// PaSuiteTest: one test per case of the matrix, blocks give the value
		{"KernelParametrizedFixture buildSuite tests size", "12"},
		{"| r | r := KernelParametrizedFixture buildSuite run. { r runCount. r passedCount. r failureCount }", "#(12 10 2)"},
		{"(KernelParametrizedFixture buildSuite tests at: 2) printString", "'KernelParametrizedFixture>>#testWord(#number->1 #word->''a'')'"},
		{"(ParametrizedTestMatrix new addCase: { #a -> 1 }; addCase: { #a -> 2 }; yourself) * (ParametrizedTestMatrix new forSelector: #b addOptions: #(3); yourself) = { { #a -> 1. #b -> 3 }. { #a -> 2. #b -> 3 } } asTestMatrix", "true"},
	}
	for _, tc := range cases {
		t.Run(tc.expr, func(t *testing.T) {
			p := &Program{Classes: program.Classes, Methods: append([]MethodSource{
				{Class: "UndefinedObject", Source: "doIt\n\t| F |\n\tF := KernelSUnitFixture.\n\t^ [ " + tc.expr + " ] value printString"},
			}, program.Methods...)}
			in, err := New(p, Limits{Steps: 1_000_000})
			require.NoError(t, err)
			var out string
			in.guard(1_000_000, func() { out = str(in.Send(nil, "doIt")) }, func(d string) { out = "ERROR: " + d })
			assert.Equal(t, tc.want, out)
		})
	}
}

// TestRunnerRunsWhatSUnitBuilds: the runner the service reads runs the
// tests the real image's suite holds — the inherited tests of a
// ClassTestCase, each case of a ParametrizedTestCase — and resets the test
// resources a class used when its tests are done.
func TestRunnerRunsWhatSUnitBuilds(t *testing.T) {
	t.Parallel()
	var files []*tonel.File
	for name, src := range map[string]string{"KernelSUnitFixture": sunitFixture, "KernelResourceFixture": resourceFixture,
		"KernelResourceUserFixture": resourceUserFixture + "KernelResourceUserFixture >> testUsesIt [ self usesIt ]\n",
		"KernelParametrizedFixture": parametrizedFixture, "KernelClassTestFixtureTest": classTestFixture} {
		f, err := tonel.ParseFile(name+".class.st", []byte(src))
		require.NoError(t, err)
		files = append(files, f)
	}
	in, err := New(ReadProgram(files), Limits{Steps: 10_000_000})
	require.NoError(t, err)

	out, err := in.RunTestClass("KernelClassTestFixtureTest", 1_000_000)
	require.NoError(t, err)
	var names []string
	for _, o := range out {
		names = append(names, o.Selector+"/"+o.Defining)
		assert.Equal(t, Passed, o.Outcome, o.Selector)
	}
	assert.Equal(t, []string{"testCoverage/ClassTestCase", "testNew/ClassTestCase", "testOwn/KernelClassTestFixtureTest", "testUnCategorizedMethods/ClassTestCase"}, names)

	out, err = in.RunTestClass("KernelParametrizedFixture", 1_000_000)
	require.NoError(t, err)
	require.Len(t, out, 12)
	failed := map[string]bool{}
	for _, o := range out {
		assert.NotEmpty(t, o.Parameters)
		if o.Outcome == Failed {
			failed[o.Selector+o.Parameters] = true
		}
	}
	assert.Equal(t, map[string]bool{"testSmall(#number->3 #word->'a')": true, "testSmall(#number->3 #word->[ 'b' ])": true}, failed)

	out, err = in.RunTestClass("KernelResourceUserFixture", 1_000_000)
	require.NoError(t, err)
	require.Len(t, out, 1)
	assert.Equal(t, Passed, out[0].Outcome)
	var log string
	in.guard(1_000_000, func() {
		log = str(in.Send(in.Send(in.Send(in.classes["KernelResourceFixture"], "log"), "asArray"), "printString"))
	}, func(d string) { log = d })
	assert.Equal(t, "#(#setUp #tearDown)", log)
}

// TestStringLiteralsHaveInternalLineEndings: a literal spanning lines holds
// carriage returns, as in Pharo, whose code loading converts a method's
// line endings; a linefeed written as a character value stays one.
func TestStringLiteralsHaveInternalLineEndings(t *testing.T) {
	t.Parallel()
	cases := []struct{ expr, want string }{
		{"'a\nb' = ('a', String cr, 'b')", "true"},
		{"'a\r\nb' size", "3"},
		{"('a', (String with: Character lf), 'b') lines size", "2"},
		{"$\n = Character cr", "true"},
	}
	for _, tc := range cases {
		t.Run(tc.expr, func(t *testing.T) {
			assert.Equal(t, tc.want, evalIn(t, tc.expr))
		})
	}
}

// TestNonLocalReturnsTravelToTheirHome: a ^ from a block returns from its
// home method only, through frames that pass it by — also while another ^
// travels (an ensure: block returning from its own method as the first
// unwinds), and when an endless recursion through such methods ends as an
// error instead.
func TestNonLocalReturnsTravelToTheirHome(t *testing.T) {
	t.Parallel()
	extra := []MethodSource{
		{Class: "UndefinedObject", Source: "firstOver: n in: c\n\tc do: [ :x | x > n ifTrue: [ ^ x ] ].\n\t^ nil"},
		{Class: "UndefinedObject", Source: "outer\n\t^ (nil firstOver: 1 in: #(1 2 3)) + 10"},
		{Class: "UndefinedObject", Source: "cleanUp: log\n\t#(1) do: [ :x | log add: #cleaned. ^ #inner ]"},
		{Class: "UndefinedObject", Source: "leave: log\n\t[ #(1) do: [ :x | ^ #outer ] ] ensure: [ log add: (nil cleanUp: log) ].\n\t^ #missed"},
		{Class: "UndefinedObject", Source: "deep: n\n\t#(1) do: [ :x | ^ self deep: n + 1 ]"},
		{Class: "UndefinedObject", Source: "guarded\n\t^ [ #(1) do: [ :x | ^ #returned ]. #fell ] on: Error do: [ :e | #handled ]"},
	}
	cases := []struct{ expr, want string }{
		{"nil outer", "12"},
		{"| log | log := OrderedCollection new. { nil leave: log. log asArray }", "#(#outer #(#cleaned #inner))"},
		{"nil guarded", "#returned"},
		{"nil deep: 1", "ERROR: the stack grew too deep (an endless recursion?)"},
		{"[ nil deep: 1 ] on: Error do: [ :e | #caught ]", "ERROR: the stack grew too deep (an endless recursion?)"},
	}
	for _, tc := range cases {
		t.Run(tc.expr, func(t *testing.T) {
			assert.Equal(t, tc.want, runDoIt(t, extra, tc.expr))
		})
	}
}
