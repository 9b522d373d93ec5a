package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/internal/testenv"
)

// requireHistoryRoutes skips when the service does not serve the audit
// trail yet.
func requireHistoryRoutes(t *testing.T, svc *service) {
	t.Helper()
	resp, err := http.Get(svc.URL + "/api/v1/refactorings")
	require.NoError(t, err)
	_ = resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		t.Skip("missing in this refactord build: the history routes GET /api/v1/refactorings, GET /api/v1/refactorings/{id}, POST /api/v1/refactorings/{id}/revert")
	}
	require.Equal(t, http.StatusOK, resp.StatusCode)
}

var runIDPattern = regexp.MustCompile(`\(run ([0-9a-zA-Z_-]+)\)`)

func runIDOf(t *testing.T, stderr string) string {
	t.Helper()
	m := runIDPattern.FindStringSubmatch(stderr)
	require.NotNil(t, m, "no run id in:\n%s", stderr)
	return m[1]
}

// TestHistoryShowRevert against the real service: two runs listed newest
// first, filters and paging, one shown with its diff, reverted once (exit
// 0, the image holds the original again) and a second time (exit 6).
func TestHistoryShowRevert(t *testing.T) {
	svc := startService(t, testenv.Script{
		"Calculator>>sum:with:":   testenv.ApprovedInRoundOne(newSum),
		"Calculator>>percent:of:": testenv.ApprovedInRoundOne(newPercent),
	}, serviceOpts{})
	requireHistoryRoutes(t, svc)
	original := svc.classFile(t, "Calculator")
	released := ctl(t, svc, "", "refactor", "Calculator>>sum:with:")
	require.Equal(t, exitOK, released.code, released.stderr)
	releasedID := runIDOf(t, released.stderr)
	proposed := ctl(t, svc, "", "refactor", "Calculator>>percent:of:", "--dry-run")
	require.Equal(t, exitOK, proposed.code, proposed.stderr)
	proposedID := runIDOf(t, proposed.stderr)

	t.Run("history", func(t *testing.T) {
		tests := []struct {
			name string
			args []string
			want []string // run ids in order
		}{
			{"newest first", []string{"history"}, []string{proposedID, releasedID}},
			{"outcome filter", []string{"history", "--outcome", "released"}, []string{releasedID}},
			{"class filter", []string{"history", "--class", "ShoppingCart"}, nil},
			{"one page of one", []string{"history", "--limit", "1"}, []string{proposedID}},
			{"--all follows the cursor", []string{"history", "--limit", "1", "--all"}, []string{proposedID, releasedID}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				out := ctl(t, svc, "", tt.args...)
				require.Equal(t, exitOK, out.code, out.stderr)
				assert.Equal(t, tt.want, tableIDs(out.stdout))
			})
		}
	})
	t.Run("history --json", func(t *testing.T) {
		out := ctl(t, svc, "", "history", "--json")
		require.Equal(t, exitOK, out.code, out.stderr)
		var page struct {
			Runs []map[string]any `json:"runs"`
		}
		require.NoError(t, json.Unmarshal([]byte(out.stdout), &page))
		require.Len(t, page.Runs, 2)
		assert.Equal(t, "proposed", page.Runs[0]["status"])
	})
	t.Run("show", func(t *testing.T) {
		out := ctl(t, svc, "", "show", releasedID)
		require.Equal(t, exitOK, out.code, out.stderr)
		assert.Regexp(t, `(?m)^status\s+released$`, out.stdout)
		assert.Regexp(t, `(?m)^method\s+Calculator>>sum:with: in protocol 'calculating'$`, out.stdout)
		assert.Contains(t, out.stdout, "--- Calculator>>sum:with: (original)\n+++ Calculator>>sum:with: (final)\n")
		assert.Contains(t, out.stdout, "+\t^ aNumber + anotherNumber")
	})
	t.Run("revert", func(t *testing.T) {
		out := ctl(t, svc, "", "revert", releasedID)
		require.Equal(t, exitOK, out.code, out.stderr)
		assert.Contains(t, out.stderr, "reverted Calculator>>sum:with:")
		assert.Contains(t, out.stdout, "+\t^ a + b")
		assert.Equal(t, original, svc.classFile(t, "Calculator"), "the original is back")

		again := ctl(t, svc, "", "revert", releasedID)
		assert.Equal(t, exitConflict, again.code, again.stderr)
		assert.Contains(t, again.stderr, "method_changed (HTTP 409)")
	})
	t.Run("unknown ids", func(t *testing.T) {
		for _, args := range [][]string{{"show", "nosuchrun"}, {"revert", "nosuchrun"}} {
			out := ctl(t, svc, "", args...)
			assert.Equal(t, exitFailure, out.code, out.stderr)
			assert.Contains(t, out.stderr, "(HTTP 404)")
		}
	})
}

// tableIDs reads the first column of a history table.
func tableIDs(stdout string) []string {
	var ids []string
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n")[1:] {
		if f := strings.Fields(line); len(f) > 0 {
			ids = append(ids, f[0])
		}
	}
	return ids
}

// fakeHistory serves the history routes from canned runs: the client's
// side of the contract (openapi.yaml, store.Run's JSON) checked without
// depending on the service build.
type fakeHistory struct {
	runs       []map[string]any
	revertBusy atomic.Int32 // 503 busy answers before a revert goes through
	reverted   atomic.Bool
	mu         sync.Mutex
	queries    []string // the list requests' query strings
}

func (f *fakeHistory) query(i int) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.queries[i]
}

func (f *fakeHistory) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/api/v1/refactorings":
		f.mu.Lock()
		f.queries = append(f.queries, r.URL.RawQuery)
		f.mu.Unlock()
		f.list(w, r)
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/api/v1/refactorings/"):
		f.get(w, strings.TrimPrefix(r.URL.Path, "/api/v1/refactorings/"))
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/revert"):
		f.revert(w, r)
	default:
		problemReply(w, http.StatusNotFound, "invalid_request", "no route")
	}
}

// list pages one run at a time; the cursor is the index of the next run.
func (f *fakeHistory) list(w http.ResponseWriter, r *http.Request) {
	i := 0
	if c := r.URL.Query().Get("cursor"); c != "" {
		_, _ = fmt.Sscan(c, &i)
	}
	next := ""
	if i+1 < len(f.runs) {
		next = fmt.Sprint(i + 1)
	}
	writeReply(w, http.StatusOK, map[string]any{"runs": f.runs[i : i+1], "next_cursor": next})
}

func (f *fakeHistory) get(w http.ResponseWriter, id string) {
	for _, run := range f.runs {
		if run["id"] == id {
			writeReply(w, http.StatusOK, run)
			return
		}
	}
	problemReply(w, http.StatusNotFound, "not_found", "no refactoring with id "+id)
}

func (f *fakeHistory) revert(w http.ResponseWriter, r *http.Request) {
	if f.revertBusy.Add(-1) >= 0 {
		w.Header().Set("Retry-After", "3")
		problemReply(w, http.StatusServiceUnavailable, "busy", "Agent is busy")
		return
	}
	if !f.reverted.CompareAndSwap(false, true) {
		problemReply(w, http.StatusConflict, "method_changed", "already reverted")
		return
	}
	run := fakeRun("r-3", "revert", "released", "sum: x with: y\n\t^ x + y", "sum: a with: b\n\t^ a + b")
	run["revert_of"] = "r-1"
	writeReply(w, http.StatusOK, run)
}

func writeReply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func problemReply(w http.ResponseWriter, status int, code, detail string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"type": "about:blank", "title": code, "status": status,
		"detail": detail, "code": code, "request_id": "srv"})
}

func fakeRun(id, kind, status, original, final string) map[string]any {
	return map[string]any{
		"id": id, "kind": kind, "revert_of": "", "request_id": "ctl-1", "class_name": "Calculator", "selector": "sum:with:",
		"is_class_method": false, "dry_run": false, "run_tests": true, "status": status, "error_code": "", "error_message": "",
		"notes": "", "original_source": original, "original_protocol": "calculating", "final_source": final,
		"review":  map[string]any{"severity": "LOW", "summary": "Names.", "issues": []any{}},
		"verdict": map[string]any{"verdict": "APPROVED", "feedback": "Good."}, "iterations": 1, "model_calls": 3,
		"input_tokens": 10, "output_tokens": 5, "models": nil, "stages": nil, "tests_before": nil, "tests_after": nil,
		"restore_failed": false, "created_at": "2030-01-02T03:04:05.000Z", "updated_at": "2030-01-02T03:04:06.000Z",
		"finished_at": "2030-01-02T03:04:06.000Z", "released_at": nil, "reverted_at": nil,
	}
}

func TestHistoryClientContract(t *testing.T) {
	fake := &fakeHistory{runs: []map[string]any{
		fakeRun("r-2", "refactor", "proposed", "a", "b"),
		fakeRun("r-1", "refactor", "released", "sum: a with: b\n\t^ a + b", "sum: x with: y\n\t^ x + y"),
	}}
	fake.revertBusy.Store(2)
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	invoke := func(args ...string) (outcome, *fakeClock) {
		var stdout, stderr testenv.Buffer
		c := newCLI([]string{"REFACTORD_URL=" + srv.URL}, strings.NewReader(""), &stdout, &stderr)
		clock := &fakeClock{now: time.Unix(0, 0)}
		clock.install(&c.deps)
		c.deps.jitter = noJitter
		code := c.main(context.Background(), args)
		return outcome{code, stdout.String(), stderr.String()}, clock
	}

	out, _ := invoke("history", "--class", "Calculator", "--outcome", "released", "--limit", "1")
	assert.Equal(t, exitOK, out.code, out.stderr)
	assert.Equal(t, []string{"r-2"}, tableIDs(out.stdout))
	assert.Contains(t, out.stderr, "more runs: refactorctl history --cursor 1")
	assert.Equal(t, "class_name=Calculator&limit=1&outcome=released", fake.query(0))

	out, _ = invoke("history", "--all")
	assert.Equal(t, []string{"r-2", "r-1"}, tableIDs(out.stdout))
	assert.Regexp(t, `r-1\s+2030-01-02 03:04:05\s+refactor\s+Calculator>>sum:with:\s+released\s+-\s+1\s+3`, out.stdout)

	out, _ = invoke("history", "--all", "--json")
	var page struct {
		Runs       []json.RawMessage `json:"runs"`
		NextCursor string            `json:"next_cursor"`
	}
	require.NoError(t, json.Unmarshal([]byte(out.stdout), &page))
	assert.Len(t, page.Runs, 2)

	out, _ = invoke("show", "r-1")
	assert.Equal(t, exitOK, out.code, out.stderr)
	assert.Regexp(t, `(?m)^review\s+\[LOW\] Names\. \(0 issues\)$`, out.stdout)
	assert.Regexp(t, `(?m)^verdict\s+APPROVED: Good\.$`, out.stdout)
	assert.Contains(t, out.stdout, "\n-\t^ a + b\n+sum: x with: y\n+\t^ x + y\n")
	assert.NotContains(t, out.stdout, "error", "no error line for a run without one")
	assert.NotContains(t, out.stdout, "reverted", "no line for an unset time")

	out, clock := invoke("revert", "r-1")
	assert.Equal(t, exitOK, out.code, out.stderr)
	assert.Equal(t, []time.Duration{3 * time.Second, 3 * time.Second}, clock.sleeps, "busy is waited out as for a run")
	assert.Contains(t, out.stderr, "reverted Calculator>>sum:with: (run r-1 undone by revert run r-3, released)")
	assert.Contains(t, out.stdout, "+++ Calculator>>sum:with: (reverted)\n")
	assert.Contains(t, out.stdout, "\n-\t^ x + y\n+sum: a with: b\n+\t^ a + b\n")

	out, _ = invoke("revert", "r-1", "--json")
	assert.Equal(t, exitConflict, out.code)
	assert.Contains(t, out.stdout, `"code":"method_changed"`, "--json prints the problem body")

	out, _ = invoke("show", "r-9")
	assert.Equal(t, exitFailure, out.code)
	assert.Contains(t, out.stderr, "not_found (HTTP 404)")
}

// TestComposedMethodDiffs: refactor, show and revert print each helper of
// the set as a diff from (or, reverting, to) nothing.
func TestComposedMethodDiffs(t *testing.T) {
	svc := startService(t, testenv.Script{"ShoppingCart>>total": {
		refactor.RoleReviewer:  {testenv.Review()},
		refactor.RoleWriter:    {testenv.ComposedCode(testenv.ComposedTotal, testenv.SubtotalHelper, testenv.DiscountHelper)},
		refactor.RoleValidator: {testenv.Approved()},
	}}, serviceOpts{})
	original := svc.classFile(t, "ShoppingCart")
	released := ctl(t, svc, "", "refactor", "ShoppingCart>>total")
	require.Equal(t, exitOK, released.code, released.stderr)
	assert.Contains(t, released.stderr, "2 helper methods", "the progress counts the helpers")
	for _, out := range []string{released.stdout, ctl(t, svc, "", "show", runIDOf(t, released.stderr)).stdout} {
		assert.Contains(t, out, "+++ ShoppingCart>>subtotal (new helper)\n")
		assert.Contains(t, out, "+++ ShoppingCart>>loyaltyDiscountOn: (new helper)\n")
		assert.Contains(t, out, "+\titems do: [ :each | sum := sum + (each key price * each value) ].\n")
	}

	reverted := ctl(t, svc, "", "revert", runIDOf(t, released.stderr))
	require.Equal(t, exitOK, reverted.code, reverted.stderr)
	assert.Contains(t, reverted.stdout, "--- ShoppingCart>>subtotal (helper, image)\n+++ /dev/null\n")
	assert.Equal(t, original, svc.classFile(t, "ShoppingCart"), "the revert leaves the file as it was")
}
