package tonel

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ReplaceMethodInPlace changes only the method's declaration and body, in
// the method's own line ending, keeping its category and every other byte.
func TestReplaceMethodInPlace(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, file, side, selector, source, want string
	}{
		{
			name:     "LF, other methods untouched",
			file:     "Class { #name : #Foo }\n\n{ #category : #a }\nFoo >> bar [\n\t^ 1\n]\n\n{ #category : #b }\nFoo >> baz [\n\t^ 2\n]\n",
			selector: "bar", source: "bar\n\t\"One\"\n\t^ 1",
			want: "Class { #name : #Foo }\n\n{ #category : #a }\nFoo >> bar [\n\t\"One\"\n\t^ 1\n]\n\n{ #category : #b }\nFoo >> baz [\n\t^ 2\n]\n",
		},
		{
			name:     "CRLF stays CRLF, whatever the source's endings",
			file:     "Class { #name : #Foo }\r\n\r\n{ #category : #a }\r\nFoo >> bar [\r\n\t^ 1\r\n]\r\n",
			selector: "bar", source: "bar\n\t\"One\"\r\n\t^ 1\n",
			want: "Class { #name : #Foo }\r\n\r\n{ #category : #a }\r\nFoo >> bar [\r\n\t\"One\"\r\n\t^ 1\r\n]\r\n",
		},
		{
			name: "no final newline",
			file: "Class { #name : #Foo }\n\n{ #category : 'it''s \\'x\\'' }\nFoo class >> bar [\n\t^ 1\n]",
			side: "class", selector: "bar", source: "bar\n\t^ 1 + 0",
			want: "Class { #name : #Foo }\n\n{ #category : 'it''s \\'x\\'' }\nFoo class >> bar [\n\t^ 1 + 0\n]",
		},
		{
			name:     "extension",
			file:     "Extension { #name : #String }\n\n{ #category : '*Pkg' }\nString >> shout [\n\t^ self asUppercase\n]\n",
			selector: "shout", source: "shout\n\t\"Louder\"\n\t^ self asUppercase",
			want: "Extension { #name : #String }\n\n{ #category : '*Pkg' }\nString >> shout [\n\t\"Louder\"\n\t^ self asUppercase\n]\n",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, side := parsedOnSide(t, tc.file, tc.side)
			category := f.Method(side, tc.selector).Category
			require.NoError(t, f.ReplaceMethodInPlace(side, tc.selector, tc.source))
			assert.Equal(t, tc.want, string(f.Bytes()))
			assert.Equal(t, category, f.Method(side, tc.selector).Category, "the category is kept")
		})
	}
}

func TestReplaceMethodInPlaceRefuses(t *testing.T) {
	t.Parallel()
	const file = "Class { #name : #Foo }\n\n{ #category : #a }\nFoo >> bar [\n\t^ 1\n]\n"
	for name, tc := range map[string]struct{ selector, source, want string }{
		"absent":         {"nope", "nope ^ 1", "not found"},
		"other selector": {"bar", "baz\n\t^ 1", "defines #baz"},
		"unbalanced":     {"bar", "bar\n\t^ 1 ]", "bracket"},
	} {
		t.Run(name, func(t *testing.T) {
			f, err := ParseFile("Foo.class.st", []byte(file))
			require.NoError(t, err)
			err = f.ReplaceMethodInPlace(InstanceSide, tc.selector, tc.source)
			require.Error(t, err)
			assert.Contains(t, strings.ToLower(err.Error()), tc.want)
			assert.Equal(t, file, string(f.Bytes()), "nothing changed")
		})
	}
}

// AddMethodInPlace inserts where AddMethod would, in the file's own line
// ending, leaving every other byte as it was.
func TestAddMethodInPlace(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, file, side, source, category, want string
	}{
		{
			name:   "LF, sorted among the instance side",
			file:   "Class { #name : #Foo }\n\n{ #category : #a }\nFoo >> a [\n\t^ 1\n]\n\n{ #category : #c }\nFoo >> c [\n\t^ 3\n]\n",
			source: "b\n\t^ 2", category: "helpers",
			want: "Class { #name : #Foo }\n\n{ #category : #a }\nFoo >> a [\n\t^ 1\n]\n\n{ #category : #helpers }\nFoo >> b [\n\t^ 2\n]\n\n{ #category : #c }\nFoo >> c [\n\t^ 3\n]\n",
		},
		{
			name:   "CRLF, last, no final newline",
			file:   "Class { #name : 'Foo' }\r\n\r\n{ #category : 'a' }\r\nFoo >> a [\r\n\t^ 1\r\n]",
			source: "z\n\t^ 26", category: "private",
			want: "Class { #name : 'Foo' }\r\n\r\n{ #category : 'a' }\r\nFoo >> a [\r\n\t^ 1\r\n]\r\n\r\n{ #category : 'private' }\r\nFoo >> z [\r\n\t^ 26\r\n]",
		},
		{
			name: "class side first",
			file: "Class { #name : 'Foo' }\n\n{ #category : 'a' }\nFoo >> a [\n\t^ 1\n]\n",
			side: "class", source: "make\n\t^ self new", category: "instance creation",
			want: "Class { #name : 'Foo' }\n\n{ #category : 'instance creation' }\nFoo class >> make [\n\t^ self new\n]\n\n{ #category : 'a' }\nFoo >> a [\n\t^ 1\n]\n",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, side := parsedOnSide(t, tc.file, tc.side)
			require.NoError(t, f.AddMethodInPlace(side, tc.source, tc.category))
			assert.Equal(t, tc.want, string(f.Bytes()))
		})
	}
}

// parsedOnSide parses a file, and reads side: "class" or the instance side.
func parsedOnSide(t *testing.T, file, side string) (*File, Side) {
	t.Helper()
	f, err := ParseFile("Foo.class.st", []byte(file))
	require.NoError(t, err)
	if side == "class" {
		return f, ClassSide
	}
	return f, InstanceSide
}
