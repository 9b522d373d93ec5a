package api_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/internal/testenv"
)

// sseEvent is one parsed Server-Sent Event.
type sseEvent struct {
	ID   string
	Name string
	Data json.RawMessage
}

// readSSE parses a stream until EOF, calling onEvent for each event; the
// second result counts comment lines.
func readSSE(t *testing.T, r io.Reader, onEvent func(sseEvent)) ([]sseEvent, int) {
	t.Helper()
	var events []sseEvent
	comments := 0
	cur := sseEvent{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.Name != "" {
				events = append(events, cur)
				if onEvent != nil {
					onEvent(cur)
				}
			}
			cur = sseEvent{}
		case strings.HasPrefix(line, ":"):
			comments++
		case strings.HasPrefix(line, "id: "):
			cur.ID = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "event: "):
			cur.Name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.Data = json.RawMessage(strings.TrimPrefix(line, "data: "))
		}
	}
	return events, comments
}

func (h *harness) openStream(ctx context.Context, body string) *http.Response {
	h.t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url+"/api/v1/refactor", strings.NewReader(body))
	require.NoError(h.t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(h.t, err)
	return resp
}

// schemaCheck validates an event's data against a component schema.
func (h *harness) schemaCheck(name string, data json.RawMessage) {
	h.t.Helper()
	ref := h.doc.Components.Schemas[name]
	require.NotNil(h.t, ref, "schema %s", name)
	var v any
	require.NoError(h.t, json.Unmarshal(data, &v))
	assert.NoError(h.t, ref.Value.VisitJSON(v, openapi3.EnableJSONSchema2020()), "%s: %s", name, data)
}

func TestStreamTwoRoundRunEventByEvent(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	h.gem.ScriptAll(testenv.ApprovedInRoundTwo("sum: a with: b\n\t^ b + a", "Say what it answers.", newSum))
	resp := h.openStream(context.Background(), `{"class_name": "Calculator", "method_name": "sum:with:"}`)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	events, _ := readSSE(t, resp.Body, nil)

	type want struct{ name, detail string }
	expected := []want{
		{"accepted", ""},
		{"stage", "prefetch started"}, {"stage", "prefetch finished"},
		{"stage", "review started"}, {"model_call", "reviewer"}, {"stage", "review finished"},
		{"stage", "write started"}, {"model_call", "writer"}, {"stage", "write finished"},
		{"stage", "validate started"},
		{"candidate", "1"}, {"check", "1"}, {"model_call", "validator"}, {"verdict", "1 NEEDS_IMPROVEMENT"},
		{"model_call", "refiner"},
		{"candidate", "2"}, {"check", "2"}, {"model_call", "validator"}, {"verdict", "2 APPROVED"},
		{"stage", "validate finished"},
		{"stage", "release started"}, {"release", "started"}, {"release", "tests_before"}, {"release", "released"}, {"stage", "release finished"},
		{"result", ""},
	}
	got := make([]want, len(events))
	for i, e := range events {
		assert.Equal(t, i+1, atoi(t, e.ID), "ids count up from 1")
		var d map[string]any
		require.NoError(t, json.Unmarshal(e.Data, &d))
		got[i] = want{e.Name, detail(e.Name, d)}
	}
	assert.Equal(t, expected, got)

	last := events[len(events)-1]
	h.schemaCheck("RefactorResult", last.Data)
	h.schemaCheck("AcceptedEvent", events[0].Data)
	for _, e := range events {
		switch e.Name {
		case "stage":
			h.schemaCheck("StageEvent", e.Data)
		case "verdict":
			h.schemaCheck("VerdictEvent", e.Data)
		case "check":
			h.schemaCheck("CheckEvent", e.Data)
		case "model_call":
			h.schemaCheck("ModelCallEvent", e.Data)
		}
	}
	var result map[string]any
	require.NoError(t, json.Unmarshal(last.Data, &result))
	assert.Equal(t, "released", result["outcome"])
	assert.Equal(t, newSum, result["refactored_code"])
}

func detail(name string, d map[string]any) string {
	switch name {
	case "stage":
		return d["name"].(string) + " " + d["status"].(string)
	case "model_call":
		return d["role"].(string)
	case "candidate", "check":
		return jsonNumber(d["iteration"])
	case "verdict":
		return jsonNumber(d["iteration"]) + " " + d["verdict"].(string)
	case "release":
		return d["status"].(string)
	}
	return ""
}

func jsonNumber(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func atoi(t *testing.T, s string) int {
	var n int
	require.NoError(t, json.Unmarshal([]byte(s), &n), s)
	return n
}

func TestStreamEndsWithErrorEvent(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{maxIterations: 1})
	h.gem.Script("reviewer", testenv.Review())
	h.gem.Script("writer", testenv.Code("sum: a with: b\n\t^ b + a"))
	h.gem.Script("validator", testenv.NeedsWork("No."))
	resp := h.openStream(context.Background(), `{"class_name": "Calculator", "method_name": "sum:with:"}`)
	defer resp.Body.Close()
	events, _ := readSSE(t, resp.Body, nil)
	require.NotEmpty(t, events)
	last := events[len(events)-1]
	assert.Equal(t, "error", last.Name)
	h.schemaCheck("Problem", last.Data)
	var p map[string]any
	require.NoError(t, json.Unmarshal(last.Data, &p))
	assert.Equal(t, "not_approved", p["code"])
	assert.Equal(t, 422.0, p["status"])
}

func TestStreamRefusalsStayOrdinaryResponses(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	resp := h.openStream(context.Background(), `{"class_name": "lower", "method_name": "x"}`)
	defer resp.Body.Close()
	assert.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode)
	assert.Equal(t, "application/problem+json", resp.Header.Get("Content-Type"))
}

func TestStreamKeepAliveComments(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{keepAlive: 20 * time.Millisecond})
	h.gem.Script("reviewer", testenv.Review().Delayed(300*time.Millisecond))
	h.gem.Script("writer", testenv.Code(newSum))
	h.gem.Script("validator", testenv.Approved())
	resp := h.openStream(context.Background(), `{"class_name": "Calculator", "method_name": "sum:with:"}`)
	defer resp.Body.Close()
	events, comments := readSSE(t, resp.Body, nil)
	assert.Positive(t, comments, "comment lines keep the stream alive while the model thinks")
	assert.Equal(t, "result", events[len(events)-1].Name)
}

// TestDroppedClientDoesNotStopTheRun covers both routes: a client that
// leaves mid-run (after a second, while the model works) had the run's id
// from the first byte — the headers of the JSON answer to the original's
// wrapped body, the first event of the stream — and the run completes, is
// released and recorded.
func TestDroppedClientDoesNotStopTheRun(t *testing.T) {
	t.Parallel()
	for _, streamed := range []bool{true, false} {
		name := map[bool]string{true: "stream", false: "json"}[streamed]
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, harnessOpts{})
			h.gem.Script("reviewer", testenv.Review().Delayed(1500*time.Millisecond))
			h.gem.Script("writer", testenv.Code(newSum))
			h.gem.Script("validator", testenv.Approved())
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			var id string
			if streamed {
				resp := h.openStream(ctx, sumBody)
				assert.Equal(t, resp.Header.Get("X-Refactoring-ID"), strings.TrimPrefix(resp.Header.Get("Location"), "/api/v1/refactorings/"))
				events, _ := readSSE(t, resp.Body, nil) // until the client gives up
				_ = resp.Body.Close()
				require.NotEmpty(t, events)
				require.Equal(t, "accepted", events[0].Name)
				var acc map[string]string
				require.NoError(t, json.Unmarshal(events[0].Data, &acc))
				id = acc["id"]
			} else {
				req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url+"/api/v1/refactor", strings.NewReader(wrappedSumBody))
				require.NoError(t, err)
				req.Header.Set("Content-Type", "application/json")
				resp, err := http.DefaultClient.Do(req)
				require.NoError(t, err, "the headers come before any model answer")
				assert.Equal(t, http.StatusOK, resp.StatusCode)
				id = resp.Header.Get("X-Refactoring-ID")
				assert.Equal(t, "/api/v1/refactorings/"+id, resp.Header.Get("Location"))
				_, err = io.ReadAll(resp.Body)
				assert.ErrorIs(t, err, context.DeadlineExceeded, "the client gave up before the body came")
				_ = resp.Body.Close()
			}
			require.NotEmpty(t, id)
			row := h.row(id)
			assert.Contains(t, []any{"running", "releasing"}, row["status"], "the run goes on")
			require.Eventually(t, func() bool { return h.row(id)["status"] == "released" }, 30*time.Second, 20*time.Millisecond)
			assert.Contains(t, string(h.classFile("Calculator")), "Answer the sum of a and b", "released")
			assert.False(t, h.pipe.Busy(), "the slot is free again")
			resp, data := h.do(http.MethodGet, "/api/v1/refactorings?outcome=released", "", nil)
			require.Equal(t, http.StatusOK, resp.StatusCode)
			assert.Contains(t, string(data), id, "the history shows it released")
		})
	}
}
