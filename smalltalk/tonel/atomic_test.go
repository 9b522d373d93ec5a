package tonel

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dirNames lists the names in dir, to catch temporary files left behind.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestWriteFileAtomic(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		existing []byte
		data     []byte
		perm     os.FileMode
	}{
		{"new file", nil, []byte("Class { #name : #Foo }\n"), 0o644},
		{"replaces a file", []byte("old contents that are longer than the new ones"), []byte("new"), 0o600},
		{"empty data", []byte("old"), nil, 0o644},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "Foo.class.st")
			if tc.existing != nil {
				require.NoError(t, os.WriteFile(path, tc.existing, 0o644))
			}
			require.NoError(t, WriteFileAtomic(path, tc.data, tc.perm))
			got, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, string(tc.data), string(got))
			info, err := os.Stat(path)
			require.NoError(t, err)
			assert.Equal(t, tc.perm, info.Mode().Perm())
			assert.Equal(t, []string{"Foo.class.st"}, dirNames(t, dir), "no temporary file left")
		})
	}
}

func TestWriteFileAtomicFailureKeepsOldState(t *testing.T) {
	t.Parallel()
	t.Run("missing directory", func(t *testing.T) {
		err := WriteFileAtomic(filepath.Join(t.TempDir(), "nope", "Foo.class.st"), []byte("x"), 0o644)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "atomic write")
	})
	t.Run("target is a non-empty directory", func(t *testing.T) {
		dir := t.TempDir()
		target := filepath.Join(dir, "Foo.class.st")
		require.NoError(t, os.MkdirAll(filepath.Join(target, "inside"), 0o755))
		require.Error(t, WriteFileAtomic(target, []byte("x"), 0o644))
		info, err := os.Stat(filepath.Join(target, "inside"))
		require.NoError(t, err)
		assert.True(t, info.IsDir(), "the old entry is untouched")
		assert.Equal(t, []string{"Foo.class.st"}, dirNames(t, dir), "the temporary file is removed")
	})
}
