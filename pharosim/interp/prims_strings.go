package interp

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// stringPrimitives are the Go primitives of the kernel's strings and
// symbols: size and access, comparison, case, search, collation,
// encodings, regular expressions.
var stringPrimitives = map[string]primitive{
	"strSize":  func(in *Interp, r Object, a []Object) (Object, bool) { return int64(len(runesOf(r))), true },
	"strAt":    primStrAt,
	"strAtPut": primStrAtPut,
	"strNew": func(in *Interp, r Object, a []Object) (Object, bool) {
		c, n, ok := newOfSize(r, a[0])
		if !ok {
			return nil, false
		}
		// a new string holds n NUL characters, as Pharo's does
		in.chargeRunes(int(n))
		o := in.newInstance(c)
		o.str = make([]rune, n)
		return o, true
	},
	"strEq": func(in *Interp, r Object, a []Object) (Object, bool) {
		if !isStringy(a[0]) {
			return false, true
		}
		if _, isSym := r.(Symbol); isSym {
			if _, argSym := a[0].(Symbol); argSym {
				return r == a[0], true
			}
		}
		return string(runesOf(r)) == string(runesOf(a[0])), true
	},
	"strHash": func(in *Interp, r Object, a []Object) (Object, bool) { return hashString(string(runesOf(r))), true },
	"asSymbol": func(in *Interp, r Object, a []Object) (Object, bool) {
		if s, ok := r.(Symbol); ok {
			return s, true
		}
		in.chargeRunes(runeCount(r))
		s := string(runesOf(r))
		in.intern(s)
		return Symbol(s), true
	},
	"symbolLookup": func(in *Interp, r Object, a []Object) (Object, bool) {
		if !isStringy(a[0]) {
			return nil, false
		}
		s := string(runesOf(a[0]))
		if in.hasInterned(s) {
			return Symbol(s), true
		}
		return nil, true
	},
	"symbolIsSelector": func(in *Interp, r Object, a []Object) (Object, bool) {
		sym, ok := r.(Symbol)
		if !ok {
			return nil, false
		}
		for _, c := range in.classes {
			if _, found := c.methods[string(sym)]; found {
				return true, true
			}
			if c.meta != nil {
				if _, found := c.meta.methods[string(sym)]; found {
					return true, true
				}
			}
		}
		return false, true
	},
	"asString": func(in *Interp, r Object, a []Object) (Object, bool) { return in.newString(string(runesOf(r))), true },
	"strConcat": func(in *Interp, r Object, a []Object) (Object, bool) {
		if !isStringy(a[0]) {
			return nil, false
		}
		// counted before it is made: doubling a string is the quickest
		// way to ask Go for gigabytes
		n := runeCount(r) + runeCount(a[0])
		in.chargeRunes(n)
		joined := append(append(make([]rune, 0, n), runesOf(r)...), runesOf(a[0])...)
		if _, ok := r.(Symbol); ok {
			// a symbol's concatenation is a symbol, whatever it is joined with
			return Symbol(string(joined)), true
		}
		s := in.newInstance(classOfString(in, r))
		s.str = joined
		return s, true
	},
	"strCopyFromTo": func(in *Interp, r Object, a []Object) (Object, bool) {
		rs := runesOf(r)
		from, ok1 := a[0].(int64)
		to, ok2 := a[1].(int64)
		if !ok1 || !ok2 || from < 1 || to > int64(len(rs)) || to < from-1 {
			return nil, false
		}
		in.chargeRunes(int(to - from + 1))
		if _, ok := r.(Symbol); ok {
			return Symbol(string(rs[from-1 : to])), true
		}
		s := in.newInstance(classOfString(in, r))
		s.str = append([]rune{}, rs[from-1:to]...)
		return s, true
	},
	"strCase": func(in *Interp, r Object, a []Object) (Object, bool) {
		s := string(runesOf(r))
		switch symOf(a[0]) {
		case "upper":
			s = strings.Map(upperCase, s)
		case "lower":
			s = strings.ToLower(s)
		case "trim":
			s = strings.Trim(s, " \t\r\n\f")
		}
		if _, ok := r.(Symbol); ok {
			in.chargeRunes(utf8.RuneCountInString(s))
			return Symbol(s), true
		}
		return in.newString(s), true
	},
	"strIndexOf": func(in *Interp, r Object, a []Object) (Object, bool) {
		s, sub := string(runesOf(r)), string(runesOf(a[0]))
		start, _ := a[1].(int64)
		rs := runesOf(r)
		if start < 1 {
			start = 1
		}
		if int(start) > len(rs)+1 || sub == "" {
			// Pharo finds the empty string nowhere
			return int64(0), true
		}
		prefix := string(rs[:start-1])
		i := strings.Index(s[len(prefix):], sub)
		if i < 0 {
			return int64(0), true
		}
		return int64(len([]rune(s[:len(prefix)+i]))) + 1, true
	},
	"strParseNumber": func(in *Interp, r Object, a []Object) (Object, bool) {
		s := strings.TrimSpace(string(runesOf(r)))
		if s == "" {
			return nil, true
		}
		v := in.parseNumberLenient(s)
		in.chargeNumber(v)
		return v, true
	},
	"strReplaceFrom": func(in *Interp, r Object, a []Object) (Object, bool) {
		dst, ok := r.(*Instance)
		if !ok {
			return nil, false
		}
		from, _ := a[0].(int64)
		to, _ := a[1].(int64)
		start, _ := a[3].(int64)
		src := runesOf(a[2])
		if from < 1 || to > int64(len(dst.str)) || start < 1 || start+(to-from) > int64(len(src)) {
			return nil, false
		}
		copy(dst.str[from-1:to], src[start-1:start+to-from])
		return r, true
	},
	"isSymbol":          func(in *Interp, r Object, a []Object) (Object, bool) { _, ok := r.(Symbol); return ok, true },
	"strCollate":        primStrCollate,
	"strCollationOrder": primStrCollationOrder,
	"selectorArity":     primSelectorArity,
	"strUtf8Encode":     primStrUtf8Encode,
	"bytesUtf8Decode":   primBytesUtf8Decode,
	"isLiteralSymbol":   primIsLiteralSymbol,
	"rxTranslate":       primRxTranslate,
	"rxGroupCount":      primRxGroupCount,
	"rxMatch":           primRxMatch,
	"rxMatchAll":        primRxMatchAll,
}

// A collation order gives each character below 256 its rank when strings
// are compared; a character from 256 up ranks as its code point.
type collationOrder [256]int64

// collationOrders are Pharo's three: code points (#ascii); case ignored,
// each lowercase letter of Latin-1 ranking as its capital
// (#caseInsensitive); case kept, with space, the digits, then each capital
// just before its small letter, then the rest in code order
// (#caseSensitive).
var collationOrders = map[string]*collationOrder{
	"ascii":           asciiOrder(),
	"caseInsensitive": caseInsensitiveOrder(),
	"caseSensitive":   caseSensitiveOrder(),
}

func asciiOrder() *collationOrder {
	var o collationOrder
	for i := range o {
		o[i] = int64(i)
	}
	return &o
}

func caseInsensitiveOrder() *collationOrder {
	o := asciiOrder()
	for c := range o {
		if lower := unicode.ToLower(rune(c)); lower < 256 && lower != rune(c) {
			o[lower] = o[c]
		}
	}
	return o
}

func caseSensitiveOrder() *collationOrder {
	var o collationOrder
	placed := [256]bool{}
	next := int64(0)
	place := func(c rune) {
		o[c], placed[c] = next, true
		next++
	}
	for _, c := range " 0123456789" {
		place(c)
	}
	for c := 'a'; c <= 'z'; c++ {
		place(unicode.ToUpper(c))
		place(c)
	}
	for c := range o {
		if !placed[c] {
			place(rune(c))
		}
	}
	return &o
}

func (o *collationOrder) rank(c rune) int64 {
	if c >= 0 && c < 256 {
		return o[c]
	}
	return int64(c)
}

// primStrCollate answers -1, 0 or 1 as the receiver sorts before, with or
// after the argument string in the named collation order; a shorter
// string sorts before a longer one it begins.
func primStrCollate(in *Interp, r Object, a []Object) (Object, bool) {
	order, ok := collationOrders[symOf(a[1])]
	if !ok || !isStringy(a[0]) {
		return nil, false
	}
	x, y := runesOf(r), runesOf(a[0])
	for i := 0; i < len(x) && i < len(y); i++ {
		if rx, ry := order.rank(x[i]), order.rank(y[i]); rx != ry {
			if rx < ry {
				return int64(-1), true
			}
			return int64(1), true
		}
	}
	switch {
	case len(x) < len(y):
		return int64(-1), true
	case len(x) > len(y):
		return int64(1), true
	}
	return int64(0), true
}

// primStrCollationOrder answers the ranks of a collation order as an Array
// of 256 integers.
func primStrCollationOrder(in *Interp, r Object, a []Object) (Object, bool) {
	order, ok := collationOrders[symOf(a[0])]
	if !ok {
		return nil, false
	}
	ranks := make([]Object, len(order))
	for i, rank := range order {
		ranks[i] = rank
	}
	return in.newArray(ranks), true
}

// primSelectorArity answers how many arguments a message of the
// receiver's characters takes: 0 for an identifier (unary), 1 for a run
// of binary characters, one per keyword for identifiers each followed by
// a colon; -1 when the characters make no selector.
func primSelectorArity(in *Interp, r Object, a []Object) (Object, bool) {
	return int64(selectorArity(runesOf(r))), true
}

const binarySelectorChars = "!%&*+,-/<=>?@\\|~"

func selectorArity(s []rune) int {
	if len(s) == 0 {
		return -1
	}
	if isBinarySelectorChar(s[0]) {
		for _, c := range s {
			if !isBinarySelectorChar(c) {
				return -1
			}
		}
		return 1
	}
	keywords, start := 0, true
	for i, c := range s {
		switch {
		case c == ':':
			if start {
				return -1
			}
			keywords++
			start = true
		case c == '_' || unicode.IsLetter(c) || (!start && unicode.IsDigit(c)):
			start = false
		default:
			return -1
		}
		if i == len(s)-1 && keywords > 0 && c != ':' {
			return -1
		}
	}
	return keywords
}

func isBinarySelectorChar(c rune) bool {
	for _, b := range binarySelectorChars {
		if c == b {
			return true
		}
	}
	return false
}

// upperCase is Character>>asUppercase: Unicode's simple mapping, and the
// capital sharp s for ß, as Pharo has it.
func upperCase(c rune) rune {
	if c == 'ß' {
		return 'ẞ'
	}
	return unicode.ToUpper(c)
}

// primStrUtf8Encode answers the UTF-8 bytes of the receiver as a ByteArray.
func primStrUtf8Encode(in *Interp, r Object, a []Object) (Object, bool) {
	encoded := []byte(string(runesOf(r)))
	in.chargeSlots(len(encoded))
	bytes := in.newInstance(in.classes["ByteArray"])
	bytes.indexed = make([]Object, len(encoded))
	for i, b := range encoded {
		bytes.indexed[i] = int64(b)
	}
	return bytes, true
}

// primBytesUtf8Decode answers the String the receiver's UTF-8 bytes
// encode; it fails on bytes that are not UTF-8.
func primBytesUtf8Decode(in *Interp, r Object, a []Object) (Object, bool) {
	o, ok := r.(*Instance)
	if !ok || o.class.kind != "bytes" {
		return nil, false
	}
	raw := make([]byte, len(o.indexed))
	for i, v := range o.indexed {
		b, ok := v.(int64)
		if !ok || b < 0 || b > 255 {
			return nil, false
		}
		raw[i] = byte(b)
	}
	if !utf8.Valid(raw) {
		return nil, false
	}
	return in.newString(string(raw)), true
}

// Regular expressions: RxParser translates a pattern of Pharo's syntax into
// Go's once (rxTranslate), and RxMatcher matches with Go's regexp. What
// Pharo's matcher has and this one lacks — lookaround, \< and \> (the
// start and end of a word) — is a syntax error naming it, never a
// different match.

// rxAnchors say where a match must lie: anywhere, from the start, or over
// the whole string.
var rxAnchors = map[string][2]string{
	"search": {"", ""},
	"prefix": {`\A(?:`, ")"},
	"whole":  {`\A(?:`, `)\z`},
}

// translateRegex rewrites a Pharo pattern in Go's syntax: . is any
// character but NUL (line endings included), ^ and $ the start and end of
// a line, :isVowel: the characters of Latin-1 that answer true to
// isVowel (:^isVowel: those that do not), {,n} is {0,n}. Like Pharo's
// parser it refuses *, + or ? after what may match the empty string, a
// quantifier after a quantifier, and a range followed by a dash in a
// class.
func (in *Interp) translateRegex(src string) (string, error) {
	var b strings.Builder
	rs := []rune(src)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case c == '\\' && i+1 < len(rs):
			i++
			if rs[i] == '<' || rs[i] == '>' {
				if !wordEdgeIsBoundary(rs, i) {
					return "", errors.New(`the start or end of a word (\< \>) not next to a word character`)
				}
				b.WriteString(`\b`)
				continue
			}
			switch rs[i] {
			case 'e':
				// Pharo's \e is the escape character
				b.WriteString(`\x1b`)
			case 'w':
				// a word character is a letter of any script, a digit or _
				b.WriteString(`[` + wordClass + `]`)
			case 'W':
				b.WriteString(`[^` + wordClass + `]`)
			default:
				b.WriteRune('\\')
				b.WriteRune(rs[i])
			}
		case c == '[':
			end, err := copyRegexClass(&b, rs, i)
			if err != nil {
				return "", err
			}
			i = end
		case c == ':':
			end := i + 1
			for end < len(rs) && rs[end] != ':' {
				end++
			}
			if end >= len(rs) || end == i+1 {
				return "", errors.New(`a message predicate has no terminating ":"`)
			}
			class, err := in.predicateClass(string(rs[i+1 : end]))
			if err != nil {
				return "", err
			}
			b.WriteString(class)
			i = end
		case c == '{' && i+1 < len(rs) && rs[i+1] == ',':
			b.WriteString("{0")
		case c == '.':
			b.WriteString(`[^\x00]`)
		case c == '(' && i+1 < len(rs) && rs[i+1] == '?':
			return "", errors.New("lookaround is not supported")
		default:
			b.WriteRune(c)
		}
	}
	pattern := b.String()
	tree, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", err
	}
	if err := checkQuantifiers(tree); err != nil {
		return "", err
	}
	return pattern, nil
}

// wordClass is the inside of a class of the characters \w stands for in
// Pharo: isAlphaNumeric (a letter of any script, a digit) or _.
const wordClass = `\p{L}0-9_`

// wordEdgeIsBoundary answers whether the \< or \> whose character is
// rs[i] may be a word boundary: so it is when \< comes before, or \> after,
// a word character the pattern must match there (a letter, a digit, _,
// \w or \d, not made optional by a quantifier).
func wordEdgeIsBoundary(rs []rune, i int) bool {
	isWord := func(c rune) bool { return c == '_' || unicode.IsLetter(c) || unicode.IsDigit(c) }
	if rs[i] == '<' {
		next := i + 1
		switch {
		case next < len(rs) && isWord(rs[next]):
		case next+1 < len(rs) && rs[next] == '\\' && (rs[next+1] == 'w' || rs[next+1] == 'd'):
			next++
		default:
			return false
		}
		return next+1 >= len(rs) || !strings.ContainsRune("*?{", rs[next+1])
	}
	escaped := func(j int) bool { return j >= 0 && rs[j] == '\\' && !(j >= 1 && rs[j-1] == '\\') }
	before := i - 2 // the character before the backslash of \>
	switch {
	case before >= 0 && isWord(rs[before]) && !escaped(before-1):
		return true
	case before >= 1 && (rs[before] == 'w' || rs[before] == 'd') && escaped(before-1):
		return true
	case before >= 0 && rs[before] == ')' && !escaped(before-1):
		return groupEndsInWord(rs, before, isWord)
	}
	return false
}

// groupEndsInWord answers whether every alternative of the group that
// closes at rs[end] ends with a literal word character: `(ix|ex)\>`.
// A group holding a class, a nested group or an escape answers false.
func groupEndsInWord(rs []rune, end int, isWord func(rune) bool) bool {
	start := end - 1
	for start >= 0 && rs[start] != '(' {
		if strings.ContainsRune(")[]\\", rs[start]) {
			return false
		}
		start--
	}
	if start < 0 || start+1 < len(rs) && rs[start+1] == '?' {
		return false
	}
	for _, alt := range strings.Split(string(rs[start+1:end]), "|") {
		r := []rune(alt)
		if len(r) == 0 || !isWord(r[len(r)-1]) {
			return false
		}
	}
	return true
}

// copyRegexClass copies the class [ … ] that starts at rs[start] and
// answers the index of its closing bracket.
func copyRegexClass(b *strings.Builder, rs []rune, start int) (int, error) {
	b.WriteRune('[')
	i := start + 1
	if i < len(rs) && rs[i] == '^' {
		b.WriteRune('^')
		i++
	}
	if i < len(rs) && rs[i] == ']' {
		// a ] first in the class is one of its characters
		b.WriteString(`\]`)
		i++
	}
	for ; i < len(rs); i++ {
		switch c := rs[i]; {
		case c == ']':
			b.WriteRune(']')
			return i, nil
		case c == '[' && i+1 < len(rs) && rs[i+1] == ':':
			end := i + 2
			for end+1 < len(rs) && !(rs[end] == ':' && rs[end+1] == ']') {
				end++
			}
			b.WriteString(string(rs[i : end+2]))
			i = end + 1
		case c == '\\' && i+1 < len(rs) && rs[i+1] == 'w':
			b.WriteString(wordClass)
			i++
		case c == '\\' && i+1 < len(rs):
			b.WriteRune(c)
			b.WriteRune(rs[i+1])
			i++
		case c == '-' && i >= 2 && rs[i-2] == '-' && i+1 < len(rs) && rs[i+1] != ']':
			return 0, errors.New("a range in a class is followed by a dash")
		default:
			b.WriteRune(c)
		}
	}
	return 0, errors.New("a class has no closing ]")
}

// predicateClass is the class of the characters of Latin-1 that answer
// true to the selector (or, after ^, that do not).
func (in *Interp) predicateClass(spec string) (string, error) {
	negated := strings.HasPrefix(spec, "^")
	selector := strings.TrimPrefix(spec, "^")
	var b strings.Builder
	b.WriteString("[")
	for c := rune(0); c < 256; c++ {
		if (in.Send(Char(c), selector) == true) != negated {
			// each character escaped, so that none makes a range
			fmt.Fprintf(&b, `\x{%x}`, c)
		}
	}
	b.WriteString("]")
	if b.Len() == 2 {
		// no character: a class that matches none
		return `[^\x00-\x{10FFFF}]`, nil
	}
	return b.String(), nil
}

// checkQuantifiers refuses what Pharo's parser refuses: *, + or ? after
// what may match the empty string, and a quantifier made lazy by a second
// one (a*?).
func checkQuantifiers(re *syntax.Regexp) error {
	switch re.Op {
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest:
		if re.Flags&syntax.NonGreedy != 0 {
			return errors.New("a quantifier after a quantifier")
		}
		if matchesEmpty(re.Sub[0]) {
			return errors.New("*, + or ? after what may match nothing")
		}
	}
	for _, sub := range re.Sub {
		if err := checkQuantifiers(sub); err != nil {
			return err
		}
	}
	return nil
}

func matchesEmpty(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral:
		return len(re.Rune) == 0
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL, syntax.OpNoMatch:
		return false
	case syntax.OpCapture, syntax.OpPlus:
		return matchesEmpty(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min == 0 || matchesEmpty(re.Sub[0])
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if !matchesEmpty(sub) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			if matchesEmpty(sub) {
				return true
			}
		}
		return false
	}
	// the empty match, the anchors and the word boundaries, * and ?
	return true
}

// rxSubject is the string a pattern runs over. For a pattern with ^ or $
// its cr are newlines, so that Go's ^ and $ find Pharo's lines (each stays
// one byte, so offsets agree with the original's); a pattern without them
// sees the string as it is, a cr matching \r.
func rxSubject(o Object, lineAnchors bool) string {
	if !lineAnchors {
		return string(runesOf(o))
	}
	return strings.ReplaceAll(string(runesOf(o)), "\r", "\n")
}

// usesLineAnchors answers whether a pattern in Go's syntax has ^ or $
// outside a class.
func usesLineAnchors(pattern string) bool {
	inClass := false
	rs := []rune(pattern)
	for i := 0; i < len(rs); i++ {
		switch c := rs[i]; {
		case c == '\\':
			i++
		case inClass:
			if c == '[' && i+1 < len(rs) && rs[i+1] == ':' {
				// a named class [:alpha:] ends at its own ]
				for i < len(rs) && rs[i] != ']' {
					i++
				}
			} else if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass = true
			if i+1 < len(rs) && rs[i+1] == '^' {
				i++
			}
		case c == '^' || c == '$':
			return true
		}
	}
	return false
}

func (in *Interp) compiledRegex(matcher Object, mode string) (re *regexp.Regexp, lineAnchors bool, ok bool) {
	m, ok := matcher.(*Instance)
	anchor, known := rxAnchors[mode]
	if !ok || !known {
		return nil, false, false
	}
	patternAt, ignoreCaseAt := in.known.slots.rxPattern, in.known.slots.rxIgnoreCase
	if len(m.vars) <= max(patternAt, ignoreCaseAt) || !isStringy(m.vars[patternAt]) {
		return nil, false, false
	}
	flags := "(?m)"
	if m.vars[ignoreCaseAt] == true {
		flags = "(?mi)"
	}
	pattern := string(runesOf(m.vars[patternAt]))
	re, err := regexp.Compile(flags + anchor[0] + pattern + anchor[1])
	return re, usesLineAnchors(pattern), err == nil
}

// rxPositions turns a match's byte offsets into an Array of stream
// positions, two per group (the whole match first): where the group
// begins (the characters before it) and ends; -1 for a group that took
// no part.
func (in *Interp) rxPositions(subject string, loc []int) Object {
	out := make([]Object, len(loc))
	for i, off := range loc {
		if off < 0 {
			out[i] = int64(-1)
			continue
		}
		out[i] = int64(utf8.RuneCountInString(subject[:off]))
	}
	return in.newArray(out)
}

// primRxTranslate answers the argument pattern in Go's syntax; it fails
// on a pattern that does not parse, and the Smalltalk body signals the
// syntax error.
func primRxTranslate(in *Interp, r Object, a []Object) (Object, bool) {
	if !isStringy(a[0]) {
		return nil, false
	}
	pattern, err := in.translateRegex(string(runesOf(a[0])))
	if err != nil {
		return nil, false
	}
	return in.newString(pattern), true
}

// primRxGroupCount answers how many subexpressions the receiver matcher
// has: the whole match and each parenthesised group.
func primRxGroupCount(in *Interp, r Object, a []Object) (Object, bool) {
	re, _, ok := in.compiledRegex(r, "search")
	if !ok {
		return nil, false
	}
	return int64(re.NumSubexp() + 1), true
}

// primRxMatch answers the positions of the receiver matcher's first match
// in the string (searching from the stream position given on), or nil.
func primRxMatch(in *Interp, r Object, a []Object) (Object, bool) {
	re, lineAnchors, ok := in.compiledRegex(r, symOf(a[1]))
	from, ok2 := a[2].(int64)
	if !ok || !ok2 || !isStringy(a[0]) {
		return nil, false
	}
	original := string(runesOf(a[0]))
	subject := rxSubject(a[0], lineAnchors)
	rs := []rune(subject)
	if from < 0 || from > int64(len(rs)) {
		return nil, true
	}
	for offset := len(string(rs[:from])); offset <= len(subject); offset++ {
		loc := re.FindStringSubmatchIndex(subject[offset:])
		if loc == nil {
			return nil, true
		}
		for i := range loc {
			if loc[i] >= 0 {
				loc[i] += offset
			}
		}
		if !insideLineEnding(original, loc) {
			return in.rxPositions(subject, loc), true
		}
		offset = loc[0]
	}
	return nil, true
}

// insideLineEnding answers whether a match is an empty one between the
// cr and the lf of a line ending, where Pharo's lines neither end nor
// begin (the newline each is made into for Go's ^ and $ makes two lines
// there).
func insideLineEnding(original string, loc []int) bool {
	at := loc[0]
	return loc[1] == at && at > 0 && at < len(original) && original[at-1] == '\r' && original[at] == '\n'
}

// rxPatternIsEmpty answers whether the matcher's pattern is the empty
// one.
func (in *Interp) rxPatternIsEmpty(matcher Object) bool {
	m, ok := matcher.(*Instance)
	at := in.known.slots.rxPattern
	return ok && len(m.vars) > at && isStringy(m.vars[at]) && len(runesOf(m.vars[at])) == 0
}

// atEndOfLine answers whether the byte offset at is where a line of s
// ends, as Pharo's RxMatcher>>atEndOfLine tells it: at the end of s,
// before a cr, or before an lf that no cr comes before.
func atEndOfLine(s string, at int) bool {
	return at >= len(s) || s[at] == '\r' || s[at] == '\n' && (at == 0 || s[at-1] != '\r')
}

// primRxMatchAll answers the positions of each of the receiver matcher's
// matches in the string, one after another, as an Array.
func primRxMatchAll(in *Interp, r Object, a []Object) (Object, bool) {
	re, lineAnchors, ok := in.compiledRegex(r, "search")
	if !ok || !isStringy(a[0]) {
		return nil, false
	}
	subject := rxSubject(a[0], lineAnchors)
	var all []Object
	original := string(runesOf(a[0]))
	empty := in.rxPatternIsEmpty(r)
	for _, loc := range in.allMatches(re, subject) {
		if empty && !atEndOfLine(original, loc[0]) {
			// Pharo's search tries a pattern that matches the empty
			// string only where a line ends (RxMatchOptimizer's implicit
			// condition for a nullable pattern): the empty pattern
			// matches there and nowhere else
			continue
		}
		if !insideLineEnding(original, loc) {
			all = append(all, in.rxPositions(subject, loc))
		}
	}
	return in.newArray(all), true
}

// allMatches answers every match of re in subject, as
// FindAllStringSubmatchIndex does. Go makes every match before it
// answers, and a pattern that matches the empty string matches at each
// character: the matches are asked for a batch at a time, each batch's
// memory counted before Go makes it, twice as many each time until fewer
// come back than were asked for.
func (in *Interp) allMatches(re *regexp.Regexp, subject string) [][]int {
	perMatch := int64(24 + 16*(re.NumSubexp()+1)) // a match's []int
	for batch := 1024; ; batch *= 2 {
		in.charge(perMatch * int64(batch))
		locs := re.FindAllStringSubmatchIndex(subject, batch)
		if len(locs) < batch {
			return locs
		}
	}
}

// primIsLiteralSymbol answers whether a symbol of the receiver's
// characters prints as # and those characters, as Pharo decides it: an
// identifier (letters of Latin-1, digits, _), or keywords each ending
// with a colon, or a single binary character.
func primIsLiteralSymbol(in *Interp, r Object, a []Object) (Object, bool) {
	return isLiteralSymbol(runesOf(r)), true
}

func isLiteralSymbol(s []rune) bool {
	if len(s) == 0 || s[0] > 255 {
		return false
	}
	isLetter := func(c rune) bool { return c == '_' || (c < 256 && unicode.IsLetter(c)) }
	if isLetter(s[0]) {
		endsWithColon := s[len(s)-1] == ':'
		for i := 1; i < len(s); i++ {
			c := s[i]
			switch {
			case isLetter(c) || (c >= '0' && c <= '9'):
			case c == ':':
				// a colon inside ends a keyword: the next one starts with a letter
				if i < len(s)-1 && (!endsWithColon || s[i+1] == ':' || (s[i+1] >= '0' && s[i+1] <= '9')) {
					return false
				}
			default:
				return false
			}
		}
		return true
	}
	return len(s) == 1 && isBinaryLiteralChar(s[0])
}

// isBinaryLiteralChar answers whether a character of Latin-1 is one
// Pharo's scanner reads as a binary selector: not a letter, digit or
// separator, nor one of the characters of the syntax.
func isBinaryLiteralChar(c rune) bool {
	switch {
	case unicode.IsLetter(c), c >= '0' && c <= '9':
		return false
	case strings.ContainsRune("\t\n\f\r \"#$'():.;[]{}^", c), c == 30:
		return false
	}
	return true
}

func primStrAt(in *Interp, r Object, a []Object) (Object, bool) {
	rs := runesOf(r)
	i, ok := a[0].(int64)
	if !ok || i < 1 || i > int64(len(rs)) {
		return nil, false
	}
	return Char(rs[i-1]), true
}

func primStrAtPut(in *Interp, r Object, a []Object) (Object, bool) {
	o, ok := r.(*Instance)
	i, ok2 := a[0].(int64)
	c, ok3 := a[1].(Char)
	if !ok || !ok2 || !ok3 || i < 1 || i > int64(len(o.str)) {
		return nil, false
	}
	o.str[i-1] = rune(c)
	return c, true
}

// maxInterned bounds the symbols an interpreter remembers having made:
// past it, a symbol made from a string is still made, but findInterned: may
// not find it (Pharo's table holds every symbol not yet collected).
const maxInterned = 1 << 16

// intern remembers that the symbol s was made.
func (in *Interp) intern(s string) {
	if in.interned == nil {
		in.interned = map[string]struct{}{}
	}
	if len(in.interned) < maxInterned {
		in.interned[s] = struct{}{}
	}
}

// hasInterned tells whether Pharo's table of symbols would hold s: a
// symbol made so far, a selector of a method or the name of a class or a
// global.
func (in *Interp) hasInterned(s string) bool {
	if _, ok := in.interned[s]; ok {
		return true
	}
	if _, ok := in.classes[s]; ok {
		return true
	}
	if _, ok := in.globals[s]; ok {
		return true
	}
	for _, c := range in.classes {
		if _, ok := c.methods[s]; ok {
			return true
		}
		if c.meta != nil {
			if _, ok := c.meta.methods[s]; ok {
				return true
			}
		}
	}
	return false
}
