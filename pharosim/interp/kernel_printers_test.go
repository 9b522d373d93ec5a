package interp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// printerFixtures are classes of Pharo 13's Kernel-Tests (their
// definitions only) whose printed definitions its printer tests check: a
// pool, a user of it, and a class with a slot of a class of its own.
var printerFixtures = map[string]string{
	"PoolDefiner": `Class { #name : 'PoolDefiner', #superclass : 'SharedPool', #classVars : [ 'AnAuthor', 'Gloups' ], #category : 'Kernel-Tests-Classes', #package : 'Kernel-Tests', #tag : 'Classes' }
`,
	"RootClassPoolUser": `Class { #name : 'RootClassPoolUser', #superclass : 'Object', #pools : [ 'PoolDefiner' ], #category : 'Kernel-Tests-Classes', #package : 'Kernel-Tests', #tag : 'Classes' }
`,
	"MockWithComplexSlot": `Class { #name : 'MockWithComplexSlot', #superclass : 'Object', #instVars : [ '#aComplexSlot => ObservableSlot' ], #category : 'Kernel-Tests-Fluid', #package : 'Kernel-Tests', #tag : 'Fluid' }
MockWithComplexSlot >> initialize [ aComplexSlot := 3 ]
MockWithComplexSlot >> aComplexSlot [ ^ aComplexSlot ]
`,
}

// TestClassLayoutsAnswerAsPharos: a class's layout (Kernel-CodeModel's
// ObjectLayout and its subclasses, made from the class's definition), its
// slots and its variables, with the answers Pharo 13 gives (commit 9b55ea4
// of pharo-project/pharo; each group names the test of Pharo's whose
// assertions hold the answer, in Kernel-Tests).
func TestClassLayoutsAnswerAsPharos(t *testing.T) {
	t.Parallel()
	var files []*tonel.File
	for name, src := range printerFixtures {
		f, err := tonel.ParseFile(name+".class.st", []byte(src))
		require.NoError(t, err)
		files = append(files, f)
	}
	program := ReadProgram(files)
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
		// MockWithComplexSlot (FluidClassDefinitionPrinterTest>>#testDefinitionWithComplexSlot): a slot of a class of its own declares its name
		{"a variable declared as a slot", "| slot | slot := MockWithComplexSlot slotNamed: #aComplexSlot. { MockWithComplexSlot new aComplexSlot. MockWithComplexSlot instVarNames. slot needsFullDefinition. slot definitionString }",
			"#(3 #(#aComplexSlot) true '#aComplexSlot => ObservableSlot')"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, runInProgram(t, program, c.expr), c.name)
	}
}
