package interp

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// tablesFixture keeps a table in a class variable that its class-side
// initialize fills, as STONWriter does with its character escapes; its
// subclass's initialize reads the table, so it must run second.
const tablesFixture = `Class {
	#name : #KernelTablesFixture,
	#superclass : #Object,
	#classVars : [ 'Table', 'Log' ],
	#category : #Fixture
}

KernelTablesFixture class >> initialize [
	Table := Array new: 3 withAll: #pass.
	Log := OrderedCollection with: self name
]
KernelTablesFixture class >> initializeLater [ Log add: #never ]
KernelTablesFixture class >> log [ ^ Log ]
KernelTablesFixture >> at: i [ ^ Table at: i ]
`

// tablesUserFixture's name sorts after its superclass's, so Pharo's
// loader runs its initialize second, once the table is set up.
const tablesUserFixture = `Class {
	#name : #KernelTablesUserFixture,
	#superclass : #KernelTablesFixture,
	#category : #Fixture
}

KernelTablesUserFixture class >> initialize [ Log add: self name , Table size printString ]
`

const failingInitializeFixture = `Class {
	#name : #KernelFailingInitializeFixture,
	#superclass : #Object,
	#classVars : [ 'Done' ],
	#category : #Fixture
}

KernelFailingInitializeFixture class >> initialize [ Done := 1. self zork. Done := 2 ]
KernelFailingInitializeFixture class >> done [ ^ Done ]
`

// runInProgram answers the printString of expr run beside program's
// classes, in a fresh interpreter (so their class-side initialize has run).
func runInProgram(t *testing.T, program *Program, expr string) string {
	t.Helper()
	p := &Program{Classes: program.Classes, PharoDeclares: program.PharoDeclares, PharoHasGlobal: program.PharoHasGlobal,
		Methods: append([]MethodSource{{Class: "UndefinedObject", Source: "doIt\n\t^ [ " + expr + " ] value printString"}}, program.Methods...)}
	in, err := New(p, Limits{Steps: 1_000_000})
	require.NoError(t, err)
	var out string
	in.guard(1_000_000, func() { out = str(in.Send(nil, "doIt")) }, func(d string) { out = "ERROR: " + d })
	return out
}

// limitedDictionaryFixture sets itself up in initialize:, as Zinc's
// ZnMultiValueDictionary does; its neighbour in initialize, which
// Pharo's OrderedDictionary class>>new: does not send (only initialize:).
const limitedDictionaryFixture = `Class {
	#name : #KernelLimitedDictionaryFixture,
	#superclass : #OrderedDictionary,
	#instVars : [ 'limit', 'ready' ],
	#category : #Fixture
}

KernelLimitedDictionaryFixture >> initialize: n [ super initialize: n. limit := n ]
KernelLimitedDictionaryFixture >> initialize [ super initialize. ready := true ]
KernelLimitedDictionaryFixture >> limit [ ^ limit ]
KernelLimitedDictionaryFixture >> ready [ ^ ready ]
`

// TestHashedCollectionsInitializeWithSize: Pharo's new: of a hashed
// collection sends initialize: with the size (ZnMultiValueDictionaryTest
// reads the limit its initialize: sets).
func TestHashedCollectionsInitializeWithSize(t *testing.T) {
	t.Parallel()
	f, err := tonel.ParseFile("KernelLimitedDictionaryFixture.class.st", []byte(limitedDictionaryFixture))
	require.NoError(t, err)
	program := ReadProgram([]*tonel.File{f})
	cases := []struct{ expr, want string }{
		{"(KernelLimitedDictionaryFixture new: 10) limit", "10"},
		{"KernelLimitedDictionaryFixture new limit notNil", "true"},
		{"| d | d := KernelLimitedDictionaryFixture new. d at: 1 put: 2. { d ready. d at: 1. d size }", "#(nil 2 1)"},
		{"{ (Set new: 3) add: 1; size. (IdentityDictionary new: 2) at: 'a' copy put: 1; at: 'a' copy put: 2; size }", "#(1 2)"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, runInProgram(t, program, c.expr), c.expr)
	}
}

// TestLoadingInitializesClasses: loading a package runs the class-side
// initialize its classes define (STON's writer and reader read the tables
// set up there), and names one that fails.
func TestLoadingInitializesClasses(t *testing.T) {
	t.Parallel()
	var files []*tonel.File
	for name, src := range map[string]string{"KernelTablesFixture": tablesFixture, "KernelTablesUserFixture": tablesUserFixture,
		"KernelFailingInitializeFixture": failingInitializeFixture} {
		f, err := tonel.ParseFile(name+".class.st", []byte(src))
		require.NoError(t, err)
		files = append(files, f)
	}
	program := ReadProgram(files)
	cases := []struct{ expr, want string }{
		{"KernelTablesFixture new at: 3", "#pass"},
		{"KernelTablesFixture log asArray", "#(#KernelTablesFixture #KernelTablesUserFixture3)"},
		{"KernelFailingInitializeFixture done", "1"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, runInProgram(t, program, c.expr), c.expr)
	}
	in, err := New(program, Limits{Steps: 1_000_000})
	require.NoError(t, err)
	require.Len(t, in.InitializeFailures(), 1, "the failing initialize is told, the others are not")
	assert.Contains(t, in.InitializeFailures()[0], "KernelFailingInitializeFixture class>>#initialize: ")
	assert.Contains(t, in.InitializeFailures()[0], "zork")
}

// TestLibrariesKernelAnswersAsPharo: what the libraries' tests (STON,
// Zinc's character encoders) and Pharo 13's kernel tests show the kernel
// answers for what those libraries use.
func TestLibrariesKernelAnswersAsPharo(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, expr, want string }{
		// ProcessSpecificTest>>testDynamicVariableBlockReturnValue
		{"value:during: answers the block's value, read inside", "DynamicVariable value: 10 during: [ DynamicVariable value + 1 ]", "11"},
		{"a dynamic variable is unset outside value:during:", "DynamicVariable value: 3 during: [ ]. DynamicVariable value", "nil"},
		{"value:during: nests and restores the outer value", "DynamicVariable value: 1 during: [ { DynamicVariable value: 2 during: [ DynamicVariable value ]. DynamicVariable value } ]", "#(2 1)"},
		{"a handler runs before the block unwinds, so the value is still bound", "[ DynamicVariable value: 1 during: [ 1 / 0 ] ] on: ZeroDivide do: [ :e | DynamicVariable value ]", "1"},
		{"value:during: restores when an exception unwinds the block", "[ DynamicVariable value: 1 during: [ 1 / 0 ] ] on: ZeroDivide do: [ :e | 0 ]. DynamicVariable value", "nil"},
		{"one sole instance", "DynamicVariable soleInstance == DynamicVariable soleInstance", "true"},
		{"a process-local variable holds what it was set to", "ProcessLocalVariable value: 4. ProcessLocalVariable value", "4"},
		// ZnBufferedReadStream reads a ByteArray's stream into a ByteArray (ZnBufferedReadStreamTest>>testReadUpToEnd)
		{"a stream over a ByteArray is binary, over a String not", "{ #[1 2] readStream isBinary. 'ab' readStream isBinary. (WriteStream on: ByteArray new) isBinary. #(1 2) readStream isBinary }", "#(true false true false)"},
		// ZnUTF8Encoder looks for the first non-ASCII byte with ByteString's class-side search
		{"ByteString's search over a byte map", "| map | map := ByteArray new: 256. 129 to: 256 do: [ :i | map at: i put: 1 ]. { ByteString findFirstInString: 'abc' inSet: map startingAt: 1. ByteString findFirstInString: 'abé' inSet: map startingAt: 2. ByteString findFirstInString: #[1 200] inSet: map startingAt: 1 }", "#(0 3 2)"},
		{"ByteString indexOfAscii:inString:startingAt:", "{ ByteString indexOfAscii: 98 inString: 'abcb' startingAt: 3. ByteString indexOfAscii: 120 inString: 'abc' startingAt: 1 }", "#(4 0)"},
		{"ByteString new: makes a ByteString of NULs equal to a String of them", "| s | s := ByteString new: 2. { s class. s size. s isByteString. s = (String new: 2). (ByteString withAll: 'ab') = 'ab' }", "{ByteString. 2. true. true. true}"},
		// ZnByteStringBecameWideString class>>convert:, ZnUTFEncoder
		{"WideString from: a string or code points", "{ (WideString from: 'ab') class. WideString from: 'ab'. WideString from: #(97 98) }", "{WideString. 'ab'. 'ab'}"},
		// SequenceableCollection>>replace: (its example), which TextDiffBuilder uses
		{"replace: puts in each element what the block answers, and answers the receiver", "| a | a := { 1. 2. 3. 4 }. { (a replace: [ :each | each + 1 ]) == a. a }", "#(true #(2 3 4 5))"},
		// Bag's comment: it tallies its elements in a dictionary (STON's Bag>>stonOn: writes that map)
		{"a Bag keeps its counts in contents", "| b | b := Bag withAll: #(a a b). { (b instVarNamed: 'contents') class. (b instVarNamed: 'contents') at: #a. b size }", "{Dictionary. 2. 3}"},
		{"an IdentityBag's contents is an IdentityDictionary", "(IdentityBag new instVarNamed: 'contents') class", "IdentityDictionary"},
		{"a Bag's copy counts apart from it", "| b c | b := Bag withAll: #(1 1). c := b copy. c add: 1. { b occurrencesOf: 1. c occurrencesOf: 1 }", "#(2 3)"},
		// RunArray>>mapValues: (Text's attribute runs are rewritten with it)
		{"mapValues: rewrites each run's value, the runs stay", "| r | r := RunArray runs: #(2 3) values: #(1 2). r mapValues: [ :v | v * 10 ]. { r runs. r values. r asArray }", "#(#(2 3) #(10 20) #(10 10 20 20 20))"},
		{"mapValues: does not merge runs made equal", "| r | r := RunArray runs: #(1 1) values: #(1 2). r mapValues: [ :v | 0 ]. r runs", "#(1 1)"},
		// TextStream>>nextPutAll: compares against WriteStream's writeLimit, the size of the collection written into
		{"writeLimit is the size of the collection written into", "{ (WriteStream on: (String new: 5)) instVarNamed: 'writeLimit'. (WriteStream with: 'abc') instVarNamed: 'writeLimit'. (ReadWriteStream on: (Array new: 2)) instVarNamed: 'writeLimit' }", "#(5 3 2)"},
		{"writeLimit follows the collection as it grows", "| s t | s := WriteStream on: (String new: 2). s nextPutAll: 'abc'. t := WriteStream on: (ByteArray new: 1). t nextPut: 1; nextPut: 2. { s instVarNamed: 'writeLimit'. s contents. t instVarNamed: 'writeLimit'. t contents }", "#(18 'abc' 17 #[1 2])"},
		{"growTo: grows the collection to the size asked", "| s | s := WriteStream on: (Array new: 2). s growTo: 10. { s instVarNamed: 'writeLimit'. s nextPut: 1; contents }", "#(10 #(1))"},
		// RunArray>>at: tolerates indices past its ends (TextStreamTest>>testApplyAttributeBeginningAt reads the runs at size + 1)
		{"a RunArray read past its ends answers the nearest run's value", "| r | r := RunArray runs: #(2 3) values: #(#a #b). { r at: 0. r at: 6. r at: 2. r at: 3 }", "#(#a #b #a #b)"},
		{"an empty RunArray has nothing to read", "[ RunArray new at: 1 ] on: Error do: [ :e | #error ]", "#error"},
		{"WideString from: a WideString copies it", "| w | w := WideString from: 'ab'. { (WideString from: w) == w. (WideString from: w) = w }", "#(false true)"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, runDoIt(t, nil, c.expr), c.name)
	}
}

// TestAnUnknownVariableIsNamedWithItsClass: a method reading a lower-case
// name that nothing declares (an instance variable Pharo's class has and
// the kernel's lacks) errors naming the variable and the class, not a
// global.
func TestAnUnknownVariableIsNamedWithItsClass(t *testing.T) {
	t.Parallel()
	out := runDoIt(t, []MethodSource{{Class: "Bag", Source: "weights\n\t^ weightTable"}}, "Bag new weights")
	assert.Equal(t, "ERROR: pharo-sim's kernel lacks the variable weightTable read by a method of Bag", out)
	out = runDoIt(t, nil, "NoSuchGlobal new")
	assert.Equal(t, "ERROR: pharo-sim's kernel lacks the global NoSuchGlobal", out)
}

// orphanFixtures are classes that cannot load: a superclass, a trait, a
// pool the image does not hold, and a subclass of one of them.
var orphanFixtures = map[string]string{
	"KernelOrphanFixture": `Class { #name : #KernelOrphanFixture, #superclass : #WAComponentFixture, #category : #Fixture }
KernelOrphanFixture >> foo [ ^ 1 ]
`,
	"KernelOrphanChildFixture": `Class { #name : #KernelOrphanChildFixture, #superclass : #KernelOrphanFixture, #category : #Fixture }
`,
	"KernelTraitlessFixture": `Class { #name : #KernelTraitlessFixture, #superclass : #Object, #traits : 'TMissingFixture', #category : #Fixture }
`,
	"KernelPoollessFixture": `Class { #name : #KernelPoollessFixture, #superclass : #Object, #pools : [ 'MissingPoolFixture' ], #category : #Fixture }
`,
	"KernelOrphanTest": `Class { #name : #KernelOrphanTest, #superclass : #MissingTestCaseFixture, #category : #Fixture }
KernelOrphanTest >> testOne [ self assert: true ]
`,
	"KernelPoolFixture": `Class { #name : #KernelPoolFixture, #superclass : #SharedPool, #classVars : [ 'Answer' ], #category : #Fixture }
KernelPoolFixture class >> initialize [ Answer := 42 ]
`,
	"KernelPoolUserFixture": `Class { #name : #KernelPoolUserFixture, #superclass : #Object, #pools : [ 'KernelPoolFixture' ], #category : #Fixture }
KernelPoolUserFixture >> answer [ ^ Answer ]
`,
	"KernelClockPoolUserFixture": `Class { #name : #KernelClockPoolUserFixture, #superclass : #Object, #pools : [ 'ChronologyConstants' ], #category : #Fixture }
KernelClockPoolUserFixture >> constants [ ^ { SecondsInDay. NanosInSecond. MicrosecondsInDay. DayNames first. MonthNames last. DaysInMonth second. Epoch } ]
`,
	"KernelOrphanUserTest": `Class { #name : #KernelOrphanUserTest, #superclass : #TestCase, #category : #Fixture }
KernelOrphanUserTest >> testUsesTheOrphan [ self assert: KernelOrphanFixture new foo equals: 1 ]
KernelOrphanUserTest >> testPasses [ self assert: true ]
`,
}

// TestAClassWhoseSuperclassIsMissingFailsLoudly: Pharo cannot load a class
// whose superclass, trait or pool is missing (a package loaded without its
// dependencies). Such a class is no global here: its load failure is told
// with what is missing, and what touches it errors naming it — never a
// subclass of Object that half works.
func TestAClassWhoseSuperclassIsMissingFailsLoudly(t *testing.T) {
	t.Parallel()
	var files []*tonel.File
	for name, src := range orphanFixtures {
		f, err := tonel.ParseFile(name+".class.st", []byte(src))
		require.NoError(t, err)
		files = append(files, f)
	}
	program := ReadProgram(files)
	cases := []struct{ expr, want string }{
		{"KernelOrphanFixture new foo", "ERROR: the class KernelOrphanFixture did not load: its superclass WAComponentFixture is missing"},
		{"KernelOrphanChildFixture", "ERROR: the class KernelOrphanChildFixture did not load: its superclass KernelOrphanFixture did not load"},
		{"KernelTraitlessFixture new", "ERROR: the class KernelTraitlessFixture did not load: its trait TMissingFixture is missing"},
		{"KernelPoollessFixture new", "ERROR: the class KernelPoollessFixture did not load: its pool MissingPoolFixture is missing"},
		{"Smalltalk includesKey: #KernelOrphanFixture", "false"},
		// Pharo's ChronologyConstants class>>initialize
		{"KernelClockPoolUserFixture new constants", "#(86400 1000000000 86400000000 #Sunday #December 28 2415386)"},
		// a pool is a subclass of SharedPool (Pharo's SharedPoolTest)
		{"{ KernelPoolUserFixture new answer. KernelPoolFixture isPool. KernelPoolFixture includesKey: #Answer. KernelPoolFixture includesKey: #Question }", "#(42 true true false)"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, runInProgram(t, program, c.expr), c.expr)
	}
	in, err := New(program, Limits{Steps: 1_000_000})
	require.NoError(t, err)
	failures := strings.Join(in.InitializeFailures(), "\n")
	for _, want := range []string{
		"KernelOrphanFixture did not load: its superclass WAComponentFixture is missing",
		"KernelOrphanChildFixture did not load: its superclass KernelOrphanFixture did not load",
		"KernelTraitlessFixture did not load: its trait TMissingFixture is missing",
		"KernelPoollessFixture did not load: its pool MissingPoolFixture is missing",
		"KernelOrphanTest did not load: its superclass MissingTestCaseFixture is missing",
	} {
		assert.Contains(t, failures, want)
	}
	out, err := in.RunTestClass("KernelOrphanTest", 1_000_000)
	require.NoError(t, err)
	require.Len(t, out, 1)
	assert.Equal(t, Errored, out[0].Outcome)
	assert.Equal(t, "the class KernelOrphanTest did not load: its superclass MissingTestCaseFixture is missing", out[0].Detail)
	out, err = in.RunTestClass("KernelOrphanUserTest", 1_000_000)
	require.NoError(t, err)
	require.Len(t, out, 2)
	assert.Equal(t, Passed, out[0].Outcome, out[0].Selector)
	assert.Equal(t, Errored, out[1].Outcome, out[1].Selector)
	assert.Equal(t, "the class KernelOrphanFixture did not load: its superclass WAComponentFixture is missing", out[1].Detail)
}

// TestTheKernelLoadsWhole: no class of the kernel lacks its superclass,
// a trait or a pool.
func TestTheKernelLoadsWhole(t *testing.T) {
	t.Parallel()
	in, err := New(nil, Limits{Steps: 1_000_000})
	require.NoError(t, err)
	assert.Empty(t, in.InitializeFailures())
}

// TestMessageSendsLocksAndAnnouncementsAnswerAsPharo: MessageSend,
// Semaphore, Mutex, Monitor, Announcer and OSPlatform as Pharo 13's
// (MessageSendTest, SemaphoreTest, MutexTest, AnnouncerTest; the classes'
// own methods for what those tests leave out). An image of one process:
// a wait nothing could end is an error naming it.
func TestMessageSendsLocksAndAnnouncementsAnswerAsPharo(t *testing.T) {
	cases := []struct{ expr, want string }{
		{"(MessageSend receiver: 3 selector: #+ argument: 4) value", "7"},
		{"(MessageSend receiver: 3 selector: #+) value: 4", "7"},
		{"(MessageSend receiver: 3 selector: #between:and:) value: 1 value: 5", "true"},
		{"(MessageSend receiver: 3 selector: #printString) cull: 9", "'3'"},
		{"(MessageSend receiver: 3 selector: #+) cull: 9", "12"},
		{"(MessageSend receiver: 3 selector: #+ argument: 4) valueWithArguments: #(10)", "13"},
		{"(MessageSend receiver: 3 selector: #between:and: arguments: #(1 2)) valueWithArguments: #(0)", "false"},
		{"(MessageSend receiver: 3 selector: #+ argument: 4) numArgs", "1"},
		{"(MessageSend receiver: 3 selector: #+ argument: 4) = (MessageSend receiver: 3 selector: #+ argument: 4)", "true"},
		{"(MessageSend receiver: 3 selector: #+ argument: 4) = (MessageSend receiver: 4 selector: #+ argument: 4)", "false"},
		{"(MessageSend receiver: 3 selector: #+ argument: 4) hash = (MessageSend receiver: 3 selector: #+ argument: 5) hash", "true"},
		{"MessageSend receiver: 3 selector: #+ argument: 4", "MessageSend(#+ -> 3)"},
		{"(MessageSend receiver: 3 selector: #+) isMessageSend", "true"},
		{"((MessageSend receiver: 3 selector: #negated) asWeakMessageSend) value", "-3"},
		// Semaphore: signals counted, waits take them
		{"| s | s := Semaphore new. s signal; signal. s wait. { s isSignaled. s excessSignals }", "#(true 1)"},
		{"Semaphore forMutualExclusion critical: [ 42 ]", "42"},
		{"| s | s := Semaphore forMutualExclusion. s critical: [ 1 ]. s excessSignals", "1"},
		{"| s | s := Semaphore forMutualExclusion. [ s critical: [ 1 / 0 ] ] on: ZeroDivide do: [ :e | ]. s excessSignals", "1"},
		{"Semaphore new waitTimeoutMilliseconds: 10", "true"},
		{"Semaphore new signal; waitTimeoutMilliseconds: 10", "false"},
		{"Semaphore new critical: [ 1 ] ifLocked: [ #locked ]", "#locked"},
		// a wait no process will ever signal: Pharo would wait forever
		{"Semaphore new wait", "ERROR: every process waits for another (a Semaphore no process will signal, a process suspended that none will resume): Pharo would wait here forever"},
		// a signal hands the processor to a waiting process of higher
		// priority at once (SemaphoreTest>>testSimpleCommunication)
		{"| s log | s := Semaphore new. log := OrderedCollection new. [ s wait. log add: #woken ] forkAt: Processor userInterruptPriority. log add: #before. s signal. log add: #after. log asArray", "#(#before #woken #after)"},
		// waiters are served first come, first served (SemaphoreTest>>testSchedulesFIFO)
		{"| s log | s := Semaphore new. log := OrderedCollection new. 1 to: 3 do: [ :i | [ s wait. log add: i ] fork ]. Processor yield. 3 timesRepeat: [ s signal ]. Processor yield. log asArray", "#(1 2 3)"},
		// critical: gives back no signal when its process is terminated
		// while it waits (SemaphoreTest>>testInCriticalWait)
		{"| s p | s := Semaphore new. p := [ s critical: [ ] ] fork. Processor yield. { p suspendingList == s. p terminate; isTerminated. s excessSignals }", "#(true true 0)"},
		// A delay scheduler's loop, a process of higher priority, takes the
		// delays its users hand it and signals each when its ticker's
		// clock passes its tick; the first wakes the ticker, a second at
		// most (DelayBasicSchedulerMicrosecondTickerTest and its kind).
		{"| t s d | t := DelayMillisecondTickerSimulation new. s := DelayBasicScheduler onTicker: t suspendedDelaysHeap: DelayBasicScheduler defaultSuspendedDelaysHeap. s startTimerEventLoopPriority: Processor activePriority + 1. d := Delay new setDelay: 789 forSemaphore: Semaphore new. s simulate_vmMilliseconds: 100. s schedule: d. { t vmSimNextWakeupMilliseconds. d beingWaitedOn. d isExpired. d millisecondsToGo. [ s simulate_vmMilliseconds: 889. d isExpired ] value }", "#(889 true false 789 true)"},
		{"| t s d | t := DelayMicrosecondTickerSimulation new. s := DelaySemaphoreScheduler onTicker: t suspendedDelaysHeap: DelayBasicScheduler defaultSuspendedDelaysHeap. s startTimerEventLoopPriority: Processor activePriority + 1. d := Delay new setDelay: 1234 forSemaphore: Semaphore new. s simulate_vmMilliseconds: 100. s schedule: d. t vmSimNextWakeupMilliseconds", "1100"},
		{"| h s ds | h := DelayBasicScheduler defaultSuspendedDelaysHeap. s := DelayMutexScheduler onTicker: DelayMillisecondTickerSimulation new suspendedDelaysHeap: h. s startTimerEventLoopPriority: Processor activePriority + 1. ds := #(4 3 2 1) collect: [ :ms | Delay forMilliseconds: ms ]. ds do: [ :each | s schedule: each ]. { h size. (h removeFirstOrNil) == ds third. s stopTimerEventLoop; schedulingProcess. (ds select: [ :each | each isExpired ]) size }", "#(3 true nil 3)"},
		{"| s d | s := DelayBasicScheduler onTicker: DelayMillisecondTickerSimulation new suspendedDelaysHeap: DelayBasicScheduler defaultSuspendedDelaysHeap. s startTimerEventLoopPriority: Processor activePriority + 1. d := Delay forSeconds: 1000. s schedule: d. [ s schedule: d ] on: Error do: [ :e | e messageText ]", "'This Delay has already been scheduled.'"},
		// a DelayWaitTimeout ends at its semaphore's signal or its time
		{"| s | s := Semaphore new. s signal. (DelayWaitTimeout new setDelay: 100 forSemaphore: s) waitOnCompletion: [ #completed ] onTimeout: [ #timedOut ]", "#completed"},
		{"(DelayWaitTimeout new setDelay: 10 forSemaphore: Semaphore new) waitOnCompletion: [ #completed ] onTimeout: [ #timedOut ]", "#timedOut"},
		// SharedQueue: next waits until another process puts an item
		{"| q log | q := SharedQueue new. log := OrderedCollection new. [ log add: q next ] fork. Processor yield. log add: #put. q nextPut: 42. Processor yield. { log asArray. q isEmpty. q nextOrNil }", "#(#(#put 42) true nil)"},
		// forkAndWait: the active process waits for the fork's end
		{"| log | log := OrderedCollection new. [ log add: #forked ] forkAndWait. log add: #after. log asArray", "#(#forked #after)"},
		{"| p | p := Processor activeProcess priority. { [ Processor activePriority ] valueUnpreemptively. Processor activePriority = p }", "#(80 true)"},
		// Mutex: its owner may enter again
		{"| m | m := Mutex new. m critical: [ m critical: [ 5 ] ]", "5"},
		{"| m | m := Mutex new. [ m critical: [ 1 / 0 ] ] on: ZeroDivide do: [ :e | ]. m critical: [ m isOwned ]", "true"},
		// Monitor
		{"| m | m := Monitor new. m critical: [ m critical: [ m signal. 6 ] ]", "6"},
		{"| m | m := Monitor new. m critical: [ m waitUntil: [ true ]. m waitWhile: [ false ]. 7 ]", "7"},
		// waiting outside the monitor is an error (Monitor>>checkOwnerProcess)
		{"Monitor new wait", "ERROR: unhandled Error: Monitor access violation"},
		{"| m | m := Monitor new. m critical: [ m waitMaxMilliseconds: 5 ]. #timedOut", "#timedOut"},
		// a wait leaves the monitor to another process, whose signal
		// wakes it (MonitorTest>>testExample1)
		{"| m log ready | m := Monitor new. log := OrderedCollection new. ready := false. [ m critical: [ m waitUntil: [ ready ]. log add: #consumed ] ] fork. Processor yield. m critical: [ ready := true. log add: #produced. m signal ]. Processor yield. log asArray", "#(#produced #consumed)"},
		// a Mutex's critical: makes another process wait until its owner leaves
		{"| m log | m := Mutex new. log := OrderedCollection new. m critical: [ [ m critical: [ log add: #second ] ] fork. Processor yield. log add: #first ]. Processor yield. log asArray", "#(#first #second)"},
		// Announcer (Pharo 13: when:do:for:, when:send:to:)
		{"| a log | a := Announcer new. log := OrderedCollection new. a when: Announcement do: [ :ann | log add: ann class name ] for: self. a announce: Announcement. a announce: Announcement new. log asArray", "#(#Announcement #Announcement)"},
		{"| a log | a := Announcer new. log := OrderedCollection new. a when: Announcement do: [ :ann :announcer | log add: announcer == a ] for: self. a announce: Announcement. log asArray", "#(true)"},
		{"| a | a := Announcer new. (a announce: Announcement) class", "Announcement"},
		{"| a log | a := Announcer new. log := OrderedCollection new. a when: Announcement send: #add: to: log. a announce: Announcement new. log size", "1"},
		{"| a s | a := Announcer new. s := Object new. a when: Announcement do: [ ] for: s. { a numberOfSubscriptions. a hasSubscriber: s. (a unsubscribe: s; numberOfSubscriptions) }", "#(1 true 0)"},
		{"| a n sub | a := Announcer new. n := 0. sub := a when: Announcement do: [ n := n + 1 ] for: self. a announce: Announcement. a removeSubscription: sub. a announce: Announcement. n", "1"},
		{"| a n | a := Announcer new. n := 0. a when: Announcement , Announcement do: [ n := n + 1 ] for: self. a announce: Announcement. n", "1"},
		{"| a n | a := Announcer new. n := 0. [ a when: Announcement do: [ 1 / 0 ] for: self. a when: Announcement do: [ n := n + 1 ] for: self. a announce: Announcement ] on: ZeroDivide do: [ :e | ]. n", "1"},
		{"Announcer new respondsTo: #when:do:", "false"},
		// a block's receiver is its home method's self (BlockClosure>>receiver)
		{"3 in: [ :n | [ :x | x ] receiver ]", "nil"},
		{"{ (1 to: 3) asArray in: [ :a | [ a ] receiver ]. 4 printString }", "#(nil '4')"},
		// WeakArray is an Array (Hashtable's weak keys hold one); Pharo's
		// manifests subclass PackageManifest
		{"| w | w := WeakArray with: 1 with: 2. { w class. w size. w first. w isArray }", "{WeakArray. 2. 1. true}"},
		{"PackageManifest isManifest", "true"},
		// OSPlatform: a 64-bit Linux, as Pharo's UnixPlatform names it
		{"{ OSPlatform current platformName. Smalltalk os platformName. Smalltalk platformName. Smalltalk os platformFamily }", "#('unix' 'unix' 'unix' #Unix)"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, evalIn(t, c.expr), c.expr)
	}
}
