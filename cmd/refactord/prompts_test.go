package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/internal/testenv"
)

// render runs `refactord prompts render ARGS…` on a copy of the sample
// image (prepared by prepare) and answers its stdout, stderr and exit code.
func render(t *testing.T, prepare func(image string), env []string, args ...string) (string, string, int) {
	t.Helper()
	dir := t.TempDir()
	image := filepath.Join(dir, "image")
	require.NoError(t, testenv.CopyTree("examples/sample-image", image))
	if prepare != nil {
		prepare(image)
	}
	cmd := exec.Command(bins.refactord(t), append([]string{"prompts", "render", "--image", image}, args...)...)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "PHARO_MCP_COMMAND=" + bins.pharoSim(t)}, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return stdout.String(), stderr.String(), code
}

// The rendered prompts of ShoppingCart>>total carry the class's selectors
// and the sources of totalWithoutTax (which repeats its code) and of
// ShoppingCart class>>taxRate (which it sends), for every role, with each
// role's schema or tools.
func TestPromptsRenderShowsTheClassContext(t *testing.T) {
	out, stderr, code := render(t, nil, nil, "ShoppingCart", "total")
	require.Equal(t, 0, code, stderr)
	roles := strings.Split(out, "\n======== ")[1:]
	require.Len(t, roles, 4, out)
	for i, role := range []string{"reviewer", "writer", "validator", "refiner"} {
		section := roles[i]
		assert.True(t, strings.HasPrefix(section, role+":"), section[:40])
		assert.Contains(t, section, "-------- system\n")
		assert.Contains(t, section, "add:quantity: customer customer: initialize itemCount items total totalWithoutTax", role)
		assert.Contains(t, section, `<image-data label="ShoppingCart>>totalWithoutTax, repeats code of this method">`+"\ntotalWithoutTax\n", role)
		assert.Contains(t, section, "\t^ t - d\n", role)
		assert.Contains(t, section, `<image-data label="ShoppingCart class>>taxRate, sent to self">`, role)
		assert.Contains(t, section, "The behaviour rule", role)
		assert.NotContains(t, section, "truncated to the budget", role)
		// The answer format comes after the data, rendered from the schema.
		user := section[strings.Index(section, "-------- user"):]
		assert.Greater(t, strings.LastIndex(user, "Answer with only this JSON object"), strings.Index(user, `label="method source"`), role)
	}
	assert.Contains(t, roles[0], "-------- tools", "the reviewer may look things up")
	assert.Contains(t, roles[0], "search_implementors: ")
	assert.NotContains(t, roles[0], "-------- response schema")
	assert.Contains(t, roles[1], "-------- response schema")
	assert.Contains(t, roles[1], `"code"`)
	assert.Contains(t, roles[2], `"NEEDS_IMPROVEMENT"`)

	out, stderr, code = render(t, nil, []string{"REVIEWER_MAX_TOOL_ROUNDS=0"}, "--json", "ShoppingCart>>total")
	require.Equal(t, 0, code, stderr)
	var requests []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &requests))
	require.Len(t, requests, 4)
	assert.Nil(t, requests[0]["tools"], "no tool rounds: no tools")
	assert.NotNil(t, requests[0]["schema"])
}

// A 200 KB method is shown cut to the budget, with a marker, and the cut
// is named.
func TestPromptsRenderCutsAHugeMethodToTheBudget(t *testing.T) {
	add := func(image string) {
		path := filepath.Join(image, "src", "Sample-Shop", "Calculator.class.st")
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		body := strings.Repeat("\tt := t + 1.\n", 200<<10/13)
		data = append(data, []byte("\n{ #category : 'generated' }\nCalculator >> huge [\n\t| t |\n\tt := 0.\n"+body+"\t^ t\n]\n")...)
		require.NoError(t, os.WriteFile(path, data, 0o644))
	}
	out, stderr, code := render(t, add, []string{"PROMPT_MAX_METHOD_BYTES=16384"}, "--json", "Calculator", "huge")
	require.Equal(t, 0, code, stderr)
	var requests []struct {
		Role      string   `json:"role"`
		System    string   `json:"system"`
		User      string   `json:"user"`
		Truncated []string `json:"truncated"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &requests))
	require.Len(t, requests, 4)
	for _, r := range requests {
		assert.Equal(t, []string{"method_source"}, r.Truncated, r.Role)
		assert.Contains(t, r.User, "[… truncated: 16384 of", r.Role)
		assert.Contains(t, r.User, "Cut to fit the context budget", r.Role)
		assert.Less(t, len(r.User), 16384+8<<10, "%s: the method takes no more than its budget", r.Role)
	}
}

func TestPromptsRenderUsage(t *testing.T) {
	_, stderr, code := render(t, nil, nil, "NoSuchClass")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "want CLASS SELECTOR")
	_, stderr, code = render(t, nil, nil, "NoSuchClass", "foo")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "NoSuchClass")
}
