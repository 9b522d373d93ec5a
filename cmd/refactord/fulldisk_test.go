package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/internal/testenv"
)

// TestAFullDataDir: DATA_DIR fills up while a run waits for the model. The
// run ends (the slot is free) and its row is never `running` again: it
// answers the run's end marked not_recorded while the store refuses
// writes; a new run is refused 503 store_unavailable with Retry-After
// (not 500 internal), /ready says why; once space is freed the service,
// without a restart, writes the kept row (the mark goes), /ready is 200
// and a run goes through.
func TestAFullDataDir(t *testing.T) {
	disk := testenv.MountFullDisk(t, "8m")
	dir, env := imageEnv(t, approvesSum(answerTheSum, 2*time.Second))
	s := start(t, dir, append(env, "DATA_DIR="+disk.Dir)...)

	accepted, out := s.send(http.MethodPost, "/api/v1/refactor", sumRequest, "", map[string]string{
		"Content-Type": "application/json", "Prefer": "respond-async",
	})
	require.Equal(t, http.StatusAccepted, accepted.StatusCode, "%v", out)
	id := out["id"].(string)
	disk.Fill() // while the writer is held

	require.Eventually(t, func() bool { h, err := s.Health(); return err == nil && !h.Busy }, 30*time.Second, 20*time.Millisecond, "the run ends")
	row := s.row(id)
	assert.NotContains(t, []any{"running", "releasing"}, row["status"], "a run that is over is never answered as running: %v", row)
	assert.Equal(t, true, row["not_recorded"], "the store refused its end: the answer says so: %v", row)
	assert.NotNil(t, row["finished_at"])
	final := row["status"]

	resp, problem := s.send(http.MethodPost, "/api/v1/refactor", sumRequest, "", map[string]string{"Content-Type": "application/json"})
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, "%v", problem)
	assert.Equal(t, "store_unavailable", problem["code"])
	assert.Equal(t, "5", resp.Header.Get("Retry-After"))
	assert.Contains(t, problem["detail"], "refuses writes")
	assert.NotContains(t, s.Log(), `"internal error"`)

	ready, body := s.send(http.MethodGet, "/ready", "", "", nil)
	assert.Equal(t, http.StatusServiceUnavailable, ready.StatusCode, "%v", body)
	assert.Contains(t, strings.Join(toStrings(body["reasons"]), "; "), "the audit trail refuses writes")

	disk.Free()
	require.Eventually(t, func() bool { return s.row(id)["not_recorded"] == nil }, 15*time.Second, 50*time.Millisecond,
		"the kept row is written once the store takes writes again")
	assert.Equal(t, final, s.row(id)["status"], "the row says what the answer said")
	require.NoError(t, s.WaitFor("/ready", 15*time.Second))
	resp, out = s.send(http.MethodPost, "/api/v1/refactor", sumRequest, "", map[string]string{"Content-Type": "application/json"})
	assert.Equal(t, http.StatusOK, resp.StatusCode, "%v", out)
}

func toStrings(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, x := range list {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}
