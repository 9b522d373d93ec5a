package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/internal/testenv"
	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

const totalBody = `{"class_name": "ShoppingCart", "method_name": "total"}`

// composedRun scripts the fake model to release ShoppingCart>>total as
// code with the sample helpers, approved in round one.
func (h *harness) composedRun(code string) {
	h.gem.ScriptAll(testenv.Answers{
		refactor.RoleReviewer:  {testenv.Review()},
		refactor.RoleWriter:    {testenv.ComposedCode(code, testenv.SubtotalHelper, testenv.DiscountHelper)},
		refactor.RoleValidator: {testenv.Approved()},
	})
}

// instanceMethods reads a class file as Tonel: it must parse.
func instanceMethods(t *testing.T, data []byte) map[string]string {
	t.Helper()
	f, err := tonel.ParseFile("ShoppingCart.class.st", data)
	require.NoError(t, err, "the Tonel file parses")
	return f.Sources(tonel.InstanceSide)
}

// A long method refactored into a method and two helpers over HTTP: the
// answer, the audit row and refactorctl's inputs show the helpers; the
// file parses and the tests pass; the revert leaves the file byte-identical.
func TestComposedMethodOverHTTP(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	before := h.classFile("ShoppingCart")
	h.composedRun(testenv.ComposedTotal)

	resp, out := h.refactor(totalBody)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%v", out)
	assert.Equal(t, "released", out["outcome"])
	helpers, _ := out["helpers"].([]any)
	require.Len(t, helpers, 2, "%v", out)
	first := helpers[0].(map[string]any)
	assert.Equal(t, "subtotal", first["selector"])
	assert.Equal(t, "private", first["protocol"])
	assert.Equal(t, false, first["is_class_method"])
	assert.Equal(t, testenv.SubtotalHelper, first["source"])
	assert.Equal(t, "loyaltyDiscountOn:", helpers[1].(map[string]any)["selector"])
	tests := out["tests"].(map[string]any)
	assert.Equal(t, true, tests["ran"])
	assert.Empty(t, tests["regressions"], "the tests pass with the set")
	rounds := out["rounds"].([]any)
	assert.Len(t, rounds[0].(map[string]any)["helpers"], 2, "each round shows its helpers")

	methods := instanceMethods(t, h.classFile("ShoppingCart"))
	assert.True(t, refactor.SameSource(testenv.ComposedTotal, methods["total"]))
	assert.True(t, refactor.SameSource(testenv.SubtotalHelper, methods["subtotal"]))
	assert.True(t, refactor.SameSource(testenv.DiscountHelper, methods["loyaltyDiscountOn:"]))

	id := out["id"].(string)
	row := h.row(id)
	assert.Len(t, row["helpers"], 2, "the history holds every source")

	resp, rev := h.revert(id)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%v", rev)
	assert.Equal(t, "released", rev["status"])
	assert.Equal(t, helpers, rev["helpers"], "the revert's row names the helpers it removed")
	assert.Equal(t, before, h.classFile("ShoppingCart"), "the revert leaves the file byte-identical")
}

// A set that breaks a test is rolled back as a whole over HTTP: the method
// restored, the helpers removed, the file byte-identical.
func TestComposedMethodRegressionOverHTTP(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{noEquivalence: true})
	before := h.classFile("ShoppingCart")
	h.composedRun(testenv.TaxlessTotal)

	resp, out := h.refactor(totalBody)
	require.Equal(t, http.StatusUnprocessableEntity, answered(t, resp, out), "%v", out)
	assert.Equal(t, "tests_regressed", out["code"])
	assert.Equal(t, "rolled_back", out["run_status"])
	assert.Len(t, out["helpers"], 2, "the problem shows the set that was rolled back")
	assert.Equal(t, before, h.classFile("ShoppingCart"), "all rolled back: the file is byte-identical")
}

// The stream's candidate events carry the helpers, named by the checks.
func TestComposedMethodStream(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	h.composedRun(testenv.ComposedTotal)
	resp := h.openStream(context.Background(), `{"class_name": "ShoppingCart", "method_name": "total", "dry_run": true}`)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	events, _ := readSSE(t, resp.Body, nil)
	var candidate, result json.RawMessage
	for _, e := range events {
		switch e.Name {
		case "candidate":
			candidate = e.Data
		case "result":
			result = e.Data
		}
	}
	require.NotNil(t, candidate)
	h.schemaCheck("CandidateEvent", candidate)
	var c refactor.CandidateEvent
	require.NoError(t, json.Unmarshal(candidate, &c))
	require.Len(t, c.Helpers, 2)
	assert.Equal(t, "loyaltyDiscountOn:", c.Helpers[1].Selector)
	require.NotNil(t, result)
	h.schemaCheck("RefactorResult", result)
	var body struct {
		Outcome string            `json:"outcome"`
		Helpers []refactor.Helper `json:"helpers"`
	}
	require.NoError(t, json.Unmarshal(result, &body))
	assert.Equal(t, "proposed", body.Outcome)
	assert.Len(t, body.Helpers, 2)
}
