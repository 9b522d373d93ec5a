package pharosim

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/internal/testenv"
	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

func TestMethodSourceLookups(t *testing.T) {
	t.Parallel()
	img, _ := loadTestImage(t)
	cases := []struct {
		name    string
		key     string
		prefix  string // of the source
		wantErr string // the image's description
	}{
		{"instance side", "Calculator>>sum:with:", "sum: a with: b\n\n\t^ a + b", ""},
		{"class side", "Calculator class>>compute:with:operation:", "compute: a with: b operation: aString\n", ""},
		{"extension method", "String>>shout", "shout\n\n\t^ self asUppercase", ""},
		{"trait class side", "TSimGreeting class>>greeting", "greeting", ""},
		{"symbol style file", "SimLegacy>>seconds", "seconds\n\t^ SecondsInDay", ""},
		{"missing class", "Nope>>sum:with:", "", "KeyNotFound: key #Nope not found in SystemDictionary"},
		{"missing method", "Calculator>>nope", "", "KeyNotFound: key #nope not found in MethodDictionary"},
		{"class-side method asked on the instance side", "Calculator>>compute:with:operation:", "",
			"KeyNotFound: key #compute:with:operation: not found in MethodDictionary"},
		{"well-known global without source", "Object>>printString", "", "Error: pharo-sim holds no source for Object"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src, err := img.MethodSource(mustKey(t, tc.key))
			if tc.wantErr != "" {
				var ie *ImageError
				require.ErrorAs(t, err, &ie)
				assert.True(t, strings.HasPrefix(ie.Description(), tc.wantErr), ie.Description())
				return
			}
			require.NoError(t, err)
			assert.True(t, strings.HasPrefix(src, tc.prefix), "source %q", src)
		})
	}
}

func TestProtocolAndComment(t *testing.T) {
	t.Parallel()
	img, _ := loadTestImage(t)
	for key, want := range map[string]string{
		"Calculator>>sum:with:":            "calculating",
		"Product class>>named:price:":      "instance creation",
		"SimLegacy>>value":                 "accessing",
		"String>>shout":                    "*Sim-Extras",
		"TSimGreeting class>>greeting":     "greeting",
		"ShoppingCart class>>taxRate":      "class initialization",
		"OrderProcessor>>shippingCostFor:": "pricing",
	} {
		got, err := img.Protocol(mustKey(t, key))
		require.NoError(t, err, key)
		assert.Equal(t, want, got, key)
	}
	comment, err := img.ClassComment("Calculator")
	require.NoError(t, err)
	assert.Equal(t, "I do the arithmetic the shop needs. Some of my methods could be clearer.", comment)
	comment, err = img.ClassComment("CalculatorTest")
	require.NoError(t, err)
	assert.Empty(t, comment)
	_, err = img.ClassComment("Nope")
	require.Error(t, err)
}

func TestListings(t *testing.T) {
	t.Parallel()
	img, _ := loadTestImage(t)
	assert.Equal(t, []string{"Sample-Shop", "Sim-Extras"}, img.PackageNames())

	classes, err := img.PackageClasses("Sim-Extras")
	require.NoError(t, err)
	assert.Equal(t, []string{"SimBase", "SimChild", "SimLegacy", "TSimGreeting"}, classes)

	extended, err := img.ExtendedClasses("Sim-Extras")
	require.NoError(t, err)
	assert.Equal(t, []string{"String"}, extended)

	methods, err := img.PackageMethods("Sim-Extras")
	require.NoError(t, err)
	assert.Equal(t, []string{
		"SimBase class>>#instances", "SimBase class>>#registry", "SimBase>>#base",
		"SimChild>>#both", "SimChild>>#registered", "SimChild>>#zzLast",
		"SimLegacy>>#seconds", "SimLegacy>>#value", "String>>#shout",
		"TSimGreeting class>>#greeting", "TSimGreeting>>#greet",
	}, methods)

	for _, list := range []func(string) ([]string, error){img.PackageClasses, img.ExtendedClasses, img.PackageMethods} {
		_, err := list("Nope")
		var ie *ImageError
		require.ErrorAs(t, err, &ie)
		assert.Equal(t, "KeyNotFound: key #Nope not found in PackageOrganizer", ie.Description())
	}
}

func TestSearches(t *testing.T) {
	t.Parallel()
	img, _ := loadTestImage(t)
	assert.Equal(t, []string{"ShoppingCart", "ShoppingCartTest"}, img.ClassesLike("shop"))
	assert.Equal(t, []string{}, img.ClassesLike("Zork"))
	assert.NotContains(t, img.ClassesLike(""), "TSimGreeting", "traits are not classes")
	assert.Equal(t, []string{"TSimGreeting"}, img.TraitsLike("tsim"))
	assert.Equal(t, []string{"total", "totalWithoutTax"}, img.SelectorsLike("total"))
	assert.Empty(t, img.SelectorsLike("Total"), "selector search is case-sensitive")

	assert.Equal(t, []Reference{{Class: "ShoppingCart", Method: "total", Package: "Sample-Shop"}}, img.Implementors("total"))
	assert.Equal(t, []Reference{{Class: "TSimGreeting class", Method: "greeting", Package: "Sim-Extras"}}, img.Implementors("greeting"))
	assert.Equal(t, []Reference{}, img.Implementors("zork"))

	// sends and symbols both count
	assert.Equal(t, []Reference{
		{Class: "SimChild", Method: "zzLast", Package: "Sim-Extras"},
		{Class: "TSimGreeting", Method: "greet", Package: "Sim-Extras"},
	}, img.References("shout"))
	assert.Equal(t, []Reference{{Class: "ShoppingCart", Method: "total", Package: "Sample-Shop"}}, img.References("taxRate"))

	refs, err := img.ReferencesToClass("Calculator")
	require.NoError(t, err)
	assert.Equal(t, []Reference{
		{Class: "CalculatorTest", Method: "setUp", Package: "Sample-Shop"},
		{Class: "CalculatorTest", Method: "testCompute", Package: "Sample-Shop"},
	}, refs)
	_, err = img.ReferencesToClass("Nope")
	require.Error(t, err)
}

func TestDryCompile(t *testing.T) {
	t.Parallel()
	img, _ := loadTestImage(t)
	cases := []struct {
		name, class string
		side        Side
		source      string
		want        string
	}{
		{"compiles", "Calculator", InstanceSide, "foo\n\t^ memory + 1", "OK"},
		{"syntax error", "Calculator", InstanceSide, "foo\n\t^ (1 + 2", "ERR|14|')' expected"},
		{"undeclared temporary-like name", "Calculator", InstanceSide, "foo ^ zork + 1", "ERR|7|Undeclared variable"},
		{"undeclared global", "Calculator", InstanceSide, "foo ^ Zork new", "ERR|7|Undeclared variable"},
		{"first problem by position", "Calculator", InstanceSide, "foo: x x := Zork. ^ zork", "ERR|8|Cannot store into"},
		{"position counts characters", "Calculator", InstanceSide, "foo ^ 'é' , zork", "ERR|13|Undeclared variable"},
		{"CR line endings", "Calculator", InstanceSide, "foo\r\t^ zork", "ERR|8|Undeclared variable"},
		{"another class's variable", "Calculator", InstanceSide, "foo ^ items", "ERR|7|Undeclared variable"},
		{"image classes and Pharo globals", "Calculator", InstanceSide, "foo ^ Customer new -> OrderedCollection new", "OK"},
		{"class variable, instance side", "ShoppingCart", InstanceSide, "foo ^ TaxRate", "OK"},
		{"class variable, class side", "ShoppingCart", ClassSide, "foo ^ TaxRate", "OK"},
		{"instance variable on the class side", "ShoppingCart", ClassSide, "foo ^ items", "ERR|7|Undeclared variable"},
		{"class-instance variable, class side", "SimBase", ClassSide, "foo ^ instances", "OK"},
		{"class-instance variable, instance side", "SimBase", InstanceSide, "foo ^ instances", "ERR|7|Undeclared variable"},
		{"inherited variables", "SimChild", InstanceSide, "foo ^ base -> child -> Registry", "OK"},
		{"pool variables are assumed", "SimLegacy", InstanceSide, "foo ^ SecondsInDay", "OK"},
		{"pools do not cover lower case", "SimLegacy", InstanceSide, "foo ^ zork", "ERR|7|Undeclared variable"},
		{"block scoping", "Calculator", InstanceSide, "foo #(1) do: [ :e | e ]. ^ e", "ERR|28|Undeclared variable"},
		{"well-known class without source", "Object", InstanceSide, "foo ^ self", "OK"},
		{"missing class", "Nope", InstanceSide, "foo ^ 1", "ERR|?|key #Nope not found in SystemDictionary"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, img.DryCompile(tc.class, tc.side, tc.source))
		})
	}
}

// fileOf returns the path of a sample-image or fixture file in the tree.
func fileOf(root, pkg, name string) string {
	return filepath.Join(root, "src", pkg, name)
}

func TestCompileReplacesOnlyTheMethodText(t *testing.T) {
	t.Parallel()
	img, root := loadTestImage(t)
	path := fileOf(root, "Sample-Shop", "Calculator.class.st")
	before := readFile(t, path)

	sel, err := img.Compile("Calculator", InstanceSide, "sum: a with: b\r\t\"swapped\"\r\t^ b + a", "calculating")
	require.NoError(t, err)
	assert.Equal(t, "sum:with:", sel)

	want := strings.Replace(before, "sum: a with: b [\n\n\t^ a + b\n]", "sum: a with: b [\n\t\"swapped\"\n\t^ b + a\n]", 1)
	require.NotEqual(t, before, want, "the test must change something")
	assert.Equal(t, want, readFile(t, path), "only the method's text changes, with LF line endings")

	src, err := img.MethodSource(mustKey(t, "Calculator>>sum:with:"))
	require.NoError(t, err)
	assert.Equal(t, "sum: a with: b\n\t\"swapped\"\n\t^ b + a", src)

	reloaded, err := LoadImage(root, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = reloaded.Close() })
	src2, err := reloaded.MethodSource(mustKey(t, "Calculator>>sum:with:"))
	require.NoError(t, err)
	assert.Equal(t, src, src2, "the change is on disk")
}

// A method read and compiled back as it was — a rollback's restore —
// leaves its file byte for byte as it was, whatever ends its body: blank
// lines before its closing bracket, spaces after its last statement (NeoCSV
// has both); get_method_source answers them, and the Tonel body keeps
// what the source holds.
func TestCompilingAMethodBackAsReadKeepsItsFile(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, body, read string }{
		{"a blank line before the bracket", "sum: a with: b [\n\n\t^ a + b\n\n]", "sum: a with: b\n\n\t^ a + b\n"},
		{"a space after the last statement", "sum: a with: b [\n\n\t^ a + b \n]", "sum: a with: b\n\n\t^ a + b "},
		{"a tab and a blank line", "sum: a with: b [\n\n\t^ a + b\t\n\n]", "sum: a with: b\n\n\t^ a + b\t\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, root := loadTestImage(t)
			path := fileOf(root, "Sample-Shop", "Calculator.class.st")
			original := readFile(t, path)
			edited := strings.Replace(original, "sum: a with: b [\n\n\t^ a + b\n]", tc.body, 1)
			require.NotEqual(t, original, edited)
			require.NoError(t, os.WriteFile(path, []byte(edited), 0o644))
			img, err := LoadImage(root, nil)
			require.NoError(t, err)
			t.Cleanup(func() { _ = img.Close() })

			key := mustKey(t, "Calculator>>sum:with:")
			read, err := img.MethodSource(key)
			require.NoError(t, err)
			assert.Equal(t, tc.read, read, "what ends the body is part of the source")
			_, err = img.Compile("Calculator", InstanceSide, "sum: a with: b\n\t^ a - b", "calculating")
			require.NoError(t, err)
			_, err = img.Compile("Calculator", InstanceSide, toCR(read), "calculating")
			require.NoError(t, err)
			assert.Equal(t, edited, readFile(t, path), "the file is as it was, byte for byte")
		})
	}
}

func TestCompileKeepsOrSetsTheProtocol(t *testing.T) {
	t.Parallel()
	img, _ := loadTestImage(t)
	cases := []struct {
		name, class string
		side        Side
		source      string
		protocol    string
		key         string
		want        string
	}{
		{"compile: keeps the protocol", "Calculator", InstanceSide, "sum: a with: b ^ 0", "", "Calculator>>sum:with:", "calculating"},
		{"compile:classified: moves it", "Calculator", InstanceSide, "divide: a by: b ^ 0", "arithmetic", "Calculator>>divide:by:", "arithmetic"},
		{"new method without protocol", "Calculator", InstanceSide, "zeta ^ 1", "", "Calculator>>zeta", "as yet unclassified"},
		{"new class-side method", "Calculator", ClassSide, "pi ^ 355 / 113", "constants", "Calculator class>>pi", "constants"},
		{"symbol-style file", "SimLegacy", InstanceSide, "value ^ value + 0", "accessing", "SimLegacy>>value", "accessing"},
		{"extension-only class", "String", InstanceSide, "whisper ^ self asLowercase", "*Sim-Extras", "String>>whisper", "*Sim-Extras"},
		{"trait class side", "TSimGreeting", ClassSide, "greeting ^ 'Hi'", "", "TSimGreeting class>>greeting", "greeting"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := img.Compile(tc.class, tc.side, tc.source, tc.protocol)
			require.NoError(t, err)
			got, err := img.Protocol(mustKey(t, tc.key))
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
	// everything written must read back from disk the same
	reloaded, err := LoadImage(img.Root(), nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = reloaded.Close() })
	for _, tc := range cases {
		want, err := img.MethodSource(mustKey(t, tc.key))
		require.NoError(t, err)
		got, err := reloaded.MethodSource(mustKey(t, tc.key))
		require.NoError(t, err)
		assert.Equal(t, want, got, tc.key)
	}
}

func TestNewMethodsGoWherePharoWritesThem(t *testing.T) {
	t.Parallel()
	img, root := loadTestImage(t)
	_, err := img.Compile("Calculator", InstanceSide, "aardvark ^ 1", "")
	require.NoError(t, err)
	_, err = img.Compile("String", InstanceSide, "whisper ^ self", "*Sim-Extras")
	require.NoError(t, err)

	f, err := tonel.ReadFile(fileOf(root, "Sample-Shop", "Calculator.class.st"))
	require.NoError(t, err)
	var order []string
	for _, m := range f.Methods {
		order = append(order, m.Side.String()+" "+m.Selector)
	}
	assert.Equal(t, []string{"class compute:with:operation:", "instance aardvark", "instance average:",
		"instance divide:by:", "instance memory", "instance memoryAdd:", "instance percent:of:", "instance sum:with:"}, order)

	ext, err := tonel.ReadFile(fileOf(root, "Sim-Extras", "String.extension.st"))
	require.NoError(t, err)
	assert.NotNil(t, ext.Method(InstanceSide, "whisper"), "a class the tree only extends gets new methods in its extension file")
}

func TestAddThenRemoveGivesTheFileBack(t *testing.T) {
	t.Parallel()
	img, root := loadTestImage(t)
	path := fileOf(root, "Sample-Shop", "ShoppingCart.class.st")
	before := readFile(t, path)

	_, err := img.Compile("ShoppingCart", InstanceSide, "isEmpty\n\n\t^ items isEmpty", "testing")
	require.NoError(t, err)
	require.NotEqual(t, before, readFile(t, path))
	removed, err := img.Remove("ShoppingCart", InstanceSide, "isEmpty")
	require.NoError(t, err)
	assert.True(t, removed)
	assert.Equal(t, before, readFile(t, path))

	removed, err = img.Remove("ShoppingCart", InstanceSide, "isEmpty")
	require.NoError(t, err)
	assert.False(t, removed, "removing an absent method is not an error")
	_, err = img.Remove("Nope", InstanceSide, "isEmpty")
	require.Error(t, err)
}

func TestCompileRefusals(t *testing.T) {
	t.Parallel()
	img, root := loadTestImage(t)
	path := fileOf(root, "Sample-Shop", "Calculator.class.st")
	before := readFile(t, path)
	cases := []struct {
		name, class, source, want string
	}{
		{"syntax error", "Calculator", "sum: a with: b ^ (a + b", "CodeError:OCSyntaxErrorNotice Calculator>>#DoIt 24:')' expected->"},
		{"no pattern", "Calculator", "^ 1", "CodeError:OCSyntaxErrorNotice Calculator>>#DoIt 1:"},
		{"missing class", "Nope", "foo ^ 1", "KeyNotFound: key #Nope not found in SystemDictionary"},
		{"class without source", "Object", "foo ^ 1", "Error: pharo-sim holds no source for Object"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := img.Compile(tc.class, InstanceSide, tc.source, "x")
			var ie *ImageError
			require.True(t, errors.As(err, &ie), "an image error, got %v", err)
			assert.True(t, strings.HasPrefix(ie.Description(), tc.want), ie.Description())
		})
	}
	assert.Equal(t, before, readFile(t, path), "nothing was written")
}

func TestLoadSkipsBrokenFilesAndRefusesNoTree(t *testing.T) {
	t.Parallel()
	root := testenv.SimTree(t)
	path := fileOf(root, "Sample-Shop", "Calculator.class.st")
	require.NoError(t, writeFile(path, "Class {\n\t#name : 'Calculator'\n}\n\nCalculator >> broken [\n\t^ 1\n"))
	img, err := LoadImage(root, nil)
	require.NoError(t, err, "one bad file does not stop the image")
	t.Cleanup(func() { _ = img.Close() })
	assert.Equal(t, []SkippedFile{{Path: path, Line: 5, Column: 1, Reason: "unterminated method body: no matching ']' in Calculator >> broken"}}, img.Skipped())
	assert.False(t, img.HasGlobal("Calculator"))
	assert.True(t, img.HasGlobal("ShoppingCart"))

	_, err = LoadImage(filepath.Join(root, "nowhere"), nil)
	require.Error(t, err)
}

func TestLoadRemovesStaleTemporaries(t *testing.T) {
	t.Parallel()
	root := testenv.SimTree(t)
	stale := fileOf(root, "Sample-Shop", ".Calculator.class.st.tmp-123")
	require.NoError(t, writeFile(stale, "half a file"))
	img, err := LoadImage(root, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = img.Close() })
	assert.NoFileExists(t, stale)
}

func TestClassSource(t *testing.T) {
	t.Parallel()
	img, root := loadTestImage(t)
	src, err := img.ClassSource("Calculator")
	require.NoError(t, err)
	assert.Equal(t, readFile(t, fileOf(root, "Sample-Shop", "Calculator.class.st")), src,
		"a Pharo 12 class file is exactly what TonelWriter writes")

	src, err = img.ClassSource("String")
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(src, "Extension { #name : 'String' }"), src)
	assert.Contains(t, src, "String >> shout [")

	src, err = img.ClassSource("SimLegacy")
	require.NoError(t, err)
	assert.Contains(t, src, "#name : 'SimLegacy'", "written in Pharo 12's string style")
	assert.Less(t, strings.Index(src, ">> seconds"), strings.Index(src, ">> value"), "methods sorted")

	_, err = img.ClassSource("Nope")
	require.Error(t, err)
}

// Pharo installs a method naming an undeclared variable (it becomes an
// Undeclared binding); only the dry compile reports it.
func TestCompileInstallsDespiteUndeclaredVariables(t *testing.T) {
	t.Parallel()
	img, _ := loadTestImage(t)
	source := "usesZork\n\t^ zork"
	assert.Equal(t, "ERR|13|Undeclared variable", img.DryCompile("Calculator", InstanceSide, source))
	sel, err := img.Compile("Calculator", InstanceSide, source, "x")
	require.NoError(t, err)
	assert.Equal(t, "usesZork", sel)
}
