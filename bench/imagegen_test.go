package main

import (
	"crypto/sha256"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/smalltalk"
	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// treeDigest hashes every file of a tree with its path.
func treeDigest(t *testing.T, root string) [32]byte {
	t.Helper()
	h := sha256.New()
	require.NoError(t, filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		rel, _ := filepath.Rel(root, path)
		h.Write([]byte(rel))
		h.Write(data)
		return err
	}))
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return sum
}

func TestGeneratedImageIsValidTonelAndDeterministic(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	cfg := genConfig{methods: 8000, seed: 16}
	st, err := generateImage(a, cfg)
	require.NoError(t, err)
	_, err = generateImage(b, cfg)
	require.NoError(t, err)
	assert.Equal(t, treeDigest(t, a), treeDigest(t, b), "the same seed gives the same tree")

	tree, err := tonel.ReadTree(a)
	require.NoError(t, err, "every file reads")
	methods, warnings := 0, 0
	for _, f := range tree.Files() {
		for _, m := range f.Methods {
			methods++
			parsed, err := smalltalk.ParseMethod(m.Source)
			require.NoError(t, err, "%s>>%s:\n%s", f.Def.Name, m.Selector, m.Source)
			warnings += len(parsed.Warnings)
		}
	}
	assert.Equal(t, st.Methods, methods)
	assert.Zero(t, warnings)
	assert.GreaterOrEqual(t, methods, cfg.methods)
	assert.Equal(t, 3000, st.LargestClass, "the largest class is as large as Pharo's largest")
	assert.Greater(t, st.Packages, 3)
	assert.Equal(t, len(tree.Packages), st.Packages)
}
