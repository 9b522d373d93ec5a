package main

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/internal/testenv"
	"github.com/pharo-refactor/refactord/mcpclient"
)

// --fault-kill-at N:after handles call N (the compile reaches the Tonel
// file), then the process SIGKILLs itself before answering; with a marker
// the fault fires once, so a restarted simulator answers.
func TestFaultKillAt(t *testing.T) {
	root := testenv.SimTree(t)
	marker := filepath.Join(t.TempDir(), "killed")
	ref := refactor.MethodRef{Class: "Calculator", Selector: "sum:with:"}
	expr, err := mcpclient.InstallExpr(ref, "sum: a with: b\n\t\"killed after this\"\n\t^ a + b", "arithmetic")
	require.NoError(t, err)
	args := []string{"--dir", root, "--fault-kill-at", "2:after", "--fault-kill-marker", marker}

	s := startSim(t, nil, args...)
	s.call(t, "list_packages", nil).result(t, new([]string))
	_, err = s.callRaw("eval", map[string]any{"code": expr})
	require.Error(t, err, "call 2 is never answered")
	var exit *exec.ExitError
	waitErr := s.client.Close()
	require.True(t, errors.As(waitErr, &exit), "the process died on its own: %v", waitErr)
	assert.Equal(t, syscall.SIGKILL, exit.Sys().(syscall.WaitStatus).Signal(), "kill -9")
	file, err := os.ReadFile(filepath.Join(root, "src", "Sample-Shop", "Calculator.class.st"))
	require.NoError(t, err)
	assert.Contains(t, string(file), "killed after this", "the compile was handled before the kill")
	assert.FileExists(t, marker)

	again := startSim(t, nil, args...)
	again.call(t, "list_packages", nil).result(t, new([]string))
	again.call(t, "list_packages", nil).result(t, new([]string))
}

func TestParseKillAt(t *testing.T) {
	cfg, err := parseServe([]string{"--dir", "img", "--fault-kill-at", "7:after", "--fault-kill-marker", "m"}, func(string) string { return "" }, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, 7, cfg.kill.Call)
	assert.True(t, cfg.kill.After)
	assert.Equal(t, "m", cfg.kill.Marker)
	cfg, err = parseServe([]string{"--dir", "img"}, func(k string) string { return map[string]string{"PHARO_SIM_KILL_AT": "3"}[k] }, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, 3, cfg.kill.Call)
	assert.False(t, cfg.kill.After)
	for _, bad := range []string{"x", "3:later", "-1"} {
		_, err := parseServe([]string{"--dir", "img", "--fault-kill-at", bad}, func(string) string { return "" }, io.Discard)
		assert.Error(t, err, bad)
	}
}

// --fault-crash-tests-on TEXT: a test run whose tests reach code holding
// TEXT SIGKILLs the simulator, on every start (a real image killed by a
// candidate's tests dies again whenever they run); a test run that does
// not reach it, and every other call, is answered.
func TestFaultCrashTestsOn(t *testing.T) {
	root := testenv.SimTree(t)
	const text = "the image dies running this"
	ref := refactor.MethodRef{Class: "Calculator", Selector: "sum:with:"}
	expr, err := mcpclient.InstallExpr(ref, "sum: a with: b\n\t\""+text+"\"\n\t^ a + b", "arithmetic")
	require.NoError(t, err)
	args := []string{"--dir", root, "--fault-crash-tests-on", text}

	s := startSim(t, nil, args...)
	var report string
	s.call(t, "run_class_test", map[string]any{"class_name": "CalculatorTest"}).result(t, &report)
	assert.Contains(t, report, "passed", "the text is not in the image yet")
	s.eval(t, expr)
	s.call(t, "run_class_test", map[string]any{"class_name": "CustomerTest"}).result(t, &report)
	assert.Contains(t, report, "passed", "CustomerTest does not reach Calculator")
	for start := 1; start <= 2; start++ {
		if start > 1 {
			s = startSim(t, nil, args...)
		}
		s.call(t, "get_method_source", map[string]any{"class_name": "Calculator", "method_name": "sum:with:"}).result(t, new(string))
		_, err = s.callRaw("run_class_test", map[string]any{"class_name": "CalculatorTest"})
		require.Error(t, err, "start %d: the test run is never answered", start)
		var exit *exec.ExitError
		waitErr := s.client.Close()
		require.True(t, errors.As(waitErr, &exit), "start %d: the process died on its own: %v", start, waitErr)
		assert.Equal(t, syscall.SIGKILL, exit.Sys().(syscall.WaitStatus).Signal(), "start %d: kill -9", start)
	}
}

func TestParseCrashTestsOn(t *testing.T) {
	cfg, err := parseServe([]string{"--dir", "img", "--fault-crash-tests-on", "boom"}, func(string) string { return "" }, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, "boom", cfg.crash.Text)
	cfg, err = parseServe([]string{"--dir", "img"}, func(k string) string { return map[string]string{"PHARO_SIM_CRASH_TESTS_ON": "bang"}[k] }, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, "bang", cfg.crash.Text)
}
