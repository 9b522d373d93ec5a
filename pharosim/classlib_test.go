package pharosim

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/smalltalk/capability"
)

// pharoFact is one answer of a Pharo 13 image to `CLASS canUnderstand:
// #SELECTOR` (or `CLASS class canUnderstand:`), picked by hand from what
// Pharo 13 answers, not from the index.
type pharoFact struct {
	class     string
	classSide bool
	selector  string
	want      bool
}

// pharo13Facts are kernel questions a refactoring's sends commonly ask:
// numbers, collections, strings, streams, blocks, booleans, exceptions and
// SUnit, both sides, true and false.
var pharo13Facts = []pharoFact{
	// numbers
	{"Integer", false, "*", true},
	{"Integer", false, "+", true},
	{"Integer", false, "isZero", true},
	{"Integer", false, "timesRepeat:", true},
	{"Integer", false, "factorial", true},
	{"Integer", false, "gcd:", true},
	{"Integer", false, "isPrime", true},
	{"Integer", false, "even", true},
	{"Integer", false, "between:and:", true},
	{"Integer", false, "max:", true},
	{"Integer", false, "sqrt", true},
	{"Integer", false, "to:do:", true},
	{"Integer", false, "printStringBase:", true},
	{"Integer", false, "printString:", false},
	{"Integer", false, "asCharacter", true},
	{"SmallInteger", false, "bitAnd:", true},
	{"SmallInteger", false, "//", true},
	{"SmallInteger", false, "\\\\", true},
	{"Float", false, "rounded", true},
	{"Float", false, "truncated", true},
	{"Float", false, "isNaN", true},
	{"Fraction", false, "numerator", true},
	{"Number", false, "@", true},
	{"Integer", false, "collect:", false},
	{"Integer", false, "asUppercase", false},
	{"Integer", false, "new", false},
	{"Integer", true, "readFrom:", true},
	{"Float", true, "pi", true},
	{"Float", true, "infinity", true},
	{"Integer", true, "isPrime", false},
	// collections
	{"OrderedCollection", false, "add:", true},
	{"OrderedCollection", false, "addFirst:", true},
	{"OrderedCollection", false, "removeFirst", true},
	{"OrderedCollection", false, "collect:", true},
	{"OrderedCollection", false, "select:", true},
	{"OrderedCollection", false, "reject:", true},
	{"OrderedCollection", false, "detect:ifNone:", true},
	{"OrderedCollection", false, "inject:into:", true},
	{"OrderedCollection", false, "do:", true},
	{"OrderedCollection", false, "isEmpty", true},
	{"OrderedCollection", false, "includes:", true},
	{"OrderedCollection", false, "ifEmpty:", true},
	{"OrderedCollection", false, "withIndexDo:", true},
	{"OrderedCollection", false, "allSatisfy:", true},
	{"OrderedCollection", false, "asArray", true},
	{"OrderedCollection", false, "sorted", true},
	{"OrderedCollection", false, "sum:", true},
	{"OrderedCollection", false, "detectSum:", false},
	{"OrderedCollection", false, "removeKey:", false},
	{"OrderedCollection", false, "keysSortedSafely", false},
	{"Collection", false, "isEmptyOrNil", true},
	{"Dictionary", false, "at:ifAbsent:", true},
	{"Dictionary", false, "at:ifAbsentPut:", true},
	{"Dictionary", false, "keysAndValuesDo:", true},
	{"Dictionary", false, "includesKey:", true},
	{"Dictionary", false, "removeKey:", true},
	{"Dictionary", false, "addFirst:", false},
	{"Set", false, "add:", true},
	{"Set", false, "remove:ifAbsent:", true},
	{"Set", false, "addFirst:", false},
	{"Array", false, "at:put:", true},
	{"Array", false, "indexOf:", true},
	{"Array", false, ",", true},
	{"Array", false, "copyWith:", true},
	{"OrderedCollection", true, "new:", true},
	{"OrderedCollection", true, "with:with:", true},
	{"OrderedCollection", true, "withAll:", true},
	{"OrderedCollection", true, "addFirst:", false},
	{"Array", true, "new:withAll:", true},
	{"Dictionary", true, "newFrom:", true},
	// strings and symbols
	{"String", false, "asUppercase", true},
	{"String", false, "asLowercase", true},
	{"String", false, "includesSubstring:", true},
	{"String", false, "asSymbol", true},
	{"String", false, "asNumber", true},
	{"String", false, "trimBoth", true},
	{"String", false, "substrings:", true},
	{"String", false, "beginsWith:", true},
	{"String", false, "endsWith:", true},
	{"String", false, "format:", true},
	{"String", false, "copyReplaceAll:with:", true},
	{"String", false, "lines", true},
	{"String", false, "timesRepeat:", false},
	{"Symbol", false, "numArgs", true},
	{"Symbol", false, "value:", true},
	{"String", true, "new:", true},
	{"String", true, "cr", true},
	{"String", true, "crlf", true},
	{"String", true, "streamContents:", true},
	{"String", true, "asUppercase", false},
	{"Character", true, "cr", true},
	{"Character", true, "value:", true},
	// streams
	{"ReadStream", false, "next", true},
	{"ReadStream", false, "atEnd", true},
	{"ReadStream", false, "upTo:", true},
	{"ReadStream", false, "peek", true},
	{"ReadStream", false, "upToEnd", true},
	{"ReadStream", false, "skip:", true},
	{"WriteStream", false, "nextPutAll:", true},
	{"WriteStream", false, "nextPut:", true},
	{"WriteStream", false, "contents", true},
	{"WriteStream", false, "cr", true},
	{"WriteStream", false, "space", true},
	{"WriteStream", false, "print:", true},
	{"WriteStream", false, "<<", true},
	{"ReadStream", true, "on:", true},
	{"WriteStream", true, "on:", true},
	{"WriteStream", true, "with:", true},
	{"WriteStream", false, "collect:", false},
	// blocks
	{"BlockClosure", false, "value", true},
	{"BlockClosure", false, "value:", true},
	{"BlockClosure", false, "on:do:", true},
	{"BlockClosure", false, "ensure:", true},
	{"BlockClosure", false, "ifCurtailed:", true},
	{"BlockClosure", false, "whileTrue:", true},
	{"BlockClosure", false, "numArgs", true},
	{"BlockClosure", false, "valueWithArguments:", true},
	{"BlockClosure", false, "repeat", true},
	{"BlockClosure", false, "collect:", false},
	{"BlockClosure", false, "add:", false},
	// booleans and nil
	{"Boolean", false, "and:", true},
	{"Boolean", false, "or:", true},
	{"True", false, "not", true},
	{"False", false, "&", true},
	{"True", false, "|", true},
	{"Boolean", false, "xor:", true},
	{"False", false, "ifTrue:ifFalse:", true},
	{"True", false, "timesRepeat:", false},
	{"Boolean", false, "do:", false},
	{"UndefinedObject", false, "isNil", true},
	{"UndefinedObject", false, "ifNil:", true},
	{"UndefinedObject", false, "isEmptyOrNil", true},
	// Object and ProtoObject
	{"Object", false, "printString", true},
	{"Object", false, "printOn:", true},
	{"Object", false, "displayString", true},
	{"Object", false, "yourself", true},
	{"Object", false, "->", true},
	{"Object", false, "error:", true},
	{"Object", false, "assert:", true},
	{"Object", false, "respondsTo:", true},
	{"Object", false, "deepCopy", true},
	{"Object", false, "isNil", true},
	{"Object", false, "==", true},
	{"Object", false, "deny:", false},
	{"Object", false, "isEmptyOrNil", false},
	{"Object", false, "asOrderedCollection", false},
	{"Object", false, "new", false},
	{"Object", false, "compile:", false},
	{"Object", true, "new", true},
	{"Object", true, "compile:", true},
	{"Object", true, "lookupSelector:", true},
	{"Object", true, "subclass:", true},
	{"Object", true, "methodDict", true},
	{"Object", true, "selectors", true},
	{"Object", true, "includesSelector:", true},
	{"Object", true, "canUnderstand:", true},
	{"Object", true, "inheritsFrom:", true},
	{"Object", true, "superclass", true},
	{"Object", true, "name", true},
	{"Object", true, "allInstVarNames", true},
	{"Object", true, "comment", true},
	{"Object", true, "add:", false},
	{"Object", true, "timesRepeat:", false},
	// exceptions
	{"Error", false, "signal", true},
	{"Error", false, "signal:", true},
	{"Error", false, "messageText", true},
	{"Error", false, "return:", true},
	{"Error", false, "retry", true},
	{"Error", false, "pass", true},
	{"Error", false, "description", true},
	{"Exception", false, "resume:", true},
	{"ZeroDivide", false, "dividend", true},
	{"Error", false, "collect:", false},
	{"Error", true, "signal", true},
	{"Error", true, "signal:", true},
	{"Error", true, "new", true},
	{"Error", true, "retry", false},
	// SUnit
	{"TestCase", false, "assert:", true},
	{"TestCase", false, "assert:equals:", true},
	{"TestCase", false, "assert:description:", true},
	{"TestCase", false, "deny:", true},
	{"TestCase", false, "deny:equals:", true},
	{"TestCase", false, "should:raise:", true},
	{"TestCase", false, "setUp", true},
	{"TestCase", false, "tearDown", true},
	{"TestCase", false, "fail", true},
	{"TestCase", false, "skip", true},
	{"TestCase", false, "assertCollection:hasSameElements:", true},
	{"TestCase", false, "timeLimit", false},
	{"TestCase", true, "suite", true},
	{"TestCase", true, "buildSuite", true},
	{"TestCase", true, "selector:", true},
	{"TestCase", true, "testSelectors", true},
	{"TestCase", true, "isAbstract", true},
	{"TestCase", true, "setUp", false},
	// time
	{"Date", true, "today", true},
	{"DateAndTime", true, "now", true},
}

func TestCanUnderstandAgreesWithPharo13(t *testing.T) {
	t.Parallel()
	img, _ := loadTestImage(t)
	for _, f := range pharo13Facts {
		side := InstanceSide
		label := f.class
		if f.classSide {
			side, label = ClassSide, f.class+" class"
		}
		t.Run(fmt.Sprintf("%s canUnderstand: #%s", label, f.selector), func(t *testing.T) {
			got, err := img.Understands(f.class, side, f.selector, false)
			require.NoError(t, err)
			assert.Equal(t, f.want, got)
		})
	}
}

// The prompts' Pharo traps name these sends on these receivers; a model
// that follows them must not be refused for a send the image lacks.
func TestThePromptsTrapsAreUnderstood(t *testing.T) {
	t.Parallel()
	img, _ := loadTestImage(t)
	traps := map[string][]string{
		"OrderedCollection": {"inject:into:", "sum", "sum:", "max", "min", "first", "anyOne", "average",
			"detect:", "detect:ifNone:", "ifEmpty:", "ifNotEmpty:", "collect:", "select:", "add:",
			"sort", "sort:", "sorted", "asSortedCollection", "yourself"},
		"Set":      {"collect:", "select:"},
		"Interval": {"collect:"},
		"Integer":  {"/", "//", "\\\\", "quo:", "rem:", "asFloat", "*", "+"},
		"Boolean":  {"and:", "or:", "&", "|", "ifTrue:", "ifFalse:", "ifTrue:ifFalse:"},
		"Object":   {"ifNil:", "ifNotNil:", "=", "=="},
		"String":   {"=", "=="},
	}
	for class, selectors := range traps {
		for _, sel := range selectors {
			got, err := img.Understands(class, InstanceSide, sel, false)
			require.NoError(t, err)
			assert.True(t, got, "%s canUnderstand: #%s", class, sel)
		}
	}
}

// Every harmless value class of the capability policy is a class of the
// image, so that a candidate naming one compiles.
func TestValueClassesAreClassesOfTheImage(t *testing.T) {
	t.Parallel()
	img, _ := loadTestImage(t)
	for _, name := range capability.ValueClasses() {
		assert.True(t, img.HasGlobal(name), name)
		assert.Equal(t, dryCompileOK, img.DryCompile("Calculator", InstanceSide, "probe ^ "+name), name)
	}
	assert.Equal(t, "ERR|9|Undeclared variable", img.DryCompile("Calculator", InstanceSide, "probe ^ NoSuchClassAnywhere"))
}

// A tree that defines the kernel itself (as Pharo's own src does) answers
// from its own classes: on the class side, past ProtoObject class, the walk
// goes on at the tree's Class, ClassDescription and Behavior, not the
// class library's.
func TestTheTreesOwnBehaviorWinsOnTheClassSide(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	files := map[string]string{
		"src/Kernel/package.st":                "Package { #name : 'Kernel' }\n",
		"src/Kernel/ProtoObject.class.st":      "Class { #name : 'ProtoObject', #superclass : 'nil', #package : 'Kernel' }\n\n{ #category : 'x' }\nProtoObject >> == other [\n\t<primitive: 110>\n]\n",
		"src/Kernel/Object.class.st":           "Class { #name : 'Object', #superclass : 'ProtoObject', #package : 'Kernel' }\n\n{ #category : 'x' }\nObject >> treeOnlyObjectMethod [\n\t^ 1\n]\n",
		"src/Kernel/Behavior.class.st":         "Class { #name : 'Behavior', #superclass : 'Object', #package : 'Kernel' }\n\n{ #category : 'x' }\nBehavior >> treeOnlyBehaviorMethod [\n\t^ 1\n]\n\n{ #category : 'x' }\nBehavior >> new [\n\t^ self basicNew\n]\n",
		"src/Kernel/ClassDescription.class.st": "Class { #name : 'ClassDescription', #superclass : 'Behavior', #package : 'Kernel' }\n",
		"src/Kernel/Class.class.st":            "Class { #name : 'Class', #superclass : 'ClassDescription', #package : 'Kernel' }\n",
		"src/Kernel/Point.class.st":            "Class { #name : 'Point', #superclass : 'Object', #package : 'Kernel' }\n",
	}
	for rel, text := range files {
		path := filepath.Join(root, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	}
	img, err := LoadImage(root, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = img.Close() })
	cases := []struct {
		class    string
		side     Side
		selector string
		want     bool
	}{
		{"Point", ClassSide, "treeOnlyBehaviorMethod", true},
		{"Point", ClassSide, "new", true},
		{"Object", ClassSide, "treeOnlyObjectMethod", true}, // Class inherits from the tree's Object
		// Pharo's Behavior has compile:, the tree's does not: the tree wins.
		{"Point", ClassSide, "compile:", false},
		{"Object", ClassSide, "lookupSelector:", false},
		// Pharo's Point has x; the tree defines Point without it.
		{"Point", InstanceSide, "x", false},
		{"Point", InstanceSide, "treeOnlyObjectMethod", true},
		{"Point", InstanceSide, "treeOnlyBehaviorMethod", false},
		// A class the tree does not hold still comes from the library, and
		// its chain continues into the tree's classes.
		{"OrderedCollection", InstanceSide, "addFirst:", true},
		{"OrderedCollection", InstanceSide, "treeOnlyObjectMethod", true},
		{"OrderedCollection", ClassSide, "treeOnlyBehaviorMethod", true},
	}
	for _, tc := range cases {
		got, err := img.Understands(tc.class, tc.side, tc.selector, false)
		require.NoError(t, err)
		assert.Equal(t, tc.want, got, "%s %s canUnderstand: #%s", tc.class, tc.side, tc.selector)
	}
}

func TestIncludesSelectorAndInheritsFrom(t *testing.T) {
	t.Parallel()
	img, _ := loadTestImage(t)
	includes := []struct {
		class    string
		side     Side
		selector string
		want     bool
	}{
		{"Calculator", InstanceSide, "sum:with:", true},
		{"Calculator", InstanceSide, "printOn:", false}, // inherited, not its own
		{"OrderedCollection", InstanceSide, "addFirst:", true},
		{"OrderedCollection", InstanceSide, "collect:", true},
		{"OrderedCollection", InstanceSide, "inject:into:", false}, // Collection's
		{"Object", ClassSide, "new", false},                        // Behavior's
		{"OrderedCollection", ClassSide, "new:", true},
	}
	for _, tc := range includes {
		got, err := img.IncludesSelector(tc.class, tc.side, tc.selector)
		require.NoError(t, err)
		assert.Equal(t, tc.want, got, "%s %s includesSelector: #%s", tc.class, tc.side, tc.selector)
	}
	_, err := img.IncludesSelector("NoSuchClassAnywhere", InstanceSide, "x")
	assert.Error(t, err)

	inherits := []struct {
		class, ancestor string
		want            bool
	}{
		{"CalculatorTest", "TestCase", true},
		{"CalculatorTest", "TestAsserter", true},
		{"CalculatorTest", "Object", true},
		{"Calculator", "TestCase", false},
		{"OrderedCollection", "Collection", true},
		{"SmallInteger", "Number", true},
		{"SmallInteger", "Magnitude", true},
		{"ZeroDivide", "Exception", true},
		{"Collection", "OrderedCollection", false},
		{"TestCase", "TestCase", false},
	}
	for _, tc := range inherits {
		assert.Equal(t, tc.want, img.InheritsFrom(tc.class, tc.ancestor), "%s inheritsFrom: %s", tc.class, tc.ancestor)
	}
}

// get_settings names the folders of the tree it did not read for lack of a
// package.st, and the class library it answers from.
func TestSettingsNameSkippedFoldersAndTheClassLibrary(t *testing.T) {
	t.Parallel()
	img, root := loadTestImage(t)
	require.NoError(t, os.MkdirAll(filepath.Join(root, "src", "scripts"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "src", "scripts", "Loose.class.st"),
		[]byte("Class { #name : 'Loose', #superclass : 'Object' }\n"), 0o644))
	reloaded, err := LoadImage(img.Root(), nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = reloaded.Close() })
	st := reloaded.Status()
	assert.Equal(t, []string{filepath.Join(reloaded.Root(), "scripts")}, st.SkippedFolders)
	assert.False(t, reloaded.HasGlobal("Loose"), "a class outside a package folder is not loaded")
	assert.Equal(t, "Pharo 13", st.ClassLibrary.Label)
	assert.Regexp(t, `^[0-9a-f]{40}$`, st.ClassLibrary.Commit)
	assert.Greater(t, st.ClassLibrary.Classes, 7000)
	assert.Empty(t, img.Status().SkippedFolders, "the sample tree has none")
}
