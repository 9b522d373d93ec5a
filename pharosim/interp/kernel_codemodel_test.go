package interp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// contextsAndBlocksFixture has methods whose contexts and blocks the cases read:
// a block that outlives its method, blocks with and without names, a ^
// in a block and in an inlined block.
const contextsAndBlocksFixture = `Class { #name : #KernelCodeModelFixture, #superclass : #Object, #category : #Fixture }
KernelCodeModelFixture >> area: aRectangle [ | sum | sum := aRectangle area. ^ sum ]
KernelCodeModelFixture >> makeBlock [ ^ [ self. thisContext ] ]
KernelCodeModelFixture >> deadBlockContext [ ^ self makeBlock value ]
KernelCodeModelFixture >> returnsFromBlock [ #(1) do: [ :x | ^ x ]. ^ 0 ]
KernelCodeModelFixture >> returnsInline: x [ x ifTrue: [ ^ 1 ]. ^ 0 ]
KernelCodeModelFixture >> twoBlocks [ #(1) do: [ :x | x ]. #(2) do: [ :x | x ] ]
KernelCodeModelFixture >> nested [ ^ [ :x | [ :y | y ] ] ]
KernelCodeModelFixture >> inInlined: x [ ^ x ifTrue: [ [ :y | y ] ] ]
KernelCodeModelFixture >> innerLiterals [ | b | b := 1. ^ [ thisContext tempNamed: 'b' ] value ]
KernelCodeModelFixture >> loop [ 1 to: 3 do: [ :i | i ] ]
KernelCodeModelFixture >> sends [ <tagged: #mark> 1 + 2. self do: [ 1 - 2. #(inArray). self name ] ]
`

// TestCodeModelAnswersAsPharo: contexts made for a method that does not
// run, and what Pharo 13 reads from its compiled code, with Pharo's answers
// (Kernel-CodeModel, Debugging-Core, System-Support; the tests of
// Kernel-Tests named beside each group).
func TestCodeModelAnswersAsPharo(t *testing.T) {
	t.Parallel()
	f, err := tonel.ParseFile("Fixture/KernelCodeModelFixture.class.st", []byte(contextsAndBlocksFixture))
	require.NoError(t, err)
	program := ReadProgram([]*tonel.File{f})
	made := "(Context sender: thisContext receiver: KernelCodeModelFixture new method: KernelCodeModelFixture >> #area: arguments: { 3 @ 4 corner: 5 @ 6 })"
	cases := []struct{ name, expr, want string }{
		// Context class>>sender:receiver:method:arguments:, home, activeHome,
		// receiver, method, isDead, client, printOn: (ContextTest>>#testSetUp,
		// #testHome, #testMethodContext, #testFindContextSuchThat)
		{"a made context is its own home", "| c | c := " + made + ". { c home == c. c activeHome == c. c isDead. c isBlockContext }", "#(true true false false)"},
		{"it has its receiver, method and sender", "| c | c := " + made + ". { c receiver class. c method. c sender == thisContext. c client }", "an Array(KernelCodeModelFixture KernelCodeModelFixture>>#area: true nil)"},
		{"its arguments are set", made + " arguments", "an Array((3@4) corner: (5@6))"},
		{"it prints as a method's context", made + " printString", "'KernelCodeModelFixture>>area:'"},
		{"findContextSuchThat: starts with it", "| c | c := " + made + ". { (c findContextSuchThat: [ :each | true ]) == c. c hasContext: c }", "#(true true)"},
		{"it is made for a CompiledMethod only", "[ Context sender: nil receiver: 3 method: 4 arguments: #() ] on: Error do: [ :e | e class ]", "Error"},
		// Context>>return: resumes the sender (ContextTest>>#testReturn)
		{"return: answers from the sender's send", "| c | c := Context sender: thisContext receiver: 3 method: Integer >> #factorial arguments: #(). c return: 5", "5"},
		{"return: without a sender cannot return", "[ (Context sender: nil receiver: 3 method: Integer >> #factorial arguments: #()) return: 5 ] on: BlockCannotReturn do: [ :e | #cannot ]", "#cannot"},
		// Context>>activeHome, homeMethod, home (ContextTest>>#testActiveHome, #testNonActiveBlockContextHome, #testHomeMethod)
		{"a returned block's context has no active home", "| c | c := KernelCodeModelFixture new deadBlockContext. { c activeHome. c home isNil. c homeMethod selector }", "#(nil false #makeBlock)"},
		{"a running block's active home is its home", "[ :x | self. thisContext home == thisContext activeHome ] value: 1", "true"},
		// Context>>hasNonLocalReturn, CompiledMethod>>hasNonLocalReturn (ContextTest>>#testHasNonLocalReturn)
		{"a context's own ^ only", "{ [ :x | thisContext hasNonLocalReturn ] value: 1. [ :x | [ ^ x ]. thisContext hasNonLocalReturn ] value: 1. thisContext hasNonLocalReturn }", "#(false false false)"},
		{"a block context with a ^", "[ :x | x ifTrue: [ thisContext hasNonLocalReturn ] ifFalse: [ ^ 0 ] ] value: true", "true"},
		{"a method's blocks' ^", "{ (KernelCodeModelFixture >> #returnsFromBlock) hasNonLocalReturn. (KernelCodeModelFixture >> #returnsInline:) hasNonLocalReturn }", "#(true false)"},
		// Context>>stepIntoQuickMethod:, CompiledMethod>>stepIntoQuickMethods (ContextTest>>#testStepIntoQuickMethodBoolean, CompiledCodeTest>>#testStepIntoQuickMethods)
		{"no stepping into quick methods unless asked", "(KernelCodeModelFixture >> #makeBlock) stepIntoQuickMethods", "false"},
		{"the flag is the method's", "| c | c := " + made + ". c stepIntoQuickMethod: true. { c stepIntoQuickMethod. (KernelCodeModelFixture >> #area:) stepIntoQuickMethods }", "#(true true)"},
		// Context>>basicSize: its stack, the arguments and temporaries at its bottom
		{"a made context's size", made + " basicSize", "2"},
		// Symbol>>implementors, senders (System-Support) through SystemNavigation (ObjectTest>>#testBasicSizeNotOverwritten)
		{"the implementors of a selector", "#basicSize implementors asArray", "an Array(Context>>#basicSize Object>>#basicSize)"},
		{"its senders, this doIt among them", "(#makeBlock senders collect: [ :each | each selector ]) asArray", "#(#deadBlockContext #doIt)"},
		// BlockClosure>>asContext
		{"a block's context made, with no sender", "| c | c := [ :x | x ] asContext. { c isBlockContext. c sender. c isDead }", "#(true nil false)"},
		// what needs a program counter is named as lacking
		{"stepping needs bytecodes", made + " step", "ERROR: pharo-sim's kernel lacks Context>>step: the interpreter runs a method from its syntax tree, with no program counter or bytecodes to step"},
		{"a block's pc in its outer code needs bytecodes", "[ :x | x ] compiledBlock pcInOuter", "ERROR: pharo-sim's kernel lacks CompiledBlock>>pcInOuter: the interpreter compiles no bytecodes, so a block has no program counter in its outer code"},
		// BlockClosure>>compiledBlock, method; CompiledBlock>>outerCode, method,
		// printOn:, isCompiledBlock (BlockClosureTest>>#testHomeMethod)
		{"a block's CompiledBlock", "| b | b := [ :x | x ]. { b compiledBlock printString. b compiledBlock isCompiledBlock. b method == b compiledBlock. b compiledBlock method selector. 3 isCompiledBlock }", "#('a CompiledBlock: [ :x | x ]' true true #doIt false)"},
		{"one per block of the source", "| bs | bs := #(1 2) collect: [ :i | [ :x | x + i ] ]. bs first compiledBlock == bs last compiledBlock", "true"},
		{"its outer code is its method", "(KernelCodeModelFixture new nested) compiledBlock outerCode", "KernelCodeModelFixture>>#nested"},
		{"a block's inside a block is the block", "(KernelCodeModelFixture new nested value: 1) compiledBlock outerCode printString", "'a CompiledBlock: [ :x | [ :y | y ] ]'"},
		{"an inlined block adds no code", "(KernelCodeModelFixture new inInlined: true) compiledBlock outerCode", "KernelCodeModelFixture>>#inInlined:"},
		{"a block context runs its CompiledBlock", "{ KernelCodeModelFixture new deadBlockContext method isCompiledBlock. " + made + " method isCompiledBlock }", "#(true false)"},
		// CompiledCode>>hasTemporaries: temporaries besides the arguments, the
		// copied values among them (CompiledCodeTest>>#testHasTemporaries)
		{"a block's temporaries", "{ [ | b | b := 2 ] method hasTemporaries. [ 2 ] method hasTemporaries. [ :x | x ] method hasTemporaries }", "#(true false false)"},
		{"a block copies what it uses of its outer code", "| y | y := 1. [ y ] method hasTemporaries", "true"},
		{"a method's temporaries, an inlined block's among them", "#(#area: #makeBlock #loop) collect: [ :each | (KernelCodeModelFixture >> each) hasTemporaries ]", "#(true false true)"},
		// CompiledBlock>>isReturnSpecial, primitive: no quick blocks (CompiledCodeTest>>#testBlockReturnSpecial)
		{"no block is a quick return", "{ [ ^ self ] compiledBlock isReturnSpecial. [ ^ 1 ] compiledBlock isReturnSpecial. [ ^ 1 ] compiledBlock primitive }", "#(false false 0)"},
		// CompiledBlock>>hasMethodReturn
		{"a block's own ^", "{ [ ^ 1 ] compiledBlock hasMethodReturn. [ [ ^ 1 ] ] compiledBlock hasMethodReturn. [ :x | x ifTrue: [ ^ 1 ] ] compiledBlock hasMethodReturn }", "#(true false true)"},
		// CompiledBlock among its outer code's literals, literalEqual:, =
		// (CompiledBlockTest>>#testLiteralEqual)
		{"two blocks of one code, two literals", "| bs | bs := (KernelCodeModelFixture >> #twoBlocks) literals select: [ :each | each isCompiledBlock ]. { bs size. bs first literalEqual: bs last. bs first = bs last }", "#(2 false true)"},
		{"the literals' order", "(KernelCodeModelFixture >> #twoBlocks) literals", "an Array(#(1) a CompiledBlock: [ :x | x ] #(2) a CompiledBlock: [ :x | x ])"},
		// CompiledCode>>literalsEvenTheOnesInTheInnerBlocks (CompiledCodeTest>>#testLiteralsEvenTheOnesInTheInnerCleanBlocks)
		{"the blocks' literals in their place", "(KernelCodeModelFixture >> #innerLiterals) literalsEvenTheOnesInTheInnerBlocks", "#('b' #tempNamed:)"},
		{"a block's literals", "[ #(9) printString: 16 ] compiledBlock literals", "#(#(9) 16 #printString:)"},
		// SmalltalkImage>>specialSelectorIndexOrNil:, specialSelectorAt:,
		// specialSelectorSize (System-Support, the special objects array's 24th)
		{"the special selectors' indices", "#(#+ #~~ #y #class #name) collect: [ :each | Smalltalk specialSelectorIndexOrNil: each ]", "#(1 25 32 24 nil)"},
		{"the special selectors' table", "{ Smalltalk specialSelectorSize. (Smalltalk specialSelectorAt: 11) size. Smalltalk specialSelectorAt: 28. Smalltalk specialNargsAt: 18 }", "#(32 2 #do: 2)"},
		// CompiledCode>>hasSelector:specialSelectorIndex: (CompiledCodeTest>>#testHasSelectorSpecialSelectorIndex),
		// Behavior>>thoroughWhichMethodsReferTo:specialIndex: (BehaviorTest>>#testThoroughWhichMethodsReferToSpecialIndex)
		{"a special selector is found when its index is given", "#(#+ #- #do:) collect: [ :each | (KernelCodeModelFixture >> #sends) hasSelector: each specialSelectorIndex: (Smalltalk specialSelectorIndexOrNil: each) ]", "#(true true true)"},
		{"not without it", "(KernelCodeModelFixture >> #sends) hasSelector: #+ specialSelectorIndex: nil", "false"},
		{"literals, in blocks, arrays and pragmas", "#(#name #inArray #tagged: #mark #sends) collect: [ :each | (KernelCodeModelFixture >> #sends) hasSelector: each specialSelectorIndex: nil ]", "#(true true true true false)"},
		{"a class's methods that refer to a selector", "(KernelCodeModelFixture thoroughWhichMethodsReferTo: #- specialIndex: 2) collect: [ :each | each selector ]", "#(#sends)"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, runInProgram(t, program, c.expr), c.name)
	}
}
