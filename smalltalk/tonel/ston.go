package tonel

import (
	"fmt"
	"strconv"
	"strings"
)

// The metadata maps are STON, not Smalltalk: strings take backslash
// escapes, a `$` is no character literal and brackets are STON arrays, so
// this file scans them itself; method bodies are Smalltalk and go through
// the smalltalk package's scanner (findBodyEnd).

// mapEntry is one `key : value` of a STON-like map, with the span of the
// value's text (blanks trimmed) in the file.
type mapEntry struct {
	key      string
	keyOff   int
	valStart int
	valEnd   int
}

// parseMap reads the map whose `{` is at open and returns its entries and
// the offset just after its `}`. Keys are `#sym`, `#'sym'` or `'string'`.
func parseMap(src []byte, open int) ([]mapEntry, int, *syntaxErr) {
	i := skipBlanks(src, open+1)
	if i < len(src) && src[i] == '}' {
		return nil, i + 1, nil
	}
	var entries []mapEntry
	for {
		e, next, err := parseEntry(src, i, open)
		if err != nil {
			return nil, 0, err
		}
		entries = append(entries, e)
		if src[next] == '}' {
			return entries, next + 1, nil
		}
		i = skipBlanks(src, next+1) // past the ','
	}
}

// parseEntry reads `key : value` at i and returns it with the offset of the
// `,` or `}` that ends it.
func parseEntry(src []byte, i, open int) (mapEntry, int, *syntaxErr) {
	key, next, err := parseKey(src, i)
	if err != nil {
		return mapEntry{}, 0, err
	}
	next = skipBlanks(src, next)
	if next >= len(src) || src[next] != ':' {
		return mapEntry{}, 0, &syntaxErr{next, fmt.Sprintf("':' expected after key #%s", key)}
	}
	valStart := skipBlanks(src, next+1)
	stop, err := scanValue(src, valStart, open)
	if err != nil {
		return mapEntry{}, 0, err
	}
	valEnd := stop
	for valEnd > valStart && isBlank(src[valEnd-1]) {
		valEnd--
	}
	if valEnd == valStart {
		return mapEntry{}, 0, &syntaxErr{valStart, fmt.Sprintf("value expected for key #%s", key)}
	}
	return mapEntry{key, i, valStart, valEnd}, stop, nil
}

// parseKey reads a map key at i.
func parseKey(src []byte, i int) (string, int, *syntaxErr) {
	if i >= len(src) {
		return "", 0, &syntaxErr{i, "key expected, found end of input"}
	}
	switch {
	case src[i] == '\'':
		end, ok := skipSTONString(src, i)
		if !ok {
			return "", 0, &syntaxErr{i, "unterminated string"}
		}
		return unquoteSTON(string(src[i:end])), end, nil
	case src[i] == '#' && i+1 < len(src) && src[i+1] == '\'':
		end, ok := skipSTONString(src, i+1)
		if !ok {
			return "", 0, &syntaxErr{i, "unterminated symbol"}
		}
		return unquoteSTON(string(src[i+1 : end])), end, nil
	case src[i] == '#':
		// Only the identifier is copied: copying the rest of the file for
		// every key made reading quadratic in the file's size.
		if end := scanIdentBytes(src, i+1); end > i+1 {
			return string(src[i+1 : end]), end, nil
		}
	}
	return "", 0, &syntaxErr{i, "key expected (#name or 'name')"}
}

// scanValue returns the offset of the `,` or `}` that ends the value starting
// at i. Nested brackets, braces and parentheses are skipped, as are strings.
func scanValue(src []byte, i, open int) (int, *syntaxErr) {
	depth := 0
	for i < len(src) {
		switch c := src[i]; c {
		case '\'', '"':
			end, ok := skipSTONString(src, i)
			if !ok {
				return 0, &syntaxErr{i, "unterminated string"}
			}
			i = end
			continue
		case '[', '(', '{':
			depth++
		case ']', ')':
			if depth == 0 {
				return 0, &syntaxErr{i, fmt.Sprintf("unexpected '%c'", c)}
			}
			depth--
		case '}':
			if depth == 0 {
				return i, nil
			}
			depth--
		case ',':
			if depth == 0 {
				return i, nil
			}
		}
		i++
	}
	return 0, &syntaxErr{open, "unterminated map: no matching '}'"}
}

// valueKind says how a map value was written.
type valueKind int

const (
	valString valueKind = iota // 'text'
	valSymbol                  // #text or #'text'
	valWord                    // a bare word or number: nil, TFoo, 3
	valArray                   // [ v, v ]
)

// value is a parsed map value.
type value struct {
	kind  valueKind
	text  string
	items []value
}

// parseValue parses a whole value text; off is its offset in the file, for
// error positions.
func parseValue(raw string, off int) (value, *syntaxErr) {
	v, i, err := parseValueAt(raw, 0)
	if err != nil {
		err.off += off
		return value{}, err
	}
	if i = skipBlanks([]byte(raw), i); i != len(raw) {
		return value{}, &syntaxErr{off + i, "unexpected text in value"}
	}
	return v, nil
}

// parseValueAt parses one value at i and returns it with the offset after it.
func parseValueAt(s string, i int) (value, int, *syntaxErr) {
	if i >= len(s) {
		return value{}, i, &syntaxErr{i, "value expected"}
	}
	switch c := s[i]; {
	case c == '\'':
		end, ok := skipSTONString([]byte(s), i)
		if !ok {
			return value{}, i, &syntaxErr{i, "unterminated string"}
		}
		return value{kind: valString, text: unquoteSTON(s[i:end])}, end, nil
	case c == '#':
		return parseSymbolValue(s, i)
	case c == '[':
		return parseArrayValue(s, i)
	}
	end := i
	for end < len(s) && isWordByte(s[end]) {
		end++
	}
	if end == i {
		return value{}, i, &syntaxErr{i, fmt.Sprintf("value expected, found %q", s[i:i+1])}
	}
	return value{kind: valWord, text: s[i:end]}, end, nil
}

// isWordByte reports bytes of bare words and numbers (and any non-ASCII).
func isWordByte(c byte) bool {
	return c == '_' || c == '.' || c == '-' || c >= 0x80 ||
		('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
}

// isSymbolByte reports bytes of unquoted symbols: STON's simple symbol
// characters plus `:` for keyword symbols.
func isSymbolByte(c byte) bool {
	return isWordByte(c) || c == ':' || c == '/'
}

// parseSymbolValue parses `#foo` or `#'foo bar'` at i.
func parseSymbolValue(s string, i int) (value, int, *syntaxErr) {
	if i+1 < len(s) && s[i+1] == '\'' {
		end, ok := skipSTONString([]byte(s), i+1)
		if !ok {
			return value{}, i, &syntaxErr{i, "unterminated symbol"}
		}
		return value{kind: valSymbol, text: unquoteSTON(s[i+1 : end])}, end, nil
	}
	end := i + 1
	for end < len(s) && isSymbolByte(s[end]) {
		end++
	}
	if end == i+1 {
		return value{}, i, &syntaxErr{i, "symbol expected after '#'"}
	}
	return value{kind: valSymbol, text: s[i+1 : end]}, end, nil
}

// parseArrayValue parses `[ v, v ]` at i.
func parseArrayValue(s string, i int) (value, int, *syntaxErr) {
	b := []byte(s)
	arr := value{kind: valArray}
	j := skipBlanks(b, i+1)
	if j < len(s) && s[j] == ']' {
		return arr, j + 1, nil
	}
	for {
		item, next, err := parseValueAt(s, j)
		if err != nil {
			return value{}, i, err
		}
		arr.items = append(arr.items, item)
		next = skipBlanks(b, next)
		if next >= len(s) {
			return value{}, i, &syntaxErr{i, "unterminated array: no matching ']'"}
		}
		switch s[next] {
		case ']':
			return arr, next + 1, nil
		case ',':
			j = skipBlanks(b, next+1)
		default:
			return value{}, i, &syntaxErr{next, "',' or ']' expected in array"}
		}
	}
}

// unquote strips the quotes of a quoted run and undoubles the quotes inside:
// Smalltalk's rule, used for the class comment.
func unquote(q string) string {
	if len(q) < 2 {
		return ""
	}
	quote := q[:1]
	return strings.ReplaceAll(q[1:len(q)-1], quote+quote, quote)
}

// skipSTONString returns the offset just after the STON string that opens
// at i (src[i] is its quote). A backslash escapes the character after it
// (`'drag\'n\'drop'`, `'C:\\'`), as in STON; a doubled quote also stands
// for the quote, as some older writers put it.
func skipSTONString(src []byte, i int) (int, bool) {
	q := src[i]
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++ // the escaped character, whatever it is
		case q:
			if j+1 < len(src) && src[j+1] == q {
				j++
				continue
			}
			return j + 1, true
		}
	}
	return len(src), false
}

// unquoteSTON strips the quotes of a STON string (as skipSTONString
// delimits it) and decodes its escapes: \' \" \\ \/ \b \f \n \r \t and
// \uXXXX, plus doubled quotes. An unknown escape stands for the character
// after the backslash, so reading never fails on it.
func unquoteSTON(q string) string {
	if len(q) < 2 {
		return ""
	}
	quote, body := q[0], q[1:len(q)-1]
	if strings.IndexByte(body, '\\') < 0 && strings.IndexByte(body, quote) < 0 {
		return body
	}
	var b strings.Builder
	b.Grow(len(body))
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == quote && i+1 < len(body) && body[i+1] == quote:
			i++
		case c == '\\' && i+1 < len(body):
			i++
			if r, n, ok := stonEscape(body[i:]); ok {
				b.WriteRune(r)
				i += n - 1
				continue
			}
			c = body[i]
		}
		b.WriteByte(c)
	}
	return b.String()
}

// stonEscape decodes the escape whose letter starts s (after the
// backslash) and answers the character and how many bytes it took.
func stonEscape(s string) (rune, int, bool) {
	switch s[0] {
	case 'b':
		return '\b', 1, true
	case 'f':
		return '\f', 1, true
	case 'n':
		return '\n', 1, true
	case 'r':
		return '\r', 1, true
	case 't':
		return '\t', 1, true
	case 'u':
		if len(s) >= 5 {
			if v, err := strconv.ParseUint(s[1:5], 16, 32); err == nil {
				return rune(v), 5, true
			}
		}
	}
	return 0, 0, false
}

// quoteString writes s as a STON string the way Pharo's STONWriter does:
// a quote and a backslash are escaped with a backslash, control characters
// with their letter (\n, \t, …) or \uXXXX; everything else as it is.
func quoteString(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\'' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20:
			b.WriteString(controlEscape(c))
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// controlEscape is STON's escape of a control character.
func controlEscape(c byte) string {
	switch c {
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	}
	return fmt.Sprintf(`\u%04X`, c)
}

// quoteSymbol writes s as a symbol literal the way Pharo's Tonel writer does:
// bare when it is an identifier or a keyword selector, quoted otherwise.
func quoteSymbol(s string) string {
	if isPlainSymbol(s) {
		return "#" + s
	}
	return "#" + quoteString(s)
}

// isPlainSymbol reports identifiers (`foo`) and keyword selectors (`at:put:`).
func isPlainSymbol(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); {
		end := scanIdent(s, i)
		if end == i {
			return false
		}
		if end == len(s) {
			// A bare identifier, or a keyword run ending without its colon.
			return i == 0
		}
		if s[end] != ':' {
			return false
		}
		i = end + 1
	}
	return true
}
