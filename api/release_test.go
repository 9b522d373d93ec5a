package api_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/internal/testenv"
)

// A candidate the validator approves but CalculatorTest>>#testSum rejects
// (it subtracts: testSum fails on it).
const subtractingSum = "sum: a with: b\n\t\"Answer the total\"\n\n\t^ a - b"

func TestReleaseThatBreaksATestIsRolledBack(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{noEquivalence: true})
	before := h.classFile("Calculator")
	h.gem.ScriptAll(testenv.ApprovedInRoundOne(subtractingSum))
	resp, out := h.refactor(`{"class_name": "Calculator", "method_name": "sum:with:"}`)
	require.Equal(t, http.StatusUnprocessableEntity, answered(t, resp, out), "%v", out)
	assert.Equal(t, "tests_regressed", out["code"])
	tests := out["tests"].(map[string]any)
	assert.Equal(t, true, tests["ran"])
	assert.Equal(t, []any{"CalculatorTest>>#testSum"}, tests["regressions"])
	require.Len(t, tests["before"], 1, "both reports are in the answer")
	require.Len(t, tests["after"], 1)
	assert.Equal(t, before, h.classFile("Calculator"), "the file is byte-identical to before")

	row := h.row(out["id"].(string))
	assert.Equal(t, "rolled_back", row["status"])
	assert.Equal(t, "tests_regressed", row["error_code"])
	assert.NotNil(t, row["tests_before"])
	assert.NotNil(t, row["tests_after"])
}

func (h *harness) row(id string) map[string]any {
	h.t.Helper()
	resp, data := h.do(http.MethodGet, "/api/v1/refactorings/"+id, "", nil)
	require.Equal(h.t, http.StatusOK, resp.StatusCode, "%s", data)
	var row map[string]any
	require.NoError(h.t, json.Unmarshal(data, &row))
	return row
}

func (h *harness) revert(id string) (*http.Response, map[string]any) {
	h.t.Helper()
	resp, data := h.do(http.MethodPost, "/api/v1/refactorings/"+id+"/revert", "", nil)
	var out map[string]any
	require.NoError(h.t, json.Unmarshal(data, &out), "%s", data)
	return resp, out
}

func (h *harness) releaseNewSum() string {
	h.t.Helper()
	h.gem.ScriptAll(testenv.ApprovedInRoundOne(newSum))
	resp, out := h.refactor(`{"class_name": "Calculator", "method_name": "sum:with:"}`)
	require.Equal(h.t, http.StatusOK, resp.StatusCode, "%v", out)
	return out["id"].(string)
}

func TestRevertRestoresTheOriginalOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	before := h.classFile("Calculator")
	id := h.releaseNewSum()
	require.NotEqual(t, before, h.classFile("Calculator"))

	resp, rev := h.revert(id)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%v", rev)
	assert.Equal(t, "revert", rev["kind"])
	assert.Equal(t, id, rev["revert_of"])
	assert.Equal(t, "released", rev["status"])
	assert.Equal(t, before, h.classFile("Calculator"), "the original is back, byte for byte")
	orig := h.row(id)
	assert.Equal(t, "reverted", orig["status"])
	assert.NotNil(t, orig["reverted_at"])

	resp, again := h.revert(id)
	assert.Equal(t, http.StatusConflict, resp.StatusCode, "%v", again)
	assert.Equal(t, "method_changed", again["code"])
	assert.Equal(t, before, h.classFile("Calculator"))

	resp, unknown := h.revert("no-such-run")
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	assert.Equal(t, "not_found", unknown["code"])
}

func TestHistoryListing(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	first := h.releaseNewSum()
	_, _ = h.refactor(`{"class_name": "NoSuchClass", "method_name": "foo"}`)
	h.gem.ScriptAll(testenv.ApprovedInRoundOne(newSum))
	_, dry := h.refactor(`{"class_name": "Calculator", "method_name": "sum:with:", "dry_run": true}`)

	list := func(query string) map[string]any {
		resp, data := h.do(http.MethodGet, "/api/v1/refactorings"+query, "", nil)
		require.Equal(t, http.StatusOK, resp.StatusCode, "%s", data)
		var page map[string]any
		require.NoError(t, json.Unmarshal(data, &page))
		return page
	}
	all := list("")["runs"].([]any)
	require.Len(t, all, 3)
	assert.Equal(t, dry["id"], all[0].(map[string]any)["id"], "newest first")
	assert.Equal(t, first, all[2].(map[string]any)["id"])

	released := list("?outcome=released")["runs"].([]any)
	require.Len(t, released, 1)
	assert.Equal(t, first, released[0].(map[string]any)["id"])
	assert.Len(t, list("?class_name=NoSuchClass")["runs"], 1)
	assert.Empty(t, list("?worker=nobody")["runs"], "worker= filters by the worker that ran the run")

	page1 := list("?limit=2")
	assert.Len(t, page1["runs"], 2)
	require.NotEmpty(t, page1["next_cursor"])
	page2 := list("?limit=2&cursor=" + page1["next_cursor"].(string))
	assert.Len(t, page2["runs"], 1)
	assert.Empty(t, page2["next_cursor"])

	for _, bad := range []string{"?limit=0", "?limit=x", "?outcome=great", "?class_name=lower", "?cursor=%21%21",
		"?worker=" + strings.Repeat("w", 201), "?worker=a%0Ab"} {
		resp, data := h.do(http.MethodGet, "/api/v1/refactorings"+bad, "", nil)
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "%s: %s", bad, data)
	}
	resp, data := h.do(http.MethodGet, "/api/v1/refactorings/unknown", "", nil)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, "%s", data)
}

// The same candidate with the comparison on (the default) never reaches
// the compile: it is 422 behaviour_changed, the answer and the row name
// the input that shows it, and the image is untouched.
func TestBehaviourChangeIs422WithItsWitness(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{maxIterations: 1})
	before := h.classFile("Calculator")
	h.gem.ScriptAll(testenv.ApprovedInRoundOne(subtractingSum))
	resp, out := h.refactor(`{"class_name": "Calculator", "method_name": "sum:with:"}`)
	require.Equal(t, http.StatusUnprocessableEntity, answered(t, resp, out), "%v", out)
	assert.Equal(t, "behaviour_changed", out["code"])
	assert.Equal(t, subtractingSum, out["refactored_code"], "the last candidate is in the body")
	eq, ok := out["equivalence"].(map[string]any)
	require.True(t, ok, "%v", out)
	assert.Equal(t, "changed", eq["outcome"])
	witness, ok := eq["witness"].(map[string]any)
	require.True(t, ok, "%v", eq)
	assert.NotEmpty(t, witness["input"])
	assert.NotEqual(t, witness["original"], witness["candidate"])
	assert.Equal(t, before, h.classFile("Calculator"), "nothing was compiled")

	row := h.row(out["id"].(string))
	assert.Equal(t, "behaviour_changed", row["error_code"])
	assert.Equal(t, "failed", row["status"])
	rowEq, ok := row["equivalence"].(map[string]any)
	require.True(t, ok, "%v", row)
	assert.Equal(t, "changed", rowEq["outcome"])
}
