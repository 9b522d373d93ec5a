package main

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/internal/testenv"
)

// TestAnAbandonedTestRunStaysVisible: the baseline test run takes 4 s, over
// TEST_TIMEOUT (1 s). The run answers 504 tests_inconclusive, and the MCP
// server — which, like the real one, runs a cancelled call on to its end —
// was sent notifications/cancelled. /health names the abandoned call while
// the server works on it; the next run's stream says first that it waits
// behind it; once the server is done, /health no longer names it.
func TestAnAbandonedTestRunStaysVisible(t *testing.T) {
	dir, env := imageEnv(t, approvesSum(answerTheSum, 0))
	testenv.SlowTestClass(t, filepath.Join(dir, "image", "test-oracle.json"), "CalculatorTest", 4*time.Second, testenv.CalculatorTests()...)
	s := start(t, dir, append(env, "TEST_TIMEOUT=1s", "PHARO_MCP_ENV=PHARO_SIM_FINISH_CANCELLED=1")...)
	jsonHeader := map[string]string{"Content-Type": "application/json"}

	resp, out := s.send(http.MethodPost, "/api/v1/refactor", sumRequest, "", jsonHeader)
	require.Equal(t, http.StatusGatewayTimeout, resp.StatusCode, "%v", out)
	assert.Equal(t, "tests_inconclusive", out["code"])
	h, err := s.Health()
	require.NoError(t, err)
	require.NotNil(t, h.MCP.Abandoned, "/health names the call the server is still working on: %+v", h.MCP)
	assert.Equal(t, "run_class_test", h.MCP.Abandoned.Tool)
	assert.False(t, h.Busy, "the run is over: the slot is free")
	require.Eventually(t, func() bool {
		return strings.Contains(s.Log(), "the client cancelled a tool call (notifications/cancelled)")
	}, 5*time.Second, 20*time.Millisecond, "notifications/cancelled reached the MCP server")

	req, err := http.NewRequest(http.MethodPost, s.URL+"/api/v1/refactor", strings.NewReader(sumRequest))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	stream, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer stream.Body.Close()
	events := sseEvents(stream)
	require.GreaterOrEqual(t, len(events), 2, "%v", events)
	assert.Contains(t, events[0], "event: accepted")
	assert.Contains(t, events[1], "event: image_busy", "the next run says first what it waits behind: %v", events)
	assert.Contains(t, events[1], "run_class_test")

	require.Eventually(t, func() bool {
		h, err := s.Health()
		return err == nil && h.MCP.Abandoned == nil && !h.Busy
	}, 30*time.Second, 50*time.Millisecond, "once the server is done with it, the abandoned call is no longer named")
}
