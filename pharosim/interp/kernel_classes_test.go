package interp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// TestClassesBuiltAtRunTimeAnswerAsPharo: classes made, methods compiled,
// reclassified and removed while a program runs, and the announcements
// of it, with the answers Pharo 13 gives (commit 9b55ea4 of
// pharo-project/pharo; each group names the method or the test of
// Pharo's whose code or assertions hold the answer).
func TestClassesBuiltAtRunTimeAnswerAsPharo(t *testing.T) {
	t.Parallel()
	const installer = "(Smalltalk classInstaller make: [ :b | b name: #KernelCaseFoo; slots: #(a b); sharedVariables: #(X); package: 'KernelCase'; tag: 'Tag' ]) "
	const fluid = "(Object << #KernelCaseBar slots: { #a }; package: 'KernelCase'; install) "
	cases := []struct{ name, expr, want string }{
		// ShiftClassInstaller class>>make: (ClassFactoryForTestCaseTest>>#testSingleClassCreation)
		{"the installer makes a class of a name, variables, package and tag", "| c | c := " + installer + ". { c name. c instVarNames. c classVarNames. c package name. c packageTag name. c superclass }",
			"{#KernelCaseFoo. #(#a #b). #(#X). #KernelCase. #Tag. Object}"},
		{"the class is a global of the image", "| c | c := " + installer + ". { (Smalltalk at: #KernelCaseFoo) == c. Smalltalk allClasses includes: c. c isObsolete }", "#(true true false)"},
		{"its instances have its variables", "| c o | c := " + installer + ". o := c new. o instVarNamed: 'b' put: 3. { o class == c. o instVarNamed: 'b'. c instSize }", "#(true 3 2)"},
		// Behavior>><< and FluidClassBuilder>>install (ClassDescriptionTest>>#createTestClass)
		{"a fluid definition installs a subclass", "| c | c := " + fluid + ". { c superclass. c instVarNames. c package name }", "{Object. #(#a). #KernelCase}"},
		{"the classic message makes a subclass", "| c | c := Object subclass: #KernelCaseBaz instanceVariableNames: 'x y' classVariableNames: 'Z' package: 'KernelCase'. { c instVarNames. c classVarNames. c package name }",
			"#(#(#x #y) #(#Z) #KernelCase)"},
		// ClassDescription>>compile:classified:withStamp:notifying:logSource: answers the selector (ClassDescriptionTest>>#testCompileClassified)
		{"compile:classified: answers the selector, and the method runs", "| c | c := " + fluid + ". { c compile: 'foo ^ a ifNil: [ 42 ]' classified: #accessing. c new foo. (c >> #foo) protocolName. (c >> #foo) sourceCode }",
			"#(#foo 42 #accessing 'foo ^ a ifNil: [ 42 ]')"},
		{"a method compiled with no protocol is unclassified, a second compile keeps its protocol (ClassDescriptionTest>>#testCompileClassifiedWithNil)",
			"| c | c := " + fluid + ". c compile: 'foo ^ 3' classified: nil. { (c >> #foo) protocolName. (c >> #foo) isClassified. c compile: 'foo ^ 3' classified: #p. c compile: 'foo ^ 4'. (c >> #foo) protocolName. c new foo }",
			"#(#'as yet unclassified' false #foo #foo #p 4)"},
		{"a recompiled method replaces the one a send found before", "| c r | c := " + fluid + ". c compile: 'foo ^ 1'. r := OrderedCollection new. 2 timesRepeat: [ r add: c new foo. c compile: 'foo ^ 2' ]. r asArray", "#(1 2)"},
		{"a method of a subclass compiled after a send overrides the inherited one", "| c d r | c := " + fluid + ". d := (c << #KernelCaseSub) package: 'KernelCase'; install. c compile: 'foo ^ 1'. r := OrderedCollection new. r add: d new foo. d compile: 'foo ^ 2'. r add: d new foo. r asArray", "#(1 2)"},
		{"an instance made before its class gained a variable has it", "| c o | c := " + fluid + ". o := c new. Object << #KernelCaseBar slots: { #a. #b }; package: 'KernelCase'; install. c compile: 'b ^ b'. c compile: 'b: x b := x'. { o b. o b: 3; b. c instVarNames }", "#(nil 3 #(#a #b))"},
		{"a class method and a class-side variable", "| c | c := Smalltalk classInstaller make: [ :b | b name: #KernelCaseCls; classSlots: #(count); package: 'KernelCase' ]. c class compile: 'count ^ count ifNil: [ count := 7 ]'. { c count. c class instVarNames }", "#(7 #(#count))"},
		{"a method reads a class variable", "| c | c := " + installer + ". c compile: 'x ^ X ifNil: [ X := 5 ]'. { c new x. c new x }", "#(5 5)"},
		{"Foo compiler protocol: install: (ClassDescriptionProtocolsTest>>#testProtocolNameOfSelector)", "| c | c := " + fluid + ". c compiler protocol: #titan; install: 'king ^ 1'. { c protocolNameOfSelector: #king. c protocolNameOfSelector: #luz }", "#(#titan nil)"},
		{"compiler compile: answers a method not installed (ClassDescriptionTest>>#testAddSelectorWithMethodClassifyMethod)", "| c m | c := " + fluid + ". m := c compiler compile: 'w ^ self'. { m selector. c includesSelector: #w. c addSelector: #w withMethod: m. (c >> #w) == m. (c protocolOfSelector: #w) name }",
			"{#w. false. KernelCaseBar. true. #'as yet unclassified'}"},
		// ClassDescription>>removeSelector: answers the class, nil when it has no such method
		{"removeSelector: removes the method, its selector and an emptied protocol", "| c | c := " + fluid + ". c compile: 'foo ^ 1' classified: #p. { c removeSelector: #foo. c removeSelector: #foo. c includesSelector: #foo. c protocolNames. [ c new foo ] on: MessageNotUnderstood do: [ :e | #dnu ] }",
			"{KernelCaseBar. nil. false. #(). #dnu}"},
		// ClassDescription>>classify:under:, addProtocol:, removeProtocolIfEmpty:, renameProtocol:as: (ClassDescriptionProtocolsTest)
		{"classify:under: makes and empties protocols", "| c | c := " + fluid + ". c classify: #edalyn under: #which. c classify: #luz under: #which. c classify: #luz under: #human. { c protocolNames asSortedCollection asArray. c selectorsInProtocol: #human }",
			"#(#(#human #which) #(#luz))"},
		{"addProtocol: answers the same protocol twice", "| c p | c := " + fluid + ". p := c addProtocol: #titan. { (c addProtocol: #titan) == p. p owningClass == c. c hasProtocol: #titan. c removeProtocolIfEmpty: #titan. c hasProtocol: #titan }",
			"an Array(true true true Protocol (titan) - 0 selector(s) false)"},
		{"renameProtocol:as: moves the selectors", "| c | c := " + fluid + ". c compile: 'king ^ 1' classified: #demon. c renameProtocol: #demon as: #titan. { c protocolNames. (c >> #king) protocolName }", "#(#(#titan) #titan)"},
		// ClassDescription>>addAndClassifySelector:withMethod:inProtocol: and removeSelector: announce (MethodAnnouncementsTest, ProtocolAnnouncementsTest)
		{"compiling and removing announce MethodAdded, MethodModified, MethodRecategorized, MethodRemoved and the protocols", "| c log | c := " + fluid + ". log := OrderedCollection new. " +
			"SystemAnnouncer uniqueInstance when: SystemAnnouncement do: [ :a | log add: a class name ] for: log. " +
			"[ c compile: 'foo ^ 1' classified: #a. c compile: 'foo ^ 2' classified: #b. c removeSelector: #foo ] ensure: [ SystemAnnouncer uniqueInstance unsubscribe: log ]. log asArray",
			"#(#ProtocolAdded #MethodAdded #ProtocolAdded #ProtocolRemoved #MethodRecategorized #MethodModified #ProtocolRemoved #MethodRemoved)"},
		{"a removed method still names its protocol (MethodAnnouncementsTest>>#testRemoveMethodAnnounceRemoval)", "| c m | c := " + fluid + ". c compile: 'king ^ 1' classified: #titan. m := c >> #king. c removeSelector: #king. { m protocol name. m selector. m isInstalled }", "#(#titan #king false)"},
		{"suspendAllWhile: announces nothing", "| c log | c := " + fluid + ". log := OrderedCollection new. SystemAnnouncer uniqueInstance when: MethodAdded do: [ :a | log add: a ] for: log. " +
			"[ SystemAnnouncer uniqueInstance suspendAllWhile: [ c compile: 'foo ^ 1' ] ] ensure: [ SystemAnnouncer uniqueInstance unsubscribe: log ]. log size", "0"},
		// Class>>removeFromSystem, Class>>obsolete: 'AnObsolete' , name (ClassFactoryForTestCaseTest>>#testPackageCleanUp)
		{"removeFromSystem makes the class obsolete and no global", "| c | c := " + fluid + ". c removeFromSystem. { c name asString. c isObsolete. Smalltalk includesKey: #KernelCaseBar. Object subclasses includes: c }", "#('AnObsoleteKernelCaseBar' true false false)"},
		{"removeFromSystem announces ClassRemoved with the packages of its extensions (ClassAnnouncementsTest>>#testRemovingAClassWithExtension)", "| c log | c := " + fluid + ". c compile: 'billy ^ 1' classified: '*KernelCase2'. log := OrderedCollection new. " +
			"SystemAnnouncer uniqueInstance when: ClassRemoved do: [ :a | log add: a classAffected originalName; add: (a packagesAffected collect: [ :p | p name ]) ] for: log. " +
			"[ c removeFromSystem ] ensure: [ SystemAnnouncer uniqueInstance unsubscribe: log ]. log asArray", "#(#KernelCaseBar #(#KernelCase #KernelCase2))"},
		{"the kernel's classes are not removed", "[ Object removeFromSystem ] on: Error do: [ :e | #caught ]", "ERROR: pharo-sim's kernel lacks the compiler (removeFromSystem of a class the image loaded)"},
		// PackageOrganizer>>removePackage: (AbstractClassDescriptionTest>>#tearDown), Package>>definedClasses
		{"removePackage: removes its classes and the package", "| c | c := " + fluid + ". { ('KernelCase' asPackage definedClasses includes: c). Object packageOrganizer removePackage: 'KernelCase'. c isObsolete. Object packageOrganizer hasPackage: 'KernelCase' }",
			"an Array(true a Package(KernelCase) true false)"},
		// Pharo 13's Kernel, SUnit-Core and Collections-Sequenceable packages (their Tonel definitions); Class>>category is PackageTag>>categoryName
		{"a kernel class's package, Pharo 13's", "{ Object package name. TestCase package name. Object package printString. Point packageTag name. Array category }", "#(#Kernel #'SUnit-Core' 'a Package(Kernel)' #BasicObjects 'Collections-Sequenceable-Base')"},
		// ClassFactoryForTestCase (SUnit-Core): its names, package and cleanUp
		{"the class factory makes classes and removes them", "| f c t | f := ClassFactoryForTestCase new. c := f newClass. t := f make: [ :b | b tag: #One ]. " +
			"{ (c name beginsWith: 'BehaviorForTestToBeDeleted'). c package name. t packageTag name. f createdClasses size. f cleanUp. c isObsolete. t isObsolete. Object packageOrganizer hasPackage: #CategoryForTestToBeDeleted }",
			"an Array(true #CategoryForTestToBeDeleted #One 2 a ClassFactoryForTestCase true true false)"},
		{"a trait of the class factory is a trait", "| f t | f := ClassFactoryForTestCase new. t := f newTrait. [ { t isTrait. t traitUsers. t traits. Smalltalk allTraits includes: t } ] ensure: [ f cleanUp ]", "#(true #() #() true)"},
		// OpalCompiler>>compile: of a source that does not parse signals a syntax error
		{"a source that does not parse", "| c | c := " + fluid + ". [ c compile: 'foo ^ (' ] on: SyntaxErrorNotification do: [ :e | #syntaxError ]", "#syntaxError"},
		// OpalCompiler>>evaluate: answers the value of the last statement, run with the receiver given (nil by default) (CharacterTest>>#testStoreStringAll)
		{"evaluate: runs statements", "{ Object compiler evaluate: '3 + 4'. Smalltalk compiler evaluate: '| a | a := 3. a * 2'. Smalltalk compiler evaluate: 'self'. (Smalltalk compiler receiver: 5; evaluate: 'self + 1'). Smalltalk compiler evaluate: $a storeString }", "#(7 6 nil 6 $a)"},
		{"evaluate: of a source that does not parse", "[ Smalltalk compiler evaluate: '3 +' ] on: SyntaxErrorNotification do: [ :e | #syntaxError ]", "#syntaxError"},
		// ShiftClassBuilder>>build makes a class it does not install (ClassDescriptionTest>>#testIsInstalled)
		{"a class built is not installed, one installed is", "| c d r | c := (Object << #KernelCaseBuilt package: 'KernelCase') build. r := { c isInstalled. Smalltalk includesKey: #KernelCaseBuilt }. d := Smalltalk classInstaller update: c to: [ :b | b package: 'KernelCase' ]. r , { d isInstalled. d removeFromSystem; isInstalled }", "#(false false true false)"},
		// removing a key of methodDict removes the method (ClassDescriptionProtocolsTest>>#testRemoveNonexistentSelectorsFromProtocols)
		{"methodDict removeKey: removes the method, not its selector from the protocol", "| c | c := " + fluid + ". c compile: 'luz ^ 1' classified: #human. c compile: 'camila ^ 2' classified: #human. c methodDict removeKey: #camila. { c selectors. (c protocolNamed: #human) methodSelectors asSortedCollection asArray. c removeNonexistentSelectorsFromProtocols; selectorsInProtocol: #human }",
			"#(#(#luz) #(#camila #luz) #(#luz))"},
		// ClassDescription>>deprecatedAliases: (ClassDescriptionTest>>#testDeprecatedAliases…)
		{"deprecated aliases are globals, deprecated, removed with their class", "| c r | c := " + fluid + ". c deprecatedAliases: #( #KernelCaseOld ). r := { (Smalltalk lookupVar: #KernelCaseOld) isDeprecated. (Smalltalk lookupVar: #KernelCaseBar) isDeprecated. (Smalltalk at: #KernelCaseOld) == c }. c removeFromSystem. r , { Smalltalk includesKey: #KernelCaseOld }",
			"#(true false true false)"},
		{"a deprecated alias that names another global warns", "| c | c := " + fluid + ". Object << #KernelCaseOther package: 'KernelCase'; install. [ c deprecatedAliases: #( #KernelCaseOther ) ] on: Warning do: [ :w | #warned ]", "#warned"},
		// a class's protocols show through Pharo's variable (MethodAnnouncementsTest>>#testUpdateMethodAnnounceAddedInCaseAMethodIsInTheMethodDictionaryWithoutBeenInAProtocol)
		{"the variable protocols", "| c | c := " + fluid + ". c compile: 'king ^ 2' classified: #p. { c instVarNamed: #protocols. c instVarNamed: #protocols put: #(); protocolNames }", "an Array(an Array(Protocol (p) - 1 selector(s)) #())"},
		// Behavior>>isReferenced, isUsed (BehaviorTest>>#testIsReferenced, #testIsUsed), SystemNavigation (ClassHierarchyTest)
		{"a class named by a method is referenced; a metaclass is not", "{ Object isReferenced. Object class isReferenced. Object isUsed. Object class isUsed }", "#(true false true true)"},
		{"a class no method names is not referenced", "| c | c := " + fluid + ". { c isReferenced. c isUsed }", "#(false false)"},
		{"SystemNavigation's behaviors and implementors", "{ SystemNavigation new allBehaviors includes: Object class. (SystemNavigation default allImplementorsOf: #printOn:) includes: Object >> #printOn: }", "#(true true)"},
		{"what else SystemNavigation answers the kernel lacks", "SystemNavigation new allObjects", "ERROR: pharo-sim's kernel lacks SystemNavigation>>allObjects"},
		// ShiftClassBuilder>>install announces ClassAdded, then ClassModifiedClassDefinition for a class defined anew
		{"defining a class announces it", "| log | log := OrderedCollection new. SystemAnnouncer uniqueInstance when: ClassAnnouncement do: [ :a | log add: a class name; add: a classAffected name ] for: log. " +
			"[ 2 timesRepeat: [ Object << #KernelCaseTwice slots: { #a }; package: 'KernelCase'; install ] ] ensure: [ SystemAnnouncer uniqueInstance unsubscribe: log ]. log asArray",
			"#(#ClassAdded #KernelCaseTwice #ClassModifiedClassDefinition #KernelCaseTwice)"},
		// Behavior>>sourceCodeTemplate and Metaclass>>sourceCodeTemplate name the side (BehaviorTest>>#testsourceCodeTemplateFor)
		{"the template of a new method names its side", "{ Object sourceCodeTemplate includesSubstring: 'instance-side method'. Object class sourceCodeTemplate includesSubstring: 'class-side method' }", "#(true true)"},
		// CompiledCode>>messages, localMessages, readsSelf, readsThisContext, isReturnSpecial, hasSelector:, equivalentTo: (CompiledCodeTest)
		{"the messages a method sends, its blocks' too or not", "| m | m := Object compiler compile: 'method self doit. [ Object class ]'. { m messages asSortedCollection asArray. m localMessages asArray }", "#(#(#class #doit) #(#doit))"},
		{"whether it reads self or thisContext", "{ (Object compiler compile: 'method self doit') readsSelf. (Object compiler compile: 'method ^ thisContext') readsSelf. (Object compiler compile: 'method ^ thisContext') readsThisContext. (Object compiler compile: 'method ^ self') readsThisContext }", "#(true false true false)"},
		{"a quick return of a constant is special", "{ (Object compiler compile: 'm ^ 1') isReturnSpecial. (Object compiler compile: 'm ^ self') isReturnSpecial. (Object compiler compile: 'm ^ 3') isReturnSpecial. (Object compiler compile: 'm ^ self foo') isReturnSpecial }", "#(true true false false)"},
		{"hasSelector: finds sends, literal arrays and pragmas, not the method's selector", "| m | m := Object compiler compile: 'method <pragma: #pragma> self doIt: [ 1 - 2. #(arrayInBlock). self name ]. ^ #(#array)'. { m hasSelector: #doIt:. m hasSelector: #-. m hasSelector: #name. m hasSelector: #array. m hasSelector: #arrayInBlock. m hasSelector: #pragma:. m hasSelector: #pragma. m hasSelector: #method }",
			"#(true true true true true true true false)"},
		{"equivalentTo: compares code, not comments", "| c o | c := Object newAnonymousSubclass. c compile: 'm1 ^ self'. o := c >> #m1. c compile: 'm1 \"with comment\" ^ self'. { o equivalentTo: c >> #m1. o equivalentTo: o copy. c compile: 'm1 <pragma: 1> ^ self'. o equivalentTo: c >> #m1 }", "#(true true #m1 false)"},
		// Behavior>>whichSelectorsAccess:, whichSelectorsRead:, whichSelectorsWrite: (ClassDescriptionTest), classThatDefinesInstVarNamed:
		{"the selectors that read or write a variable", "{ (Point whichSelectorsRead: #y) includes: #y. (Point whichSelectorsRead: #y) includes: #x. (Point whichSelectorsWrite: #x) includes: #setX:setY:. (Point whichSelectorsWrite: #x) includes: #x. (Point whichSelectorsAccess: #doesNotExist) isEmpty }", "#(true false true false true)"},
		{"the class that defines an instance variable", "{ Point classThatDefinesInstVarNamed: 'x'. Class classThatDefinesInstVarNamed: 'methodDict'. Point classThatDefinesInstVarNamed: 'methodDict' }", "{Point. Behavior. nil}"},
		// Behavior>>definedSelectors leaves out the extensions (BehaviorTest>>#testDefinedSelectors)
		{"definedSelectors leaves out extension methods", "| c | c := " + fluid + ". c compile: 'own ^ 1' classified: #p. c compile: 'ext ^ 2' classified: '*KernelCaseOther'. { c localSelectors asSortedCollection asArray. c definedSelectors asArray }", "#(#(#ext #own) #(#own))"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, evalIn(t, c.expr), c.name)
	}
}

// TestAClassBuiltAtRunTimeEndsWithItsInterpreter: a class a program builds
// and the methods it compiles live in that interpreter's memory only: an
// interpreter built afterwards from the same program (pharo-sim builds one
// per call) has none of them, and the program is unchanged.
func TestAClassBuiltAtRunTimeEndsWithItsInterpreter(t *testing.T) {
	t.Parallel()
	f, err := tonel.ParseFile("Tally.class.st", []byte(compareFixture))
	require.NoError(t, err)
	program := ReadProgram([]*tonel.File{f})
	methods, classes := len(program.Methods), len(program.Classes)
	in, err := New(program, Limits{Steps: 1_000_000})
	require.NoError(t, err)
	var out string
	built := compile(in.classes["UndefinedObject"], "build\n\t| c | c := Object << #KernelCaseGone slots: { #a }; package: 'KernelCase'; install.\n\tc compile: 'foo ^ 1'.\n\tTally compile: 'added ^ 2'.\n\tObject classify: #printString under: #kernelCase.\n\t^ { c new foo. Tally new added }")
	require.NoError(t, built.err)
	built.compileBody()
	in.guard(1_000_000, func() { out = str(in.Send(in.invoke(built, nil, nil), "printString")) }, func(d string) { out = "ERROR: " + d })
	assert.Equal(t, "#(1 2)", out)
	assert.Len(t, program.Methods, methods, "the program gained no method")
	assert.Len(t, program.Classes, classes, "the program gained no class")

	again, err := New(program, Limits{Steps: 1_000_000})
	require.NoError(t, err)
	assert.Nil(t, again.classes["KernelCaseGone"], "a new interpreter has no class an earlier one built")
	assert.Nil(t, again.classes["Tally"].methods["added"], "nor a method it compiled")
	assert.Empty(t, again.classes["Object"].methods["printString"].category, "nor a kernel method's protocol it changed")
	assert.Equal(t, "kernelCase", in.classes["Object"].methods["printString"].category, "the first interpreter's kernel method was reclassified")
}

// TestACandidateThatCompilesIsAChange: in a comparison, compiling a
// method or building a class is the compiler, an effect the kernel lacks
// there on purpose: a rewrite that alone reaches for it changes
// behaviour (it changes the image), one whose original does too is not
// compared.
func TestACandidateThatCompilesIsAChange(t *testing.T) {
	t.Parallel()
	in := newReachFixture(t)
	in.classes["Till"].methods["archiveName"] = compile(in.classes["Till"], "archiveName\n\t^ 'till'")
	cases := []struct{ candidate, outcome string }{
		{"archiveName\n\tself class compile: 'archived ^ true'.\n\t^ 'till'", Changed},
		{"archiveName\n\tObject << #TillArchive package: 'Reach'; install.\n\t^ 'till'", Changed},
		{"archiveName\n\t(self class compiler compile: 'archived ^ true') selector.\n\t^ 'till'", Changed},
		{"archiveName\n\t^ Smalltalk compiler evaluate: '3 printString'", Changed},
	}
	for _, tc := range cases {
		v, err := in.CompareMethod(Comparison{Class: "Till", Selector: "archiveName", Candidate: tc.candidate})
		require.NoError(t, err)
		assert.Equal(t, tc.outcome, v.Outcome, "%s: %+v %+v", tc.candidate, v, v.Witness)
		assert.Nil(t, in.classes["TillArchive"], "a comparison builds no class")
		assert.Nil(t, in.classes["Till"].methods["archived"], "nor compiles a method")
	}
	in.classes["Till"].methods["archiveName"] = compile(in.classes["Till"], "archiveName\n\tself class compile: 'archived ^ true'.\n\t^ 'till'")
	v, err := in.CompareMethod(Comparison{Class: "Till", Selector: "archiveName", Candidate: "archiveName\n\tself class compile: 'archived ^ false'.\n\t^ 'till'"})
	require.NoError(t, err)
	assert.Equal(t, NotChecked, v.Outcome, "%+v", v)
	assert.Contains(t, v.Reason, "the compiler")
}
