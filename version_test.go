package refactor_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/internal/version"
)

// TestOpenAPINamesTheBuildVersion: the contract served at /openapi.yaml
// names the release the source is, the one internal/version holds.
func TestOpenAPINamesTheBuildVersion(t *testing.T) {
	var doc struct {
		Info struct {
			Version string `yaml:"version"`
		} `yaml:"info"`
	}
	require.NoError(t, yaml.Unmarshal(refactor.OpenAPI, &doc))
	assert.Equal(t, version.Version, doc.Info.Version, "openapi.yaml info.version and internal/version agree")
}
