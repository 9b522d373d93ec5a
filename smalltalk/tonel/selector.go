package tonel

import (
	"fmt"
	"strings"

	"github.com/pharo-refactor/refactord/smalltalk"
)

// pattern is a method pattern found at the start of a method source.
type pattern struct {
	selector string
	start    int // first byte of the pattern (after leading blanks)
	end      int // just after the last argument or unary selector
}

// skipBlanksAndComments returns the first offset at or after i that is
// neither blank nor inside a comment.
func skipBlanksAndComments(s string, i int) (int, error) {
	for i < len(s) {
		switch {
		case isBlank(s[i]):
			i++
		case s[i] == '"':
			end, ok := smalltalk.QuoteEnd(s, i)
			if !ok {
				return i, &syntaxErr{i, "unterminated comment"}
			}
			i = end
		default:
			return i, nil
		}
	}
	return i, nil
}

// isKeywordAt reports whether an identifier ending at j is a keyword: it is
// followed by `:` that does not start `:=`.
func isKeywordAt(s string, j int) bool {
	return j < len(s) && s[j] == ':' && (j+1 >= len(s) || s[j+1] != '=')
}

// parsePattern reads the method pattern at the start of source: a unary
// selector, a binary operator and its argument, or keyword/argument pairs.
// Blanks and comments between the parts belong to the pattern; what follows
// the last part does not.
func parsePattern(source string) (pattern, error) {
	start, err := skipBlanksAndComments(source, 0)
	if err != nil {
		return pattern{}, err
	}
	if start >= len(source) {
		return pattern{}, &syntaxErr{start, "method pattern expected"}
	}
	if smalltalk.BinaryCharLen(source, start) > 0 {
		return parseBinaryPattern(source, start)
	}
	end := scanIdent(source, start)
	if end == start {
		return pattern{}, &syntaxErr{start, "method pattern expected"}
	}
	if !isKeywordAt(source, end) {
		return pattern{source[start:end], start, end}, nil
	}
	return parseKeywordPattern(source, start)
}

// parseBinaryPattern reads `op arg` starting at start.
func parseBinaryPattern(source string, start int) (pattern, error) {
	op := start
	for n := smalltalk.BinaryCharLen(source, op); n > 0; n = smalltalk.BinaryCharLen(source, op) {
		op += n
	}
	argStart, err := skipBlanksAndComments(source, op)
	if err != nil {
		return pattern{}, err
	}
	argEnd := scanIdent(source, argStart)
	if argEnd == argStart {
		return pattern{}, &syntaxErr{argStart, fmt.Sprintf("argument name expected after %q", source[start:op])}
	}
	return pattern{source[start:op], start, argEnd}, nil
}

// parseKeywordPattern reads `kw: arg kw: arg …` starting at start.
func parseKeywordPattern(source string, start int) (pattern, error) {
	var sel strings.Builder
	end := start
	kw := start
	for {
		kwEnd := scanIdent(source, kw)
		if kwEnd == kw || !isKeywordAt(source, kwEnd) {
			return pattern{sel.String(), start, end}, nil
		}
		sel.WriteString(source[kw : kwEnd+1])
		argStart, err := skipBlanksAndComments(source, kwEnd+1)
		if err != nil {
			return pattern{}, err
		}
		argEnd := scanIdent(source, argStart)
		if argEnd == argStart || isKeywordAt(source, argEnd) {
			return pattern{}, &syntaxErr{argStart, fmt.Sprintf("argument name expected after %q", source[kw:kwEnd+1])}
		}
		end = argEnd
		if kw, err = skipBlanksAndComments(source, end); err != nil {
			// An unterminated comment after the pattern is the body's problem.
			return pattern{sel.String(), start, end}, nil
		}
	}
}

// Selector returns the selector of a method source (or of a declaration
// alone): `foo`, `+`, `at:put:`. Only the pattern at the start is read.
func Selector(source string) (string, error) {
	p, err := parsePattern(source)
	if err != nil {
		return "", fmt.Errorf("tonel: %w", err)
	}
	return p.selector, nil
}

// SplitSource splits a method source into its declaration (the pattern,
// including blanks and comments between its parts, and a comment before it)
// and its body (all that follows, starting with the blanks after the
// pattern). Leading blanks are dropped, so the declaration is trimmed. This is how Pharo's Tonel writer
// cuts a method into `Foo >> declaration [` and the body.
func SplitSource(source string) (decl, body string, err error) {
	p, err := parsePattern(source)
	if err != nil {
		return "", "", fmt.Errorf("tonel: %w", err)
	}
	start := skipBlanks([]byte(source), 0)
	return source[start:p.end], source[p.end:], nil
}
