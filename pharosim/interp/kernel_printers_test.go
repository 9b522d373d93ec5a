package interp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// printerFixtures are classes of Pharo 13's Kernel-Tests (their
// definitions only) whose printed definitions its printer tests check — a
// pool, a user of it, and a class with a slot of a class of its own — and
// a trait with a class that uses it.
var printerFixtures = map[string]string{
	"PoolDefiner": `Class { #name : 'PoolDefiner', #superclass : 'SharedPool', #classVars : [ 'AnAuthor', 'Gloups' ], #category : 'Kernel-Tests-Classes', #package : 'Kernel-Tests', #tag : 'Classes' }
`,
	"RootClassPoolUser": `Class { #name : 'RootClassPoolUser', #superclass : 'Object', #pools : [ 'PoolDefiner' ], #category : 'Kernel-Tests-Classes', #package : 'Kernel-Tests', #tag : 'Classes' }
`,
	"TKernelCaseFixture": `Trait { #name : 'TKernelCaseFixture', #category : 'KernelCase-Traits', #package : 'KernelCase', #tag : 'Traits' }
`,
	"KernelCaseTraitUser": `Class { #name : 'KernelCaseTraitUser', #superclass : 'Object', #traits : 'TKernelCaseFixture', #category : 'KernelCase', #package : 'KernelCase' }
`,
	"MockWithComplexSlot": `Class { #name : 'MockWithComplexSlot', #superclass : 'Object', #instVars : [ '#aComplexSlot => ObservableSlot' ], #category : 'Kernel-Tests-Fluid', #package : 'Kernel-Tests', #tag : 'Fluid' }
MockWithComplexSlot >> initialize [ aComplexSlot := 3 ]
MockWithComplexSlot >> aComplexSlot [ ^ aComplexSlot ]
`,
}

// TestClassLayoutsAnswerAsPharos: a class's layout (Kernel-CodeModel's
// ObjectLayout and its subclasses, made from the class's definition), its
// slots, its variables and the bindings its methods see, and the instances
// the kernel knows without a virtual machine, with the answers Pharo 13
// gives (commit 9b55ea4
// of pharo-project/pharo; each group names the test of Pharo's whose
// assertions hold the answer, in Kernel-Tests).
func TestClassLayoutsAnswerAsPharos(t *testing.T) {
	t.Parallel()
	program := printerProgram(t)
	cases := []struct{ name, expr, want string }{
		// ObjectLayoutTest>>#testLayoutForSubclassDefiningSymbol; ObjectLayout>>kindOfSubclass (ClassDefinitionPrinters)
		{"the layout of a classic definition message", "#(#variableWordSubclass: #ephemeronSubclass: #weakSubclass: #variableSubclass: #immediateSubclass: #subclass: #foo:) collect: [ :each | ObjectLayout layoutForSubclassDefiningSymbol: each ]",
			"{WordLayout. EphemeronLayout. WeakLayout. VariableLayout. ImmediateLayout. FixedLayout. FixedLayout}"},
		{"the layouts of the kernel's classes", "{ Point. Array. ByteString. WeakArray. SmallInteger. Character. Metaclass. Object class } collect: [ :each | each classLayout class ]",
			"{FixedLayout. VariableLayout. ByteLayout. WeakLayout. ImmediateLayout. ImmediateLayout. FixedLayout. FixedLayout}"},
		{"a layout's kind of subclass and fields", "{ Array kindOfSubclass. ByteString kindOfSubclass. Point kindOfSubclass. Point classLayout fieldSize. Point classLayout isFixedLayout. Array classLayout isVariable }",
			"#(' variableSubclass: ' ' variableByteSubclass: ' ' subclass: ' 2 true true)"},
		// ClassHierarchyTest>>#testObjectFormatInstSize
		{"a layout's fields are its class's instance variables", "(Smalltalk allClassesAndTraits flatCollect: [ :each | { each. each class } ]) reject: [ :each | each instSize = each classLayout fieldSize ]", "#()"},
		// ClassDescriptionTest>>#testAllSlots, #testSlots, #testHasSlotNamed: Context's variables are Pharo's
		{"Context's slots", "{ Context allSlots size. Context slots size. Context hasSlotNamed: #sender. Context hasSlotNamed: #method. Context isVariable }", "#(6 6 true true true)"},
		{"a slot's class is the one that defines it", "{ (Point allSlots collect: [ :each | each owningClass ]) asArray. (Point slots collect: [ :each | each definitionString ]) asArray. (Point slotNamed: #x) needsFullDefinition }",
			"{{Point. Point}. #('#x' '#y'). false}"},
		// BehaviorTest>>#testDefinedVariables (but for Behavior new, which the kernel cannot make)
		{"the variables a class defines", "{ Point definedVariables = Point instanceVariables. EmptyLayout class definedVariables first name. (PoolDefiner definedVariables collect: [ :each | each definitionString ]) asArray. PoolDefiner definedVariables includes: (PoolDefiner classVariableNamed: #Gloups) }",
			"#(true #instance #('#AnAuthor' '#Gloups') true)"},
		// Class>>package and packageTag: a class built and not installed is in the undefined package's root tag (FluidClassDefinitionPrinterTest>>#testDoesNotDisplayEmptySlots)
		{"a class not installed is in no package", "| c | c := (Object << #KernelCaseCDMock tag: 'BasicObjects'; package: 'Kernel') build. { c package name. c packageTag isRoot. c category }",
			"#(#_UnpackagedPackage true #_UnpackagedPackage)"},
		// Class>>sharedPools, classVariables, sharedPoolsString, classVariablesString, instanceVariablesString (ClassDescription)
		{"a class's pools and variables, as objects and as strings", "{ RootClassPoolUser sharedPools asArray. RootClassPoolUser sharedPoolsString. PoolDefiner classVariablesString. Point instanceVariablesString. Point sharedPools class }",
			"{{PoolDefiner}. 'PoolDefiner'. 'AnAuthor Gloups'. 'x y'. OrderedCollection}"},
		// BehaviorTest>>#testDefinedVariables: a bare Behavior (Behavior>>initialize puts it under Object) defines none; SmalltalkImage's class variables are Pharo 13's
		{"a bare behavior and SmalltalkImage's variables", "{ Behavior new definedVariables isEmpty. Behavior new superclass. SmalltalkImage definedVariables includes: (SmalltalkImage classVariableNamed: #CompilerClass) }",
			"{true. Object. true}"},
		// MetaClassTest>>#testHasBindingThatBeginsWith (Class>>hasBindingThatBeginsWith: looks at slots, class variables, pools, then globals)
		{"the bindings a class's methods see", "{ SmalltalkImage class hasBindingThatBeginsWith: 'Compiler'. SmalltalkImage class hasBindingThatBeginsWith: 'Object'. PoolDefiner class hasBindingThatBeginsWith: 'AnAu'. RootClassPoolUser hasBindingThatBeginsWith: 'Glo'. Point hasBindingThatBeginsWith: 'x'. Point hasBindingThatBeginsWith: 'Zork' }",
			"#(true true true true true false)"},
		// BasicBehaviorClassMetaclassTest>>#testMetaclassNumberOfInstances, #testMetaclassPointOfCircularity; UndefinedObjectTest>>#testAllInstances: where one instance is all there is
		{"a metaclass's one instance, nil's, true's", "{ Dictionary class allInstances. Metaclass class instanceCount. Metaclass class someInstance. UndefinedObject allInstances. True allInstances. False instanceCount }",
			"{{Dictionary}. 1. Metaclass. #(nil). #(true). 1}"},
		{"other instances are the virtual machine's", "Object allInstances", "ERROR: pharo-sim's kernel lacks the virtual machine (allInstances)"},
		// MockWithComplexSlot (FluidClassDefinitionPrinterTest>>#testDefinitionWithComplexSlot): a slot of a class of its own declares its name
		{"a variable declared as a slot", "| slot | slot := MockWithComplexSlot slotNamed: #aComplexSlot. { MockWithComplexSlot new aComplexSlot. MockWithComplexSlot instVarNames. slot needsFullDefinition. slot definitionString }",
			"#(3 #(#aComplexSlot) true '#aComplexSlot => ObservableSlot')"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, runInProgram(t, program, c.expr), c.name)
	}
}

// TestClassDefinitionsPrintAsPharos: the class-definition printers of
// Pharo 13 (ClassDefinitionPrinters: FluidClassDefinitionPrinter,
// LegacyClassDefinitionPrinter, OldPharoClassDefinitionPrinter), the
// layouts (Kernel-CodeModel's ObjectLayout and its subclasses) and the
// facts they print, with the answers Pharo 13 gives (commit 9b55ea4 of
// pharo-project/pharo; each group names the test of Pharo's whose
// assertions hold the answer, in Kernel-Tests unless said otherwise).
func TestClassDefinitionsPrintAsPharos(t *testing.T) {
	t.Parallel()
	program := printerProgram(t)
	const fluid = "(ClassDefinitionPrinter fluid for: %s; definitionString) "
	cases := []struct{ name, expr, want string }{
		// FluidClassDefinitionPrinterTest>>#testPoint, #testArray, #testByteString, #testProtoObject, #testMetaclass (tearDown's displayEmptySlots: false)
		{"the fluid definition of a fixed class with slots", "ClassDefinitionPrinter displayEmptySlots: false. (ClassDefinitionPrinter fluid for: Point; definitionString) lines",
			"#('Object << #Point' '	slots: { #x . #y };' '	tag: ''BasicObjects'';' '	package: ''Kernel''')"},
		{"a variable class names its layout", "ClassDefinitionPrinter displayEmptySlots: false. (ClassDefinitionPrinter fluid for: Array; definitionString) lines",
			"#('ArrayedCollection << #Array' '	layout: VariableLayout;' '	tag: ''Base'';' '	package: ''Collections-Sequenceable''')"},
		{"a byte class and its class variables", "ClassDefinitionPrinter displayEmptySlots: false. (ClassDefinitionPrinter fluid for: ByteString; definitionString) lines",
			"#('String << #ByteString' '	layout: ByteLayout;' '	sharedVariables: { #NonAsciiMap };' '	tag: ''Base'';' '	package: ''Collections-Strings''')"},
		{"a root class", "ClassDefinitionPrinter displayEmptySlots: false. (ClassDefinitionPrinter fluid for: ProtoObject; definitionString) lines",
			"#('nil << #ProtoObject' '	tag: ''Objects'';' '	package: ''Kernel''')"},
		{"Metaclass", "ClassDefinitionPrinter displayEmptySlots: false. (ClassDefinitionPrinter fluid for: Metaclass; definitionString) lines",
			"#('ClassDescription << #Metaclass' '	slots: { #thisClass };' '	tag: ''Classes'';' '	package: ''Kernel-CodeModel''')"},
		// ... #testByteStringClass, #testMetaclassClass, #testProtoObjectClass, #testSystemAnnouncerClass
		{"metaclasses, ProtoObject class under Class class", "ClassDefinitionPrinter displayEmptySlots: false. { ByteString class. Metaclass class. ProtoObject class } collect: [ :each | (ClassDefinitionPrinter fluid for: each; definitionString) ]",
			"#('String class << ByteString class' 'ClassDescription class << Metaclass class' 'Class class << ProtoObject class')"},
		{"a metaclass's slots", "ClassDefinitionPrinter displayEmptySlots: false. (ClassDefinitionPrinter fluid for: SystemAnnouncer class; definitionString) lines",
			"#('Announcer class << SystemAnnouncer class' '	slots: { #announcer }')"},
		// ... #testClassPool, #testArrayedCollectionWithPoolDictionary, #testDefinitionWithComplexSlot
		{"a pool's variables", "ClassDefinitionPrinter displayEmptySlots: false. (ClassDefinitionPrinter fluid for: PoolDefiner; definitionString) lines",
			"#('SharedPool << #PoolDefiner' '	sharedVariables: { #AnAuthor . #Gloups };' '	tag: ''Classes'';' '	package: ''Kernel-Tests''')"},
		{"the pools a class uses", "ClassDefinitionPrinter displayEmptySlots: false. (ClassDefinitionPrinter fluid for: RootClassPoolUser; definitionString) lines",
			"#('Object << #RootClassPoolUser' '	sharedPools: { PoolDefiner };' '	tag: ''Classes'';' '	package: ''Kernel-Tests''')"},
		{"a slot of a class of its own is written whole", "ClassDefinitionPrinter displayEmptySlots: false. { (ClassDefinitionPrinter fluid for: MockWithComplexSlot; definitionString) lines second. MockWithComplexSlot new aComplexSlot. MockWithComplexSlot instVarNames }",
			"#('	slots: { #aComplexSlot => ObservableSlot };' 3 #(#aComplexSlot))"},
		// ... #testDisplayEmptySlots, #testDoesNotDisplayEmptySlots, #testPointMinimalInformation: a class built, not installed, is in no package
		{"empty slots shown or not, a class not installed", "| c r | c := (Object << #KernelCaseCDMock tag: 'BasicObjects'; package: 'Kernel') build. ClassDefinitionPrinter displayEmptySlots: true. r := { (ClassDefinitionPrinter fluid for: c; definitionString) lines }. ClassDefinitionPrinter displayEmptySlots: false. r , { (ClassDefinitionPrinter fluid for: c; definitionString) lines. c package name. c packageTag isRoot }",
			"#(#('Object << #KernelCaseCDMock' '	slots: {};' '	package: ''_UnpackagedPackage''') #('Object << #KernelCaseCDMock' '	package: ''_UnpackagedPackage''') #_UnpackagedPackage true)"},
		// ... #testExpandedPoint, #testExpandedPointClass, #testExpandedProtoObjectClass, #testExpandedEmptyLayoutClass, #testExpandedTime
		{"the expanded definition writes every part", "(Point expandedDefinitionStringFor: (FluidClassDefinitionPrinter for: Point)) lines",
			"#('Object << #Point' '	layout: FixedLayout;' '	traits: {};' '	slots: { #x . #y };' '	sharedVariables: {};' '	sharedPools: {};' '	tag: ''BasicObjects'';' '	package: ''Kernel''')"},
		{"expanded metaclasses", "{ Point class. ProtoObject class. EmptyLayout class } collect: [ :each | (each expandedDefinitionStringFor: (FluidClassDefinitionPrinter for: each)) lines ]",
			"#(#('Object class << Point class' '	traits: {};' '	slots: {}') #('Class class << ProtoObject class' '	traits: {};' '	slots: {}') #('AbstractLayout class << EmptyLayout class' '	traits: {};' '	slots: { #instance }'))"},
		{"expanded, with pools", "(RootClassPoolUser expandedDefinitionStringFor: (FluidClassDefinitionPrinter for: RootClassPoolUser)) lines",
			"#('Object << #RootClassPoolUser' '	layout: FixedLayout;' '	traits: {};' '	slots: {};' '	sharedVariables: {};' '	sharedPools: { PoolDefiner };' '	tag: ''Classes'';' '	package: ''Kernel-Tests''')"},
		// ... #testCompactClassTemplate, #testFullClassTemplate
		{"the templates", "{ (FluidClassDefinitionPrinter new compactClassDefinitionTemplateInPackage: 'Kernel' tag: #Basic) lines. (FluidClassDefinitionPrinter new classDefinitionTemplateInPackage: 'Kernel' tag: nil named: #MyClass) lines }",
			"#(#('Object << #MyClass' '	slots: {};' '	sharedVariables: {};' '	tag: #Basic;' '	package: ''Kernel''') #('Object << #MyClass' '	layout: FixedLayout;' '	traits: {};' '	slots: {};' '	sharedVariables: {};' '	sharedPools: {};' '	tag: '''' ;' '	package: ''Kernel'''))"},
		// LegacyClassDefinitionPrinterTest>>#testPoint, #testProtoObject, #testByteString, #testClassPool, #testArrayedCollectionWithPoolDictionary, #testMetaclassClass, #testSystemAnnouncerClass
		{"the legacy definition", "(ClassDefinitionPrinter legacy for: Point; definitionString) lines",
			"#('Object subclass: #Point' '	instanceVariableNames: ''x y''' '	classVariableNames: ''''' '	poolDictionaries: ''''' '	category: ''Kernel-BasicObjects''')"},
		{"the legacy definition of a root class", "(ClassDefinitionPrinter legacy for: ProtoObject; definitionString) lines",
			"#('ProtoObject subclass: #ProtoObject' '	instanceVariableNames: ''''' '	classVariableNames: ''''' '	poolDictionaries: ''''' '	category: ''Kernel-Objects''.' 'ProtoObject superclass: nil')"},
		{"legacy kinds of subclass, variables and pools", "{ (ClassDefinitionPrinter legacy for: ByteString; definitionString) lines first: 3. (ClassDefinitionPrinter legacy for: RootClassPoolUser; definitionString) lines fourth }",
			"#(#('String variableByteSubclass: #ByteString' '	instanceVariableNames: ''''' '	classVariableNames: ''NonAsciiMap''') '	poolDictionaries: ''PoolDefiner''')"},
		{"legacy metaclasses", "{ SystemAnnouncer class. Metaclass class } collect: [ :each | (ClassDefinitionPrinter legacy for: each; definitionString) lines ]",
			"#(#('SystemAnnouncer class' '	instanceVariableNames: ''announcer''') #('Metaclass class' '	instanceVariableNames: '''''))"},
		// OldClassDefinitionPrinterTest>>#testArray, #testClassPool, #testArrayedCollectionWithPoolDictionary, #testProtoObject
		{"the old Pharo definition: package, and pools only when some", "{ (ClassDefinitionPrinter oldPharo for: Array; definitionString) lines. (ClassDefinitionPrinter oldPharo for: RootClassPoolUser; definitionString) lines last: 2 }",
			"#(#('ArrayedCollection variableSubclass: #Array' '	instanceVariableNames: ''''' '	classVariableNames: ''''' '	package: ''Collections-Sequenceable-Base''') #('	poolDictionaries: ''PoolDefiner''' '	package: ''Kernel-Tests-Classes'''))"},
		{"the old Pharo definition of a root class and a metaclass", "{ (ClassDefinitionPrinter oldPharo for: ProtoObject; definitionString) lines last: 2. (ClassDefinitionPrinter oldPharo for: SystemAnnouncer class; definitionString) lines }",
			"#(#('	package: ''Kernel-Objects''.' 'ProtoObject superclass: nil') #('SystemAnnouncer class' '	instanceVariableNames: ''announcer'''))"},
		{"the old Pharo printer writes a slot of its own class in the fluid syntax", "ClassDefinitionPrinter displayEmptySlots: false. (ClassDefinitionPrinter oldPharo for: MockWithComplexSlot; definitionString) lines first",
			"'Object << #MockWithComplexSlot'"},
		// FluidClassDefinitionPrinter>>traitDefinitionString and traitsOn: (Traits-Tests' TraitFluidClassDefinitionPrinterTest>>#testTComplexSlot, #testMOPTestClassD); a trait in its package's root tag has no tag: line
		{"a trait and a class that uses it", "ClassDefinitionPrinter displayEmptySlots: false. { TKernelCaseFixture. KernelCaseTraitUser } collect: [ :each | (ClassDefinitionPrinter fluid for: each; definitionString) lines ]",
			"#(#('Trait << #TKernelCaseFixture' '	tag: ''Traits'';' '	package: ''KernelCase''') #('Object << #KernelCaseTraitUser' '	traits: {TKernelCaseFixture};' '	package: ''KernelCase'''))"},
		// ClassDefinitionPrinter class>>for: is the fluid printer (ClassDefinitionPrinterConfigurationTest); ClassDescription>>definitionString
		{"the default printer is the fluid one", "ClassDefinitionPrinter displayEmptySlots: false. { (ClassDefinitionPrinter for: Point) class. Point definitionString = (ClassDefinitionPrinter fluid for: Point; definitionString). Point oldDefinition lines first. Point oldPharoDefinition lines last }",
			"{FluidClassDefinitionPrinter. true. 'Object subclass: #Point'. '	package: ''Kernel-BasicObjects'''}"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, runInProgram(t, program, c.expr), c.name)
	}
}

// printerProgram is the program of the printers' fixture classes.
func printerProgram(t *testing.T) *Program {
	t.Helper()
	var files []*tonel.File
	for name, src := range printerFixtures {
		f, err := tonel.ParseFile(name+".class.st", []byte(src))
		require.NoError(t, err)
		files = append(files, f)
	}
	return ReadProgram(files)
}
