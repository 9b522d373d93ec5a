package smalltalk

import "unicode/utf8"

// This file is the scanner's exported face for readers that do not parse a
// method but must find where a piece of Smalltalk ends: the Tonel reader
// delimiting a method body and the agents cutting a model's answer out of
// brackets. They see strings, comments, characters and brackets exactly as
// the parser's scanner does.

// LexicalErrorKind says which construct never closed.
type LexicalErrorKind uint8

const (
	// UnterminatedString: a 'string' without its closing quote.
	UnterminatedString LexicalErrorKind = iota + 1
	// UnterminatedComment: a "comment" without its closing quote.
	UnterminatedComment
	// CharacterAtEnd: a $ with no character after it.
	CharacterAtEnd
	// UnterminatedLiteralArray: a #( without its closing parenthesis.
	UnterminatedLiteralArray
	// UnterminatedBlock: a [ without its closing bracket.
	UnterminatedBlock
)

// LexicalError is a construct that never closes; Offset is where it opens
// (the quote, the $, the ( of a literal array, or where the bracketed
// text starts).
type LexicalError struct {
	Offset int
	Kind   LexicalErrorKind
}

func (e *LexicalError) Error() string {
	switch e.Kind {
	case UnterminatedString:
		return "unterminated string"
	case UnterminatedComment:
		return "unterminated comment"
	case CharacterAtEnd:
		return "character literal at end of input"
	case UnterminatedLiteralArray:
		return "unterminated literal array"
	}
	return "unterminated block: no matching ']'"
}

// QuoteEnd returns the offset just after the quoted run that opens at
// src[open] (a ' string or a " comment); a doubled quote inside stands for
// the quote itself. ok is false when the run never closes.
func QuoteEnd(src string, open int) (end int, ok bool) {
	return closingQuote(src, open, src[open])
}

// CharLiteralEnd returns the offset just after the character literal $c
// that opens at src[dollar]; c is one whole character, whatever it is.
// ok is false when the $ ends the input.
func CharLiteralEnd(src string, dollar int) (end int, ok bool) {
	if dollar+1 >= len(src) {
		return len(src), false
	}
	_, size := utf8.DecodeRuneInString(src[dollar+1:])
	return dollar + 1 + size, true
}

// ClosingBracket returns the offset of the ] that closes a bracket whose
// text starts at start (just after the [). Brackets nest; strings,
// comments, character literals and literal arrays #( … ) do not count,
// and inside a literal array only parentheses nest.
func ClosingBracket(src string, start int) (int, *LexicalError) {
	depth := 1
	for i := start; i < len(src); {
		j, err := skipQuotedOrChar(src, i)
		if err != nil {
			return 0, err
		}
		if j != i {
			i = j
			continue
		}
		switch src[i] {
		case '#':
			if i+1 < len(src) && src[i+1] == '(' {
				if i, err = literalArrayEnd(src, i+1); err != nil {
					return 0, err
				}
				continue
			}
		case '[':
			depth++
		case ']':
			depth--
			if depth == 0 {
				return i, nil
			}
		}
		i++
	}
	return 0, &LexicalError{start, UnterminatedBlock}
}

// literalArrayEnd returns the offset after the ) closing the ( at open.
// Only parentheses nest (a bare ( … ) is a nested array); brackets are
// plain symbols, but strings, comments and characters are skipped so that
// ')' or $) do not close it.
func literalArrayEnd(src string, open int) (int, *LexicalError) {
	depth := 0
	for i := open; i < len(src); {
		j, err := skipQuotedOrChar(src, i)
		if err != nil {
			return 0, err
		}
		if j != i {
			i = j
			continue
		}
		switch src[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i + 1, nil
			}
		}
		i++
	}
	return 0, &LexicalError{open, UnterminatedLiteralArray}
}

// skipQuotedOrChar skips the string, comment or character literal at i,
// if any: it answers the offset after it, or i itself when src[i] opens
// none of them.
func skipQuotedOrChar(src string, i int) (int, *LexicalError) {
	switch src[i] {
	case '\'', '"':
		if j, ok := closingQuote(src, i, src[i]); ok {
			return j, nil
		}
		if src[i] == '"' {
			return 0, &LexicalError{i, UnterminatedComment}
		}
		return 0, &LexicalError{i, UnterminatedString}
	case '$':
		if j, ok := CharLiteralEnd(src, i); ok {
			return j, nil
		}
		return 0, &LexicalError{i, CharacterAtEnd}
	}
	return i, nil
}

// BinaryCharLen answers the length in bytes of the binary selector
// character at src[i] (one of + - / \ * ~ < > = @ , % | & ? ! or Pharo
// 13's ± × ÷ ·), 0 when there is none.
func BinaryCharLen(src string, i int) int {
	if i >= len(src) {
		return 0
	}
	if c := src[i]; c < utf8.RuneSelf {
		if charClass[c] == cBinary {
			return 1
		}
		return 0
	}
	r, size := utf8.DecodeRuneInString(src[i:])
	if IsNonASCIIBinary(r) {
		return size
	}
	return 0
}
