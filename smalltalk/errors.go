package smalltalk

import (
	"strconv"
	"unicode/utf8"
)

// SyntaxError is a parse failure at one place in the source.
type SyntaxError struct {
	// Message uses Pharo's words where Pharo has them, e.g. "')' expected".
	Message string
	// Offset is the byte offset into the parsed source where Pharo would
	// point: where a missing token was expected, or where a bad token starts.
	Offset int
	// Line and Col are 1-based; Col counts runes, not bytes.
	Line int
	Col  int
}

// Error formats the error as "LINE:COL: MESSAGE".
func (e *SyntaxError) Error() string {
	return strconv.Itoa(e.Line) + ":" + strconv.Itoa(e.Col) + ": " + e.Message
}

func newSyntaxError(src string, offset int, msg string) *SyntaxError {
	line, col := LineCol(src, offset)
	return &SyntaxError{Message: msg, Offset: offset, Line: line, Col: col}
}

// LineCol converts a byte offset into src to a 1-based line and a 1-based
// column counted in runes. LF, CR LF and a lone CR each end a line, because
// sources from the image use CR while the service normalises to LF. Offsets
// outside src are clamped.
func LineCol(src string, offset int) (line, col int) {
	offset = max(0, min(offset, len(src)))
	line, lineStart := 1, 0
	for i := 0; i < offset; i++ {
		switch src[i] {
		case '\n':
			line, lineStart = line+1, i+1
		case '\r':
			if i+1 < len(src) && src[i+1] == '\n' {
				continue // the LF ends this line
			}
			line, lineStart = line+1, i+1
		}
	}
	return line, utf8.RuneCountInString(src[lineStart:offset]) + 1
}
