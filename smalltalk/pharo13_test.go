package smalltalk

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Syntax Pharo accepts that the parser once refused: unreachable statements
// (a warning, not an error), Pharo 13's non-ASCII binary characters and
// pragmas whose selector is binary.

func TestUnreachableCodeIsAWarning(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		src  string
		want []Warning
	}{
		{"statement after a return", "foo ^ 1. 2",
			[]Warning{{WarnUnreachable, "Unreachable code", 9, 1, 10}}},
		{"return after a return", "foo\n\t^ 1.\n\t^ 2",
			[]Warning{{WarnUnreachable, "Unreachable code", 11, 3, 2}}},
		{"one warning per sequence", "foo ^ 1. 2. 3",
			[]Warning{{WarnUnreachable, "Unreachable code", 9, 1, 10}}},
		{"inside a block", "foo [^ 1. 2] value",
			[]Warning{{WarnUnreachable, "Unreachable code", 10, 1, 11}}},
		{"in a method and in a block", "foo [:x | ^ x. x] value: 1. ^ 2. 3",
			[]Warning{{WarnUnreachable, "Unreachable code", 15, 1, 16}, {WarnUnreachable, "Unreachable code", 33, 1, 34}}},
		{"in a dynamic array", "foo ^ { ^ 1. 2 }",
			[]Warning{{WarnUnreachable, "Unreachable code", 13, 1, 14}}},
		{"a return last is fine", "foo 1. ^ 2", nil},
		{"returns in both branches are fine", "foo x ifTrue: [^ 1]. ^ 2", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ParseMethod(tc.src)
			require.NoError(t, err)
			assert.Equal(t, tc.want, m.Warnings)
			info := m.Info()
			assert.Equal(t, tc.want, info.Warnings, "the analysis carries the warnings")
			assert.Equal(t, tc.want, info.Unreachable())
		})
	}
}

func TestUnreachableStatementsStillCount(t *testing.T) {
	t.Parallel()
	m := mustMethod(t, "foo ^ 1. self bar: Baz")
	assert.Equal(t, "foo => (^ 1). (self bar: Baz)", sexpr(m))
	info := m.Info()
	assert.Contains(t, info.Sends, "bar:", "an unreachable send is still a reference, as in Pharo")
	assert.Contains(t, info.Referenced, "Baz")
}

func TestExpressionWithUnreachableCodeParses(t *testing.T) {
	t.Parallel()
	seq, err := ParseExpression("^ 1. 2")
	require.NoError(t, err)
	assert.Len(t, seq.Statements, 2)
}

func TestPharo13BinaryCharacters(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, src, want string
	}{
		{"plus-minus send", "foo ^ 3 ± 1", "foo => (^ (3 ± 1))"},
		{"times send", "foo ^ a × b", "foo => (^ (a × b))"},
		{"divide send", "foo ^ a ÷ b", "foo => (^ (a ÷ b))"},
		{"middle dot send", "foo ^ a · b", "foo => (^ (a · b))"},
		{"without blanks", "foo ^ a×b", "foo => (^ (a × b))"},
		{"mixed with ASCII", "foo ^ a ±= b", "foo => (^ (a ±= b))"},
		{"binary pattern", "± other ^ other", "± other => (^ other)"},
		{"binary pattern mixed", "×= other ^ other", "×= other => (^ other)"},
		{"symbol", "foo ^ #÷", "foo => (^ #÷)"},
		{"in a literal array", "foo ^ #(± ·)", "foo => (^ #(#± #·))"},
		{"binary pragma", "foo <× 2> ^ 1", "foo <× 2> => (^ 1)"},
		{"cascade part", "foo a ± 1; × 2", "foo => (cascade a (± 1) (× 2))"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := mustMethod(t, tc.src)
			assert.Equal(t, tc.want, sexpr(m))
		})
	}
	m := mustMethod(t, "foo ^ a × b")
	assert.Equal(t, []string{"×"}, m.Info().Sends)
}

func TestOtherNonASCIIStaysUnknown(t *testing.T) {
	t.Parallel()
	for _, src := range []string{"foo ^ a ≠ b", "foo ^ a √ b", "foo ^ a − b"} {
		_, err := ParseMethod(src)
		var se *SyntaxError
		require.ErrorAs(t, err, &se, src)
		assert.Equal(t, "Unknown character", se.Message, src)
	}
}

func TestBinaryPragmas(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, src, want string
	}{
		{"glued to the opener", "foo <+ 1> ^ 1", "foo <+ 1> => (^ 1)"},
		{"run glued to the opener", "foo <==> #x> ^ 1", "foo <==> #x> => (^ 1)"},
		{"spaced", "foo < - 'a'> ^ 1", "foo <- 'a'> => (^ 1)"},
		{"after temporaries", "foo | t | <+ 1> ^ t", "foo <+ 1> => | t | (^ t)"},
		{"with keyword pragmas", "foo <a: 1> <+ 2> <b> ^ 1", "foo <a: 1> <+ 2> <b> => (^ 1)"},
		{"less-than pragma", "foo << 1> ^ 1", "foo << 1> => (^ 1)"},
		{"in a binary method", "+ x <+ 1> ^ x", "+ x <+ 1> => (^ x)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := mustMethod(t, tc.src)
			assert.Equal(t, tc.want, sexpr(m))
		})
	}
	for _, bad := range []string{"foo <+> ^ 1", "foo <+ x> ^ 1", "foo <+ 1 ^ 1"} {
		_, err := ParseMethod(bad)
		assert.Error(t, err, bad)
	}
}
