package pharosim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/internal/testenv"
	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// The shared test corpus is real Pharo code: the simulator must load it,
// answer every method's source, and accept every method in the dry compile
// of its own class (no false "Undeclared variable").
func TestCorpusLoadsAndEveryMethodCompiles(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	require.NoError(t, testenv.CopyTree("testdata/corpus", root))
	img, err := LoadImage(root, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = img.Close() })
	assert.Empty(t, img.Skipped())
	tree, err := tonel.ReadTree(root)
	require.NoError(t, err)
	count := 0
	for _, f := range tree.Files() {
		for _, m := range f.Methods {
			count++
			key := MethodKey{Class: f.Def.Name, ClassSide: m.Side == ClassSide, Selector: m.Selector}
			src, err := img.MethodSource(key)
			require.NoError(t, err, key.String())
			assert.Equal(t, m.Source, src, key.String())
			assert.Equal(t, "OK", img.DryCompile(key.Class, m.Side, m.Source), key.String())
		}
	}
	assert.GreaterOrEqual(t, count, 300, "the corpus holds at least 300 methods")
}
