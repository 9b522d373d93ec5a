package refactor

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The shapes as regular expressions, as they were checked before the
// hand-written checks: the reference those are compared with.
var (
	classNameRE = regexp.MustCompile(`^[A-Z][A-Za-z0-9_]*$`)
	selectorRE  = regexp.MustCompile(`^(?:[A-Za-z_][A-Za-z0-9_]*|[-+/\\*~<>=@,%|&?!±×÷·]+|(?:[A-Za-z_][A-Za-z0-9_]*:)+)$`)
)

// TestNameShapesMatchTheirExpressions: the hand-written checks accept
// exactly what the expressions accept, on named cases and on every string of
// up to four pieces of an alphabet covering each class of character (and a
// stray UTF-8 byte).
func TestNameShapesMatchTheirExpressions(t *testing.T) {
	named := []string{
		"", "Calculator", "calculator", "Foo_Bar9", "9Foo", "Foo bar", "Foo\n", "Foo:",
		"sum:with:", "sum:with", "sum", "_x", "x:y", ":", "a::", "at:put:", "at::put:",
		"+", "->", "~=", "±", "×÷·", "+a", "a+", "ÿ", "\xff", "+\xff", "Ä", "sum:\n",
	}
	for _, s := range named {
		assert.Equal(t, classNameRE.MatchString(s), isClassNameShape(s), "class name %q", s)
		assert.Equal(t, selectorRE.MatchString(s), isSelectorShape(s), "selector %q", s)
	}
	alphabet := []string{"A", "z", "_", "7", ":", "+", "\\", "±", "·", " ", "é", "\xff", "\n", "-"}
	words := []string{""}
	for range 4 {
		var next []string
		for _, w := range words {
			for _, a := range alphabet {
				next = append(next, w+a)
			}
		}
		for _, s := range next {
			if classNameRE.MatchString(s) != isClassNameShape(s) || selectorRE.MatchString(s) != isSelectorShape(s) {
				t.Errorf("%q: class name %v (expression %v), selector %v (expression %v)", s,
					isClassNameShape(s), classNameRE.MatchString(s), isSelectorShape(s), selectorRE.MatchString(s))
			}
		}
		words = next
	}
	assert.Len(t, words, len(alphabet)*len(alphabet)*len(alphabet)*len(alphabet))
	assert.True(t, isSelectorShape(strings.Repeat("ab:", 80)), "a long keyword selector")
}
