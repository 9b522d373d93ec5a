package tonel

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// assertOnlySpanChanged checks that before and after differ only inside
// before[start:end]: the prefix and the suffix around it are byte-identical.
func assertOnlySpanChanged(t *testing.T, before, after []byte, start, end int) {
	t.Helper()
	require.GreaterOrEqual(t, len(after), start)
	assert.Equal(t, string(before[:start]), string(after[:start]), "bytes before the method changed")
	suffix := before[end:]
	require.GreaterOrEqual(t, len(after), len(suffix))
	assert.Equal(t, string(suffix), string(after[len(after)-len(suffix):]), "bytes after the method changed")
}

// sourcesExcept returns every method's source keyed by side and selector,
// leaving one out.
func sourcesExcept(f *File, side Side, selector string) map[string]string {
	out := map[string]string{}
	for _, m := range f.Methods {
		if m.Side == side && m.Selector == selector {
			continue
		}
		out[m.Side.String()+" "+m.Selector] = m.Source
	}
	return out
}

func TestReplaceMethodInCorpus(t *testing.T) {
	t.Parallel()
	cases := []struct {
		file     string
		side     Side
		selector string
		source   string
		category string
		wantMeta string // the metadata line after the edit
	}{
		{"GeoPoint.class.st", InstanceSide, "distanceTo:", "distanceTo: aGeoPoint\n\t^ ((x - aGeoPoint x) squared + (y - aGeoPoint y) squared) sqrt", "", "{ #category : #measuring }"},
		{"GeoPoint.class.st", InstanceSide, "+", "+ aGeoPoint\n\t\"Add ] coordinates.\"\n\t^ self translatedBy: aGeoPoint", "", "{ #category : #arithmetic }"},
		{"GeoPoint.class.st", ClassSide, "x:y:", "x: ax y: ay\n\t^ self new x: ax; y: ay; yourself", "", "{ #category : #'instance creation' }"},
		{"GeoPoint.class.st", InstanceSide, "hash", "hash\n\t^ x hash bitXor: y hash", "hashing", "{ #category : #hashing }"},
		{"GeoPoint.class.st", InstanceSide, "x", "x\n\t^ x", "as yet unclassified", "{ #category : #'as yet unclassified' }"},
		{"LedgerMoney.class.st", InstanceSide, "splitInto:", "splitInto: anInteger\n\t^ (1 to: anInteger) collect: [ :i | self / anInteger ]", "", "{ #category : 'arithmetic' }"},
		{"LedgerMoney.class.st", InstanceSide, "isZero", "isZero\n\t^ amount = 0", "testing - state", "{ #category : 'testing - state' }"},
		{"TGeoComparable.trait.st", ClassSide, "largestOf:", "largestOf: aCollection\n\t^ aCollection detectMax: [ :each | each area ]", "", "{ #category : #sorting }"},
		{"EdgeBrackets.class.st", InstanceSide, "singleLine", "singleLine\n\t^ $]", "", "{ #category : #accessing }"},
		{"EdgeBrackets.class.st", InstanceSide, "commentAfterPattern", "commentAfterPattern\n\t^ #( ']' $] )", "", "{ #category : #comments }"},
		{"String.extension.st", InstanceSide, "tkIsBlank", "tkIsBlank\n\t^ self trimBoth isEmpty", "*TextKit-Core-Extras", "{ #category : #'*TextKit-Core-Extras' }"},
		{"Collection.extension.st", InstanceSide, "cxAverage", "cxAverage\n\t^ self sum / self size", "", "{ #category : '*Collections-Extras' }"},
	}
	for _, tc := range cases {
		t.Run(tc.file+" "+tc.selector, func(t *testing.T) {
			f := readCorpusFile(t, tc.file)
			before := append([]byte(nil), f.Bytes()...)
			old := f.Method(tc.side, tc.selector)
			require.NotNil(t, old)
			others := sourcesExcept(f, tc.side, tc.selector)

			require.NoError(t, f.ReplaceMethod(tc.side, tc.selector, tc.source, tc.category))

			m := f.Method(tc.side, tc.selector)
			require.NotNil(t, m)
			assert.Equal(t, tc.source, m.Source)
			assert.Equal(t, tc.wantMeta, string(f.Bytes()[m.MetaStart:m.MetaEnd]))
			assert.Equal(t, others, sourcesExcept(f, tc.side, tc.selector), "other methods changed")
			start := old.DeclStart
			if tc.category != "" {
				start = old.Start
			}
			assertOnlySpanChanged(t, before, f.Bytes(), start, old.End)
		})
	}
}

func TestReplaceMethodKeepsUnchangedBytes(t *testing.T) {
	t.Parallel()
	f := readCorpusFile(t, "EdgeBrackets.class.st")
	before := append([]byte(nil), f.Bytes()...)
	for _, m := range append([]*Method(nil), f.Methods...) {
		require.NoError(t, f.ReplaceMethod(m.Side, m.Selector, m.Source, m.Category))
	}
	assert.Equal(t, string(before), string(f.Bytes()))
}

// TestCorpusIsInWriterForm rewrites every corpus method through the writer
// and expects the same bytes: the corpus is laid out as Pharo's Tonel writer
// lays it out, so FormatMethod must produce exactly that layout. The two
// methods written in a hand-made layout are the exceptions.
func TestCorpusIsInWriterForm(t *testing.T) {
	t.Parallel()
	handMade := map[string]bool{"singleLine": true, "commentAfterPattern": true}
	for _, path := range corpusFiles(t) {
		f, err := ReadFile(path)
		require.NoError(t, err)
		for _, m := range f.Methods {
			text, err := FormatMethod(string(f.src[m.Header:m.DeclStart-4]), m.Source)
			require.NoError(t, err, "%s %s", path, m.Selector)
			same := text == string(f.src[m.Header:m.End])
			assert.Equal(t, !handMade[m.Selector], same, "%s %s:\n%s", path, m.Selector, text)
		}
	}
}

func TestReplaceMethodErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		side     Side
		selector string
		source   string
		is       error
		msg      string
	}{
		{"missing method", InstanceSide, "nope", "nope ^ 1", ErrMethodNotFound, ""},
		{"wrong side", ClassSide, "x", "x ^ 1", ErrMethodNotFound, ""},
		{"other selector", InstanceSide, "x", "y\n\t^ y", ErrSelectorMismatch, ""},
		{"no pattern", InstanceSide, "x", "^ x", nil, "method pattern expected"},
		{"closes a bracket it never opened", InstanceSide, "x", "x\n\t^ x ]", nil, "never opened"},
		{"unterminated string", InstanceSide, "x", "x\n\t^ 'abc", nil, "unterminated string"},
		{"unterminated comment", InstanceSide, "x", "x\n\t\"abc", nil, "unterminated comment"},
		{"unterminated literal array", InstanceSide, "x", "x\n\t^ #( 1 ]", nil, "unterminated literal array"},
		{"unclosed block", InstanceSide, "x", "x\n\t^ [ x", nil, "unterminated method body"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := readCorpusFile(t, "GeoPoint.class.st")
			before := append([]byte(nil), f.Bytes()...)
			err := f.ReplaceMethod(tc.side, tc.selector, tc.source, "")
			require.Error(t, err)
			if tc.is != nil {
				assert.ErrorIs(t, err, tc.is)
			}
			assert.Contains(t, err.Error(), tc.msg)
			assert.Equal(t, string(before), string(f.Bytes()), "a failed edit must not change the file")
		})
	}
}

// smallFile builds a class file with the given methods, in the given style;
// a method that does not start with its own metadata gets `accessing`.
func smallFile(symbols bool, methods ...string) string {
	name, cat := "'Foo'", "'accessing'"
	if symbols {
		name, cat = "#Foo", "#accessing"
	}
	text := "Class {\n\t#name : " + name + ",\n\t#superclass : #Object\n}\n"
	for _, m := range methods {
		if !strings.HasPrefix(m, "{") {
			m = "{ #category : " + cat + " }\n" + m
		}
		text += "\n" + m + "\n"
	}
	return text
}

func TestAddAndRemoveMethod(t *testing.T) {
	t.Parallel()
	b := "Foo >> b [\n\t^ 2\n]"
	d := "Foo >> d [\n\t^ 4\n]"
	n := "Foo class >> new [\n\t^ super new\n]"
	cases := []struct {
		name     string
		symbols  bool
		existing []string
		side     Side
		source   string
		category string
		want     string
	}{
		{"first instance method, string style", false, []string{b, d}, InstanceSide, "a\n\t^ 1", "", smallFile(false, "{ #category : 'as yet unclassified' }\nFoo >> a [\n\t^ 1\n]", b, d)},
		{"middle, symbol style", true, []string{b, d}, InstanceSide, "c\n\t^ 3", "accessing", smallFile(true, b, "{ #category : #accessing }\nFoo >> c [\n\t^ 3\n]", d)},
		{"last", false, []string{b, d}, InstanceSide, "e\n\t^ 5", "accessing", smallFile(false, b, d, "{ #category : 'accessing' }\nFoo >> e [\n\t^ 5\n]")},
		{"binary sorts before letters", false, []string{b}, InstanceSide, "+ other\n\t^ other", "arithmetic", smallFile(false, "{ #category : 'arithmetic' }\nFoo >> + other [\n\t^ other\n]", b)},
		{"class side goes first", true, []string{b}, ClassSide, "new\n\t^ super new", "accessing", smallFile(true, n, b)},
		{"instance side after class side", false, []string{n}, InstanceSide, "b\n\t^ 2", "accessing", smallFile(false, n, b)},
		{"into a file without methods", true, nil, InstanceSide, "b\n\t^ 2", "accessing", smallFile(true, b)},
		{"quoted symbol category", true, nil, InstanceSide, "b\n\t^ 2", "*Pkg-Ext", "Class {\n\t#name : #Foo,\n\t#superclass : #Object\n}\n\n{ #category : #'*Pkg-Ext' }\n" + b + "\n"},
		{"keyword method", false, []string{b}, InstanceSide, "at: i put: v\n\t^ v", "accessing", smallFile(false, "{ #category : 'accessing' }\nFoo >> at: i put: v [\n\t^ v\n]", b)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			original := smallFile(tc.symbols, tc.existing...)
			f := mustParse(t, original)
			sel, err := Selector(tc.source)
			require.NoError(t, err)

			require.NoError(t, f.AddMethod(tc.side, tc.source, tc.category))
			assert.Equal(t, tc.want, string(f.Bytes()))
			m := f.Method(tc.side, sel)
			require.NotNil(t, m)
			assert.Equal(t, tc.source, m.Source)

			require.NoError(t, f.RemoveMethod(tc.side, sel))
			assert.Equal(t, original, string(f.Bytes()), "remove must undo add")
		})
	}
}

func TestRemoveMethodPositions(t *testing.T) {
	t.Parallel()
	a := "Foo >> a [\n\t^ 1\n]"
	b := "Foo >> b [\n\t^ 2\n]"
	c := "Foo >> c [\n\t^ 3\n]"
	cases := []struct {
		name     string
		selector string
		want     string
	}{
		{"first", "a", smallFile(false, b, c)},
		{"middle", "b", smallFile(false, a, c)},
		{"last", "c", smallFile(false, a, b)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := mustParse(t, smallFile(false, a, b, c))
			require.NoError(t, f.RemoveMethod(InstanceSide, tc.selector))
			assert.Equal(t, tc.want, string(f.Bytes()))
			assert.Nil(t, f.Method(InstanceSide, tc.selector))
		})
	}
	f := mustParse(t, smallFile(false, a))
	assert.ErrorIs(t, f.RemoveMethod(InstanceSide, "zork"), ErrMethodNotFound)
	assert.ErrorIs(t, f.RemoveMethod(ClassSide, "a"), ErrMethodNotFound)
}

func TestAddMethodHeaders(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		file   string
		side   Side
		header string
	}{
		{"trait class side", "Trait { #name : #TFoo }\n", ClassSide, "TFoo classSide >> "},
		{"class class side", "Class { #name : #Foo }\n", ClassSide, "Foo class >> "},
		{"extension instance side", "Extension { #name : #String }\n", InstanceSide, "String >> "},
		{"spelling of the file wins", "Trait { #name : #TFoo }\n\nTFoo class >> a [\n]\n", ClassSide, "TFoo class >> "},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := mustParse(t, tc.file)
			require.NoError(t, f.AddMethod(tc.side, "zz\n\t^ 1", "x"))
			m := f.Method(tc.side, "zz")
			require.NotNil(t, m)
			assert.Equal(t, tc.header, string(f.Bytes()[m.Header:m.DeclStart]))
		})
	}
}

func TestAddMethodErrors(t *testing.T) {
	t.Parallel()
	f := mustParse(t, smallFile(false, "Foo >> a [\n\t^ 1\n]"))
	assert.ErrorIs(t, f.AddMethod(InstanceSide, "a ^ 2", ""), ErrMethodExists)
	assert.Error(t, f.AddMethod(InstanceSide, "^ 2", ""))
	assert.Error(t, f.AddMethod(InstanceSide, "b ^ ']", ""))
	pkg := mustParse(t, "Package { #name : 'P' }\n")
	assert.Error(t, pkg.AddMethod(InstanceSide, "a ^ 1", ""))
}

func TestSymbolStyle(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		text string
		want bool
	}{
		{"symbol metadata", "Class { #name : 'Foo' }\n\n{ #category : #a }\nFoo >> a [\n]\n", true},
		{"string metadata wins over symbol definition", "Class { #name : #Foo }\n\n{ #category : 'a' }\nFoo >> a [\n]\n", false},
		{"no methods: definition decides", "Class { #name : #Foo }\n", true},
		{"no methods, string definition", "Class { #name : 'Foo' }\n", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, mustParse(t, tc.text).SymbolStyle())
		})
	}
}

func TestFormatCategory(t *testing.T) {
	t.Parallel()
	cases := []struct {
		category string
		symbols  bool
		want     string
	}{
		{"accessing", false, "{ #category : 'accessing' }"},
		{"accessing", true, "{ #category : #accessing }"},
		{"as yet unclassified", true, "{ #category : #'as yet unclassified' }"},
		{"*Pkg-Core", true, "{ #category : #'*Pkg-Core' }"},
		{"it's", false, `{ #category : 'it\'s' }`},
		{"it's", true, `{ #category : #'it\'s' }`},
		{"drag'n'drop", false, `{ #category : 'drag\'n\'drop' }`},
		{`C:\temp`, false, `{ #category : 'C:\\temp' }`},
		{"tab\there", false, `{ #category : 'tab\there' }`},
		{"at:put:", true, "{ #category : #at:put: }"},
		{"", true, "{ #category : #'' }"},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, FormatCategory(tc.category, tc.symbols))
		f := mustParse(t, "Class { #name : #Foo }\n\n"+tc.want+"\nFoo >> a [\n]\n")
		assert.Equal(t, tc.category, f.Methods[0].Category, "reads back")
	}
}

func TestSave(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "Foo.class.st")
	require.NoError(t, os.WriteFile(path, []byte(smallFile(false, "Foo >> a [\n\t^ 1\n]")), 0o640))
	f, err := ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, f.ReplaceMethod(InstanceSide, "a", "a\n\t^ 2", ""))
	require.NoError(t, f.Save())

	again, err := ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "a\n\t^ 2", again.Method(InstanceSide, "a").Source)
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o640), info.Mode().Perm())
}

func TestReplaceMethodCategoryLayouts(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		text string
		want string
	}{
		{"no metadata, string style", "Class { #name : 'Foo' }\n\nFoo >> a [\n]\n", "Class { #name : 'Foo' }\n\n{ #category : 'new one' }\nFoo >> a [\n]\n"},
		{"no metadata, symbol style", "Class { #name : #Foo }\n\nFoo >> a [\n]\n", "Class { #name : #Foo }\n\n{ #category : #'new one' }\nFoo >> a [\n]\n"},
		{"metadata without category", "Class { #name : #Foo }\n\n{ #author : 'me' }\nFoo >> a [\n]\n", "Class { #name : #Foo }\n\n{ #category : #'new one' }\nFoo >> a [\n]\n"},
		{"other keys are kept", "Class { #name : #Foo }\n\n{ #category : 'x', #author : 'me' }\nFoo >> a [\n]\n", "Class { #name : #Foo }\n\n{ #category : 'new one', #author : 'me' }\nFoo >> a [\n]\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := mustParse(t, tc.text)
			require.NoError(t, f.ReplaceMethod(InstanceSide, "a", "a", "new one"))
			assert.Equal(t, tc.want, string(f.Bytes()))
			assert.Equal(t, "new one", f.Method(InstanceSide, "a").Category)
		})
	}
}
