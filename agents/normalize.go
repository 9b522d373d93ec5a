package agents

import (
	"regexp"
	"strings"

	"github.com/pharo-refactor/refactord/smalltalk"
)

var (
	// methodPrefixRE matches what models put before a method's pattern:
	// "Foo >> ", "Foo class>>#", "TFoo classSide >> ".
	methodPrefixRE = regexp.MustCompile(`^#?([A-Z][A-Za-z0-9_]*)(?:[ \t]+(?:class|classSide))?[ \t]*>>[ \t]*#?`)
	// patternRE matches a message pattern at the start of a line: unary,
	// binary with its argument, or keyword/argument pairs.
	patternRE = regexp.MustCompile(`^(?:[A-Za-z_][A-Za-z0-9_]*:[ \t]*[A-Za-z_][A-Za-z0-9_]*[ \t]*)+|^[-+/\\*~<>=@,%|&?!]+[ \t]*[A-Za-z_][A-Za-z0-9_]*|^[A-Za-z_][A-Za-z0-9_]*`)
)

// normalizeCode turns a model's rendering of a method into plain method
// source: line endings become LF; a surrounding code fence (```smalltalk,
// ```st, ```), a leading "Foo >> " or "Foo class >> " (with or without #)
// and Tonel brackets around the body ("Foo >> bar [ ... ]") are removed, as
// are surrounding blank lines.
//
// className is the class the method belongs to; other capitalized class
// names in a prefix are removed too, since models sometimes misname the
// class and the method is installed into the requested class anyway. A
// method whose body legitimately ends in "]" ("foo\n\t^ [ 1 ]") is kept.
func normalizeCode(code, className string) string {
	s := normalizeNewlines(code)
	s = strings.TrimSpace(stripFence(strings.TrimSpace(s)))
	s, prefixed := stripPrefix(s, className)
	s = stripTonelBrackets(s, prefixed)
	return strings.TrimSpace(s)
}

func normalizeNewlines(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}

// stripFence removes a code fence that opens the text and the one closing
// it at the end, if any.
func stripFence(s string) string {
	if !strings.HasPrefix(s, "```") && !strings.HasPrefix(s, "~~~") {
		return s
	}
	marker := s[:3]
	first, rest, found := strings.Cut(s, "\n")
	if !found {
		// A one-line fence: "```foo```".
		return strings.Trim(strings.TrimPrefix(first, marker), "`~ ")
	}
	if strings.Contains(strings.TrimLeft(first, "`~"), marker) {
		return s // not an opening fence line
	}
	trimmed := strings.TrimRight(rest, " \t\n")
	if i := strings.LastIndex(trimmed, "\n"); strings.HasPrefix(strings.TrimSpace(trimmed[i+1:]), marker) {
		if i < 0 {
			return ""
		}
		trimmed = trimmed[:i]
	}
	return trimmed
}

// stripPrefix removes a "Foo >> " prefix from the first line and reports
// whether it did.
func stripPrefix(s, className string) (string, bool) {
	if className != "" {
		for _, p := range []string{className + " class", className} {
			if rest, ok := cutClassPrefix(s, p); ok {
				return rest, true
			}
		}
	}
	loc := methodPrefixRE.FindStringIndex(s)
	if loc == nil {
		return s, false
	}
	return s[loc[1]:], true
}

// cutClassPrefix removes "<name> >> " (and a # before the selector).
func cutClassPrefix(s, name string) (string, bool) {
	rest, ok := strings.CutPrefix(strings.TrimPrefix(s, "#"), name)
	if !ok {
		return s, false
	}
	rest = strings.TrimLeft(rest, " \t")
	rest, ok = strings.CutPrefix(rest, ">>")
	if !ok {
		return s, false
	}
	return strings.TrimPrefix(strings.TrimLeft(rest, " \t"), "#"), true
}

// stripTonelBrackets turns "bar [ body ]" into "bar\n body". It acts only
// when the bracket after the pattern closes at the very end of the text,
// and, without a "Foo >>" prefix, only when that bracket ends the first
// line: "foo [ ^ 1 ]" on one line could be a (useless) plain method.
func stripTonelBrackets(s string, prefixed bool) string {
	pattern := patternRE.FindString(s)
	if pattern == "" {
		return s
	}
	rest := s[len(pattern):]
	open := len(pattern) + len(rest) - len(strings.TrimLeft(rest, " \t"))
	if open >= len(s) || s[open] != '[' {
		return s
	}
	if !prefixed {
		line, _, _ := strings.Cut(s[open+1:], "\n")
		if strings.TrimSpace(line) != "" {
			return s
		}
	}
	end := matchBracket(s, open)
	if end < 0 || strings.TrimSpace(s[end+1:]) != "" {
		return s
	}
	body := strings.TrimRight(s[open+1:end], " \t\n")
	if !strings.Contains(body, "\n") {
		return strings.TrimRight(pattern, " \t") + "\n\t" + strings.TrimSpace(body)
	}
	return strings.TrimRight(pattern, " \t") + "\n" + strings.TrimLeft(strings.TrimLeft(body, " \t"), "\n")
}

// matchBracket returns the index of the "]" closing the "[" at open, or -1.
// The Smalltalk scanner skips 'strings', "comments", $c characters and #(
// literal arrays ), the way a Tonel reader delimits a method body.
func matchBracket(s string, open int) int {
	end, err := smalltalk.ClosingBracket(s, open+1)
	if err != nil {
		return -1
	}
	return end
}
