package pharosim

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/internal/testenv"
)

// loadTestImage loads a fresh copy of the test tree.
func loadTestImage(t *testing.T) (*Image, string) {
	t.Helper()
	root := testenv.SimTree(t)
	img, err := LoadImage(root, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = img.Close() })
	return img, root
}

// readFile reads a file of the test tree.
func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(data)
}

// writeFile writes a file of the test tree.
func writeFile(path, text string) error {
	return os.WriteFile(path, []byte(text), 0o644)
}
