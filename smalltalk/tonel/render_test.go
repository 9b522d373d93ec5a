package tonel

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRenderGolden(t *testing.T) {
	t.Parallel()
	def := Definition{
		Kind:       KindClass,
		Comment:    `I say "hello".`,
		Name:       "Foo",
		Superclass: "Object",
		InstVars:   []string{"a", "b"},
		Category:   "Pkg",
		Package:    "Pkg",
	}
	methods := []Method{
		{Side: InstanceSide, Category: "accessing", Source: "b\n\t^ b"},
		{Side: ClassSide, Category: "instance creation", Source: "new\n\t^ super new initialize"},
		{Side: InstanceSide, Source: "a\n\t^ a"},
	}
	got, err := Render(def, methods)
	require.NoError(t, err)
	want := lines(
		`"`,
		`I say ""hello"".`,
		`"`,
		`Class {`,
		"\t#name : 'Foo',",
		"\t#superclass : 'Object',",
		"\t#instVars : [",
		"\t\t'a',",
		"\t\t'b'",
		"\t],",
		"\t#category : 'Pkg',",
		"\t#package : 'Pkg'",
		`}`,
		``,
		`{ #category : 'instance creation' }`,
		`Foo class >> new [`,
		"\t^ super new initialize",
		`]`,
		``,
		`{ #category : 'as yet unclassified' }`,
		`Foo >> a [`,
		"\t^ a",
		`]`,
		``,
		`{ #category : 'accessing' }`,
		`Foo >> b [`,
		"\t^ b",
		`]`,
	)
	assert.Equal(t, want, string(got))
}

func TestRenderReadsBackToTheSameModel(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		def     Definition
		methods []Method
	}{
		{"class with everything", Definition{
			Kind: KindClass, Comment: "Line one.\n\n\"Quoted\" line.", Name: "Foo", Superclass: "Bar", Type: "variable",
			Traits: "TFoo + TBar", ClassTraits: "TFoo classTrait", InstVars: []string{"a"}, ClassVars: []string{"C"},
			Pools: []string{"P"}, ClassInstVars: []string{"ci"}, Category: "Pkg-Tag", Package: "Pkg", Tag: "Tag",
		}, []Method{
			{Side: InstanceSide, Selector: "at:put:", Category: "accessing", Source: "at: i put: v\n\t^ v"},
			{Side: InstanceSide, Selector: "+", Category: "arithmetic", Source: "+ other\n\t^ #( $] ']' )"},
			{Side: ClassSide, Selector: "x", Category: "it's", Source: "x\n\t\"[\"\n\t^ $["},
			{Side: InstanceSide, Selector: "empty", Category: "a", Source: "empty"},
		}},
		{"trait", Definition{Kind: KindTrait, Name: "TFoo", Category: "Pkg", Package: "Pkg"}, []Method{
			{Side: ClassSide, Selector: "make", Category: "x", Source: "make\n\t^ self new"},
			{Side: InstanceSide, Selector: "foo", Category: "x", Source: "foo"},
		}},
		{"extension", Definition{Kind: KindExtension, Name: "String"}, []Method{
			{Side: InstanceSide, Selector: "shout", Category: "*Pkg", Source: "shout\n\t^ self asUppercase"},
		}},
		{"package", Definition{Kind: KindPackage, Name: "Pkg"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			data, err := Render(tc.def, tc.methods)
			require.NoError(t, err)
			f, err := ParseFile("rendered.st", data)
			require.NoError(t, err, string(data))
			tc.def.SymbolStyle = false
			assert.Equal(t, tc.def, f.Def)
			got := map[string]Method{}
			for _, m := range f.Methods {
				got[m.Side.String()+" "+m.Selector] = Method{Side: m.Side, Selector: m.Selector, Category: m.Category, Source: m.Source}
			}
			require.Len(t, got, len(tc.methods))
			for _, want := range tc.methods {
				assert.Equal(t, want, got[want.Side.String()+" "+want.Selector])
			}
		})
	}
}

func TestRenderSortsClassSideFirstThenBySelector(t *testing.T) {
	t.Parallel()
	methods := []Method{
		{Side: InstanceSide, Source: "zeta"},
		{Side: InstanceSide, Source: "Alpha"},
		{Side: InstanceSide, Source: "+ x"},
		{Side: ClassSide, Source: "zz"},
		{Side: ClassSide, Source: "aa"},
		{Side: InstanceSide, Source: "at: i"},
		{Side: InstanceSide, Source: "at"},
	}
	data, err := Render(Definition{Kind: KindClass, Name: "Foo"}, methods)
	require.NoError(t, err)
	f, err := ParseFile("", data)
	require.NoError(t, err)
	var order []string
	for _, m := range f.Methods {
		order = append(order, m.Side.String()+" "+m.Selector)
	}
	assert.Equal(t, []string{"class aa", "class zz", "instance +", "instance Alpha", "instance at", "instance at:", "instance zeta"}, order)
}

// TestRenderReproducesPharo12CorpusFiles renders every string-style corpus
// file from its parsed model: the corpus follows Pharo 12's writer, so the
// bytes must come out identical.
func TestRenderReproducesPharo12CorpusFiles(t *testing.T) {
	t.Parallel()
	rendered := 0
	for _, path := range corpusFiles(t) {
		f, err := ReadFile(path)
		require.NoError(t, err)
		if f.Def.SymbolStyle || f.SymbolStyle() || len(f.Def.Extra) > 0 {
			continue
		}
		methods := make([]Method, len(f.Methods))
		for i, m := range f.Methods {
			methods[i] = *m
		}
		data, err := Render(f.Def, methods)
		require.NoError(t, err)
		assert.Equal(t, string(f.Bytes()), string(data), filepath.Base(path))
		rendered++
	}
	assert.GreaterOrEqual(t, rendered, 15)
}

func TestRenderErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		source string
		msg    string
	}{
		{"no pattern", "^ 1", "method pattern expected"},
		{"unbalanced", "foo ^ 1 ]", "never opened"},
		{"unterminated string", "foo ^ 'a", "unterminated string"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Render(Definition{Kind: KindClass, Name: "Foo"}, []Method{{Source: tc.source}})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.msg)
		})
	}
}

func TestFormatMethodAndHeader(t *testing.T) {
	t.Parallel()
	cases := []struct {
		kind   Kind
		side   Side
		source string
		want   string
	}{
		{KindClass, InstanceSide, "foo\n\t^ 1", "Foo >> foo [\n\t^ 1\n]"},
		{KindClass, ClassSide, "foo", "Foo class >> foo [\n]"},
		{KindTrait, ClassSide, "foo ^ 1", "Foo classSide >> foo [ ^ 1\n]"},
		{KindExtension, InstanceSide, "  at: i \"c\" put: v \"d\"\n\t^ v", "Foo >> at: i \"c\" put: v [ \"d\"\n\t^ v\n]"},
		{KindClass, InstanceSide, "foo\n\t^ 1\n", "Foo >> foo [\n\t^ 1\n\n]"},
	}
	for _, tc := range cases {
		got, err := FormatMethod(MethodHeader(tc.kind, "Foo", tc.side), tc.source)
		require.NoError(t, err)
		assert.Equal(t, tc.want, got)
		f := mustParse(t, "Class { #name : #Foo }\n\n"+got+"\n")
		assert.Equal(t, strings.TrimLeft(tc.source, " "), f.Methods[0].Source, "reads back")
	}
}
