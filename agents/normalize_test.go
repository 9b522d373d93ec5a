package agents

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestNormalizeCode(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, in, want string }{
		{"plain method unchanged", "foo\n\t^ 1", "foo\n\t^ 1"},
		{"body ending in a block is kept", "foo\n\t^ [ 1 ]", "foo\n\t^ [ 1 ]"},
		{"prefixed body ending in a block", "Foo >> foo\n\t^ [ 1 ]", "foo\n\t^ [ 1 ]"},
		{"smalltalk fence", "```smalltalk\nfoo\n\t^ 1\n```", "foo\n\t^ 1"},
		{"st fence", "```st\nfoo\n\t^ 1\n```", "foo\n\t^ 1"},
		{"bare fence", "```\nfoo\n\t^ 1\n```", "foo\n\t^ 1"},
		{"unclosed fence", "```smalltalk\nfoo\n\t^ 1", "foo\n\t^ 1"},
		{"prefix", "Foo >> foo\n\t^ 1", "foo\n\t^ 1"},
		{"prefix without spaces", "Foo>>foo\n\t^ 1", "foo\n\t^ 1"},
		{"prefix with #", "Foo >> #foo\n\t^ 1", "foo\n\t^ 1"},
		{"class-side prefix", "Foo class >> new\n\t^ super new init", "new\n\t^ super new init"},
		{"misnamed class prefix", "Calc >> foo\n\t^ 1", "foo\n\t^ 1"},
		{"Tonel brackets", "Foo >> at: i put: v [\n\t^ items at: i put: v\n]", "at: i put: v\n\t^ items at: i put: v"},
		{"Tonel brackets, class side", "Foo class >> default [\n\t^ self new\n]", "default\n\t^ self new"},
		{"Tonel brackets, nested block", "Foo >> foo [\n\t^ [ 1 ]\n]", "foo\n\t^ [ 1 ]"},
		{"Tonel brackets without prefix", "foo [\n\t^ 1\n]", "foo\n\t^ 1"},
		{"Tonel brackets, one line", "Foo >> foo [ ^ 1 ]", "foo\n\t^ 1"},
		{"Tonel with ] in string, comment and char", "Foo >> foo [\n\t\"a ] here\"\n\t^ ']' , $] asString\n]", "foo\n\t\"a ] here\"\n\t^ ']' , $] asString"},
		{"Tonel with literal array", "Foo >> foo [\n\t^ #( ] )\n]", "foo\n\t^ #( ] )"},
		{"binary selector", "Foo >> + other [\n\t^ self add: other\n]", "+ other\n\t^ self add: other"},
		{"binary >> method is not a prefix", ">> other\n\t^ self shift: other", ">> other\n\t^ self shift: other"},
		{"one-line block method without prefix is kept", "foo [ ^ 1 ]", "foo [ ^ 1 ]"},
		{"bracket not closing at the end is kept", "Foo >> foo [\n\t^ 1\n] value", "foo [\n\t^ 1\n] value"},
		{"CRLF", "foo\r\n\t^ 1\r\n", "foo\n\t^ 1"},
		{"CR (Pharo)", "foo\r\t^ 1\r", "foo\n\t^ 1"},
		{"surrounding blank lines", "\n\n  foo\n\t^ 1\n\n\n", "foo\n\t^ 1"},
		{"fence, prefix and brackets together", "```smalltalk\r\nFoo >> foo [\r\n\t^ 1\r\n]\r\n```", "foo\n\t^ 1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, normalizeCode(tc.in, "Foo"))
		})
	}
}

func FuzzNormalizeCode(f *testing.F) {
	for _, s := range []string{"foo\n\t^ [ 1 ]", "```smalltalk\nFoo >> foo [\n\t^ 1\n]\n```", "Foo class>>#bar [ ^ '[' ]", "#( ( ", "$", "'", "\"", "Foo >> x [", "```"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := normalizeCode(in, "Foo")
		if strings.ContainsRune(out, '\r') {
			t.Fatalf("CR left in %q", out)
		}
		if utf8.ValidString(in) && !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 from %q", in)
		}
		if out != strings.TrimSpace(out) {
			t.Fatalf("surrounding blanks left in %q", out)
		}
		if len(out) > len(in)+1 {
			t.Fatalf("output grew: %q -> %q", in, out)
		}
	})
}

func FuzzParseCandidate(f *testing.F) {
	for _, s := range []string{`{"code": "foo", "notes": ""}`, "```smalltalk\nfoo\n```", "{{{", `{"code": "a` + "\n" + `b"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		c, err := parseCandidate(in, "Foo", tolerant)
		if err == nil && c.Code == "" {
			t.Fatalf("accepted empty code from %q", in)
		}
	})
}
