package smalltalk

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// lexError names a lexical error; the token carries the code rather than
// the text so that tokens stay small.
type lexError uint8

const (
	errUnmatchedString lexError = iota + 1
	errUnmatchedComment
	errCharExpected
	errLiteralExpected
	errInvalidRadix
	errUnknownChar
)

// lexMessages are the scanner's messages, in Pharo's words where Pharo has
// them.
var lexMessages = [...]string{
	errUnmatchedString:  "Unmatched ' in string literal.",
	errUnmatchedComment: "Unmatched \" in comment.",
	errCharExpected:     "Character expected",
	errLiteralExpected:  msgLiteralExpected,
	errInvalidRadix:     "Invalid radix",
	errUnknownChar:      "Unknown character",
}

const msgLiteralExpected = "Literal expected"

type tokKind uint8

const (
	tEOF          tokKind = iota
	tIdent                // foo, also true false nil (the parser decides)
	tKeyword              // foo:
	tMultiKeyword         // foo:bar: written without spaces; only a literal
	tBinary               // a run of binary characters
	tNumber               // 12, -5, 16r1F, 1.5e3, 1.5s2
	tString               // 'it''s'
	tSymbol               // #foo #foo:bar: #+ #'x y'
	tChar                 // $a
	tLitArray             // #(
	tByteArray            // #[
	tSpecial              // one of ( ) [ ] { } . ; ^ :
	tAssign               // :=
	tError                // a lexical error; err and aux say what and where
)

// token is a value type so scanning allocates nothing; its text is
// src[start:end].
type token struct {
	kind  tokKind
	err   lexError // tError only
	start int
	end   int
	// aux: for tSymbol the offset of the symbol's text (after the #s);
	// for tError the offset the error points at.
	aux int
}

// Character classes of ASCII bytes.
const (
	cOther   uint8 = iota // not valid outside strings and comments
	cSep                  // whitespace (and NUL, as in Pharo)
	cLetter               // A-Z a-z _
	cDigit                // 0-9
	cBinary               // + - / \ * ~ < > = @ , % | & ? ! (and, beyond ASCII, ± × ÷ ·: see binaryAt)
	cSpecial              // ( ) [ ] { } . ; ^ :
	cQuote                // '
	cDQuote               // "
	cHash                 // #
	cDollar               // $
	cHigh                 // first byte of a multi-byte UTF-8 sequence (or garbage)
)

// charClass is a constant lookup table; it is never written after init.
var charClass = makeCharClass()

func makeCharClass() (t [256]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = cLetter, cLetter
	}
	t['_'] = cLetter
	for c := '0'; c <= '9'; c++ {
		t[c] = cDigit
	}
	for _, c := range []byte("+-/\\*~<>=@,%|&?!") {
		t[c] = cBinary
	}
	for _, c := range []byte("()[]{}.;^:") {
		t[c] = cSpecial
	}
	for _, c := range []byte(" \t\n\r\f\x00") {
		t[c] = cSep
	}
	t['\''], t['"'], t['#'], t['$'] = cQuote, cDQuote, cHash, cDollar
	for c := 0x80; c < 0x100; c++ {
		t[c] = cHigh
	}
	return t
}

// digitValue is the value of c as a digit in radix notation (0-9, then A-Z
// or a-z as 10-35); 99 when c is no digit at all.
func digitValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 10
	}
	return 99
}

func isDecimal(c byte) bool { return c >= '0' && c <= '9' }

type scanner struct {
	src string
	pos int
}

// next skips separators and comments and scans one token.
func (s *scanner) next() token {
	if t, ok := s.skipSeparators(); !ok {
		return t
	}
	if s.pos >= len(s.src) {
		return token{kind: tEOF, start: len(s.src), end: len(s.src)}
	}
	start := s.pos
	c := s.src[start]
	switch charClass[c] {
	case cLetter:
		return s.scanIdentOrKeyword(start)
	case cDigit:
		return s.scanNumber(start)
	case cBinary:
		// A minus directly before a digit starts a negative number; the
		// parser turns it back into a binary minus after an operand.
		if c == '-' && start+1 < len(s.src) && isDecimal(s.src[start+1]) {
			return s.scanNumber(start)
		}
		return s.simple(tBinary, start, s.binaryRun(start))
	case cSpecial:
		if c == ':' && start+1 < len(s.src) && s.src[start+1] == '=' {
			return s.simple(tAssign, start, start+2)
		}
		return s.simple(tSpecial, start, start+1)
	case cQuote:
		return s.scanString(tString, start, start)
	case cHash:
		return s.scanHash(start)
	case cDollar:
		return s.scanChar(start)
	case cHigh:
		if s.letterAt(start) {
			return s.scanIdentOrKeyword(start)
		}
		if s.binaryAt(start) {
			return s.simple(tBinary, start, s.binaryRun(start))
		}
	}
	_, size := utf8.DecodeRuneInString(s.src[start:])
	s.pos = start + size
	return errorToken(start, start, errUnknownChar)
}

func (s *scanner) simple(k tokKind, start, end int) token {
	s.pos = end
	return token{kind: k, start: start, end: end}
}

func errorToken(start, at int, err lexError) token {
	return token{kind: tError, err: err, start: start, end: start, aux: at}
}

// skipSeparators skips whitespace and comments; an unterminated comment
// yields an error token pointing at its opening quote.
func (s *scanner) skipSeparators() (token, bool) {
	for s.pos < len(s.src) {
		switch charClass[s.src[s.pos]] {
		case cSep:
			s.pos++
		case cDQuote:
			end, ok := closingQuote(s.src, s.pos, '"')
			if !ok {
				start := s.pos
				s.pos = len(s.src)
				return errorToken(start, start, errUnmatchedComment), false
			}
			s.pos = end
		default:
			return token{}, true
		}
	}
	return token{}, true
}

// closingQuote finds the end (exclusive) of a quoted run starting at
// src[open] == q, where a doubled q stands for one q.
func closingQuote(src string, open int, q byte) (int, bool) {
	for i := open + 1; ; {
		k := strings.IndexByte(src[i:], q)
		if k < 0 {
			return 0, false
		}
		i += k + 1
		if i < len(src) && src[i] == q {
			i++
			continue
		}
		return i, true
	}
}

// letterAt reports whether an identifier can start at i: an ASCII letter,
// underscore, or a Unicode letter.
func (s *scanner) letterAt(i int) bool {
	c := s.src[i]
	if c < utf8.RuneSelf {
		return charClass[c] == cLetter
	}
	r, _ := utf8.DecodeRuneInString(s.src[i:])
	return unicode.IsLetter(r)
}

// scanName returns the end of the run of letters and digits starting at i.
func (s *scanner) scanName(i int) int {
	for i < len(s.src) {
		c := s.src[i]
		if c < utf8.RuneSelf {
			if cl := charClass[c]; cl != cLetter && cl != cDigit {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s.src[i:])
		if !unicode.IsLetter(r) {
			return i
		}
		i += size
	}
	return i
}

// binaryRun returns the end of the run of binary characters starting at i.
func (s *scanner) binaryRun(i int) int {
	for i < len(s.src) {
		if charClass[s.src[i]] == cBinary {
			i++
			continue
		}
		if !s.binaryAt(i) {
			return i
		}
		_, size := utf8.DecodeRuneInString(s.src[i:])
		i += size
	}
	return i
}

// binaryAt reports whether a binary selector character starts at i: one of
// the ASCII ones, or one of the non-ASCII characters Pharo 13 added.
func (s *scanner) binaryAt(i int) bool {
	c := s.src[i]
	if c < utf8.RuneSelf {
		return charClass[c] == cBinary
	}
	r, _ := utf8.DecodeRuneInString(s.src[i:])
	return IsNonASCIIBinary(r)
}

// IsNonASCIIBinary reports the characters beyond ASCII that Pharo 13 reads
// as binary selector characters: ± × ÷ ·.
func IsNonASCIIBinary(r rune) bool {
	switch r {
	case '±', '×', '÷', '·':
		return true
	}
	return false
}

// scanIdentOrKeyword scans foo, foo: (not foo:=) and, like RBScanner,
// foo:bar: written without blanks as one multi-keyword token.
func (s *scanner) scanIdentOrKeyword(start int) token {
	i := s.scanName(start)
	src := s.src
	if i >= len(src) || src[i] != ':' || (i+1 < len(src) && src[i+1] == '=') {
		return s.simple(tIdent, start, i)
	}
	end, colons := i+1, 1
	for j := end; ; colons++ {
		if j < len(src) && s.letterAt(j) {
			j = s.scanName(j)
		}
		if j >= len(src) || src[j] != ':' {
			break
		}
		j++
		end = j
	}
	if colons == 1 {
		return s.simple(tKeyword, start, end)
	}
	return s.simple(tMultiKeyword, start, end)
}

// scanNumber scans what Pharo's NumberParser reads: an optional minus,
// decimal digits, an optional radix (16r1F, 16r-1F), an optional fraction
// (only when a digit follows the period), and an optional exponent (e d q)
// or scale (s).
func (s *scanner) scanNumber(start int) token {
	src := s.src
	i := start
	if src[i] == '-' {
		i++
	}
	digits := i
	i = s.digits(i, 10)
	base := 10
	if i < len(src) && src[i] == 'r' {
		radix := smallDecimal(src[digits:i])
		j := i + 1
		if j < len(src) && src[j] == '-' {
			j++
		}
		k := s.digits(j, radix)
		if radix < 2 || radix > 36 || k == j {
			s.pos = k
			return errorToken(start, start, errInvalidRadix)
		}
		i, base = k, radix
	}
	if i+1 < len(src) && src[i] == '.' && digitValue(src[i+1]) < base {
		i = s.digits(i+1, base)
	}
	if i < len(src) && digitValue(src[i]) >= base {
		i = s.numberSuffix(i)
	}
	return s.simple(tNumber, start, i)
}

// numberSuffix extends a number ending at i by an exponent (e10, e-3) or a
// scale (s, s2). A letter that does not form one starts the next token, so
// 3sqrt is 3 sqrt.
func (s *scanner) numberSuffix(i int) int {
	src := s.src
	switch src[i] {
	case 'e', 'd', 'q':
		j := i + 1
		if j < len(src) && src[j] == '-' {
			j++
		}
		if j < len(src) && isDecimal(src[j]) {
			return s.digits(j, 10)
		}
	case 's':
		j := s.digits(i+1, 10)
		if j > i+1 || j >= len(src) || !s.letterAt(j) {
			return j
		}
	}
	return i
}

func (s *scanner) digits(i, base int) int {
	for i < len(s.src) && digitValue(s.src[i]) < base {
		i++
	}
	return i
}

// smallDecimal is the value of a run of decimal digits, capped so that
// absurd radixes cannot overflow.
func smallDecimal(d string) int {
	v := 0
	for i := 0; i < len(d); i++ {
		v = min(v*10+int(d[i]-'0'), 1000)
	}
	return v
}

// scanString scans a quoted string whose opening quote is at open; start is
// where the token starts (the # of a #'symbol').
func (s *scanner) scanString(k tokKind, start, open int) token {
	end, ok := closingQuote(s.src, open, '\'')
	if !ok {
		s.pos = len(s.src)
		return errorToken(start, open, errUnmatchedString)
	}
	return token{kind: k, start: start, end: s.setPos(end), aux: open}
}

func (s *scanner) setPos(p int) int {
	s.pos = p
	return p
}

// scanChar scans $c, where c is any character at all, blanks and quotes
// included.
func (s *scanner) scanChar(start int) token {
	if start+1 >= len(s.src) {
		s.pos = len(s.src)
		return errorToken(start, len(s.src), errCharExpected)
	}
	_, size := utf8.DecodeRuneInString(s.src[start+1:])
	return s.simple(tChar, start, start+1+size)
}

// scanHash scans what may follow #: a symbol, #( or #[. Extra #s are
// tolerated (##foo), as RBScanner does.
func (s *scanner) scanHash(start int) token {
	src := s.src
	i := start + 1
	for i < len(src) && src[i] == '#' {
		i++
	}
	if i >= len(src) {
		s.pos = i
		return errorToken(start, i, errLiteralExpected)
	}
	switch c := src[i]; {
	case c == '(':
		return s.simple(tLitArray, start, i+1)
	case c == '[':
		return s.simple(tByteArray, start, i+1)
	case c == '\'':
		return s.scanString(tSymbol, start, i)
	case s.binaryAt(i):
		return token{kind: tSymbol, start: start, end: s.setPos(s.binaryRun(i)), aux: i}
	case s.letterAt(i):
		return token{kind: tSymbol, start: start, end: s.setPos(s.symbolRun(i)), aux: i}
	}
	s.pos = i
	return errorToken(start, i, errLiteralExpected)
}

// symbolRun takes letters, digits and colons, as in #foo:bar: and #a:b.
func (s *scanner) symbolRun(i int) int {
	for i < len(s.src) {
		switch {
		case s.src[i] == ':':
			i++
		case s.letterAt(i):
			i = s.scanName(i)
		default:
			return i
		}
	}
	return i
}
