package main

import (
	"encoding/json"
	"net/http"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/internal/testenv"
	"github.com/pharo-refactor/refactord/internal/version"
)

// TestOneVersionEverywhere: `refactord --version`, /health, / and the
// served contract all name the version internal/version holds.
func TestOneVersionEverywhere(t *testing.T) {
	for _, arg := range []string{"--version", "-version", "version"} {
		out, err := exec.Command(bins.refactord(t), arg).Output()
		require.NoError(t, err, arg)
		assert.Equal(t, "refactord "+version.Version+"\n", string(out), arg)
	}

	dir, env := imageEnv(t, approvesSum(answerTheSum, 0))
	s := start(t, dir, env...)
	for _, tc := range []struct {
		path string
		read func(map[string]any) any
	}{
		{"/health", func(b map[string]any) any { return b["version"] }},
		{"/", func(b map[string]any) any { return b["version"] }},
		{"/openapi.json", func(b map[string]any) any { return testenv.Dig(b, "info", "version") }},
	} {
		t.Run(tc.path, func(t *testing.T) {
			resp, err := http.Get(s.URL + tc.path)
			require.NoError(t, err)
			defer resp.Body.Close()
			require.Equal(t, http.StatusOK, resp.StatusCode)
			var body map[string]any
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
			assert.Equal(t, version.Version, tc.read(body))
		})
	}
	assert.True(t, strings.Contains(s.Log(), `"version":"`+version.Version+`"`), "the start-up line names the version")
}
