package tonel

import (
	"unicode"
	"unicode/utf8"

	"pharo-refactor/smalltalk"
)

// syntaxErr is a problem found at a byte offset; the file parser turns it
// into a ParseError with line and column.
type syntaxErr struct {
	off int
	msg string
}

func (e *syntaxErr) Error() string { return e.msg }

// skipQuoted returns the offset just after the quoted run that opens at i
// (src[i] is the quote). A doubled quote inside stands for the quote itself.
func skipQuoted(src []byte, i int) (int, bool) {
	q := src[i]
	for j := i + 1; j < len(src); j++ {
		if src[j] != q {
			continue
		}
		if j+1 < len(src) && src[j+1] == q {
			j++
			continue
		}
		return j + 1, true
	}
	return len(src), false
}

// skipCharLiteral returns the offset just after the character literal `$c`
// that opens at i; c is one whole rune, whatever it is.
func skipCharLiteral(src []byte, i int) (int, bool) {
	if i+1 >= len(src) {
		return len(src), false
	}
	_, size := utf8.DecodeRune(src[i+1:])
	return i + 1 + size, true
}

// skipLexical skips the string, comment or character literal at i, if any.
// It answers the offset after it, or i itself when src[i] opens none of them.
func skipLexical(src []byte, i int) (int, *syntaxErr) {
	switch src[i] {
	case '\'':
		if j, ok := skipQuoted(src, i); ok {
			return j, nil
		}
		return 0, &syntaxErr{i, "unterminated string"}
	case '"':
		if j, ok := skipQuoted(src, i); ok {
			return j, nil
		}
		return 0, &syntaxErr{i, "unterminated comment"}
	case '$':
		if j, ok := skipCharLiteral(src, i); ok {
			return j, nil
		}
		return 0, &syntaxErr{i, "character literal at end of input"}
	}
	return i, nil
}

// findBodyEnd returns the offset of the `]` that closes a method body whose
// text starts at start (just after the opening `[`). Brackets nest; strings,
// comments, character literals and literal arrays `#( … )` do not count.
func findBodyEnd(src []byte, start int) (int, *syntaxErr) {
	depth := 1
	for i := start; i < len(src); {
		j, err := skipLexical(src, i)
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
				if i, err = skipLiteralArray(src, i+1); err != nil {
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
	return 0, &syntaxErr{start, "unterminated method body: no matching ']'"}
}

// skipLiteralArray skips a literal array whose `(` is at open. Inside it only
// parentheses nest (a bare `( … )` is a nested array); brackets are plain
// symbols, but strings, comments and characters must still be skipped so
// that `')'` or `$)` do not close it.
func skipLiteralArray(src []byte, open int) (int, *syntaxErr) {
	depth := 0
	for i := open; i < len(src); {
		j, err := skipLexical(src, i)
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
	return 0, &syntaxErr{open, "unterminated literal array"}
}

// isBlank reports Tonel's separators.
func isBlank(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// skipBlanks returns the first offset at or after i that is not blank.
func skipBlanks(src []byte, i int) int {
	for i < len(src) && isBlank(src[i]) {
		i++
	}
	return i
}

// isIdentStart reports whether the rune can start a Smalltalk identifier.
func isIdentStart(r rune) bool {
	return r == '_' || unicode.IsLetter(r)
}

// isIdentPart reports whether the rune can continue a Smalltalk identifier.
func isIdentPart(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// scanIdent returns the end of the identifier starting at i, or i when none
// starts there.
func scanIdent(s string, i int) int {
	if i >= len(s) {
		return i
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	if !isIdentStart(r) {
		return i
	}
	j := i + size
	for j < len(s) {
		r, size = utf8.DecodeRuneInString(s[j:])
		if !isIdentPart(r) {
			break
		}
		j += size
	}
	return j
}

// scanIdentBytes is scanIdent on bytes, without copying them.
func scanIdentBytes(src []byte, i int) int {
	if i >= len(src) {
		return i
	}
	r, size := utf8.DecodeRune(src[i:])
	if !isIdentStart(r) {
		return i
	}
	j := i + size
	for j < len(src) {
		r, size = utf8.DecodeRune(src[j:])
		if !isIdentPart(r) {
			break
		}
		j += size
	}
	return j
}

// isBinaryChar reports the ASCII characters binary selectors are made of.
func isBinaryChar(c byte) bool {
	switch c {
	case '+', '-', '/', '\\', '*', '~', '<', '>', '=', '@', ',', '%', '|', '&', '?', '!':
		return true
	}
	return false
}

// binaryCharAt answers the length of the binary selector character at i
// (ASCII, or one of Pharo 13's ± × ÷ ·), 0 when there is none.
func binaryCharAt(s string, i int) int {
	if i >= len(s) {
		return 0
	}
	if s[i] < utf8.RuneSelf {
		if isBinaryChar(s[i]) {
			return 1
		}
		return 0
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	if smalltalk.IsNonASCIIBinary(r) {
		return size
	}
	return 0
}
