package smalltalk

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestIsClassName(t *testing.T) {
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
