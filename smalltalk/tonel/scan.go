package tonel

import (
	"unicode"
	"unicode/utf8"

	"github.com/pharo-refactor/refactord/smalltalk"
)

// syntaxErr is a problem found at a byte offset; the file parser turns it
// into a ParseError with line and column.
type syntaxErr struct {
	off int
	msg string
}

func (e *syntaxErr) Error() string { return e.msg }

// findBodyEnd returns the offset of the `]` that closes a method body whose
// text starts at start (just after the opening `[`). Method bodies are
// Smalltalk, so the Smalltalk scanner finds the end: brackets nest;
// strings, comments, character literals and literal arrays `#( … )` do not
// count.
func findBodyEnd(src string, start int) (int, *syntaxErr) {
	end, err := smalltalk.ClosingBracket(src, start)
	if err == nil {
		return end, nil
	}
	if err.Kind == smalltalk.UnterminatedBlock {
		return 0, &syntaxErr{err.Offset, "unterminated method body: no matching ']'"}
	}
	return 0, &syntaxErr{err.Offset, err.Error()}
}

// isBlank reports Tonel's separators. They are the file format's, not the
// Smalltalk scanner's: Tonel also takes a vertical tab, Smalltalk a NUL.
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
// The identifier scanners below read class names, selectors and STON keys
// of the file format, not method source, and unlike the Smalltalk scanner
// they take non-ASCII digits after the first letter, so they stay apart.
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
