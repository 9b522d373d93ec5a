package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/internal/testenv"
	"github.com/pharo-refactor/refactord/smalltalk"
)

// cls is the class expression the service sends: `(Smalltalk globals at: #Foo)`.
func cls(class string, classSide bool) string {
	e := "(Smalltalk globals at: #" + class + ")"
	if classSide {
		e += " class"
	}
	return e
}

func protocolExpr(class string, classSide bool, selector string) string {
	return "| p | p := (" + cls(class, classSide) + " >> " + smalltalk.QuoteSymbol(selector) + ") protocol. " +
		"(p isNil or: [ p isString ]) ifTrue: [ p ] ifFalse: [ p name ]"
}

func dryCompileExpr(class string, classSide bool, source string) string {
	return "| err | [ " + cls(class, classSide) + " compiler source: " + smalltalk.QuoteString(source) + "; compile ] " +
		"on: Error, (Smalltalk globals at: #SyntaxErrorNotification ifAbsent: [ Error ]) do: [ :e | err := e ]. " +
		"err ifNil: [ 'OK' ] ifNotNil: [ 'ERR|', ((err respondsTo: #location) ifTrue: [ err location printString ] ifFalse: [ '?' ]), '|', err messageText asString ]"
}

func installExpr(class string, classSide bool, source, protocol string) string {
	e := cls(class, classSide) + " compile: " + smalltalk.QuoteString(source)
	if protocol != "" {
		e += " classified: " + smalltalk.QuoteString(protocol)
	}
	return e
}

func removeExpr(class string, classSide bool, selector string) string {
	return cls(class, classSide) + " removeSelector: " + smalltalk.QuoteSymbol(selector)
}

// checkedRemoveExpr is the remove the service sends: it answers whether
// the method was there, since removeSelector: answers the class.
func checkedRemoveExpr(class string, classSide bool, selector string) string {
	sel := smalltalk.QuoteSymbol(selector)
	return "| had | had := " + cls(class, classSide) + " includesSelector: " + sel + ". " +
		cls(class, classSide) + " removeSelector: " + sel + ". had"
}

func isTestCaseExpr(class string) string {
	return "| c t | c := Smalltalk globals at: #" + class + " ifAbsent: [ nil ]. t := Smalltalk globals at: #TestCase ifAbsent: [ nil ]. " +
		"(c notNil and: [ t notNil and: [ c isClass and: [ c inheritsFrom: t ] ] ])"
}

// unserializable is the real image's answer to an expression whose value is
// an object: success true, an error, and no result.
func unserializable(class string) answer {
	return answer{check: func(t *testing.T, e envelope) {
		assert.True(t, e.Success, "success stays true")
		assert.Empty(t, e.Result, "no result at all")
		assert.Equal(t, "Result is a "+class+" instance which cannot be serialized as JSON", e.errorDescription(t))
	}}
}

func existsExpr(class string) string { return "Smalltalk globals includesKey: #" + class }

// answer is what a tool call should give: a result (compared as JSON), a
// prefix of the image error's description, or a check of its own.
type answer struct {
	result string // JSON
	err    string // description prefix
	check  func(t *testing.T, e envelope)
}

func (a answer) verify(t *testing.T, e envelope) {
	t.Helper()
	switch {
	case a.check != nil:
		a.check(t, e)
	case a.err != "":
		require.False(t, e.Success, "want an error, got %s", e.Result)
		d := e.errorDescription(t)
		assert.True(t, strings.HasPrefix(d, a.err), "description %q, want prefix %q", d, a.err)
	default:
		require.True(t, e.Success, "success; error: %s", e.Error)
		assert.JSONEq(t, a.result, string(e.Result))
	}
}

func TestEveryReadingTool(t *testing.T) {
	root := testenv.SimTree(t)
	s := startSim(t, nil, "--dir", root)
	calculatorFile, err := os.ReadFile(filepath.Join(root, "src", "Sample-Shop", "Calculator.class.st"))
	require.NoError(t, err)
	cases := []struct {
		name string
		tool string
		args map[string]any
		want answer
	}{
		{"method source, CR line endings", "get_method_source", map[string]any{"class_name": "Calculator", "method_name": "sum:with:"},
			answer{result: `"sum: a with: b\r\r\t^ a + b"`}},
		{"class-side method by is_class_method", "get_method_source",
			map[string]any{"class_name": "Product", "method_name": "named:price:", "is_class_method": true},
			answer{result: `"named: aString price: aNumber\r\r\t^ self new\r\t\t  name: aString;\r\t\t  price: aNumber;\r\t\t  yourself"`}},
		{"class-side method by \"Foo class\"", "get_method_source", map[string]any{"class_name": "Product class", "method_name": "named:price:"},
			answer{check: func(t *testing.T, e envelope) {
				var src string
				e.result(t, &src)
				assert.True(t, strings.HasPrefix(src, "named: aString price: aNumber\r"), src)
			}}},
		{"class-side method asked on the instance side", "get_method_source",
			map[string]any{"class_name": "Product", "method_name": "named:price:", "is_class_method": false},
			answer{err: "KeyNotFound: key #named:price: not found in MethodDictionary"}},
		{"missing class", "get_method_source", map[string]any{"class_name": "Nope", "method_name": "x"},
			answer{err: "KeyNotFound: key #Nope not found in SystemDictionary"}},
		{"missing method", "get_method_source", map[string]any{"class_name": "Calculator", "method_name": "nope"},
			answer{err: "KeyNotFound: key #nope not found in MethodDictionary"}},
		{"class source", "get_class_source", map[string]any{"class_name": "Calculator"},
			answer{check: func(t *testing.T, e envelope) {
				var src string
				e.result(t, &src)
				assert.Equal(t, string(calculatorFile), src)
			}}},
		{"class source of a missing class", "get_class_source", map[string]any{"class_name": "Nope"},
			answer{err: "KeyNotFound: key #Nope not found in SystemDictionary"}},
		{"class comment", "get_class_comment", map[string]any{"class_name": "SimBase"},
			answer{result: `"A base class for the simulator's tests: an instance variable, a class\rvariable and a class-side instance variable."`}},
		{"comment of a missing class", "get_class_comment", map[string]any{"class_name": "Nope"},
			answer{err: "KeyNotFound: key #Nope not found in SystemDictionary"}},
		{"classes like", "search_classes_like", map[string]any{"class_name_query": "shop"},
			answer{result: `["ShoppingCart", "ShoppingCartTest"]`}},
		{"methods like", "search_methods_like", map[string]any{"method_name_query": "total"},
			answer{result: `["total", "totalWithoutTax"]`}},
		{"traits like", "search_traits_like", map[string]any{"trait_name_query": "T"},
			answer{result: `["TSimGreeting"]`}},
		{"implementors", "search_implementors", map[string]any{"method_name": "name:"},
			answer{result: `[{"class": "Customer", "method": "name:", "package": "Sample-Shop"},
				{"class": "Product", "method": "name:", "package": "Sample-Shop"}]`}},
		{"class-side implementors", "search_implementors", map[string]any{"method_name": "taxRate"},
			answer{result: `[{"class": "ShoppingCart class", "method": "taxRate", "package": "Sample-Shop"}]`}},
		{"references: sends", "search_references", map[string]any{"method_name_or_symbol": "taxRate"},
			answer{result: `[{"class": "ShoppingCart", "method": "total", "package": "Sample-Shop"}]`}},
		{"references: sends and symbols", "search_references", map[string]any{"method_name_or_symbol": "shout"},
			answer{result: `[{"class": "SimChild", "method": "zzLast", "package": "Sim-Extras"},
				{"class": "TSimGreeting", "method": "greet", "package": "Sim-Extras"}]`}},
		{"references to a class", "search_references_to_class", map[string]any{"class_name": "Invoice"},
			answer{result: `[{"package": "Sample-Shop", "class": "InvoiceTest", "method": "testDueDateIsAWeekday"},
				{"package": "Sample-Shop", "class": "InvoiceTest", "method": "testText"}]`}},
		{"references to a missing class", "search_references_to_class", map[string]any{"class_name": "Nope"},
			answer{err: "KeyNotFound: key #Nope not found in SystemDictionary"}},
		{"packages", "list_packages", nil, answer{result: `["Sample-Shop", "Sim-Extras"]`}},
		{"classes", "list_classes", map[string]any{"package_name": "Sample-Shop"},
			answer{result: `["Calculator", "CalculatorTest", "Customer", "CustomerTest", "Invoice", "InvoiceTest",
				"OrderProcessor", "OrderProcessorTest", "Product", "ShoppingCart", "ShoppingCartTest"]`}},
		{"classes of a missing package", "list_classes", map[string]any{"package_name": "Nope"},
			answer{err: "KeyNotFound: key #Nope not found in PackageOrganizer"}},
		{"extended classes", "list_extended_classes", map[string]any{"package_name": "Sim-Extras"},
			answer{result: `["String"]`}},
		{"methods", "list_methods", map[string]any{"package_name": "Sim-Extras"},
			answer{result: `["SimBase class>>#instances", "SimBase class>>#registry", "SimBase>>#base",
				"SimChild>>#both", "SimChild>>#registered", "SimChild>>#zzLast", "SimLegacy>>#seconds",
				"SimLegacy>>#value", "String>>#shout", "TSimGreeting class>>#greeting", "TSimGreeting>>#greet"]`}},
		{"class tests", "run_class_test", map[string]any{"class_name": "CalculatorTest"},
			answer{result: `"7 ran, 7 passed, 0 skipped, 0 expected failures, 0 failures, 0 errors, 0 passed unexpected\rFailures:\r\rErrors:\r"`}},
		{"tests of a class that is not a TestCase", "run_class_test", map[string]any{"class_name": "Calculator"},
			answer{err: "MessageNotUnderstood: Calculator class>>doesNotUnderstand: #suite"}},
		{"tests of a missing class", "run_class_test", map[string]any{"class_name": "Nope"},
			answer{err: "KeyNotFound: key #Nope not found in SystemDictionary"}},
		{"package tests", "run_package_test", map[string]any{"package_name": "Sample-Shop"},
			answer{result: `"18 ran, 18 passed, 0 skipped, 0 expected failures, 0 failures, 0 errors, 0 passed unexpected\rFailures:\r\rErrors:\r"`}},
		{"package without tests", "run_package_test", map[string]any{"package_name": "Sim-Extras"},
			answer{result: `"No tests ran\rFailures:\r\rErrors:\r"`}},
		{"tests of a missing package", "run_package_test", map[string]any{"package_name": "Nope"},
			answer{err: "KeyNotFound: key #Nope not found in PackageOrganizer"}},
		{"export is not simulated", "export_package", map[string]any{"package_name": "Sample-Shop", "path": "/tmp"},
			answer{err: "Error: export_package is not supported by pharo-sim"}},
		{"settings are the simulator's state", "get_settings", nil,
			answer{check: func(t *testing.T, e envelope) {
				require.True(t, e.Success, "error: %s", e.Error)
				var got struct {
					Sim struct {
						Packages, Classes, Methods int
						Skipped                    []any `json:"skipped_files"`
					} `json:"pharo_sim"`
				}
				require.NoError(t, json.Unmarshal(e.Result, &got))
				assert.Equal(t, 2, got.Sim.Packages)
				assert.Positive(t, got.Sim.Methods)
				assert.NotNil(t, got.Sim.Skipped)
				assert.Empty(t, got.Sim.Skipped)
			}}},
		{"import is not simulated", "import_package", map[string]any{"package_name": "Sample-Shop", "path": "/tmp"},
			answer{err: "Error: import_package is not supported by pharo-sim"}},
		{"Metacello is not simulated", "install_project", map[string]any{"project_name": "X", "repository_url": "github://x/y:main/src"},
			answer{err: "Error: install_project is not supported by pharo-sim"}},
		{"the screen is not simulated", "read_screen", map[string]any{"target_type": "world"},
			answer{err: "Error: read_screen is not supported by pharo-sim"}},
		{"settings cannot be applied", "apply_settings", map[string]any{"settings": map[string]any{"stack_size": 5}},
			answer{err: "Error: apply_settings is not supported by pharo-sim"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.want.verify(t, s.call(t, tc.tool, tc.args))
		})
	}
}

// The eval steps run in order against one image: later steps see earlier
// changes.
func TestEveryEvalShape(t *testing.T) {
	s := startSim(t, nil, "--dir", testenv.SimTree(t))
	steps := []struct {
		name string
		code string
		want answer
	}{
		{"protocol", protocolExpr("Calculator", false, "sum:with:"), answer{result: `"calculating"`}},
		{"protocol, class side", protocolExpr("Calculator", true, "compute:with:operation:"), answer{result: `"calculating"`}},
		{"protocol of a missing method", protocolExpr("Calculator", false, "nope"),
			answer{err: "KeyNotFound: key #nope not found in MethodDictionary"}},
		{"protocol in a missing class", protocolExpr("Nope", false, "sum:with:"),
			answer{err: "KeyNotFound: key #Nope not found in SystemDictionary"}},

		{"dry compile OK", dryCompileExpr("Calculator", false, "sum: a with: b\n\t^ memory + a + b"), answer{result: `"OK"`}},
		{"dry compile, CR line endings", dryCompileExpr("ShoppingCart", true, "rate\r\t^ TaxRate"), answer{result: `"OK"`}},
		{"dry compile syntax error", dryCompileExpr("Calculator", false, "sum: a with: b\n\t^ (a + b"), answer{result: `"ERR|25|')' expected"`}},
		{"dry compile undeclared variable", dryCompileExpr("Calculator", false, "sum: a with: b\n\t^ a + c"), answer{result: `"ERR|23|Undeclared variable"`}},
		{"dry compile store into an argument", dryCompileExpr("Calculator", false, "sum: a with: b\n\ta := 1.\n\t^ a + b"), answer{result: `"ERR|17|Cannot store into"`}},
		{"dry compile in a missing class", dryCompileExpr("Nope", false, "foo ^ 1"), answer{result: `"ERR|?|key #Nope not found in SystemDictionary"`}},
		{"dry compile installs nothing", protocolExpr("Calculator", false, "rate"), answer{err: "KeyNotFound: key #rate not found in MethodDictionary"}},

		{"install", installExpr("Calculator", false, "half: x\r\t^ x / 2", "calculating"), answer{result: `"half:"`}},
		{"installed", protocolExpr("Calculator", false, "half:"), answer{result: `"calculating"`}},
		{"install keeping the protocol", installExpr("Calculator", false, "half: x\n\t^ x / 2.0", ""), answer{result: `"half:"`}},
		{"protocol kept", protocolExpr("Calculator", false, "half:"), answer{result: `"calculating"`}},
		{"install new method without protocol", installExpr("Calculator", true, "zero\n\t^ 0", ""), answer{result: `"zero"`}},
		{"default protocol", protocolExpr("Calculator", true, "zero"), answer{result: `"as yet unclassified"`}},
		{"install with a syntax error", installExpr("Calculator", false, "half: x ^ (x / 2", "calculating"),
			answer{err: "CodeError:OCSyntaxErrorNotice Calculator>>#DoIt 17:')' expected->"}},
		{"install into a missing class", installExpr("Nope", false, "foo ^ 1", "x"),
			answer{err: "KeyNotFound: key #Nope not found in SystemDictionary"}},

		{"remove", checkedRemoveExpr("Calculator", true, "zero"), answer{result: `true`}},
		{"removed", protocolExpr("Calculator", true, "zero"), answer{err: "KeyNotFound: key #zero not found in MethodDictionary"}},
		{"remove an absent method", checkedRemoveExpr("Calculator", true, "zero"), answer{result: `false`}},
		{"remove in a missing class", checkedRemoveExpr("Nope", false, "zero"), answer{err: "KeyNotFound: key #Nope not found in SystemDictionary"}},
		{"bare removeSelector: answers the class, which cannot be serialized", removeExpr("Calculator", false, "half:"), unserializable("Calculator class")},
		{"…and removes the method all the same", protocolExpr("Calculator", false, "half:"), answer{err: "KeyNotFound: key #half: not found in MethodDictionary"}},

		{"a TestCase", isTestCaseExpr("CalculatorTest"), answer{result: `true`}},
		{"not a TestCase", isTestCaseExpr("Calculator"), answer{result: `false`}},
		{"TestCase itself", isTestCaseExpr("TestCase"), answer{result: `false`}},
		{"no such global", isTestCaseExpr("NopeTest"), answer{result: `false`}},

		{"class exists", existsExpr("Calculator"), answer{result: `true`}},
		{"a Pharo global exists", existsExpr("OrderedCollection"), answer{result: `true`}},
		{"class does not exist", existsExpr("Nope"), answer{result: `false`}},

		{"arbitrary code", "Smalltalk at: #X put: 1", answer{err: "Error: pharo-sim does not evaluate arbitrary Smalltalk"}},
		{"code that would raise ZeroDivide", "1/0", answer{err: "Error: pharo-sim does not evaluate arbitrary Smalltalk"}},
		{"syntax error in the eval'd code", "(Smalltalk globals at: #Calculator) removeSelector: #foo:bar: )",
			answer{err: "CodeError:OCSyntaxErrorNotice UndefinedObject>>#DoIt"}},
	}
	for _, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			step.want.verify(t, s.eval(t, step.code))
		})
	}
}

func TestCompileWritesTheFileAndKeepsTheRest(t *testing.T) {
	root := testenv.SimTree(t)
	path := filepath.Join(root, "src", "Sample-Shop", "ShoppingCart.class.st")
	original, err := os.ReadFile(path)
	require.NoError(t, err)
	s := startSim(t, nil, "--dir", root)

	newItemCount := "itemCount\r\r\t^ items inject: 0 into: [ :sum :each | sum + each value ]"
	s.eval(t, installExpr("ShoppingCart", false, newItemCount, "accessing")).result(t, new(string))

	oldMethod := "ShoppingCart >> itemCount [\n\n\t| n |\n\tn := 0.\n\titems do: [ :each | n := n + each value ].\n\t^ n\n]"
	newMethod := "ShoppingCart >> itemCount [\n\n\t^ items inject: 0 into: [ :sum :each | sum + each value ]\n]"
	require.Contains(t, string(original), oldMethod)
	want := strings.Replace(string(original), oldMethod, newMethod, 1)
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, want, string(got), "only the method's text changed, with LF line endings on disk")

	var src string
	s.call(t, "get_method_source", map[string]any{"class_name": "ShoppingCart", "method_name": "itemCount"}).result(t, &src)
	assert.Equal(t, newItemCount, src, "the image answers the new source with CR line endings")

	// a new method lands at its sorted place, and removing it restores the file
	s.eval(t, installExpr("ShoppingCart", false, "isEmpty\n\n\t^ items isEmpty", "testing")).result(t, new(string))
	withNew, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Less(t, strings.Index(string(withNew), ">> initialize ["), strings.Index(string(withNew), ">> isEmpty ["))
	assert.Less(t, strings.Index(string(withNew), ">> isEmpty ["), strings.Index(string(withNew), ">> itemCount ["))
	s.eval(t, removeExpr("ShoppingCart", false, "isEmpty"))
	got, err = os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, want, string(got))

	// every other file is untouched
	for _, name := range []string{"Calculator.class.st", "Customer.class.st", "package.st"} {
		a, err := os.ReadFile(filepath.Join("..", "..", "examples", "sample-image", "src", "Sample-Shop", name))
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(root, "src", "Sample-Shop", name))
		require.NoError(t, err)
		assert.Equal(t, string(a), string(b), name)
	}
}

// TestTestsFlipWithTheSource: the sample image's CalculatorTest runs for
// real, so a compile that breaks a method turns its test red at once, and
// repairing it turns it green.
func TestTestsFlipWithTheSource(t *testing.T) {
	s := startSim(t, nil, "--dir", testenv.SimTree(t))
	run := func(tool, arg, value string) string {
		var text string
		s.call(t, tool, map[string]any{arg: value}).result(t, &text)
		return text
	}
	green := "7 ran, 7 passed, 0 skipped, 0 expected failures, 0 failures, 0 errors, 0 passed unexpected\rFailures:\r\rErrors:\r"
	require.Equal(t, green, run("run_class_test", "class_name", "CalculatorTest"))

	s.eval(t, installExpr("Calculator", false, "sum: a with: b\n\n\t^ a - b", "calculating")).result(t, new(string))
	assert.Equal(t, "7 ran, 6 passed, 0 skipped, 0 expected failures, 1 failure, 0 errors, 0 passed unexpected\r"+
		"Failures:\rCalculatorTest>>#testSum\r\rErrors:\r", run("run_class_test", "class_name", "CalculatorTest"))

	s.eval(t, installExpr("Calculator", false, "divide: a by: b\n\n\t^ a / b", "calculating")).result(t, new(string))
	assert.Equal(t, "7 ran, 5 passed, 0 skipped, 0 expected failures, 1 failure, 1 error, 0 passed unexpected\r"+
		"Failures:\rCalculatorTest>>#testSum\r\rErrors:\rCalculatorTest>>#testDivideByZero\r", run("run_class_test", "class_name", "CalculatorTest"))
	assert.True(t, strings.HasPrefix(run("run_package_test", "package_name", "Sample-Shop"),
		"18 ran, 16 passed, 0 skipped, 0 expected failures, 1 failure, 1 error, 0 passed unexpected\r"))

	s.eval(t, installExpr("Calculator", false, "sum: a with: b\n\n\t^ a + b", "calculating")).result(t, new(string))
	s.eval(t, installExpr("Calculator", false, "divide: a by: b\n\n\tb isZero ifTrue: [ ^ nil ].\n\t^ a / b", "calculating")).result(t, new(string))
	assert.Equal(t, green, run("run_class_test", "class_name", "CalculatorTest"))
}
