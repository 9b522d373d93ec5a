package interp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// contextFixture has methods that read their stack, as a parser that
// looks for the strategy below it does (PetitParser2's
// PP2RecordingContext>>strategy), and a stream whose reset its
// instance creation must send.
const contextFixture = `Class { #name : #KernelContextFixture, #superclass : #Object, #category : #Fixture }
KernelContextFixture >> outer [ ^ self middle: 7 ]
KernelContextFixture >> middle: n [ ^ self chain ]
KernelContextFixture >> chain [ ^ { thisContext sender sender selector. thisContext sender arguments. (thisContext stackOfSize: 2) collect: [ :c | c selector ] } ]
KernelContextFixture >> inner [ ^ thisContext ]
KernelContextFixture >> callerOf [ ^ self whoCalls ]
KernelContextFixture >> whoCalls [ ^ thisContext sender printString ]
KernelContextFixture >> finder [ ^ #(1) collect: [ :x | (thisContext findContextSuchThat: [ :c | c receiver == self and: [ c isBlockContext not ] ]) selector ] ]
KernelContextFixture >> blockHome [ ^ [ :x | thisContext home == thisContext outerContext ] value: 1 ]
KernelContextFixture >> blockPrint [ ^ [ :x | thisContext printString ] value: 1 ]
KernelContextFixture >> each: aBlock [ ^ aBlock value: 1 ]
KernelContextFixture >> blockOuter [ | b | b := [ :x | x ]. ^ b outerContext == thisContext ]
KernelContextFixture >> raise [ ^ Error signal: 'raised' ]
KernelContextFixture >> refuse [ ^ self shouldNotImplement ]
KernelContextFixture >> later [ ^ self notYetImplemented ]
KernelContextFixture >> eachNested: aBlock [ ^ [ :x | aBlock value: x ] value: 1 ]
KernelContextFixture >> senderOfBlock [ ^ self each: [ :x | thisContext sender printString ] ]
KernelContextFixture >> senderOfNestedBlock [ ^ self eachNested: [ :x | thisContext sender printString ] ]
`

const contextSubFixture = `Class { #name : #KernelContextSubFixture, #superclass : #KernelContextFixture, #category : #Fixture }
`

// resetStreamFixture and resetWriteStreamFixture count the resets their
// instance creation sends.
const resetStreamFixture = `Class { #name : #KernelResetStreamFixture, #superclass : #ReadStream, #instVars : [ 'resets' ], #category : #Fixture }
KernelResetStreamFixture >> reset [ super reset. resets := (resets ifNil: [ 0 ]) + 1 ]
KernelResetStreamFixture >> resets [ ^ resets ]
`

const resetWriteStreamFixture = `Class { #name : #KernelResetWriteStreamFixture, #superclass : #WriteStream, #instVars : [ 'resets' ], #category : #Fixture }
KernelResetWriteStreamFixture >> reset [ super reset. resets := (resets ifNil: [ 0 ]) + 1 ]
KernelResetWriteStreamFixture >> resets [ ^ resets ]
`

// TestThisContextAnswersAsPharo: thisContext's common protocol, with the
// answers of Pharo 13's Context (Kernel-CodeModel: sender, receiver,
// method, selector, home, findContextSuchThat:, hasContext:, stack,
// printOn:, whose method context prints as Class(MethodClass)>>selector
// and a block's as "… in" its outer context); PositionableStream>>on:
// ending with self reset, and Collection>>contents answering self.
func TestThisContextAnswersAsPharo(t *testing.T) {
	t.Parallel()
	var files []*tonel.File
	for name, src := range map[string]string{"KernelContextFixture": contextFixture, "KernelContextSubFixture": contextSubFixture, "KernelResetStreamFixture": resetStreamFixture,
		"KernelResetWriteStreamFixture": resetWriteStreamFixture} {
		f, err := tonel.ParseFile("Fixture/"+name+".class.st", []byte(src))
		require.NoError(t, err)
		files = append(files, f)
	}
	program := ReadProgram(files)
	cases := []struct{ name, expr, want string }{
		{"a method's context prints as its class and selector", "KernelContextFixture new inner printString", "'KernelContextFixture>>inner'"},
		{"an inherited method's shows where it was found", "KernelContextSubFixture new inner printString", "'KernelContextSubFixture(KernelContextFixture)>>inner'"},
		{"a block's sender is what ran it", "KernelContextFixture new senderOfBlock", "'KernelContextFixture>>each:'"},
		{"a block run by a block", "KernelContextFixture new senderOfNestedBlock", "'[ :x | aBlock value: x ] in KernelContextFixture>>eachNested:'"},
		{"sender is the caller's activation", "KernelContextFixture new callerOf", "'KernelContextFixture>>callerOf'"},
		{"the sender chain", "KernelContextFixture new outer first", "#outer"},
		{"receiver, method, selector, methodClass", "| c | c := KernelContextFixture new inner. { c receiver class. c method selector. c selector. c methodClass }", "{KernelContextFixture. #inner. #inner. KernelContextFixture}"},
		{"a method's arguments", "KernelContextFixture new outer second", "#(7)"},
		{"one activation, one context", "thisContext == thisContext", "true"},
		{"a context is not a block's unless it runs one", "{ KernelContextFixture new inner isBlockContext. [ :x | thisContext isBlockContext ] value: 1 }", "#(false true)"},
		{"a block's context prints in its home", "KernelContextFixture new blockPrint", "'[ :x | thisContext printString ] in KernelContextFixture>>blockPrint'"},
		{"a block's home is its method's activation", "KernelContextFixture new blockHome", "true"},
		{"findContextSuchThat: walks the senders", "KernelContextFixture new finder", "#(#finder)"},
		{"findContextSuchThat: answers nil when none", "thisContext findContextSuchThat: [ :c | false ]", "nil"},
		{"hasContext:", "| c | c := thisContext. [ :x | thisContext hasContext: c ] value: 1", "true"},
		{"a returned method's context is dead", "KernelContextFixture new inner isDead", "true"},
		{"a returned method's context has no sender", "KernelContextFixture new inner sender", "nil"},
		{"a returned block's context is dead", "| c | c := [ :x | thisContext ] value: 1. { c isDead. c sender }", "#(true nil)"},
		// BlockClosure>>outerContext, home, homeMethod and hasNonLocalReturn (Kernel-CodeModel)
		{"a block's outer context is where it was made", "KernelContextFixture new blockOuter", "true"},
		{"a block's home and home method", "| b | b := [ :x | self ]. { b home == thisContext home. b homeMethod selector }", "#(true #doIt)"},
		{"hasNonLocalReturn", "{ [ :x | x ] hasNonLocalReturn. [ :x | ^ x ] hasNonLocalReturn. [ :x | [ ^ x ] ] hasNonLocalReturn }", "#(false true true)"},
		{"stackOfSize: from the top", "KernelContextFixture new outer third", "an OrderedCollection(#chain #middle:)"},
		{"the bottom of the stack has no sender", "thisContext stack last isBottomContext", "true"},
		// Exception>>signal records its context and its signaler, the receiver of the first activation below it that is neither the exception nor its class (Kernel's Exception>>signalerContext, receiver, signaler)
		{"an exception's signaler is who signalled it", "[ KernelContextFixture new raise ] on: Error do: [ :e | { e signaler class. e receiver class. e signalerContext selector } ]", "{KernelContextFixture. KernelContextFixture. #raise}"},
		{"a signaler set before signal stays", "[ Error new signaler: 42; signal ] on: Error do: [ :e | e signaler ]", "42"},
		// Object>>subclassResponsibility, shouldNotImplement and notYetImplemented signal SelectorExceptions for their sender's selector (Kernel-Exceptions)
		{"subclassResponsibility names the class and the selector", "[ Collection new add: 3 ] on: SubclassResponsibility do: [ :e | { e messageText. e selector. e class superclass } ]", "{'Collection had the subclass responsibility to implement #add:'. #add:. SelectorException}"},
		{"shouldNotImplement names the selector", "[ KernelContextFixture new refuse ] on: ShouldNotImplement do: [ :e | e messageText ]", "'#refuse should not have been implemented in KernelContextFixture'"},
		{"notYetImplemented names the selector", "[ KernelContextFixture new later ] on: NotYetImplemented do: [ :e | e messageText ]", "'#later is not yet implemented in KernelContextFixture'"},
		{"they are errors", "{ SubclassResponsibility. ShouldNotImplement. NotYetImplemented } collect: [ :each | each inheritsFrom: Error ]", "#(true true true)"},
		// PositionableStream>>on: ends with self reset; WriteStream>>on: sends super on: (Collections-Streams)
		{"ReadStream on: sends reset", "(KernelResetStreamFixture on: #(1 2)) resets", "1"},
		{"WriteStream on: sends reset", "(KernelResetWriteStreamFixture on: String new) resets", "1"},
		{"a write stream begins empty", "(WriteStream on: 'abc' copy) contents", "''"},
		// Collection>>contents (Collections-Abstract)
		{"a collection's contents are itself", "| a | a := 'abc'. a contents == a", "true"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, runInProgram(t, program, c.expr), c.name)
	}
}
