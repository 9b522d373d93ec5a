package packaging_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/internal/testenv"
	"github.com/pharo-refactor/refactord/internal/version"
)

// TestInstallLinesNameThisRelease: every `go install` line and image tag
// in the installation notes, the compose file and the CI recipes names
// the version internal/version holds, and every command they install
// exists in this tree.
func TestInstallLinesNameThisRelease(t *testing.T) {
	root, err := testenv.Root()
	require.NoError(t, err)
	recipes, err := filepath.Glob(filepath.Join(root, "examples", "ci", "*.yml"))
	require.NoError(t, err)
	files := append([]string{filepath.Join(root, "docs", "install.md"), filepath.Join(root, "compose.yaml")}, recipes...)
	install := regexp.MustCompile(`go install github\.com/pharo-refactor/refactord/(cmd/[a-z-]+)@(\S+)`)
	tag := regexp.MustCompile(`localhost/refactord:(\S+)`)
	installs := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		name, _ := filepath.Rel(root, f)
		for _, m := range install.FindAllStringSubmatch(string(data), -1) {
			installs++
			assert.Equal(t, "v"+version.Version, m[2], "%s: %s", name, m[0])
			assert.DirExists(t, filepath.Join(root, m[1]), "%s installs %s", name, m[1])
		}
		for _, m := range tag.FindAllStringSubmatch(string(data), -1) {
			assert.Equal(t, version.Version, strings.TrimRight(m[1], "\"'`:;,."), "%s: %s", name, m[0])
		}
	}
	assert.GreaterOrEqual(t, installs, 5, "docs/install.md installs refactorctl, refactord and pharo-sim; each recipe refactorctl")
}
