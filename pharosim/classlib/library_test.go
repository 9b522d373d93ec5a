package classlib

import (
	"bytes"
	"compress/gzip"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

const goodHead = Header + "\nsource\tPharo 13\tgithub.com/pharo-project/pharo\tabc\n"

func record(fields ...string) string { return strings.Join(fields, "\t") + "\n" }

func TestParseRefusesWhatIsNotAnIndex(t *testing.T) {
	twelve := func(kind, name, super string) string {
		return record(kind, name, super, "Pkg", "", "", "", "", "", "", "a b", "")
	}
	cases := []struct {
		name, text, wantErr string
	}{
		{"empty", "", "line 1: want"},
		{"another header", "pharo-sim class library 2\n", "line 1: want"},
		{"no source line", Header + "\n" + twelve("C", "Foo", ""), "line 2: want"},
		{"too few fields", goodHead + record("C", "Foo", "Object"), "line 3: want 12 tab-separated fields, found 3"},
		{"too many fields", goodHead + record("C", "Foo", "", "Pkg", "", "", "", "", "", "", "a", "", "extra"), "line 3: want 12 tab-separated fields, found more"},
		{"bad kind", goodHead + twelve("Q", "Foo", ""), `line 3: kind "Q"`},
		{"bad name", goodHead + twelve("C", "Foo Bar", ""), "is not an identifier"},
		{"bad superclass", goodHead + twelve("C", "Foo", "1Object"), "superclass"},
		{"a class twice", goodHead + twelve("C", "Foo", "") + twelve("C", "Foo", ""), "line 4: class Foo listed twice"},
		{"bad gzip", "\x1f\x8bnot gzip", "gzip"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.text))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.wantErr)
		})
	}
}

func TestDecompressionIsBounded(t *testing.T) {
	const limit = 1 << 10
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	_, err := zw.Write([]byte(goodHead))
	require.NoError(t, err)
	_, err = zw.Write(bytes.Repeat([]byte("\n"), limit))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	_, err = decompressAtMost(b.Bytes(), limit)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "larger than 1024 bytes uncompressed")
	text, err := decompressAtMost(b.Bytes(), 2*limit)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(text, goodHead))
	_, err = decompressAtMost(bytes.Repeat([]byte("x"), limit+1), limit)
	assert.ErrorContains(t, err, "larger than 1024 bytes: not a class library index")
}

func TestSelectorsAreMatchedWhole(t *testing.T) {
	lib, err := Parse([]byte(goodHead + record("C", "Foo", "", "Pkg", "", "", "", "", "", "", "at: at:put: do: value", "new")))
	require.NoError(t, err)
	foo, ok := lib.Class("Foo")
	require.True(t, ok)
	cases := []struct {
		side     tonel.Side
		selector string
		want     bool
	}{
		{tonel.InstanceSide, "at:", true},
		{tonel.InstanceSide, "at:put:", true},
		{tonel.InstanceSide, "put:", false},
		{tonel.InstanceSide, "at", false},
		{tonel.InstanceSide, "value", true},
		{tonel.InstanceSide, "valu", false},
		{tonel.InstanceSide, "new", false},
		{tonel.ClassSide, "new", true},
		{tonel.InstanceSide, "", false},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, foo.Defines(tc.side, tc.selector), "%s %q", tc.side, tc.selector)
	}
}

// TestDefinedAnywhere: a selector is Pharo's when some class or trait
// defines it, on either side; a part of one is not.
func TestDefinedAnywhere(t *testing.T) {
	lib, err := Parse([]byte(goodHead + record("C", "Foo", "", "Pkg", "", "", "", "", "", "", "at:put: size", "new") +
		record("T", "TBar", "", "Pkg", "", "", "", "", "", "", "bar", "")))
	require.NoError(t, err)
	cases := []struct {
		selector string
		want     bool
	}{
		{"at:put:", true}, {"size", true}, {"new", true}, {"bar", true},
		{"at:", false}, {"put:", false}, {"zork", false}, {"", false},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, lib.DefinedAnywhere(c.selector), c.selector)
	}
	var missing *Library
	assert.False(t, missing.DefinedAnywhere("size"), "no index defines nothing")
}

// TestDeclares: a class declares its own instance, class-instance and
// class variables, whole names only; an unknown class declares nothing.
func TestDeclares(t *testing.T) {
	lib, err := Parse([]byte(goodHead + record("C", "Foo", "", "Pkg", "", "", "array firstIndex", "default", "Registry", "", "", "")))
	require.NoError(t, err)
	cases := []struct {
		class, variable string
		want            bool
	}{
		{"Foo", "array", true}, {"Foo", "firstIndex", true}, {"Foo", "default", true}, {"Foo", "Registry", true},
		{"Foo", "first", false}, {"Foo", "metric", false}, {"Bar", "array", false},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, lib.Declares(c.class, c.variable), "%s %s", c.class, c.variable)
	}
}

// HasGlobal: a class of the index or one of the image's other globals;
// without an index nothing can be told apart, so everything may exist.
func TestHasGlobal(t *testing.T) {
	lib, err := Parse([]byte(goodHead + record("C", "Foo", "", "Pkg", "", "", "", "", "", "", "", "")))
	require.NoError(t, err)
	cases := []struct {
		name string
		want bool
	}{{"Foo", true}, {"Transcript", true}, {"Smalltalk", true}, {"Fooo", false}, {"OrderedColllection", false}}
	for _, c := range cases {
		assert.Equal(t, c.want, lib.HasGlobal(c.name), c.name)
	}
	var none *Library
	assert.True(t, none.HasGlobal("Fooo"))
}

func TestTraitNames(t *testing.T) {
	cases := map[string]string{
		"":                                  "",
		"TFoo":                              "TFoo",
		"TFoo + TBar":                       "TFoo TBar",
		"TFoo classTrait + TBar classTrait": "TFoo TBar",
		"(TFoo - {#Hidden. #x}) + TBar @ {#Alias->#bar}": "TFoo TBar",
	}
	for in, want := range cases {
		assert.Equal(t, want, traitNames(in), in)
	}
}

// The embedded index is Pharo 13's: it loads on first use and says which
// commit it describes.
func TestTheDefaultIndexIsPharo13(t *testing.T) {
	lib := Default()
	require.NoError(t, lib.Err())
	src := lib.Source()
	assert.Equal(t, "Pharo 13", src.Label)
	assert.Equal(t, "github.com/pharo-project/pharo", src.Repository)
	assert.Regexp(t, `^[0-9a-f]{40}$`, src.Commit)
	assert.Greater(t, lib.Len(), 7000)
	object, ok := lib.Class("Object")
	require.True(t, ok)
	assert.Equal(t, "ProtoObject", object.Superclass)
	assert.Equal(t, "Kernel", object.Package)
}
