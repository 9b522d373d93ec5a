package tonel

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Constructs of real Pharo repositories (docs/pharo-interop.md, "Real
// Pharo code"): STON escapes in metadata, folders that are not packages, broken
// files among good ones, and class files of thousands of methods.

// escapedClass uses STON's backslash escapes in every kind of metadata
// string: the class header, an #instVars entry (a slot definition) and a
// method category.
var escapedClass = lines(
	`Class {`,
	"\t#name : 'Quoting',",
	"\t#superclass : 'Object',",
	"\t#instVars : [",
	"\t\t'plain',",
	`		'#owner => ToOneRelationSlot inverse: #items inClass: #\'Basket\''`,
	"\t],",
	`	#category : 'Kit-Drag\'n\'Drop',`,
	`	#package : 'Kit',`,
	`	#tag : 'Back\\slash'`,
	`}`,
	``,
	`{ #category : 'drag\'n\'drop' }`,
	`Quoting >> drop [`,
	"\t^ 'it''s dropped'",
	`]`,
	``,
	`{ #category : #'symbol\'s' }`,
	`Quoting >> symbolic [`,
	"\t^ #'quote''s'",
	`]`,
	``,
	`{ #category : 'ends in a backslash\\' }`,
	`Quoting >> windows [`,
	"\t^ 'C:\\'",
	`]`,
)

func TestSTONEscapesInMetadata(t *testing.T) {
	t.Parallel()
	f := mustParse(t, escapedClass)
	assert.Equal(t, "Quoting", f.Def.Name)
	assert.Equal(t, "Kit-Drag'n'Drop", f.Def.Category)
	assert.Equal(t, `Back\slash`, f.Def.Tag)
	assert.Equal(t, []string{"plain", "#owner => ToOneRelationSlot inverse: #items inClass: #'Basket'"}, f.Def.InstVars)
	require.Len(t, f.Methods, 3)
	assert.Equal(t, "drag'n'drop", f.Methods[0].Category)
	assert.Equal(t, "drop\n\t^ 'it''s dropped'", f.Methods[0].Source, "method bodies keep Smalltalk's doubled quotes")
	assert.Equal(t, "symbol's", f.Methods[1].Category)
	assert.Equal(t, `ends in a backslash\`, f.Methods[2].Category)
	assert.Equal(t, escapedClass, string(f.Bytes()), "an unchanged file writes back byte for byte")
}

func TestSTONEscapesSurviveEdits(t *testing.T) {
	t.Parallel()
	f := mustParse(t, escapedClass)
	require.NoError(t, f.ReplaceMethod(InstanceSide, "symbolic", "symbolic\n\t^ #other", ""))
	want := strings.Replace(escapedClass, "symbolic [\n\t^ #'quote''s'\n]", "symbolic [\n\t^ #other\n]", 1)
	assert.Equal(t, want, string(f.Bytes()), "only the method's text changed; the escaped metadata stayed as written")

	require.NoError(t, f.ReplaceMethod(InstanceSide, "drop", "drop\n\t^ 1", "it's \\ here"))
	assert.Contains(t, string(f.Bytes()), `{ #category : 'it\'s \\ here' }`+"\nQuoting >> drop [")
	assert.Equal(t, `it's \ here`, f.Method(InstanceSide, "drop").Category)

	require.NoError(t, f.AddMethod(InstanceSide, "added\n\t^ 2", "drag'n'drop"))
	assert.Contains(t, string(f.Bytes()), `{ #category : 'drag\'n\'drop' }`+"\nQuoting >> added [")
	require.NoError(t, f.RemoveMethod(InstanceSide, "added"))
}

func TestSTONEscapesRendered(t *testing.T) {
	t.Parallel()
	f := mustParse(t, escapedClass)
	var methods []Method
	for _, m := range f.Methods {
		methods = append(methods, Method{Side: m.Side, Source: m.Source, Category: m.Category})
	}
	out, err := Render(f.Def, methods)
	require.NoError(t, err)
	text := string(out)
	assert.Contains(t, text, `#category : 'Kit-Drag\'n\'Drop'`)
	assert.Contains(t, text, `'#owner => ToOneRelationSlot inverse: #items inClass: #\'Basket\''`)
	assert.Contains(t, text, `{ #category : 'drag\'n\'drop' }`)
	assert.Contains(t, text, `{ #category : 'ends in a backslash\\' }`)
	again, err := ParseFile("again.class.st", out)
	require.NoError(t, err)
	assert.Equal(t, f.Def.InstVars, again.Def.InstVars)
	assert.Equal(t, f.Def.Category, again.Def.Category)
	for i, m := range again.Methods {
		assert.Equal(t, methods[i].Category, m.Category)
	}
}

func TestSTONStrings(t *testing.T) {
	t.Parallel()
	cases := []struct {
		raw, want string
	}{
		{`'plain'`, "plain"},
		{`'it\'s'`, "it's"},
		{`'it''s'`, "it's"},
		{`'a\\b'`, `a\b`},
		{`'end\\'`, `end\`},
		{`'\n\t\r\b\f'`, "\n\t\r\b\f"},
		{`'\u00E9t\u00e9'`, "été"},
		{`'\/'`, "/"},
		{`'\q'`, "q"},
		{`'\u12'`, "u12"},
	}
	for _, tc := range cases {
		end, ok := skipSTONString([]byte(tc.raw+" rest"), 0)
		require.True(t, ok, tc.raw)
		assert.Equal(t, len(tc.raw), end, tc.raw)
		assert.Equal(t, tc.want, unquoteSTON(tc.raw), tc.raw)
	}
	for _, s := range []string{"", "it's", `a\b`, `end\`, "tab\there", "nl\n", "\x01", "été"} {
		q := quoteString(s)
		end, ok := skipSTONString([]byte(q), 0)
		require.True(t, ok, q)
		assert.Equal(t, len(q), end, q)
		assert.Equal(t, s, unquoteSTON(q), "%q round trips through %s", s, q)
	}
	_, ok := skipSTONString([]byte(`'never closed\'`), 0)
	assert.False(t, ok)
}

func TestVarName(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"plain":                        "plain",
		"  spaced ":                    "spaced",
		"#owner => ToOneRelationSlot":  "owner",
		"#announcer => ObservableSlot": "announcer",
		"#bare":                        "bare",
		"name => Slot":                 "name",
	}
	for entry, want := range cases {
		assert.Equal(t, want, VarName(entry), entry)
	}
}

// writeTree writes files (path relative to root → content) under root.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, text := range files {
		path := filepath.Join(root, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	}
}

const goodClass = "Class { #name : 'Good', #superclass : 'Object', #package : 'Pkg' }\n\n{ #category : 'a' }\nGood >> one [\n\t^ 1\n]\n"

func TestOnlyFoldersWithPackageStAreRead(t *testing.T) {
	t.Parallel()
	layouts := map[string]map[string]string{
		"with .properties": {
			"src/.properties":          "{ #format : #tonel }",
			"src/Pkg/package.st":       "Package { #name : 'Pkg' }\n",
			"src/Pkg/Good.class.st":    goodClass,
			"src/scripts/load.st":      "Metacello new baseline: 'Pkg'; load.\n",
			"src/scripts/Odd.class.st": "not Tonel at all",
		},
		"without .properties": {
			"Pkg/package.st":       "Package { #name : 'Pkg' }\n",
			"Pkg/Good.class.st":    goodClass,
			"scripts/load.st":      "Metacello new baseline: 'Pkg'; load.\n",
			"doc/Example.class.st": "Class { #name : 'NotLoaded' }\n",
		},
	}
	for name, files := range layouts {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, root, files)
			tree, err := ReadTree(root)
			require.NoError(t, err, "folders without package.st are not read at all")
			require.Len(t, tree.Packages, 1)
			assert.Equal(t, "Pkg", tree.Packages[0].Name)
			assert.Len(t, tree.Files(), 2)
			assert.Nil(t, tree.Class("NotLoaded"))
		})
	}
}

func TestEveryBrokenFileOfAPackageIsReported(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"src/.properties":            "{ #format : #tonel }",
		"src/Pkg/package.st":         "Package { #name : 'Pkg' }\n",
		"src/Pkg/Good.class.st":      goodClass,
		"src/Pkg/BrokenA.class.st":   "Class { #name : 'BrokenA' }\n\nBrokenA >> a [\n\t^ 'unterminated\n]\n",
		"src/Pkg/BrokenB.class.st":   "Class {\n\t#name : 'BrokenB',\n\t#superclass 'Object'\n}\n",
		"src/Other/package.st":       "Package { #name : 'Other' }\n",
		"src/Other/BrokenC.class.st": "Class { #name : 'BrokenC' }\n\nBrokenC >> [\n]\n",
	})
	tree, err := ReadTree(root)
	require.NotNil(t, tree)
	require.Error(t, err)
	assert.NotNil(t, tree.Class("Good"), "the good file is read")

	joined, ok := err.(interface{ Unwrap() []error })
	require.True(t, ok, "errors.Join of one error per file")
	got := map[string]int{}
	for _, e := range joined.Unwrap() {
		var pe *ParseError
		require.True(t, errors.As(e, &pe), "%v", e)
		got[filepath.Base(pe.Path)] = pe.Line
		assert.NotEmpty(t, pe.Msg)
	}
	assert.Equal(t, map[string]int{"BrokenA.class.st": 4, "BrokenB.class.st": 3, "BrokenC.class.st": 3}, got)
}

func TestRecoveringReadReportsEveryBrokenMethod(t *testing.T) {
	t.Parallel()
	text := lines(
		"Class { #name : 'Mixed' }",
		"",
		"{ #category : 'a' }",
		"Mixed >> first [",
		"\t^ 1",
		"]",
		"",
		"{ #category : 'a' }",
		"Mixed >> second [",
		"\t^ 'unterminated",
		"]",
		"",
		"{ #category : 'a' }",
		"Mixed >> third [",
		"\t^ 3",
		"]",
		"",
		"{ #category : 'a' }",
		"Mixed >> fourth [",
		"\t^ (4",
		"",
		"{ #category : 'a' }",
		"Mixed >> fifth [",
		"\t^ 5",
		"]",
	)
	_, err := ParseFile("Mixed.class.st", []byte(text))
	require.Error(t, err)
	f, errs := ParseFileRecovering("Mixed.class.st", []byte(text))
	require.NotNil(t, f)
	var sels []string
	for _, m := range f.Methods {
		sels = append(sels, m.Selector)
	}
	assert.Equal(t, []string{"first", "third", "fifth"}, sels)
	var msgs []string
	for _, e := range errs {
		msgs = append(msgs, fmt.Sprintf("%d: %s", e.Line, e.Msg))
	}
	assert.Equal(t, []string{
		"19: unterminated method body: no matching ']' in Mixed >> fourth",
		// The string opened on line 10 runs on to a quote of a later
		// metadata line: Tonel can tell only where it ends.
		"22: unterminated string in Mixed >> second",
	}, msgs)

	_, errs = ParseFileRecovering("x.class.st", []byte("Klass { }"))
	require.Len(t, errs, 1, "an unreadable definition is one error")
}

// largeClass generates a class file of n methods in Pharo 12's style, of
// realistic sizes: accessors, keyword methods with blocks, comments and
// literal arrays.
func largeClass(n int) []byte {
	var b strings.Builder
	b.WriteString("\"\nA class as large as the largest of Pharo's own.\n\"\nClass {\n\t#name : 'Huge',\n\t#superclass : 'Object',\n\t#instVars : [\n\t\t'a',\n\t\t'b'\n\t],\n\t#category : 'Huge-Core',\n\t#package : 'Huge',\n\t#tag : 'Core'\n}\n")
	for i := range n {
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, "\n{ #category : 'accessing' }\nHuge >> a%05d [\n\n\t^ a\n]\n", i)
		case 1:
			fmt.Fprintf(&b, "\n{ #category : 'drag\\'n\\'drop' }\nHuge >> at%05d: i put: v [\n\t\"Store v at i; answer v.\"\n\n\tb at: i put: v.\n\t^ v\n]\n", i)
		case 2:
			fmt.Fprintf(&b, "\n{ #category : 'enumerating' }\nHuge >> do%05d: aBlock [\n\n\t#( 1 $] ')' #[ 2 ] ) do: [ :each |\n\t\teach isString ifTrue: [ aBlock value: each ] ].\n\t^ self\n]\n", i)
		default:
			fmt.Fprintf(&b, "\n{ #category : 'printing' }\nHuge >> printOn%05d: aStream [\n\n\taStream nextPutAll: 'Huge ['; print: a; nextPutAll: ']'\n]\n", i)
		}
	}
	return []byte(b.String())
}

func TestA3000MethodClass(t *testing.T) {
	t.Parallel()
	data := largeClass(3000)
	f, err := ParseFile("Huge.class.st", data)
	require.NoError(t, err)
	require.Len(t, f.Methods, 3000)
	assert.Equal(t, "at00001:put:", f.Methods[1].Selector)
	assert.Equal(t, "drag'n'drop", f.Methods[1].Category)
	assert.Equal(t, string(data), string(f.Bytes()))

	require.NoError(t, f.ReplaceMethod(InstanceSide, "a02000", "a02000\n\t^ b", ""))
	assert.Equal(t, "a02000\n\t^ b", f.Method(InstanceSide, "a02000").Source)
	assert.Len(t, f.Methods, 3000)
}

// Reading must be linear in the file's size: the memory a read allocates
// grows with the file, not with its square (it once copied the rest of the
// file for every metadata key: 671 MB for a 3,200-method class). Allocated
// bytes, unlike time, do not depend on the machine's load.
//
// It runs alone (not in parallel): the memory statistics are the whole
// process's.
func TestReadingIsLinearInTheFileSize(t *testing.T) {
	allocated := func(data []byte) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := ParseFile("Huge.class.st", data)
		runtime.ReadMemStats(&after)
		require.NoError(t, err)
		return after.TotalAlloc - before.TotalAlloc
	}
	small, large := largeClass(1500), largeClass(6000)
	a, b := allocated(small), allocated(large)
	perByteSmall := float64(a) / float64(len(small))
	perByteLarge := float64(b) / float64(len(large))
	assert.Less(t, perByteLarge, 1.5*perByteSmall, "allocation per byte: %.1f for %d bytes, %.1f for %d bytes", perByteSmall, len(small), perByteLarge, len(large))
	assert.Less(t, perByteLarge, 12.0, "a read allocates a small multiple of the file's size")
}

// BenchmarkReadLargeClass reads a 3,000-method class file (the size of the
// largest classes of Pharo 13); bench/README.md quotes it.
func BenchmarkReadLargeClass(b *testing.B) {
	data := largeClass(3000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseFile("Huge.class.st", data); err != nil {
			b.Fatal(err)
		}
	}
}

func TestPharo13BinaryMethodHeaders(t *testing.T) {
	t.Parallel()
	f := mustParse(t, lines(
		"Class { #name : 'Interval' }",
		"",
		"{ #category : 'arithmetic' }",
		"Interval >> ± aNumber [",
		"\t^ self",
		"]",
		"",
		"{ #category : 'arithmetic' }",
		"Interval >> ×= aNumber [",
		"\t^ self",
		"]",
	))
	require.Len(t, f.Methods, 2)
	assert.Equal(t, "±", f.Methods[0].Selector)
	assert.Equal(t, "×=", f.Methods[1].Selector)
	sel, err := Selector("÷ other ^ 1")
	require.NoError(t, err)
	assert.Equal(t, "÷", sel)
}
