package api_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/internal/testenv"
)

// A LOW review without issues: 200 unchanged after one model call, the
// image untouched, the body (checked against openapi.yaml) and the audit
// row saying so.
func TestNothingToChangeAnswers200Unchanged(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	h.gem.Script(refactor.RoleReviewer, testenv.Reply{Text: `{"severity": "LOW", "summary": "Already clear.", "issues": []}`})
	before := h.classFile("Calculator")
	resp, out := h.refactor(`{"class_name": "Calculator", "method_name": "sum:with:"}`)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%v", out)
	assert.Equal(t, "unchanged", out["outcome"])
	assert.Equal(t, true, out["success"])
	assert.Equal(t, 1.0, out["usage"].(map[string]any)["model_calls"])
	assert.Equal(t, 1, h.gem.Total())
	assert.Equal(t, 0.0, out["iterations"])
	assert.Nil(t, out["validation"], "no validator ran")
	assert.Equal(t, []any{}, out["rounds"])
	assert.Equal(t, []any{}, out["truncated"])
	assert.Equal(t, out["original_code"], out["refactored_code"], "a client applying refactored_code keeps the original")
	assert.Contains(t, out["result"].(map[string]any)["release_status"], "Unchanged")
	assert.Equal(t, string(before), string(h.classFile("Calculator")), "the image is untouched")
}
