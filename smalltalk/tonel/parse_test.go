package tonel

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pharo12Class is a class file in the Pharo 12+ string style.
var pharo12Class = lines(
	`"`,
	`I am a ""sample"" class.`,
	`Second line.`,
	`"`,
	`Class {`,
	"\t#name : 'Foo',",
	"\t#superclass : 'Object',",
	"\t#instVars : [",
	"\t\t'a',",
	"\t\t'b'",
	"\t],",
	"\t#classVars : [",
	"\t\t'Registry'",
	"\t],",
	"\t#category : 'Pkg-Core',",
	"\t#package : 'Pkg',",
	"\t#tag : 'Core'",
	`}`,
	``,
	`{ #category : 'instance creation' }`,
	`Foo class >> new [`,
	"\t^ super new initialize",
	`]`,
	``,
	`{ #category : 'arithmetic' }`,
	`Foo >> + other [`,
	"\t^ a + other a",
	`]`,
	``,
	`{ #category : 'accessing' }`,
	`Foo >> a [`,
	"\t^ a",
	`]`,
	``,
	`{ #category : 'accessing' }`,
	`Foo >> at: i put: v [`,
	"\t\"Store v.\"",
	"\tb at: i put: v",
	`]`,
)

// pharo11Class is a class file in the Pharo ≤11 symbol style.
var pharo11Class = lines(
	`Class {`,
	"\t#name : #Bar,",
	"\t#superclass : #Foo,",
	"\t#type : #variable,",
	"\t#traits : 'TFoo + TBar',",
	"\t#classTraits : 'TFoo classTrait + TBar classTrait',",
	"\t#instVars : [",
	"\t\t#x,",
	"\t\t'y'",
	"\t],",
	"\t#classInstVars : [",
	"\t\t'cache'",
	"\t],",
	"\t#pools : [",
	"\t\t#ChronologyConstants",
	"\t],",
	"\t#category : #'Pkg-Core'",
	`}`,
	``,
	`{ #category : #'as yet unclassified' }`,
	`Bar class >> default [`,
	"\t^ self new",
	`]`,
	``,
	`{ #category : #accessing }`,
	`Bar >> x [`,
	"\t^ x",
	`]`,
)

var traitFile = lines(
	`Trait {`,
	"\t#name : #TFoo,",
	"\t#traits : TBar,",
	"\t#category : #Pkg",
	`}`,
	``,
	`{ #category : #'instance creation' }`,
	`TFoo classSide >> withAll: aCollection [`,
	"\t^ self new addAll: aCollection; yourself",
	`]`,
	``,
	`{ #category : #testing }`,
	`TFoo >> isFoo [`,
	"\t^ true",
	`]`,
)

var extensionFile = lines(
	`Extension { #name : 'String' }`,
	``,
	`{ #category : '*Pkg' }`,
	`String class >> pkgDefault [`,
	"\t^ ''",
	`]`,
	``,
	`{ #category : '*Pkg' }`,
	`String >> pkgShout [`,
	"\t^ self asUppercase , '!'",
	`]`,
)

func TestParseFileKinds(t *testing.T) {
	t.Parallel()
	type wantMethod struct {
		class    string
		side     Side
		selector string
		category string
		source   string
	}
	cases := []struct {
		name    string
		text    string
		kind    Kind
		check   func(t *testing.T, d Definition)
		methods []wantMethod
	}{
		{"pharo 12 class", pharo12Class, KindClass, func(t *testing.T, d Definition) {
			assert.Equal(t, "I am a \"sample\" class.\nSecond line.", d.Comment)
			assert.Equal(t, "Foo", d.Name)
			assert.Equal(t, "Object", d.Superclass)
			assert.Equal(t, []string{"a", "b"}, d.InstVars)
			assert.Equal(t, []string{"Registry"}, d.ClassVars)
			assert.Equal(t, "Pkg-Core", d.Category)
			assert.Equal(t, "Pkg", d.Package)
			assert.Equal(t, "Core", d.Tag)
			assert.False(t, d.SymbolStyle)
		}, []wantMethod{
			{"Foo class", ClassSide, "new", "instance creation", "new\n\t^ super new initialize"},
			{"Foo", InstanceSide, "+", "arithmetic", "+ other\n\t^ a + other a"},
			{"Foo", InstanceSide, "a", "accessing", "a\n\t^ a"},
			{"Foo", InstanceSide, "at:put:", "accessing", "at: i put: v\n\t\"Store v.\"\n\tb at: i put: v"},
		}},
		{"pharo 11 class", pharo11Class, KindClass, func(t *testing.T, d Definition) {
			assert.Empty(t, d.Comment)
			assert.Equal(t, "Bar", d.Name)
			assert.Equal(t, "Foo", d.Superclass)
			assert.Equal(t, "variable", d.Type)
			assert.Equal(t, "TFoo + TBar", d.Traits)
			assert.Equal(t, "TFoo classTrait + TBar classTrait", d.ClassTraits)
			assert.Equal(t, []string{"x", "y"}, d.InstVars)
			assert.Equal(t, []string{"cache"}, d.ClassInstVars)
			assert.Equal(t, []string{"ChronologyConstants"}, d.Pools)
			assert.Equal(t, "Pkg-Core", d.Category)
			assert.True(t, d.SymbolStyle)
		}, []wantMethod{
			{"Bar class", ClassSide, "default", "as yet unclassified", "default\n\t^ self new"},
			{"Bar", InstanceSide, "x", "accessing", "x\n\t^ x"},
		}},
		{"trait", traitFile, KindTrait, func(t *testing.T, d Definition) {
			assert.Equal(t, "TFoo", d.Name)
			assert.Equal(t, "TBar", d.Traits)
			assert.Equal(t, "Pkg", d.Category)
		}, []wantMethod{
			{"TFoo classSide", ClassSide, "withAll:", "instance creation", "withAll: aCollection\n\t^ self new addAll: aCollection; yourself"},
			{"TFoo", InstanceSide, "isFoo", "testing", "isFoo\n\t^ true"},
		}},
		{"extension", extensionFile, KindExtension, func(t *testing.T, d Definition) {
			assert.Equal(t, "String", d.Name)
			assert.False(t, d.SymbolStyle)
		}, []wantMethod{
			{"String class", ClassSide, "pkgDefault", "*Pkg", "pkgDefault\n\t^ ''"},
			{"String", InstanceSide, "pkgShout", "*Pkg", "pkgShout\n\t^ self asUppercase , '!'"},
		}},
		{"package 11", "Package { #name : #'Pkg-Core' }\n", KindPackage, func(t *testing.T, d Definition) {
			assert.Equal(t, "Pkg-Core", d.Name)
			assert.True(t, d.SymbolStyle)
		}, nil},
		{"package 12 with tags", lines("Package {", "\t#name : 'Pkg',", "\t#tags : [ 'A', 'B' ]", "}"), KindPackage, func(t *testing.T, d Definition) {
			assert.Equal(t, "Pkg", d.Name)
			assert.Equal(t, []Field{{Key: "tags", Raw: "[ 'A', 'B' ]"}}, d.Extra)
		}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := mustParse(t, tc.text)
			assert.Equal(t, tc.kind, f.Kind())
			tc.check(t, f.Def)
			require.Len(t, f.Methods, len(tc.methods))
			for i, want := range tc.methods {
				m := f.Methods[i]
				header := m.Class
				if m.Side == ClassSide {
					header += " " + m.sideWord
				}
				assert.Equal(t, want, wantMethod{header, m.Side, m.Selector, m.Category, m.Source})
			}
			assert.Equal(t, tc.text, string(f.Bytes()))
		})
	}
}

func TestDefinitionValueForms(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		entry string
		check func(t *testing.T, d Definition)
	}{
		{"string", "#superclass : 'Object'", func(t *testing.T, d Definition) { assert.Equal(t, "Object", d.Superclass) }},
		{"symbol", "#superclass : #Object", func(t *testing.T, d Definition) { assert.Equal(t, "Object", d.Superclass) }},
		{"quoted symbol", "#category : #'Kernel-Objects'", func(t *testing.T, d Definition) { assert.Equal(t, "Kernel-Objects", d.Category) }},
		{"doubled quote", "#category : 'it''s'", func(t *testing.T, d Definition) { assert.Equal(t, "it's", d.Category) }},
		{"bare nil", "#superclass : nil", func(t *testing.T, d Definition) { assert.Equal(t, "nil", d.Superclass) }},
		{"array of symbols", "#instVars : [ #a, #b ]", func(t *testing.T, d Definition) { assert.Equal(t, []string{"a", "b"}, d.InstVars) }},
		{"empty array", "#instVars : [ ]", func(t *testing.T, d Definition) { assert.Empty(t, d.InstVars) }},
		{"space separated names", "#instVars : 'a b  c'", func(t *testing.T, d Definition) { assert.Equal(t, []string{"a", "b", "c"}, d.InstVars) }},
		{"bare trait", "#traits : TFoo", func(t *testing.T, d Definition) { assert.Equal(t, "TFoo", d.Traits) }},
		{"bare composition", "#traits : TFoo + TBar - { #foo }", func(t *testing.T, d Definition) { assert.Equal(t, "TFoo + TBar - { #foo }", d.Traits) }},
		{"string key", "'superclass' : 'Object'", func(t *testing.T, d Definition) { assert.Equal(t, "Object", d.Superclass) }},
		{"unknown key kept raw", "#gs_options : [ #dbTransient ]", func(t *testing.T, d Definition) {
			assert.Equal(t, []Field{{Key: "gs_options", Raw: "[ #dbTransient ]"}}, d.Extra)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := mustParse(t, "Class { #name : #Foo, "+tc.entry+" }\n")
			assert.Equal(t, "Foo", f.Def.Name)
			tc.check(t, f.Def)
		})
	}
}

// method wraps a body in a one-method class file followed by a second method,
// so a body that ends too early or too late shows up as a wrong source or a
// missing second method.
func methodFile(decl, body string) string {
	return lines(
		"Class { #name : 'Foo' }",
		"",
		"{ #category : 'x' }",
		"Foo >> "+decl+" ["+body+"\n]",
		"",
		"{ #category : 'x' }",
		"Foo >> zzzSentinel [",
		"\t^ 'sentinel'",
		"]",
	)
}

func TestBodyEndBracketCases(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		body string
	}{
		{"plain", "\n\t^ 1"},
		{"empty body", ""},
		{"closing bracket character", "\n\t^ $]"},
		{"opening bracket character", "\n\t^ $["},
		{"bracket in string", "\n\t^ ']'"},
		{"brackets in string with doubled quote", "\n\t^ 'it''s ]] here'"},
		{"bracket in comment", "\n\t\"]\"\n\t^ 1"},
		{"comment with doubled quotes and bracket", "\n\t\"say \"\"]\"\" now\"\n\t^ 1"},
		{"quote character", "\n\t^ $'"},
		{"double quote character", "\n\t^ $\""},
		{"dollar character", "\n\t^ $$"},
		{"space character before bracket", "\n\t^ [ $ ]"},
		{"literal array of brackets", "\n\t^ #( $] ']' #']' $[ '[' )"},
		{"nested empty literal arrays", "\n\t^ #(#( ) )"},
		{"unbalanced bracket inside literal array", "\n\t^ #( ] ] [ )"},
		{"paren string inside literal array", "\n\t^ #( ')' $) #')' ( 1 ( ) ) )"},
		{"comment inside literal array", "\n\t^ #( \"(\" 1 \")\" )"},
		{"quote characters inside literal array", "\n\t^ #( $' $\" ']' )"},
		{"byte array", "\n\t^ #[ 1 2 255 ]"},
		{"byte array in literal array", "\n\t^ #( #[ 1 ] )"},
		{"dynamic array with bracket", "\n\t^ { $]. ']' }"},
		{"nested blocks", "\n\t^ [ :a | [ :b | [ a + b ] ] ]"},
		{"symbol with bracket", "\n\t^ #'[]'"},
		{"multi-line string", "\n\t^ 'first ]\n]\nlast'"},
		{"trailing blank line", "\n\t^ 1\n"},
		{"unicode", "\n\t^ 'Grüße ☃ ]'"},
		{"one line", " ^ 1 "},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := mustParse(t, methodFile("foo", tc.body))
			require.Len(t, f.Methods, 2)
			assert.Equal(t, "foo"+tc.body, f.Methods[0].Source)
			assert.Equal(t, "zzzSentinel", f.Methods[1].Selector)
		})
	}
}

func TestSelector(t *testing.T) {
	t.Parallel()
	cases := []struct {
		source string
		want   string
		err    string
	}{
		{"foo", "foo", ""},
		{"foo\n\t^ 1", "foo", ""},
		{"  foo", "foo", ""},
		{"_private ^ 1", "_private", ""},
		{"größe", "größe", ""},
		{"+ other", "+", ""},
		{"==> aBlock ^ 1", "==>", ""},
		{"- x", "-", ""},
		{"at: i", "at:", ""},
		{"at: i put: v", "at:put:", ""},
		{"at:i put:v", "at:put:", ""},
		{"at: i \"the index\" put: v", "at:put:", ""},
		{"at: i\n\t\tput: v\n\t^ v", "at:put:", ""},
		{"\"leading comment\" foo", "foo", ""},
		{"foo := 3", "foo", ""},
		{"value: x value ^ x", "value:", ""},
		{"", "", "method pattern expected"},
		{"   ", "", "method pattern expected"},
		{"123", "", "method pattern expected"},
		{"^ 1", "", "method pattern expected"},
		{"at:", "", "argument name expected"},
		{"at: 3", "", "argument name expected"},
		{"at: put: v", "", "argument name expected"},
		{"+", "", "argument name expected"},
		{"+ 3", "", "argument name expected"},
		{"\"unterminated", "", "unterminated comment"},
	}
	for _, tc := range cases {
		t.Run(tc.source, func(t *testing.T) {
			got, err := Selector(tc.source)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestSplitSource(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, source, decl, body string
	}{
		{"unary", "foo\n\t^ 1", "foo", "\n\t^ 1"},
		{"unary alone", "foo", "foo", ""},
		{"binary", "+ other\n\t^ 1", "+ other", "\n\t^ 1"},
		{"keyword", "at: i put: v\n\t^ v", "at: i put: v", "\n\t^ v"},
		{"keyword over lines", "at: i\n\tput: v\n\t^ v", "at: i\n\tput: v", "\n\t^ v"},
		{"comment between keywords is declaration", "at: i \"x\" put: v ^ v", "at: i \"x\" put: v", " ^ v"},
		{"comment after pattern is body", "at: i \"x\" ^ i", "at: i", " \"x\" ^ i"},
		{"comment after unary is body", "foo \"]\" ^ 1", "foo", " \"]\" ^ 1"},
		{"leading blanks dropped", "\n  foo ^ 1", "foo", " ^ 1"},
		{"leading comment kept", "\"c\" foo ^ 1", "\"c\" foo", " ^ 1"},
		{"body keyword is not pattern", "value: x value: y\n\t^ x", "value: x value: y", "\n\t^ x"},
		{"statement keyword after unary", "foo self bar: 1", "foo", " self bar: 1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			decl, body, err := SplitSource(tc.source)
			require.NoError(t, err)
			assert.Equal(t, tc.decl, decl)
			assert.Equal(t, tc.body, body)
		})
	}
	_, _, err := SplitSource("^ 1")
	assert.Error(t, err)
}

func TestMethodPos(t *testing.T) {
	t.Parallel()
	text := lines(
		"Class { #name : 'Foo' }",
		"",
		"{ #category : 'x' }",
		"Foo >> at: i",
		"\t\tput: v [",
		"\t\"Grüße ☃\" ^ v",
		"]",
	)
	f := mustParse(t, text)
	require.Len(t, f.Methods, 1)
	m := f.Methods[0]
	require.Equal(t, "at: i\n\t\tput: v\n\t\"Grüße ☃\" ^ v", m.Source)
	offsetOf := func(s string) int {
		i := strings.Index(m.Source, s)
		require.GreaterOrEqual(t, i, 0, s)
		return i
	}
	cases := []struct {
		name      string
		offset    int
		line, col int
	}{
		{"start of declaration", 0, 4, 8},
		{"argument", offsetOf("i\n"), 4, 12},
		{"second keyword", offsetOf("put:"), 5, 3},
		{"body newline", offsetOf("\n\t\""), 5, 11},
		{"comment", offsetOf("\"Gr"), 6, 2},
		{"after runes", offsetOf("^ v"), 6, 12},
		{"end of source", len(m.Source), 6, 15},
		{"clamped below", -5, 4, 8},
		{"clamped above", len(m.Source) + 10, 6, 15},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := f.MethodPos(m, tc.offset)
			assert.Equal(t, tc.line, p.Line, "line")
			assert.Equal(t, tc.col, p.Col, "col")
		})
	}
}

func TestSourceOffsetMapsEveryCorpusByte(t *testing.T) {
	t.Parallel()
	for _, path := range corpusFiles(t) {
		f, err := ReadFile(path)
		require.NoError(t, err)
		for _, m := range f.Methods {
			for i := 0; i < len(m.Source); i++ {
				if off := m.SourceOffset(i); f.src[off] != m.Source[i] {
					t.Fatalf("%s %s: source byte %d maps to file byte %d (%q != %q)", path, m.Selector, i, off, f.src[off], m.Source[i])
				}
			}
		}
	}
}

func TestPosAtLineEndings(t *testing.T) {
	t.Parallel()
	f := &File{src: []byte("ab\ncd\r\nef\rgh")}
	cases := []struct{ off, line, col int }{
		{0, 1, 1}, {2, 1, 3}, {3, 2, 1}, {5, 2, 3}, {6, 2, 4}, {7, 3, 1}, {10, 4, 1}, {12, 4, 3}, {99, 4, 3},
	}
	for _, tc := range cases {
		p := f.PosAt(tc.off)
		assert.Equal(t, [2]int{tc.line, tc.col}, [2]int{p.Line, p.Col}, "offset %d", tc.off)
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	def := "Class { #name : 'Foo' }\n\n"
	cases := []struct {
		name string
		text string
		line int
		msg  string
	}{
		{"empty file", "", 1, "definition expected"},
		{"unknown definition", "Klass { #name : 'Foo' }\n", 1, "definition expected"},
		{"no brace", "Class #name\n", 1, "'{' expected"},
		{"unterminated class comment", "\"comment\nClass { #name : 'Foo' }\n", 1, "unterminated class comment"},
		{"missing colon", "Class {\n\t#name 'Foo'\n}\n", 2, "':' expected"},
		{"missing value", "Class {\n\t#name : ,\n}\n", 2, "value expected"},
		{"unterminated map", "Class {\n\t#name : 'Foo'\n", 1, "unterminated map"},
		{"key missing after comma", "Class {\n\t#name : 'Foo',\n", 3, "key expected, found end of input"},
		{"bad key", "Class {\n\tname : 'Foo'\n}\n", 2, "key expected"},
		{"bad array", "Class {\n\t#name : 'Foo',\n\t#instVars : [ 'a' 'b' ]\n}\n", 3, "',' or ']' expected"},
		{"array for a name", "Class {\n\t#name : [ 'Foo' ]\n}\n", 2, "found an array"},
		{"no name", "Class {\n\t#superclass : 'Object'\n}\n", 1, "has no #name"},
		{"stray text", def + "hello\n", 3, "'>>' expected"},
		{"missing >>", def + "Foo bar [\n]\n", 3, "'>>' expected after Foo"},
		{"metadata without method", def + "{ #category : 'x' }\n", 4, "method definition expected"},
		{"missing [", def + "Foo >> bar\n\t^ 1\n]\n", 3, "'[' expected"},
		{"missing [ at end of file", def + "Foo >> bar", 3, "'[' expected"},
		{"bad declaration", def + "Foo >> 123 [\n]\n", 3, "bad method declaration"},
		{"text after pattern", def + "Foo >> foo bar [\n]\n", 3, "unexpected text after the pattern"},
		{"unterminated body", def + "Foo >> foo [\n\t^ [ 1\n]\n", 3, "unterminated method body: no matching ']' in Foo >> foo"},
		{"unterminated string", def + "Foo >> foo [\n\t^ 'abc\n]\n", 4, "unterminated string in Foo >> foo"},
		{"unterminated comment", def + "Foo >> foo [\n\t\"abc\n]\n", 4, "unterminated comment"},
		{"unterminated literal array", def + "Foo >> foo [\n\t^ #( 1 ]\n", 4, "unterminated literal array"},
		{"character at end", def + "Foo >> foo [\n\t^ $", 4, "character literal at end of input"},
		{"bad metadata", def + "{ #category }\nFoo >> foo [\n]\n", 3, "':' expected"},
		{"class side word", def + "Foo klass >> foo [\n]\n", 3, "'>>' expected after Foo, found \"klass\""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, err := ParseFile("x.class.st", []byte(tc.text))
			require.Error(t, err)
			assert.Nil(t, f)
			var pe *ParseError
			require.True(t, errors.As(err, &pe), "want *ParseError, got %T", err)
			assert.Equal(t, tc.line, pe.Line, err.Error())
			assert.Contains(t, pe.Msg, tc.msg)
			assert.True(t, strings.HasPrefix(err.Error(), "x.class.st:"), err.Error())
		})
	}
}

func TestParseToleratesLayout(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		text     string
		selector string
		source   string
	}{
		{"no metadata", "Class { #name : #Foo }\nFoo >> foo [\n\t^ 1\n]\n", "foo", "foo\n\t^ 1"},
		{"no blank lines, no final newline", "Class { #name : #Foo }\n{ #category : #a }\nFoo >> foo [ ^ 1 ]", "foo", "foo ^ 1 "},
		{"crlf", "Class { #name : #Foo }\r\n\r\n{ #category : #a }\r\nFoo >> foo [\r\n\t^ 1\r\n]\r\n", "foo", "foo\r\n\t^ 1\r"},
		{"leading blanks", "\n\n  Class { #name : #Foo }\n\nFoo>>foo[^1]\n", "foo", "foo^1"},
		{"metadata with other keys", "Class { #name : #Foo }\n{ #category : #a, #author : 'me' }\nFoo >> foo [\n]\n", "foo", "foo"},
		{"indented closing bracket", "Class { #name : #Foo }\nFoo >> foo [\n\t^ 1\n\t]\n", "foo", "foo\n\t^ 1"},
		{"binary >> selector", "Class { #name : #Foo }\nFoo >> >> other [\n\t^ other\n]\n", ">>", ">> other\n\t^ other"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := mustParse(t, tc.text)
			require.Len(t, f.Methods, 1)
			assert.Equal(t, tc.selector, f.Methods[0].Selector)
			assert.Equal(t, tc.source, f.Methods[0].Source)
			assert.Equal(t, tc.text, string(f.Bytes()))
		})
	}
}
