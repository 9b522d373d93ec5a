package api_test

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/internal/testenv"
)

// The test-gate tree: Foo>>total, its own FooTest, the TestCases
// AbstractFooTest and ReportTest of its package that send #total, BarTest
// (no TestCase, whatever its name) and OtherTest of another package.
const gateImage = "testdata/test-gate"

func (h *harness) fooFile() []byte {
	h.t.Helper()
	data, err := os.ReadFile(filepath.Join(h.dir, "src", "Gate-Core", "Foo.class.st"))
	require.NoError(h.t, err)
	return data
}

// TestOnlyTestCasesGuardARelease: over HTTP, against pharo-sim as a
// subprocess, the release of Foo>>total runs FooTest, AbstractFooTest and
// ReportTest — never BarTest, on which run_class_test would raise
// MessageNotUnderstood — and the answer says why each ran.
func TestOnlyTestCasesGuardARelease(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{image: gateImage})
	h.gem.ScriptAll(testenv.ApprovedInRoundOne("total\n\t\"Answer the sum of my items\"\n\n\t^ items inject: 0 into: [ :sum :each | sum + each ]"))
	resp, out := h.refactor(`{"class_name": "Foo", "method_name": "total"}`)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%v", out)
	tests := out["tests"].(map[string]any)
	assert.Equal(t, []any{"FooTest", "AbstractFooTest", "ReportTest"}, tests["classes"])
	var why []any
	for _, run := range tests["before"].([]any) {
		r := run.(map[string]any)
		why = append(why, r["class"].(string)+": "+r["reason"].(string))
	}
	assert.Equal(t, []any{"FooTest: own_test_class", "AbstractFooTest: sender_in_package", "ReportTest: sender_in_package"}, why)
	report := tests["before"].([]any)[0].(map[string]any)["report"].(map[string]any)
	assert.Equal(t, []any{"FooTest(AbstractFooTest)>>#testKnownBug"}, report["passed_unexpected_tests"])
	assert.Equal(t, []any{}, report["failed_tests"], "an unexpected pass is no failure")
}

// TestTestRunOverTheLimit: a candidate whose test never ends makes the run
// after the compile hit the MCP server's per-call limit: 504
// tests_inconclusive (not 502 pharo_unavailable, not 500 release_failed),
// the original back in the image, and the row saying so.
func TestTestRunOverTheLimit(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{image: gateImage, simEnv: []string{"PHARO_SIM_CALL_LIMIT=300ms"}})
	before := h.fooFile()
	looping := "total\n\t| sum |\n\tsum := 0.\n\t[ sum < 0 ] whileTrue: [ sum := sum - 1 ].\n\titems do: [ :each | sum := sum + each ].\n\t^ sum"
	h.gem.ScriptAll(testenv.ApprovedInRoundOne(looping))
	resp, out := h.refactor(`{"class_name": "Foo", "method_name": "total"}`)
	require.Equal(t, http.StatusGatewayTimeout, resp.StatusCode, "%v", out)
	assert.Equal(t, "tests_inconclusive", out["code"])
	assert.Equal(t, "rolled_back", out["run_status"])
	assert.Contains(t, out["detail"], "Connection error: timed out")
	assert.Contains(t, out["detail"], "30 s")
	assert.Contains(t, out["detail"], "PHARO_MCP_ENV")
	assert.Equal(t, before, h.fooFile(), "the original is back, byte for byte")
	row := h.row(out["id"].(string))
	assert.Equal(t, "rolled_back", row["status"])
	assert.Equal(t, "tests_inconclusive", row["error_code"])
	assert.NotNil(t, row["tests_before"], "the baseline that did finish is recorded")
	ready, data := h.do(http.MethodGet, "/ready", "", nil)
	assert.Equal(t, http.StatusOK, ready.StatusCode, "a timed-out test run does not make the image look down: %s", data)
}
