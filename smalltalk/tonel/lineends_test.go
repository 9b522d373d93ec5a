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
			f, err := ParseFile("Foo.class.st", []byte(tc.file))
			require.NoError(t, err)
			side := InstanceSide
			if tc.side == "class" {
				side = ClassSide
			}
			category := f.Method(side, tc.selector).Category
			require.NoError(t, f.ReplaceMethodInPlace(side, tc.selector, tc.source))
			assert.Equal(t, tc.want, string(f.Bytes()))
			assert.Equal(t, category, f.Method(side, tc.selector).Category, "the category is kept")
		})
	}
}

func TestReplaceMethodInPlaceRefuses(t *testing.T) {
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
