package udiff

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The patch git applies gives b from a, byte for byte: CRLF lines, a lost
// or gained final newline, changes at either end.
func TestFilePatchAppliesWithGit(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	cases := []struct{ name, a, b string }{
		{"middle", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nfive\n6\n7\n8\n9\n"},
		{"crlf", "a\r\nb\r\nc\r\n", "a\r\nB\r\nb2\r\nc\r\n"},
		{"no final newline kept", "a\nb\nc", "a\nB\nc"},
		{"no final newline, last line changed", "a\nb\nc", "a\nb\nC"},
		{"final newline added", "a\nb", "a\nb\n"},
		{"final newline removed", "a\nb\n", "a\nb"},
		{"first and last", "x\n1\n2\n3\n4\n5\n6\n7\n8\ny\n", "X\n1\n2\n3\n4\n5\n6\n7\n8\nY\n"},
		{"crlf without final newline", "a\r\nb\r\n]", "a\r\nB\r\n]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "src", "P", "Foo.class.st")
			require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o755))
			require.NoError(t, os.WriteFile(file, []byte(tc.a), 0o644))
			patch := FilePatch("src/P/Foo.class.st", tc.a, tc.b, 3)
			require.NotEmpty(t, patch)
			cmd := exec.Command(git, "apply", "--whitespace=nowarn", "-")
			cmd.Dir = dir
			cmd.Stdin = strings.NewReader(patch)
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s\n%s", out, patch)
			got, err := os.ReadFile(file)
			require.NoError(t, err)
			assert.Equal(t, tc.b, string(got), patch)
		})
	}
	assert.Empty(t, FilePatch("x", "same\n", "same\n", 3))
}
