package mcpclient

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/internal/testenv"
)

// slowImage is a copy of the sample image whose CalculatorTest takes d.
func slowImage(t *testing.T, d time.Duration) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, testenv.CopyTree("examples/sample-image", dir))
	testenv.SlowTestClass(t, filepath.Join(dir, "test-oracle.json"), "CalculatorTest", d, testenv.CalculatorTests()...)
	return dir
}

// TestHealthShowsTheCallInFlight: while a test run is in flight, Health
// names it and still answers from the last answered call.
func TestHealthShowsTheCallInFlight(t *testing.T) {
	c := startSimOn(t, slowImage(t, time.Second), Config{ProbeInterval: time.Minute})
	ctx := ctxT(t)
	require.NoError(t, c.Start(ctx))
	require.Eventually(t, func() bool { return c.Health().Answering }, 10*time.Second, 5*time.Millisecond, "the probe after the start answered")
	assert.Nil(t, c.Health().InFlight)

	done := make(chan error, 1)
	go func() {
		_, err := c.RunTests(ctx, "CalculatorTest")
		done <- err
	}()
	require.Eventually(t, func() bool { h := c.Health(); return h.InFlight != nil }, 5*time.Second, time.Millisecond)
	h := c.Health()
	assert.Equal(t, "run_class_test", h.InFlight.Tool)
	assert.Equal(t, 1, h.InFlight.Calls)
	assert.True(t, h.Up)
	assert.True(t, h.Answering)
	require.NoError(t, <-done)
	assert.Nil(t, c.Health().InFlight, "nothing in flight once it answered")
}

// TestTestTimeoutIsInconclusive: TEST_TIMEOUT ends a test run the server
// is still running: tests_inconclusive, and the image is not taken for
// down; the next call is served.
func TestTestTimeoutIsInconclusive(t *testing.T) {
	c := startSimOn(t, slowImage(t, time.Hour), Config{TestTimeout: 300 * time.Millisecond})
	ctx := ctxT(t)
	require.NoError(t, c.Start(ctx))
	_, err := c.ClassExists(ctx, "Calculator")
	require.NoError(t, err)
	_, err = c.RunTests(ctx, "CalculatorTest")
	require.Error(t, err)
	assert.Equal(t, refactor.TestsInconclusive, refactor.KindOf(err), "%v", err)
	assert.Contains(t, err.Error(), "TEST_TIMEOUT (300ms)")
	assert.True(t, c.Health().Answering, "a test run over its budget says nothing against the image")
	assert.Empty(t, c.Health().LastError)
	exists, err := c.ClassExists(ctx, "Calculator")
	require.NoError(t, err, "the server serves the next call")
	assert.True(t, exists)
}

// TestProbesKeepTheStateFresh: with ProbeInterval the client asks the image
// after each start and while idle, so Health tells an image that does not
// answer without anyone calling it.
func TestProbesKeepTheStateFresh(t *testing.T) {
	t.Run("an unreachable image", func(t *testing.T) {
		dir := t.TempDir()
		require.NoError(t, testenv.CopyTree("examples/sample-image", dir))
		c := startSimOn(t, dir, Config{Env: []string{"PHARO_SIM_UNREACHABLE=true"}, ProbeInterval: time.Minute})
		require.NoError(t, c.Start(ctxT(t)), "the MCP server itself starts")
		require.Eventually(t, func() bool { return c.Health().LastError != "" }, 10*time.Second, 5*time.Millisecond)
		h := c.Health()
		assert.True(t, h.Up)
		assert.False(t, h.Answering)
		assert.Contains(t, h.LastError, "cannot reach the image")
	})
	t.Run("idle", func(t *testing.T) {
		dir := t.TempDir()
		require.NoError(t, testenv.CopyTree("examples/sample-image", dir))
		c := startSimOn(t, dir, Config{ProbeInterval: 50 * time.Millisecond})
		require.NoError(t, c.Start(ctxT(t)))
		require.Eventually(t, func() bool { return c.Health().Answering }, 10*time.Second, 5*time.Millisecond)
		first := c.Health().LastSuccess
		require.Eventually(t, func() bool { return c.Health().LastSuccess.After(first) }, 10*time.Second, 10*time.Millisecond,
			"an idle client asks again")
	})
}

func TestIsTestCaseAsksTheImage(t *testing.T) {
	c, _ := startSim(t)
	ctx := ctxT(t)
	for class, want := range map[string]bool{"CalculatorTest": true, "Calculator": false, "NoSuchTest": false} {
		got, err := c.IsTestCase(ctx, class)
		require.NoError(t, err, class)
		assert.Equal(t, want, got, class)
	}
	_, err := c.IsTestCase(ctx, "Foo. Smalltalk")
	assert.Equal(t, refactor.InvalidRequest, refactor.KindOf(err))
}
