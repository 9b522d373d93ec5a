package smalltalk

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSyntaxErrors(t *testing.T) {
	t.Parallel()
	deep := "foo ^ " + strings.Repeat("(", 1000) + "1" + strings.Repeat(")", 1000)
	deepArray := "foo ^ #" + strings.Repeat("(", 1000) + strings.Repeat(")", 1000)
	deepBlocks := "foo ^ " + strings.Repeat("[", 1000) + strings.Repeat("]", 1000)
	deepAssign := "foo " + strings.Repeat("a := ", 1000) + "1"
	cases := []struct {
		name      string
		src       string
		msg       string
		offset    int
		line, col int
	}{
		{"missing operand at end", "foo ^ 1 +", "Variable or expression expected", 9, 1, 10},
		{"missing operand before closer", "foo ^ x foo: )", "Variable or expression expected", 13, 1, 14},
		{"minus then blank is no sign", "foo ^ 3 - - 2", "Variable or expression expected", 10, 1, 11},
		{"colon where an expression belongs", "foo ^ :", "Variable or expression expected", 6, 1, 7},
		{"multi-keyword is no expression", "foo ^ a:b:", "Variable or expression expected", 6, 1, 7},
		{"assignment without variable", "foo := 3", "Variable expected", 4, 1, 5},
		{"missing ) at end", "foo ^ (1 + 2", "')' expected", 12, 1, 13},
		{"missing ) before ]", "foo ^ [(1 + 2]", "')' expected", 13, 1, 14},
		{"missing ) in literal array", "foo ^ #(1 2", "')' expected", 11, 1, 12},
		{"missing ]", "foo ^ [:x | x", "']' expected", 13, 1, 14},
		{"missing ] of byte array", "foo ^ #[1 2", "']' expected", 11, 1, 12},
		{"missing }", "foo ^ { 1. 2", "'}' expected", 12, 1, 13},
		{"missing >", "foo <primitive: 60 ^ 1", "'>' expected", 19, 1, 20},
		{"missing > at end", "foo <primitive: 60", "'>' expected", 18, 1, 19},
		{"pragma argument not literal", "foo <bar: baz> ^ 1", "Literal expected", 10, 1, 11},
		{"pragma without selector", "foo <1>", "Message pattern expected", 5, 1, 6},
		{"# then nothing", "foo ^ #", "Literal expected", 7, 1, 8},
		{"# then blank", "foo ^ # bar", "Literal expected", 7, 1, 8},
		{"unterminated string", "foo ^ 'abc", "Unmatched ' in string literal.", 6, 1, 7},
		{"unterminated string symbol", "foo ^ #'abc", "Unmatched ' in string literal.", 7, 1, 8},
		{"unterminated string with doubled quote", "foo ^ 'it''s", "Unmatched ' in string literal.", 6, 1, 7},
		{"unterminated comment", "foo \"abc", "Unmatched \" in comment.", 4, 1, 5},
		{"unterminated comment with doubled quote", "foo ^ 1 \"a\"\"b", "Unmatched \" in comment.", 8, 1, 9},
		{"two expressions", "foo ^ 1 2", "End of statement expected", 8, 1, 9},
		{"missing period between lines", "foo\n\tx := 1\n\ty := 2", "End of statement expected", 15, 3, 4}, // 1 y is a unary send
		{"true is not assignable", "foo true := 3", "End of statement expected", 9, 1, 10},
		{"keyword after multi-keyword receiver", "foo ^ a foo:bar: 1", "End of statement expected", 8, 1, 9},
		{"cascade part is a single message", "foo a b; c d", "End of statement expected", 11, 1, 12},
		{"cascade on a variable", "foo ^ x; bar", "Cascade message expected", 7, 1, 8},
		{"cascade on a literal", "foo ^ 7; bar", "Cascade message expected", 7, 1, 8},
		{"cascade on a parenthesised send", "foo ^ (x bar); baz", "Cascade message expected", 13, 1, 14},
		{"cascade without message", "foo ^ x bar; 3", "Cascade message expected", 13, 1, 14},
		{"cascade at end", "foo ^ x bar;", "Cascade message expected", 12, 1, 13},
		{"pattern is a number", "3 + 4", "Message pattern expected", 0, 1, 1},
		{"empty method", "", "Message pattern expected", 0, 1, 1},
		{"only a comment", "\"c\"  ", "Message pattern expected", 5, 1, 6},
		{"keyword pattern without argument", "at: 3", "Argument name expected", 4, 1, 5},
		{"keyword pattern with literal argument", "at: true", "Argument name expected", 4, 1, 5},
		{"binary pattern without argument", "+ ", "Argument name expected", 2, 1, 3},
		{"block argument missing", "foo ^[: 1]", "Argument name expected", 8, 1, 9},
		{"block argument bar missing", "foo ^[:a a]", "'|' or parameter expected", 9, 1, 10},
		{"temporaries not closed", "foo | a b", "'|' or variable expected", 9, 1, 10},
		{"temporaries with a literal", "foo | a 3 |", "'|' or variable expected", 8, 1, 9},
		{"radix too small", "foo ^ 1r0", "Invalid radix", 6, 1, 7},
		{"radix too large", "foo ^ 37r1", "Invalid radix", 6, 1, 7},
		{"radix without digits", "foo ^ 16r", "Invalid radix", 6, 1, 7},
		{"radix digit out of range", "foo ^ 2r2", "Invalid radix", 6, 1, 7},
		{"byte too large", "foo ^ #[1 256]", "byte array element must be 0-255", 10, 1, 11},
		{"byte negative", "foo ^ #[1 -1]", "byte array element must be 0-255", 10, 1, 11},
		{"byte not integer", "foo ^ #[1.5]", "byte array element must be 0-255", 8, 1, 9},
		{"byte scaled", "foo ^ #[1s]", "byte array element must be 0-255", 8, 1, 9},
		{"byte not a number", "foo ^ #[a]", "byte array element must be 0-255", 8, 1, 9},
		{"byte via exponent too large", "foo ^ #[1e3]", "byte array element must be 0-255", 8, 1, 9},
		{"$ at end", "foo ^ $", "Character expected", 7, 1, 8},
		{"backquote", "foo ^ `x`", "Unknown character", 6, 1, 7},
		{"non-breaking space", "foo ^\u00a01", "Unknown character", 5, 1, 6},
		{"invalid utf-8", "foo ^ \xff", "Unknown character", 6, 1, 7},
		{"stray )", "foo ^ x )", "Missing opener for closer: )", 8, 1, 9},
		{"stray ] at method level", "foo ^ x ]", "Missing opener for closer: ]", 8, 1, 9},
		{"stray ) in block", "foo [x)]", "Missing opener for closer: )", 6, 1, 7},
		{"stray ] in dynamic array", "foo {x]}", "Missing opener for closer: ]", 6, 1, 7},
		{"lexical error wins over the parser's", "foo ^ 1 'abc", "Unmatched ' in string literal.", 8, 1, 9},
		{"deep parentheses", deep, "Expression nested too deeply", 6 + maxDepth, 1, 7 + maxDepth},
		{"deep literal arrays", deepArray, "Expression nested too deeply", 7 + maxDepth - 1, 1, 7 + maxDepth},
		{"deep blocks", deepBlocks, "Expression nested too deeply", 6 + maxDepth, 1, 7 + maxDepth},
		{"deep assignments", deepAssign, "Expression nested too deeply", 4 + 5*maxDepth, 1, 5 + 5*maxDepth},
		{"line and column after tabs", "foo\n\t| t |\n\tt := 'abc\n", "Unmatched ' in string literal.", 17, 3, 7},
		{"column counts runes", "foo\n\t^ 'é' , (1", "')' expected", 16, 2, 12},
		{"CR ends lines", "foo\r\t^ (1", "')' expected", 9, 2, 6},
		{"CRLF ends lines once", "foo\r\n\t^ (1", "')' expected", 10, 2, 6},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ParseMethod(tc.src)
			require.Error(t, err)
			assert.Nil(t, m)
			var se *SyntaxError
			require.True(t, errors.As(err, &se), "got %T", err)
			assert.Equal(t, tc.msg, se.Message)
			assert.Equal(t, tc.offset, se.Offset, "offset")
			assert.Equal(t, tc.line, se.Line, "line")
			assert.Equal(t, tc.col, se.Col, "col")
		})
	}
}

func TestParseExpressionErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		src    string
		msg    string
		offset int
	}{
		{"| p | p := ", "Variable or expression expected", 11},
		{"x foo)", "Missing opener for closer: )", 5},
		{"| p p := 3", "'|' or variable expected", 6},
		{"<primitive: 1>", "Variable or expression expected", 0},
		{"'abc", "Unmatched ' in string literal.", 0},
	}
	for _, tc := range cases {
		t.Run(tc.src, func(t *testing.T) {
			seq, err := ParseExpression(tc.src)
			require.Error(t, err)
			assert.Nil(t, seq)
			var se *SyntaxError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tc.msg, se.Message)
			assert.Equal(t, tc.offset, se.Offset)
		})
	}
}

func TestSyntaxErrorFormat(t *testing.T) {
	t.Parallel()
	_, err := ParseMethod("foo\n  ^ (1")
	require.Error(t, err)
	assert.Equal(t, "2:7: ')' expected", err.Error())
}

func TestLineCol(t *testing.T) {
	t.Parallel()
	cases := []struct {
		src       string
		offset    int
		line, col int
	}{
		{"", 0, 1, 1},
		{"abc", 2, 1, 3},
		{"abc", 99, 1, 4},
		{"abc", -3, 1, 1},
		{"a\nb", 2, 2, 1},
		{"a\r\nb", 3, 2, 1},
		{"a\rb", 2, 2, 1},
		{"ééx", 4, 1, 3},
	}
	for _, tc := range cases {
		line, col := LineCol(tc.src, tc.offset)
		assert.Equal(t, tc.line, line, "%q@%d line", tc.src, tc.offset)
		assert.Equal(t, tc.col, col, "%q@%d col", tc.src, tc.offset)
	}
}
