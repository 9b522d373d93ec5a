package tonel

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/internal/testenv"
)

// corpusRoot is the shared Tonel corpus of the repository.
const corpusRoot = "../../testdata/corpus"

// corpusFiles returns the paths of every .st file of the corpus, sorted.
func corpusFiles(t testing.TB) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(corpusRoot, "src", "*", "*.st"))
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	return paths
}

// readCorpusFile parses one corpus file by its base name, e.g.
// "GeoPoint.class.st".
func readCorpusFile(t testing.TB, name string) *File {
	t.Helper()
	for _, p := range corpusFiles(t) {
		if filepath.Base(p) == name {
			f, err := ReadFile(p)
			require.NoError(t, err)
			return f
		}
	}
	t.Fatalf("no corpus file %s", name)
	return nil
}

// mustParse parses text that the test expects to be valid Tonel.
func mustParse(t testing.TB, text string) *File {
	t.Helper()
	f, err := ParseFile("test.class.st", []byte(text))
	require.NoError(t, err)
	return f
}

// lines joins lines with "\n" and ends with one, so test files read like the
// Tonel they stand for. Leading "> " markers are not used; tabs are written
// as \t in the Go strings.
func lines(ls ...string) string {
	return strings.Join(ls, "\n") + "\n"
}

// copyDir copies a directory tree for tests that modify or prune it.
func copyDir(t testing.TB, from, to string) {
	t.Helper()
	abs, err := filepath.Abs(from)
	require.NoError(t, err)
	require.NoError(t, testenv.CopyTree(abs, to))
}
