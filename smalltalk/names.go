package smalltalk

import (
	"strings"
	"unicode/utf8"
)

// IsClassName reports whether s has the shape the service accepts for a
// class name: [A-Z][A-Za-z0-9_]*.
func IsClassName(s string) bool {
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return false
	}
	return isIdentTail(s[1:])
}

// IsIdentifier reports whether s is an ASCII identifier: [A-Za-z_][A-Za-z0-9_]*.
func IsIdentifier(s string) bool {
	if s == "" || charClass[s[0]] != cLetter {
		return false
	}
	return isIdentTail(s[1:])
}

func isIdentTail(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := charClass[s[i]]; c != cLetter && c != cDigit {
			return false
		}
	}
	return true
}

// IsSelector reports whether s is a selector: unary (an identifier),
// binary (a run of + - / \ * ~ < > = @ , % | & ? ! and Pharo 13's ± × ÷ ·)
// or keyword (one or more identifiers each followed by a colon, like
// at:put:). Identifiers are ASCII only, since these strings end up inside
// Smalltalk expressions; QuoteSymbol writes the non-ASCII binary ones in the
// quoted form every Pharo version reads. It is the one check of selectors
// in the module (the service validates every request with it, refused
// ones too), so it walks s once and allocates nothing.
func IsSelector(s string) bool { return NumArgs(s) >= 0 }

// NumArgs is the number of arguments a selector takes: 0 for unary, 1 for
// binary, the number of keywords for a keyword selector; -1 if s is not a
// selector.
func NumArgs(selector string) int {
	switch {
	case selector == "":
		return -1
	case charClass[selector[0]] == cLetter:
		return unaryOrKeywordArgs(selector)
	case isBinarySelector(selector):
		return 1
	}
	return -1
}

// unaryOrKeywordArgs: 0 for one identifier, n for n identifiers each
// followed by a colon, -1 for anything else.
func unaryOrKeywordArgs(s string) int {
	keywords := 0
	for i := 0; i < len(s); {
		if charClass[s[i]] != cLetter {
			return -1
		}
		j := i + 1
		for j < len(s) && (charClass[s[j]] == cLetter || charClass[s[j]] == cDigit) {
			j++
		}
		if j == len(s) {
			if i == 0 {
				return 0 // unary; a keyword selector's last part has its colon
			}
			return -1
		}
		if s[j] != ':' {
			return -1
		}
		keywords++
		i = j + 1
	}
	return keywords
}

func isBinarySelector(s string) bool {
	for _, r := range s {
		if r < utf8.RuneSelf && charClass[r] == cBinary || IsNonASCIIBinary(r) {
			continue
		}
		return false
	}
	return s != ""
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// QuoteString makes a Smalltalk string literal of s: a quote, s with every
// quote doubled, a quote. Any bytes may appear in s.
func QuoteString(s string) string {
	var b strings.Builder
	b.Grow(len(s) + strings.Count(s, "'") + 2)
	b.WriteByte('\'')
	for {
		i := strings.IndexByte(s, '\'')
		if i < 0 {
			break
		}
		b.WriteString(s[:i+1])
		b.WriteByte('\'')
		s = s[i+1:]
	}
	b.WriteString(s)
	b.WriteByte('\'')
	return b.String()
}

// QuoteSymbol makes a Smalltalk symbol literal of s: #foo, #at:put:, #+
// when s is an ASCII selector, else the quoted form #'odd one' (also for
// #'±', which Pharo before 13 could not scan bare).
func QuoteSymbol(s string) string {
	if IsSelector(s) && isASCII(s) {
		return "#" + s
	}
	return "#" + QuoteString(s)
}
