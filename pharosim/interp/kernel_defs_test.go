package interp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/smalltalk"
)

// TestTheKernelDefinesEachMethodOnce: two definitions of one method in the
// kernel's files (a class's own file and an extension, say) would let the
// order the files load in choose between them, silently.
func TestTheKernelDefinesEachMethodOnce(t *testing.T) {
	k, err := kernel()
	require.NoError(t, err)
	seen := map[string]bool{}
	for _, m := range k.Methods {
		ast, err := smalltalk.ParseMethod(m.Source)
		require.NoError(t, err, "%s: %s", m.Class, m.Source)
		key := m.Class + ">>#" + ast.Selector
		if m.ClassSide {
			key = m.Class + " class>>#" + ast.Selector
		}
		assert.False(t, seen[key], "%s is defined twice", key)
		seen[key] = true
	}
	assert.Greater(t, len(seen), 1000, "the kernel's methods were read")
}
