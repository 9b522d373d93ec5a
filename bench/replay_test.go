package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/internal/testenv"
)

// TestReplayMakesARunsCallsAgainOnPharoSim: the calls of a released run
// of the in-process pipeline, made again on a pharo-sim subprocess of its
// own image, are each answered, and leave that image as the run left its
// own.
func TestReplayMakesARunsCallsAgainOnPharoSim(t *testing.T) {
	testenv.SkipShort(t, "builds and runs pharo-sim")
	dir := t.TempDir()
	bins, err := testenv.Build(dir, "pharo-sim")
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, name := range []string{"image", "replay-image"} {
		require.NoError(t, testenv.CopyTree(filepath.Join("examples", "sample-image"), filepath.Join(dir, name)))
	}
	script, err := scriptFile(dir)
	require.NoError(t, err)
	p, err := newInProcess(ctx, filepath.Join(dir, "image"), filepath.Join(dir, "refactord.db"), script)
	require.NoError(t, err)
	defer p.close()
	r, err := startImageReplay(ctx, bins["pharo-sim"], filepath.Join(dir, "replay-image"))
	require.NoError(t, err)
	defer func() { assert.NoError(t, r.close()) }()

	for range 2 { // the second run compiles the other version over the first
		c, err := p.run(ctx, benchMethod)
		require.NoError(t, err)
		require.NotEmpty(t, c.calls)
		assert.Equal(t, c.roundTrip, len(c.calls))
		assert.Positive(t, c.tools["run_class_test"], "the release runs the tests before and after")
		for _, call := range c.calls {
			assert.NotNil(t, call.arguments, "%s logged without its arguments", call.tool)
		}
		_, err = r.replay(ctx, c.calls)
		require.NoError(t, err)
		released, err := p.image.MethodSource(ctx, benchMethod)
		require.NoError(t, err)
		assert.Equal(t, released, replayedSource(ctx, t, r), "the replay compiled what the run released")
	}

	_, err = r.replay(ctx, []imageCall{{tool: "no_such_tool", arguments: map[string]any{}}})
	assert.Error(t, err, "a call the image refuses fails the replay")
}

// replayedSource reads the bench's method from the replay's image.
func replayedSource(ctx context.Context, t *testing.T, r *imageReplay) string {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = "get_method_source"
	req.Params.Arguments = map[string]any{"class_name": benchMethod.Class, "method_name": benchMethod.Selector}
	res, err := r.client.CallTool(ctx, req)
	require.NoError(t, err)
	var env struct {
		Success bool   `json:"success"`
		Result  string `json:"result"`
	}
	require.NoError(t, json.Unmarshal(res.RawStructuredContent, &env))
	require.True(t, env.Success, "%s", res.RawStructuredContent)
	return strings.ReplaceAll(env.Result, "\r", "\n") // the image's line ends, as mcpclient reads them
}
