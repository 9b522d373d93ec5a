package smalltalk

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestClosingBracket(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		src     string // the text after an opening [
		want    int
		wantErr LexicalErrorKind
		errAt   int
	}{
		{name: "empty body", src: "]", want: 0},
		{name: "nested blocks", src: "[:x | [x]] value ] tail", want: 17},
		{name: "bracket in a string", src: "^ ']' ]", want: 6},
		{name: "doubled quote", src: "^ 'it'']s' ]", want: 11},
		{name: "bracket in a comment", src: "\"]\" ^ 1 ]", want: 8},
		{name: "bracket character", src: "^ $] ]", want: 5},
		{name: "multi-byte character", src: "^ $é ]", want: 6},
		{name: "brackets in a literal array", src: "^ #( ] [ ) ]", want: 11},
		{name: "nested literal array", src: "^ #( ( ] ) $) ')' ) ]", want: 20},
		{name: "unterminated string", src: "^ 'abc ]", wantErr: UnterminatedString, errAt: 2},
		{name: "unterminated comment", src: "\"abc ]", wantErr: UnterminatedComment, errAt: 0},
		{name: "dollar at end", src: "^ $", wantErr: CharacterAtEnd, errAt: 2},
		{name: "unterminated literal array", src: "^ #( 1 ]", wantErr: UnterminatedLiteralArray, errAt: 3},
		{name: "unterminated block", src: "[ ]", wantErr: UnterminatedBlock, errAt: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ClosingBracket(tt.src, 0)
			if tt.wantErr != 0 {
				require.NotNil(t, err)
				assert.Equal(t, tt.wantErr, err.Kind)
				assert.Equal(t, tt.errAt, err.Offset)
				assert.NotEmpty(t, err.Error())
				return
			}
			require.Nil(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestLexAgreesWithScanner checks that the exported scanning functions end
// strings, comments, characters and binary characters where the parser's
// scanner does.
func TestLexAgreesWithScanner(t *testing.T) {
	t.Parallel()
	for _, src := range []string{"'abc'", "'it''s' x", "'é''' ", "'open", "$a", "$'", "$é x", "$"} {
		s := scanner{src: src}
		tok := s.next()
		switch src[0] {
		case '\'':
			end, ok := QuoteEnd(src, 0)
			assert.Equal(t, tok.kind == tString, ok, src)
			if ok {
				assert.Equal(t, tok.end, end, src)
			}
		case '$':
			end, ok := CharLiteralEnd(src, 0)
			assert.Equal(t, tok.kind == tChar, ok, src)
			if ok {
				assert.Equal(t, tok.end, end, src)
			}
		}
	}
	for _, src := range []string{"\"c\" x", "\"a\"\"b\" x", "\"open"} {
		s := scanner{src: src}
		tok := s.next()
		end, ok := QuoteEnd(src, 0)
		assert.Equal(t, tok.kind != tError, ok, src)
		if ok {
			assert.Equal(t, end+1, tok.start, src)
		}
	}
	for _, src := range []string{"+", "-", "±", "×", "÷", "·", "~", "a", "é", "(", "'", "§"} {
		s := scanner{src: src + " x"}
		tok := s.next()
		n := BinaryCharLen(src, 0)
		assert.Equal(t, tok.kind == tBinary, n > 0, src)
		if n > 0 {
			assert.Equal(t, len(src), n, src)
		}
	}
}
