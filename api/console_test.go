package api_test

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/internal/testenv"
)

const consoleKey = "console-key-1"

// TestConsoleIsServedFromTheBinary: /console and its two files come from
// the binary under a policy that runs only them and lets them talk only to
// this service; nothing in them comes from elsewhere or holds the image's
// source; GET / names the console, and sends a browser there.
func TestConsoleIsServedFromTheBinary(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{apiKeys: []string{consoleKey}})
	resp, page := h.do(http.MethodGet, "/console", "", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode, "the page itself needs no key: it holds no data")
	assert.Equal(t, "text/html; charset=utf-8", resp.Header.Get("Content-Type"))
	csp := resp.Header.Get("Content-Security-Policy")
	for _, directive := range []string{"default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'", "form-action 'none'"} {
		assert.Contains(t, csp, directive)
	}
	assert.NotContains(t, csp, "unsafe")
	assert.NotRegexp(t, regexp.MustCompile(`<script>|<style|style="|\son[a-z]+=`), string(page), "no inline script, style or handler: the policy would block them")

	calculator := string(h.classFile("Calculator"))
	for _, file := range []string{"/console/console.js", "/console/console.css"} {
		assert.Contains(t, string(page), file)
		resp, body := h.do(http.MethodGet, file, "", nil)
		require.Equal(t, http.StatusOK, resp.StatusCode, file)
		assert.Equal(t, "nosniff", resp.Header.Get("X-Content-Type-Options"))
		assert.Equal(t, csp, resp.Header.Get("Content-Security-Policy"))
		assert.NotRegexp(t, regexp.MustCompile(`https?://`), string(body), "%s loads nothing from elsewhere", file)
		assert.NotContains(t, string(body), "sum: a with: b", "%s holds no source", file)
	}
	assert.NotContains(t, calculator, "console", "(the probe above looks for source the image really has)")
	assert.Contains(t, calculator, "sum: a with: b")
	resp, _ = h.do(http.MethodGet, "/console/nope.js", "", nil)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)

	resp, data := h.do(http.MethodGet, "/", "", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var root struct {
		Links map[string]string `json:"links"`
	}
	require.NoError(t, json.Unmarshal(data, &root))
	assert.Equal(t, "/console", root.Links["console"])
	assert.NotContains(t, root.Links, "queue", "one image has no queue")
	assert.NotContains(t, root.Links, "workers", "one image has no workers to list")
	resp, _ = h.do(http.MethodGet, "/api/v1/workers", "", map[string]string{"Authorization": "Bearer " + consoleKey})
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, "GET /api/v1/workers is only in a pool")

	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req := h.request(http.MethodGet, "/", "", map[string]string{"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"})
	browser, err := noRedirect.Do(req)
	require.NoError(t, err)
	_ = browser.Body.Close()
	assert.Equal(t, http.StatusFound, browser.StatusCode, "a browser opening / is sent to the console")
	assert.Equal(t, "/console", browser.Header.Get("Location"))
}

// TestFollowARunStartedElsewhere: GET …/events replays a run's events
// from its first and follows it to its result — the rounds included —
// for anyone with a key, never without one; a run this instance did not
// start is answered with its row; an unknown one is 404.
func TestFollowARunStartedElsewhere(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{apiKeys: []string{consoleKey}})
	answers := testenv.ApprovedInRoundTwo(answerTheSumBadly, "Keep the comment.", newSum)
	answers[refactor.RoleReviewer] = []testenv.Reply{testenv.Review().Delayed(300 * time.Millisecond)} // the first follower comes mid-run
	h.gem.ScriptAll(answers)
	bearer := map[string]string{"Authorization": "Bearer " + consoleKey}
	resp, data := h.do(http.MethodPost, "/api/v1/refactor", sumBody, map[string]string{"Authorization": "Bearer " + consoleKey, "Prefer": "respond-async"})
	require.Equal(t, http.StatusAccepted, resp.StatusCode, "%s", data)
	id := resp.Header.Get("X-Refactoring-ID")
	require.NotEmpty(t, id)

	for _, header := range []map[string]string{nil, {"Authorization": "Bearer wrong"}} {
		resp, data := h.do(http.MethodGet, "/api/v1/refactorings/"+id+"/events", "", header)
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
		assert.NotContains(t, string(data), "a + b", "no source without the key")
	}

	// Followed while it runs, then again once it has ended: the same story.
	for _, when := range []string{"while it runs", "after it ended"} {
		events := h.follow(id, bearer)
		names := make([]string, len(events))
		for i, e := range events {
			names[i] = e.Name
		}
		require.NotEmpty(t, names, when)
		assert.Equal(t, "accepted", names[0], when)
		assert.Equal(t, "result", names[len(names)-1], "%s: %v", when, names)
		assert.Subset(t, names, []string{"stage", "model_call", "candidate", "check", "verdict", "release"}, when)
		for _, e := range events {
			switch e.Name {
			case "stage", "candidate", "verdict", "release", "check":
				h.schemaCheck(eventSchemas[e.Name], e.Data)
			}
		}
		result := events[len(events)-1].Data
		h.schemaCheck("RefactorResult", result)
		var body struct {
			Outcome string `json:"outcome"`
			Rounds  []struct {
				Code    string `json:"code"`
				Verdict struct {
					Verdict string `json:"verdict"`
				} `json:"verdict"`
			} `json:"rounds"`
		}
		require.NoError(t, json.Unmarshal(result, &body))
		assert.Equal(t, "released", body.Outcome, when)
		require.Len(t, body.Rounds, 2, when)
		assert.Equal(t, answerTheSumBadly, body.Rounds[0].Code)
		assert.Equal(t, "NEEDS_IMPROVEMENT", body.Rounds[0].Verdict.Verdict)
		assert.Equal(t, "APPROVED", body.Rounds[1].Verdict.Verdict)
	}

	// A revert is recorded as a run of its own, not started as a job here:
	// its follower gets its row.
	resp, data = h.do(http.MethodPost, "/api/v1/refactorings/"+id+"/revert", "", bearer)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", data)
	var revert struct {
		ID string `json:"id"`
	}
	require.NoError(t, json.Unmarshal(data, &revert))
	events := h.follow(revert.ID, bearer)
	require.Len(t, events, 1)
	assert.Equal(t, "run", events[0].Name)
	h.schemaCheck("Run", events[0].Data)
	assert.Contains(t, string(events[0].Data), `"kind":"revert"`)

	resp, _ = h.do(http.MethodGet, "/api/v1/refactorings/nope/events", "", bearer)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
}

// answerTheSumBadly is a first candidate the validator sends back.
const answerTheSumBadly = "sum: a with: b\n\n\t^ b + a"

var eventSchemas = map[string]string{
	"stage": "StageEvent", "candidate": "CandidateEvent", "verdict": "VerdictEvent", "release": "ReleaseEvent", "check": "CheckEvent",
}

// follow reads GET …/events to its end.
func (h *harness) follow(id string, header map[string]string) []sseEvent {
	h.t.Helper()
	req := h.request(http.MethodGet, "/api/v1/refactorings/"+id+"/events", "", header)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(h.t, err)
	defer resp.Body.Close()
	require.Equal(h.t, http.StatusOK, resp.StatusCode)
	require.Equal(h.t, "text/event-stream", resp.Header.Get("Content-Type"))
	events, _ := readSSE(h.t, resp.Body, nil)
	return events
}

// TestQueueUIIsBehindTheKeys: the queue browser mounted in a pool answers
// only with a key, as Bearer or as a Basic password (what a browser
// sends), under its own path with the slash it asks for; / links it.
func TestQueueUIIsBehindTheKeys(t *testing.T) {
	t.Parallel()
	queue := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = io.WriteString(w, "queue browser at "+r.URL.Path)
	})
	h := newHarness(t, harnessOpts{apiKeys: []string{consoleKey}, queueUI: queue})
	basic := func(user, password string) string {
		return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password))
	}
	cases := []struct {
		name, path, auth string
		status           int
	}{
		{"no key", "/riverui/", "", http.StatusUnauthorized},
		{"wrong bearer", "/riverui/", "Bearer nope", http.StatusUnauthorized},
		{"wrong password", "/riverui/jobs", basic("ops", "nope"), http.StatusUnauthorized},
		{"key as user name", "/riverui/jobs", basic(consoleKey, ""), http.StatusUnauthorized},
		{"malformed basic", "/riverui/jobs", "Basic !!!", http.StatusUnauthorized},
		{"bearer", "/riverui/", "Bearer " + consoleKey, http.StatusOK},
		{"basic", "/riverui/jobs", basic("ops", consoleKey), http.StatusOK},
		{"basic, no user name", "/riverui/api/jobs", basic("", consoleKey), http.StatusOK},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := h.request(http.MethodGet, tc.path, "", nil)
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			// River UI's own routes are not in openapi.yaml: sent as is.
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			data, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			assert.Equal(t, tc.status, resp.StatusCode, "%s", data)
			if tc.status == http.StatusUnauthorized {
				assert.True(t, strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Basic "), "a browser is asked for the key")
				assert.NotContains(t, string(data), "queue browser")
			} else {
				assert.Equal(t, "queue browser at "+tc.path, string(data), "the path reaches it as asked (its slash kept)")
			}
		})
	}
	resp, data := h.do(http.MethodGet, "/", "", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(data), `"queue":"/riverui/"`)
}
