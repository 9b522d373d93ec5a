package api_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/internal/testenv"
)

// postRun sends a refactoring and answers as soon as the headers are in;
// the caller reads (and closes) the body.
func (h *harness) postRun(ctx context.Context, body string, header map[string]string) *http.Response {
	h.t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url+"/api/v1/refactor", strings.NewReader(body))
	require.NoError(h.t, err)
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(h.t, err)
	return resp
}

// inModelCall waits until role's model call has arrived.
func (h *harness) inModelCall(role refactor.Role) {
	h.t.Helper()
	require.Eventually(h.t, func() bool { return h.gem.Count(role) > 0 }, 30*time.Second, 5*time.Millisecond, "%s is called", role)
}

// TestJSONAnswerHeadersComeFirst: for the original's wrapped body, the JSON
// answer's headers — 200, Location, X-Refactoring-ID — arrive while the
// model is still working; the row at
// that Location shows the run in progress and its stage; the body, when it
// comes, is the run's result, blanks before it keeping a slow run's
// connection alive.
func TestJSONAnswerHeadersComeFirst(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{keepAlive: 20 * time.Millisecond})
	h.gem.Script("reviewer", testenv.Review().Delayed(400*time.Millisecond))
	h.gem.Script("writer", testenv.Code(newSum))
	h.gem.Script("validator", testenv.Approved())
	resp := h.postRun(context.Background(), wrappedSumBody, nil)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	id := resp.Header.Get("X-Refactoring-ID")
	require.NotEmpty(t, id)
	assert.Equal(t, "/api/v1/refactorings/"+id, resp.Header.Get("Location"))
	row := h.row(id)
	assert.Equal(t, "running", row["status"], "the headers came while the model worked")
	assert.Equal(t, "review", row["stage"])

	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(data), " "), "blanks kept the connection alive: %.40q", data)
	var out map[string]any
	require.NoError(t, json.Unmarshal(data, &out), "JSON allows whitespace before the value")
	assert.Equal(t, id, out["id"])
	assert.Equal(t, "released", out["outcome"])
	h.validate(resp.Request, resp, data)
}

// TestPreferRespondAsync: 202 at once with Location, the result by polling
// it; a second run meanwhile is busy as ever.
func TestPreferRespondAsync(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	h.gem.Script("reviewer", testenv.Review().Delayed(300*time.Millisecond))
	h.gem.Script("writer", testenv.Code(newSum))
	h.gem.Script("validator", testenv.Approved())
	resp, data := h.do(http.MethodPost, "/api/v1/refactor", sumBody, map[string]string{"Prefer": "wait=10, Respond-Async"})
	require.Equal(t, http.StatusAccepted, resp.StatusCode, "%s", data)
	assert.Equal(t, "respond-async", resp.Header.Get("Preference-Applied"))
	location := resp.Header.Get("Location")
	var accepted map[string]any
	require.NoError(t, json.Unmarshal(data, &accepted))
	assert.Equal(t, "running", accepted["status"], "the body is the run's row")
	assert.Equal(t, "/api/v1/refactorings/"+accepted["id"].(string), location)

	busy, data := h.do(http.MethodPost, "/api/v1/refactor", sumBody, map[string]string{"Prefer": "respond-async"})
	assert.Equal(t, http.StatusServiceUnavailable, busy.StatusCode, "%s", data)
	assert.Equal(t, "busy", problemCode(t, data))
	assert.NotEmpty(t, busy.Header.Get("Retry-After"))

	var row map[string]any
	require.Eventually(t, func() bool {
		resp, data := h.do(http.MethodGet, location, "", nil)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.NoError(t, json.Unmarshal(data, &row))
		return row["status"] != "running" && row["status"] != "releasing"
	}, 30*time.Second, 20*time.Millisecond)
	assert.Equal(t, "released", row["status"])
	assert.Equal(t, newSum, row["final_source"])
	assert.Contains(t, string(h.classFile("Calculator")), "Answer the sum of a and b")
}

// TestFlatBodyAnswersWithTheRunsStatus: the documented body gets its
// answer when the run ends, with the run's own status and its id in the
// headers — here 422 not_approved, never a 200 that says it failed.
func TestFlatBodyAnswersWithTheRunsStatus(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{maxIterations: 1})
	h.gem.Script("reviewer", testenv.Review())
	h.gem.Script("writer", testenv.Code(newSum))
	h.gem.Script("validator", testenv.NeedsWork("Not yet."))
	resp, data := h.do(http.MethodPost, "/api/v1/refactor", sumBody, nil)
	require.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode, "%s", data)
	assert.Equal(t, "not_approved", problemCode(t, data))
	id := resp.Header.Get("X-Refactoring-ID")
	require.NotEmpty(t, id)
	assert.Equal(t, "/api/v1/refactorings/"+id, resp.Header.Get("Location"))
	assert.Equal(t, "failed", h.row(id)["status"])
}

// TestCancelRoute: a run canceled before its release stops, releases
// nothing and says so in its row and to the client still waiting; cancelling
// it again answers the same; a run that has ended cannot be canceled (409
// not_cancelable, with its status); an unknown id is 404.
func TestCancelRoute(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	before := h.classFile("Calculator")
	h.gem.Script("reviewer", testenv.Review().Delayed(time.Minute))
	resp := h.postRun(context.Background(), wrappedSumBody, nil) // its headers come first
	defer resp.Body.Close()
	id := resp.Header.Get("X-Refactoring-ID")
	h.inModelCall("reviewer")

	cancel, data := h.do(http.MethodPost, "/api/v1/refactorings/"+id+"/cancel", "", nil)
	require.Equal(t, http.StatusOK, cancel.StatusCode, "%s", data)
	var row map[string]any
	require.NoError(t, json.Unmarshal(data, &row))
	assert.Equal(t, "canceled", row["status"])
	assert.Equal(t, "canceled", row["error_code"])
	assert.Equal(t, before, h.classFile("Calculator"), "nothing was released")
	assert.False(t, h.pipe.Busy(), "the slot is free")

	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var out map[string]any
	require.NoError(t, json.Unmarshal(body, &out))
	assert.Equal(t, http.StatusConflict, answered(t, resp, out), "%s", body)
	assert.Equal(t, "canceled", out["code"], "the waiting client hears why")
	h.validate(resp.Request, resp, body)

	again, data := h.do(http.MethodPost, "/api/v1/refactorings/"+id+"/cancel", "", nil)
	assert.Equal(t, http.StatusOK, again.StatusCode, "%s", data)

	h.gem.Reset()
	released := h.releaseNewSum()
	late, data := h.do(http.MethodPost, "/api/v1/refactorings/"+released+"/cancel", "", nil)
	assert.Equal(t, http.StatusConflict, late.StatusCode, "%s", data)
	var p map[string]any
	require.NoError(t, json.Unmarshal(data, &p))
	assert.Equal(t, "not_cancelable", p["code"])
	assert.Equal(t, "released", p["run_status"])
	assert.Equal(t, released, p["id"])
	assert.Equal(t, "released", h.row(released)["status"], "unchanged")

	missing, data := h.do(http.MethodPost, "/api/v1/refactorings/nope/cancel", "", nil)
	assert.Equal(t, http.StatusNotFound, missing.StatusCode, "%s", data)
}

// TestCancelIsGuardedLikeTheOtherMutatingRoutes: a key when API_KEYS is
// set, no foreign page, JSON or nothing as a body.
func TestCancelIsGuardedLikeTheOtherMutatingRoutes(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{apiKeys: []string{"0123456789abcdef"}})
	for _, c := range []struct {
		header map[string]string
		body   string
		status int
		code   string
	}{
		{nil, "", http.StatusUnauthorized, "unauthorized"},
		{map[string]string{"Authorization": "Bearer 0123456789abcdef", "Origin": "https://evil.example"}, "", http.StatusForbidden, "origin_not_allowed"},
		{map[string]string{"Authorization": "Bearer 0123456789abcdef", "Content-Type": "text/plain"}, "x", http.StatusUnsupportedMediaType, "unsupported_media_type"},
		{map[string]string{"Authorization": "Bearer 0123456789abcdef"}, "", http.StatusNotFound, "not_found"},
	} {
		resp, data := h.send(h.request(http.MethodPost, "/api/v1/refactorings/abc/cancel", c.body, c.header))
		assert.Equal(t, c.status, resp.StatusCode, "%v: %s", c.header, data)
		assert.Equal(t, c.code, problemCode(t, data))
	}
}
