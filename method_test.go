package refactor

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestValidateNames: the domain accepts the Smalltalk shapes within its
// bounds and refuses the rest as invalid_request, saying which rule the
// name breaks (the shapes themselves are tested in package smalltalk).
func TestValidateNames(t *testing.T) {
	cases := []struct {
		name      string
		ref       MethodRef
		wantError string // "" when valid
	}{
		{name: "unary", ref: MethodRef{Class: "Calculator", Selector: "sum"}},
		{name: "keyword", ref: MethodRef{Class: "Calculator", Selector: "sum:with:"}},
		{name: "binary", ref: MethodRef{Class: "Calculator", Selector: "±"}},
		{name: "longest class name", ref: MethodRef{Class: "C" + strings.Repeat("x", maxClassNameLen-1), Selector: "sum"}},
		{name: "longest selector", ref: MethodRef{Class: "Calculator", Selector: strings.Repeat("x", maxSelectorLen)}},
		{name: "empty class", ref: MethodRef{Selector: "sum"}, wantError: "the class name is empty"},
		{name: "class too long", ref: MethodRef{Class: "C" + strings.Repeat("x", maxClassNameLen), Selector: "sum"}, wantError: "longer than 256"},
		{name: "lower-case class", ref: MethodRef{Class: "calculator", Selector: "sum"}, wantError: `"calculator" is not a class name`},
		{name: "empty selector", ref: MethodRef{Class: "Calculator"}, wantError: "the selector is empty"},
		{name: "selector too long", ref: MethodRef{Class: "Calculator", Selector: strings.Repeat("x", maxSelectorLen+1)}, wantError: "longer than 256"},
		{name: "keyword without its colon", ref: MethodRef{Class: "Calculator", Selector: "sum:with"}, wantError: `"sum:with" is not a selector`},
		{name: "code as selector", ref: MethodRef{Class: "Calculator", Selector: "sum. Smalltalk quit"}, wantError: "is not a selector"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.ref.Validate()
			if tc.wantError == "" {
				assert.NoError(t, err)
				assert.True(t, IsClassName(tc.ref.Class) && IsSelector(tc.ref.Selector))
				return
			}
			assert.ErrorContains(t, err, tc.wantError)
			assert.Equal(t, InvalidRequest, KindOf(err))
		})
	}
}
