package smalltalk

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestIsClassName(t *testing.T) {
	t.Parallel()
	cases := map[string]bool{
		"Foo": true, "F": true, "Foo_Bar2": true, "OrderedCollection": true,
		"": false, "foo": false, "_Foo": false, "2Foo": false, "Foo class": false,
		"Foo-Bar": false, "Föo": false, "Foo:": false,
	}
	for s, want := range cases {
		assert.Equal(t, want, IsClassName(s), "%q", s)
	}
}

func TestSelectors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		sel  string
		args int
	}{
		{"foo", 0},
		{"_foo2", 0},
		{"+", 1},
		{"->", 1},
		{"==>", 1},
		{"~=", 1},
		{"\\\\", 1},
		{"at:", 1},
		{"at:put:", 2},
		{"a:b:c:", 3},
		{"", -1},
		{":", -1},
		{"at:put", -1},
		{"at::", -1},
		{"2foo", -1},
		{"foo bar", -1},
		{"+a", -1},
		{"at:2:", -1},
		{"foo.", -1},
		{"fóo", -1},
		{"±", 1},
		{"×÷", 1},
		{"+·", 1},
		{"a±", -1},
		{"é", -1},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.args, NumArgs(tc.sel), "NumArgs(%q)", tc.sel)
		assert.Equal(t, tc.args >= 0, IsSelector(tc.sel), "IsSelector(%q)", tc.sel)
	}
}

func TestQuoteString(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"":           "''",
		"abc":        "'abc'",
		"it's":       "'it''s'",
		"''":         "''''''",
		"a\nb \"c\"": "'a\nb \"c\"'",
	}
	for in, want := range cases {
		assert.Equal(t, want, QuoteString(in), "%q", in)
	}
}

func TestQuoteSymbol(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"foo":      "#foo",
		"at:put:":  "#at:put:",
		"+":        "#+",
		"->":       "#->",
		"odd one":  "#'odd one'",
		"it's":     "#'it''s'",
		"":         "#''",
		"foo:bar":  "#'foo:bar'",
		"Foo.Bar":  "#'Foo.Bar'",
		"2r1":      "#'2r1'",
		"héllo":    "#'héllo'",
		"a:b:c:":   "#a:b:c:",
		"#foo":     "#'#foo'",
		"foo bar:": "#'foo bar:'",
		"±":        "#'±'",
		"×":        "#'×'",
	}
	for in, want := range cases {
		assert.Equal(t, want, QuoteSymbol(in), "%q", in)
	}
}

// roundTrip parses a quoted literal back and returns its kind and value.
func roundTrip(t testing.TB, literal string) (LiteralKind, string) {
	seq, err := ParseExpression(literal)
	require.NoError(t, err, "parsing %q", literal)
	require.Len(t, seq.Statements, 1, "parsing %q", literal)
	lit, ok := seq.Statements[0].(*Literal)
	require.True(t, ok, "parsing %q gave %T", literal, seq.Statements[0])
	return lit.Kind, lit.Value
}

func TestQuoteRoundTrip(t *testing.T) {
	t.Parallel()
	for _, s := range quoteSeeds {
		kind, value := roundTrip(t, QuoteString(s))
		assert.Equal(t, LitString, kind)
		assert.Equal(t, s, value)

		kind, value = roundTrip(t, QuoteSymbol(s))
		assert.Equal(t, LitSymbol, kind)
		assert.Equal(t, s, value)
	}
}

var quoteSeeds = []string{
	"", "'", "''", "it's", "\"", "a\"b\"c", "]", "foo ^ 1", "at:put:", "+", "odd one",
	"line\nbreak\r\n", "\x00\xff", "héllo wörld", "'; Smalltalk os exit. '", "#foo", "$", "1e10",
}

// The shapes as regular expressions: the reference the hand-written
// checks are compared with.
var (
	classNameRE = regexp.MustCompile(`^[A-Z][A-Za-z0-9_]*$`)
	selectorRE  = regexp.MustCompile(`^(?:[A-Za-z_][A-Za-z0-9_]*|[-+/\\*~<>=@,%|&?!±×÷·]+|(?:[A-Za-z_][A-Za-z0-9_]*:)+)$`)
)

// TestNameShapesMatchTheirExpressions: the hand-written checks accept
// exactly what the expressions accept, on named cases and on every string of
// up to four pieces of an alphabet covering each class of character (and a
// stray UTF-8 byte).
func TestNameShapesMatchTheirExpressions(t *testing.T) {
	t.Parallel()
	named := []string{
		"", "Calculator", "calculator", "Foo_Bar9", "9Foo", "Foo bar", "Foo\n", "Foo:",
		"sum:with:", "sum:with", "sum", "_x", "x:y", ":", "a::", "at:put:", "at::put:",
		"+", "->", "~=", "±", "×÷·", "+a", "a+", "ÿ", "\xff", "+\xff", "Ä", "sum:\n",
	}
	for _, s := range named {
		assert.Equal(t, classNameRE.MatchString(s), IsClassName(s), "class name %q", s)
		assert.Equal(t, selectorRE.MatchString(s), IsSelector(s), "selector %q", s)
	}
	alphabet := []string{"A", "z", "_", "7", ":", "+", "\\", "±", "·", " ", "é", "\xff", "\n", "-"}
	words := []string{""}
	for range 4 {
		var next []string
		for _, w := range words {
			for _, a := range alphabet {
				next = append(next, w+a)
			}
		}
		for _, s := range next {
			if classNameRE.MatchString(s) != IsClassName(s) || selectorRE.MatchString(s) != IsSelector(s) {
				t.Errorf("%q: class name %v (expression %v), selector %v (expression %v)", s,
					IsClassName(s), classNameRE.MatchString(s), IsSelector(s), selectorRE.MatchString(s))
			}
		}
		words = next
	}
	assert.Len(t, words, len(alphabet)*len(alphabet)*len(alphabet)*len(alphabet))
	assert.True(t, IsSelector(strings.Repeat("ab:", 80)), "a long keyword selector")
}
