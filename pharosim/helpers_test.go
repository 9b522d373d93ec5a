package pharosim

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"pharo-refactor/internal/testenv"
)

// testTree copies the sample image (Sample-Shop and its oracle) and the
// Sim-Extras fixture into a fresh directory, since the image writes its
// files. It returns the directory holding src/ and test-oracle.json.
func testTree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	sample := filepath.Join("..", "examples", "sample-image")
	copyTree(t, filepath.Join(sample, "src"), filepath.Join(root, "src"))
	copyTree(t, filepath.Join("testdata", "extras"), filepath.Join(root, "src"))
	data, err := os.ReadFile(filepath.Join(sample, OracleFileName))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(root, OracleFileName), data, 0o644))
	return root
}

// copyTree copies the files under from into to.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	abs, err := filepath.Abs(from)
	require.NoError(t, err)
	require.NoError(t, testenv.CopyTree(abs, to))
}

// loadTestImage loads a fresh copy of the test tree.
func loadTestImage(t *testing.T) (*Image, string) {
	t.Helper()
	root := testTree(t)
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
