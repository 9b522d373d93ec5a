package pharosim

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/internal/testenv"
)

// gateTree copies the test-gate tree (testdata/test-gate) and, when
// oracle is set, replaces its oracle.
func gateTree(t *testing.T, oracle string) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, testenv.CopyTree("testdata/test-gate", dir))
	if oracle != "" {
		require.NoError(t, os.WriteFile(filepath.Join(dir, OracleFileName), []byte(oracle), 0o644))
	}
	return dir
}

// TestRunClassTestAsTheRealServer: the report SUnit prints on the real
// server — inherited tests as Sub(Super)>>#sel, an unexpected pass listed
// under Failures after the failures and counted as "passed unexpected", an
// expected failure counted and not listed — and MessageNotUnderstood for a
// class that is not a TestCase.
func TestRunClassTestAsTheRealServer(t *testing.T) {
	t.Parallel()
	c, s := inProcess(t, Options{Dir: gateTree(t, "")})
	env, _ := call(t, c, "run_class_test", map[string]any{"class_name": "FooTest"})
	require.True(t, env.Success, "%s", env.Error)
	var text string
	require.NoError(t, json.Unmarshal(env.Result, &text))
	assert.Equal(t, "4 ran, 2 passed, 0 skipped, 1 expected failure, 0 failures, 0 errors, 1 passed unexpected\r"+
		"Failures:\rFooTest(AbstractFooTest)>>#testKnownBug\r\rErrors:\r", text)

	_, err := s.Image().Compile("Foo", InstanceSide, "total\n\t^ items size", "computing")
	require.NoError(t, err)
	env, _ = call(t, c, "run_class_test", map[string]any{"class_name": "FooTest"})
	require.NoError(t, json.Unmarshal(env.Result, &text))
	assert.Equal(t, "4 ran, 1 passed, 0 skipped, 1 expected failure, 1 failure, 0 errors, 1 passed unexpected\r"+
		"Failures:\rFooTest(AbstractFooTest)>>#testTotal\rFooTest(AbstractFooTest)>>#testKnownBug\r\rErrors:\r", text,
		"the failure first, then the unexpected pass")

	env, _ = call(t, c, "run_class_test", map[string]any{"class_name": "BarTest"})
	assert.False(t, env.Success)
	var obj errorObject
	require.NoError(t, json.Unmarshal(env.Error, &obj))
	assert.Equal(t, "MessageNotUnderstood: BarTest class>>doesNotUnderstand: #suite", obj.Description)

	env, _ = call(t, c, "run_package_test", map[string]any{"package_name": "Gate-Core"})
	require.True(t, env.Success, "%s", env.Error)
	require.NoError(t, json.Unmarshal(env.Result, &text))
	assert.Contains(t, text, "5 ran, ", "FooTest and ReportTest; BarTest, no TestCase, is not run")
}

func TestIsTestCase(t *testing.T) {
	t.Parallel()
	img, err := LoadImage(gateTree(t, ""), nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = img.Close() })
	for name, want := range map[string]bool{
		"FooTest": true, "AbstractFooTest": true, "ReportTest": true, "OtherTest": true,
		"BarTest": false, "Foo": false, "TestCase": false, "Object": false, "NoSuchTest": false,
	} {
		assert.Equal(t, want, img.IsTestCase(name), name)
	}
}

// TestCallsAreServedOneAtATime: a quick call waits behind a running test,
// as on the real server. The run decides its tests on the sources at its
// end, so a compile served beside it would break the run's testTotal; served
// after it, the run is green and the compile lands afterwards.
func TestCallsAreServedOneAtATime(t *testing.T) {
	oracle := `{"FooTest": {"tests": ["testTotal"], "duration": "1s",
		"rules": [{"test": "testTotal", "fails_when": {"method": "Foo>>total", "source_not_contains": "+"}}]}}`
	c, s := inProcess(t, Options{Dir: gateTree(t, oracle), CallLimit: 10 * time.Second})
	report := make(chan string, 1)
	go func() {
		env, _ := call(t, c, "run_class_test", map[string]any{"class_name": "FooTest"})
		var text string
		_ = json.Unmarshal(env.Result, &text)
		report <- text
	}()
	time.Sleep(300 * time.Millisecond) // the test run has its turn
	env, _ := call(t, c, "eval", map[string]any{"code": "(Smalltalk globals at: #Foo) compile: 'total\r\t^ items size' classified: 'computing'"})
	require.True(t, env.Success, "%s", env.Error)
	assert.Equal(t, "1 ran, 1 passed, 0 skipped, 0 expected failures, 0 failures, 0 errors, 0 passed unexpected\rFailures:\r\rErrors:\r", <-report,
		"the compile waited for the test run")
	src, err := s.Image().MethodSource(MethodKey{Class: "Foo", Selector: "total"})
	require.NoError(t, err)
	assert.Equal(t, "total\n\t^ items size", src, "…and then was served")
}

// TestCallLimitAnswersTheRealTimeoutText: a call over the limit answers
// the Python server's string error, and the next call is served at once.
func TestCallLimitAnswersTheRealTimeoutText(t *testing.T) {
	cases := []struct {
		name, oracle, compile string
	}{
		{"a test class slower than the limit", `{"FooTest": {"tests": ["testEmpty"], "duration": "1h"}}`, ""},
		{"a test that never ends", "", "total\n\t[ true ] whileTrue.\n\t^ 0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, s := inProcess(t, Options{Dir: gateTree(t, tc.oracle), CallLimit: 200 * time.Millisecond})
			if tc.compile != "" {
				_, err := s.Image().Compile("Foo", InstanceSide, tc.compile, "computing")
				require.NoError(t, err)
			}
			env, res := call(t, c, "run_class_test", map[string]any{"class_name": "FooTest"})
			assert.False(t, res.IsError)
			assert.False(t, env.Success)
			var text string
			require.NoError(t, json.Unmarshal(env.Error, &text), "a string error, as the Python server sends: %s", env.Error)
			assert.Equal(t, "Connection error: timed out", text)
			env, _ = call(t, c, "list_packages", nil)
			assert.True(t, env.Success, "the server takes the next call")
		})
	}
}

func TestOracleTimes(t *testing.T) {
	t.Parallel()
	_, err := ParseOracle([]byte(`{"A": {"tests": ["testA"], "duration": "soon"}}`))
	assert.ErrorContains(t, err, "duration")
	_, err = ParseOracle([]byte(`{"A": {"tests": ["testA"], "rules": [{"test": "testA"}]}}`))
	assert.ErrorContains(t, err, "needs fails_when, errors_when or hangs_when")
	o, err := ParseOracle([]byte(`{"A": {"tests": ["testA"], "duration": "2s"}, "B": {"tests": ["testB"], "duration": "500ms"}}`))
	require.NoError(t, err)
	assert.Equal(t, 2500*time.Millisecond, o.Duration([]string{"A", "B", "C"}))
}

// TestGivenUpCallsFreeTheTurn: a client that stops waiting frees the
// server for the next call.
func TestGivenUpCallsFreeTheTurn(t *testing.T) {
	oracle := `{"FooTest": {"tests": ["testEmpty"], "duration": "1h"}}`
	c, _ := inProcess(t, Options{Dir: gateTree(t, oracle)})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = "run_class_test"
	req.Params.Arguments = map[string]any{"class_name": "FooTest"}
	_, err := c.CallTool(ctx, req)
	require.Error(t, err)
	env, _ := call(t, c, "list_packages", nil)
	assert.True(t, env.Success)
}
