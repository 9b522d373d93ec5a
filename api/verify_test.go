package api_test

import (
	"net/http"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/internal/testenv"
)

// A verify run answers 200 outcome verified with both test reports, leaves
// the class file byte for byte as it was, is found by the history's
// outcome filter and counted by the metrics.
func TestVerifyAnswersVerifiedAndLeavesTheImage(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		`{"class_name": "Calculator", "method_name": "sum:with:", "verify": true}`,
		`{"refactor_request": {"class_name": "Calculator", "method_name": "sum:with:", "verify": true}}`,
	} {
		t.Run(body, func(t *testing.T) {
			h := newHarness(t, harnessOpts{})
			before := h.classFile("Calculator")
			h.gem.ScriptAll(testenv.ApprovedInRoundOne(newSum))
			resp, out := h.refactor(body)
			require.Equal(t, http.StatusOK, resp.StatusCode, "%v", out)
			assert.Equal(t, true, out["success"])
			assert.Equal(t, "verified", out["outcome"])
			assert.Equal(t, newSum, out["refactored_code"])
			assert.Contains(t, out["result"].(map[string]any)["release_status"], "Verified")
			tests := out["tests"].(map[string]any)
			assert.Equal(t, true, tests["ran"])
			assert.Len(t, tests["before"], 1, "the tests before the compile")
			assert.Len(t, tests["after"], 1, "and after it")
			assert.Empty(t, tests["regressions"])
			assert.Equal(t, before, h.classFile("Calculator"), "the image holds the original, byte for byte")

			row := h.row(out["id"].(string))
			assert.Equal(t, "verified", row["status"])
			assert.Equal(t, true, row["verify"])
			assert.Nil(t, row["released_at"])
			resp, data := h.do(http.MethodGet, "/api/v1/refactorings?outcome=verified", "", nil)
			require.Equal(t, http.StatusOK, resp.StatusCode, "%s", data)
			assert.Contains(t, string(data), out["id"].(string))
			assert.Equal(t, 1.0, h.metric(`refactord_runs_total{result="verified"}`))
		})
	}
}

// A verify run whose candidate breaks a test is 422 tests_regressed, both
// reports in the body, the original back.
func TestVerifyWithARegressionIs422(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{noEquivalence: true})
	before := h.classFile("Calculator")
	h.gem.ScriptAll(testenv.ApprovedInRoundOne(subtractingSum))
	resp, out := h.refactor(`{"class_name": "Calculator", "method_name": "sum:with:", "verify": true}`)
	require.Equal(t, http.StatusUnprocessableEntity, answered(t, resp, out), "%v", out)
	assert.Equal(t, "tests_regressed", out["code"])
	assert.Equal(t, "rolled_back", out["run_status"])
	tests := out["tests"].(map[string]any)
	assert.Equal(t, []any{"CalculatorTest>>#testSum"}, tests["regressions"])
	assert.Len(t, tests["before"], 1)
	assert.Len(t, tests["after"], 1)
	assert.Equal(t, before, h.classFile("Calculator"))
}

// verify excludes dry_run and run_tests false: 422 invalid_request naming
// both fields of the pair, before any run.
func TestVerifyWithDryRunIsRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	cases := []struct {
		name, body string
		fields     []any
	}{
		{"dry_run", `{"class_name": "Calculator", "method_name": "sum:with:", "verify": true, "dry_run": true}`, []any{"verify", "dry_run"}},
		{"wrapped", `{"refactor_request": {"class_name": "Calculator", "method_name": "sum:with:", "verify": true, "dry_run": true}}`, []any{"verify", "dry_run"}},
		{"run_tests false", `{"class_name": "Calculator", "method_name": "sum:with:", "verify": true, "run_tests": false}`, []any{"verify", "run_tests"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, out := h.refactor(tc.body)
			require.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode, "%v", out)
			assert.Equal(t, "invalid_request", out["code"])
			assert.Nil(t, out["id"], "no run started")
			var fields []any
			for _, e := range out["errors"].([]any) {
				fields = append(fields, e.(map[string]any)["field"])
			}
			assert.Equal(t, tc.fields, fields)
			for _, f := range tc.fields {
				assert.Contains(t, out["detail"], f.(string))
			}
		})
	}
	assert.Zero(t, h.gem.Total(), "no model call")
}

// The image connection dies as a verify run is about to put the original
// back, and stays down past the release budget: the answer and the row say
// restore_failed with both sources (the image holds the candidate). At the
// next start the image is back and reconciliation puts the original back.
func TestVerifyThatCannotPutBackIsSettledAtTheNextStart(t *testing.T) {
	t.Parallel()
	launcher, marker := stayDownLauncher(t)
	var h *harness
	killImage := func(point string) {
		if point != "before_put_back" {
			return
		}
		// On the run's goroutine: report, never FailNow.
		assert.NoError(t, os.WriteFile(marker, nil, 0o644))
		pid := h.image.Health().PID
		if assert.Positive(t, pid, "the image's process") {
			assert.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
		}
	}
	h = newHarness(t, harnessOpts{maxIterations: 1, releaseTimeout: 800 * time.Millisecond, simCommand: launcher,
		simEnv: []string{"KILL_MARKER=" + marker, "PHARO_SIM=" + pharoSim(t)}, checkpoint: killImage})
	before := h.classFile("Calculator")

	h.gem.ScriptAll(testenv.ApprovedInRoundOne(newSum))
	resp, out := h.refactor(`{"class_name": "Calculator", "method_name": "sum:with:", "verify": true}`)
	row := h.saysRestoreFailed(resp, out)
	assert.Equal(t, true, row["verify"])

	h.rolledBackAtNextStart(marker, out["id"].(string), before, "verify run")
}

// A verify run of a Composed Method set answers verified with the helpers
// (the proposal a CI job writes), and the class file is as it was: the
// helpers were compiled, tested and removed with the method.
func TestVerifyOfAComposedMethodOverHTTP(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	before := h.classFile("ShoppingCart")
	h.composedRun(testenv.ComposedTotal)
	resp, out := h.refactor(`{"class_name": "ShoppingCart", "method_name": "total", "verify": true}`)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%v", out)
	assert.Equal(t, "verified", out["outcome"])
	assert.Len(t, out["helpers"], 2, "the helpers come with the proposal")
	assert.NotEmpty(t, out["tests"].(map[string]any)["after"], "tested in the image")
	assert.Equal(t, before, h.classFile("ShoppingCart"), "the method is back and the helpers are gone")
	row := h.row(out["id"].(string))
	assert.Equal(t, "verified", row["status"])
	assert.Len(t, row["helpers"], 2)
}
