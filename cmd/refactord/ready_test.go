package main

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/internal/testenv"
	"github.com/pharo-refactor/refactord/wire"
)

// TestReadyDoesNotWaitBehindATestRun: the MCP server answers one call at a
// time, and a test run may take its whole limit. While a 10 s test run is in
// flight, /ready and /health answer from the connection's state — ready,
// with the call in flight named — and the run is still in flight once they
// have answered: neither waited behind it.
func TestReadyDoesNotWaitBehindATestRun(t *testing.T) {
	dir, env := imageEnv(t, approvesSum(answerTheSum, 0))
	testenv.SlowTestClass(t, filepath.Join(dir, "image", "test-oracle.json"), "CalculatorTest", 10*time.Second, testenv.CalculatorTests()...)
	s := start(t, dir, env...)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _, _ = s.post("/api/v1/refactor", `{"class_name": "Calculator", "method_name": "sum:with:"}`)
	}()
	var inFlight *wire.HealthBody
	require.Eventually(t, func() bool {
		h, err := s.Health()
		if err == nil && h.MCP.InFlight != nil && h.MCP.InFlight.Tool == "run_class_test" {
			inFlight = &h
			return true
		}
		return false
	}, 15*time.Second, 20*time.Millisecond, "the baseline test run is in flight")

	client := &http.Client{Timeout: 5 * time.Second} // far under the run's 10 s
	resp, err := client.Get(s.URL + "/ready")
	require.NoError(t, err, "/ready answered while the test run was in flight")
	defer resp.Body.Close()
	var ready wire.ReadyBody
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&ready))
	assert.Equal(t, http.StatusOK, resp.StatusCode, "%+v", ready)
	assert.True(t, ready.Ready, "%+v", ready.Reasons)
	require.NotNil(t, ready.MCP)
	require.NotNil(t, ready.MCP.InFlight, "the answer names the call in flight")
	assert.Equal(t, "run_class_test", ready.MCP.InFlight.Tool)

	h, err := s.Health()
	require.NoError(t, err)
	require.NotNil(t, h.MCP.InFlight, "the test run is still in flight after /ready and /health answered")
	assert.True(t, inFlight.MCP.InFlight.Since.Equal(h.MCP.InFlight.Since), "…the same call")
	select {
	case <-done:
		t.Fatal("the run ended before /ready answered: /ready waited behind it")
	default:
	}
	assert.True(t, h.Busy, "the run holds the slot")
}

// TestNotReadyUntilTheImageAnswered: at start-up the first probe is in
// flight while the image takes its time (here every call is held 3 s);
// /ready is 503 saying so until the image has answered once, then 200.
func TestNotReadyUntilTheImageAnswered(t *testing.T) {
	dir, env := imageEnv(t, approvesSum(answerTheSum, 0))
	s := launch(t, dir, append(env, "PHARO_MCP_ENV=PHARO_SIM_DELAY=3s")...)
	var first wire.ReadyBody
	var firstStatus int
	require.Eventually(t, func() bool {
		resp, err := http.Get(s.URL + "/ready")
		if err != nil {
			return false // not listening yet
		}
		defer resp.Body.Close()
		firstStatus = resp.StatusCode
		return json.NewDecoder(resp.Body).Decode(&first) == nil
	}, 20*time.Second, 10*time.Millisecond, "refactord listens")
	require.NotNil(t, first.MCP)
	require.True(t, first.MCP.LastSuccess.IsZero(), "the test needs the first answer still outstanding: %+v", first.MCP)
	assert.Equal(t, http.StatusServiceUnavailable, firstStatus, "%+v", first)
	assert.False(t, first.Ready)
	assert.Contains(t, strings.Join(first.Reasons, "; "), "has not answered yet")

	require.NoError(t, s.WaitFor("/ready", 30*time.Second), "ready once the image answered")
	h, err := s.Health()
	require.NoError(t, err)
	assert.False(t, h.MCP.LastSuccess.IsZero())
}
