package api_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/internal/testenv"
)

// TestEveryStoreUnavailableAnswerIsLoggedWithItsCause: the audit trail's
// file system fills up (a real tmpfs, filled to its last byte) under a
// run, which ends 503 store_unavailable. Every answer of it then — that
// run's, and the refusals of a run asked for as JSON, as a stream, as a
// job, and of a revert — writes exactly one log line of it, at warn, with
// the answer's request id, its route and the storage's own words
// (SQLite's "database or disk is full"), which the client never sees. The
// server and its pipeline share one logger, as in refactord, so a second
// line of a refusal's cause from any layer fails the test.
func TestEveryStoreUnavailableAnswerIsLoggedWithItsCause(t *testing.T) {
	testenv.SkipShort(t, "mounts a tmpfs")
	t.Parallel()
	disk := testenv.MountFullDisk(t, "8m")
	core, logs := observer.New(zapcore.DebugLevel)
	h := newHarness(t, harnessOpts{log: zap.New(core), dataDir: disk.Dir})
	h.composedRun(testenv.ComposedTotal)
	resp, out := h.refactor(totalBody)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%v", out)
	require.Equal(t, "released", out["outcome"], "a released run, to revert once the disk is full")
	released := out["id"].(string)

	// A run the disk fills under: approved as the last byte goes, its
	// release cannot be recorded before the compile, so nothing is
	// compiled. The pipeline logs its own lines of that run (its stage not
	// recorded, its end, its final row kept in memory); the answer has
	// one line of its own.
	const cause = "database or disk is full"
	answers := testenv.ApprovedInRoundOne(newSum)
	fill := testenv.Approved()
	fill.Before = disk.Fill
	answers[refactor.RoleValidator] = []testenv.Reply{fill}
	for role, replies := range answers {
		h.gem.Set(role, replies...) // not after the released run's last replies
	}
	resp, data := h.do(http.MethodPost, "/api/v1/refactor", sumBody, map[string]string{"X-Request-ID": "full-under-a-run"})
	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, "%s", data)
	require.NoError(t, json.Unmarshal(data, &out))
	require.Equal(t, "store_unavailable", out["code"])
	answer := logs.FilterField(zap.String("request_id", "full-under-a-run")).FilterMessage("store unavailable").All()
	require.Len(t, answer, 1, "one line of the answer's cause: %v", logs.FilterField(zap.String("request_id", "full-under-a-run")).All())
	assert.Equal(t, zapcore.WarnLevel, answer[0].Level)
	assert.Equal(t, "/api/v1/refactor", answer[0].ContextMap()["route"])
	assert.Contains(t, answer[0].ContextMap()["cause"], cause)
	cases := []struct {
		name, path, requestID, route string
		header                       map[string]string
	}{
		{"a run answered as JSON", "/api/v1/refactor", "full-json", "/api/v1/refactor", nil},
		{"a run asked for as a stream", "/api/v1/refactor", "full-stream", "/api/v1/refactor", map[string]string{"Accept": "text/event-stream"}},
		{"a run asked for as a job", "/api/v1/refactor", "full-job", "/api/v1/refactor", map[string]string{"Prefer": "respond-async"}},
		{"a revert", "/api/v1/refactorings/" + released + "/revert", "full-revert", "/api/v1/refactorings/:id/revert", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			header := map[string]string{"X-Request-ID": tc.requestID}
			for k, v := range tc.header {
				header[k] = v
			}
			body := ""
			if tc.path == "/api/v1/refactor" {
				body = totalBody
			}
			resp, data := h.do(http.MethodPost, tc.path, body, header)
			require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, "%s", data)
			var p map[string]any
			require.NoError(t, json.Unmarshal(data, &p))
			require.Equal(t, "store_unavailable", p["code"])
			assert.Equal(t, tc.requestID, p["request_id"])
			assert.NotContains(t, p["detail"], cause, "the storage's words stay in the log")

			var lines []observer.LoggedEntry
			for _, e := range logs.FilterField(zap.String("request_id", tc.requestID)).All() {
				if e.Message != "http" { // the access log's line of the request
					lines = append(lines, e)
				}
			}
			require.Len(t, lines, 1, "one line of the answer's cause, from one layer: %v", lines)
			line := lines[0]
			assert.Equal(t, zapcore.WarnLevel, line.Level)
			assert.Equal(t, "store unavailable", line.Message)
			fields := line.ContextMap()
			assert.Equal(t, tc.route, fields["route"])
			assert.Equal(t, tc.path, fields["path"])
			assert.Equal(t, http.MethodPost, fields["method"])
			assert.Contains(t, fields["cause"], cause, "the line says why the store refused")
			assert.Equal(t, p["detail"], fields["detail"], "and what the client was told")
		})
	}
}
