package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

const (
	sumKey      = "Calculator>>sum:with:"
	sumOriginal = "sum: a with: b\n\n\t^ a + b"
	sumReleased = "sum: a with: b\n\t\"soak-7\"\n\n\t^ a + b"
	sumHostile  = "sum: a with: b\n\t\"soak-9\"\n\tSmalltalk at: #Pwned put: true.\n\t^ a + b"
)

// cleanHistory is a history that keeps every promise: a release that the
// validator approved, a revert of it, a restart after which every row is
// settled, and resources back to their baseline.
func cleanHistory() History {
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	released := Row{ID: "r1", Kind: "refactor", Method: sumKey, Status: "released", Verdict: "APPROVED", FinalSource: sumReleased, CreatedAt: at(1)}
	return History{
		Seed: 42,
		Requests: []Request{
			{ID: "q1", Step: 1, Kind: "run_release", Method: "POST", Path: "/api/v1/refactor", Start: at(1), End: at(2), Status: 200},
			{ID: "q2", Step: 2, Kind: "oversized", Method: "POST", Path: "/api/v1/refactor", Start: at(2), End: at(3), Status: 413, Code: "payload_too_large", WantStatus: []int{413}},
			{ID: "q3", Step: 3, Kind: "disconnect_mid_run", Method: "POST", Path: "/api/v1/refactor", Start: at(3), End: at(4), Err: "context canceled", Abandoned: true},
			// Cut by the SIGKILL below: excused.
			{ID: "q4", Step: 4, Kind: "history", Method: "GET", Path: "/api/v1/refactorings", Start: at(10), End: at(11), Err: "connection reset by peer"},
		},
		Outages:   []Outage{{Kind: "refactord_sigkill", Step: 4, From: at(10), To: at(12), ReadyAgain: true}},
		Approvals: []string{"Validate this method:\n" + sumReleased + "\nAnswer JSON."},
		Hostile:   map[string]bool{"soak-9": true},
		Checkpoints: []Checkpoint{{
			Step: 5, Why: "restart after refactord_sigkill", At: at(12), RestartedAt: at(12),
			Rows:    []Row{released, {ID: "r2", Kind: "refactor", Method: sumKey, Status: "not_released", CreatedAt: at(9)}},
			Image:   map[string]string{sumKey: sumReleased},
			Initial: map[string]string{sumKey: sumOriginal},
		}},
		Reverts:  []RevertCheck{{RequestID: "q6", Step: 6, Method: sumKey, Want: sumOriginal, Got: sumOriginal}},
		Health:   []HealthProbe{{Step: 4, At: at(11), Err: "connection refused"}},
		Baseline: Resources{Goroutines: 20, OpenFiles: 12, RSSMiB: 30},
		Final:    Resources{Goroutines: 22, OpenFiles: 13, RSSMiB: 41},
	}
}

func TestCheckReportsEachViolation(t *testing.T) {
	cases := []struct {
		name   string
		break_ func(h *History)
		want   string
	}{
		{"a clean history", func(*History) {}, ""},
		{"a reset outside any outage", func(h *History) {
			h.Requests[0].Err, h.Requests[0].Status = "read: connection reset by peer", 0
		}, vIncomplete},
		{"a request in flight cut by a graceful stop", func(h *History) {
			h.Outages[0].Kind, h.Outages[0].Grace = "refactord_sigterm", 5*time.Second
			h.Requests[3].Start, h.Requests[3].End = t0.Add(9*time.Second), t0.Add(10500*time.Millisecond)
		}, vIncomplete},
		{"a request sent as the graceful stop began", func(h *History) {
			h.Outages[0].Kind, h.Outages[0].Grace = "refactord_sigterm", 5*time.Second
		}, ""},
		{"a request in flight past the grace", func(h *History) {
			h.Outages[0].Kind, h.Outages[0].Grace = "refactord_sigterm", 5*time.Second
			h.Requests[3].Start, h.Requests[3].End = t0.Add(9*time.Second), t0.Add(16*time.Second)
		}, ""},
		{"a status openapi.yaml does not document", func(h *History) {
			h.Requests[0].Status, h.Requests[0].Undocumented = 507, "status 507 not documented"
		}, vUndocumented},
		{"a 500 internal", func(h *History) {
			h.Requests[0].Status, h.Requests[0].Code = 500, "internal"
		}, vInternal},
		{"an oversized body answered 400", func(h *History) {
			h.Requests[1].Status, h.Requests[1].Code = 400, "invalid_request"
		}, vOversized},
		{"an oversized body answered with a reset", func(h *History) {
			h.Requests[1].Status, h.Requests[1].Err = 0, "write: connection reset by peer"
		}, vIncomplete},
		{"the image holds code no row released", func(h *History) {
			h.Checkpoints[0].Rows[0].Status = "rolled_back"
		}, vImageUnreleased},
		{"a release with a NEEDS_IMPROVEMENT verdict", func(h *History) {
			h.Checkpoints[0].Rows[0].Verdict = "NEEDS_IMPROVEMENT"
		}, vReleasedUnapprove},
		{"a release of code the validator never approved", func(h *History) {
			h.Approvals = []string{"Validate this method:\n" + sumOriginal}
		}, vReleasedUnapprove},
		{"hostile code in the image", func(h *History) {
			h.Checkpoints[0].Image[sumKey] = sumHostile
			h.Checkpoints[0].Rows[1].Status, h.Checkpoints[0].Rows[1].FinalSource = "failed", sumHostile
		}, vHostileReleased + "," + vImageUnreleased},
		{"a row still running after the restart", func(h *History) {
			h.Checkpoints[0].Rows[1].Status, h.Checkpoints[0].Rows[1].Unsettled = "running", true
		}, vUnsettled},
		{"a revert that left the candidate", func(h *History) {
			h.Reverts[0].Got = sumReleased
		}, vRevertMismatch},
		{"/health down while the service was up", func(h *History) {
			h.Health[0].At = t0.Add(30 * time.Second)
		}, vHealthDown},
		{"goroutines not back to baseline", func(h *History) {
			h.Final.Goroutines = 400
		}, vResourceLeak},
		{"open files not back to baseline", func(h *History) {
			h.Final.OpenFiles = 60
		}, vResourceLeak},
		{"RSS not back to baseline", func(h *History) {
			h.Final.RSSMiB = 300
		}, vResourceLeak},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := cleanHistory()
			c.break_(&h)
			got := Check(h)
			var kinds []string
			for _, v := range got {
				kinds = append(kinds, v.Kind)
				assert.Equal(t, int64(42), v.Seed, "every violation carries the seed")
				assert.NotZero(t, v.Step, "every violation carries its step")
				assert.NotEmpty(t, v.Detail)
			}
			if c.want == "" {
				assert.Empty(t, got)
				return
			}
			require.NotEmpty(t, got)
			assert.ElementsMatch(t, strings.Split(c.want, ","), kinds)
		})
	}
}

func TestViolationsNameTheRequest(t *testing.T) {
	h := cleanHistory()
	h.Requests[0].Err = "EOF"
	got := Check(h)
	require.Len(t, got, 1)
	assert.Equal(t, "q1", got[0].RequestID)
	assert.Equal(t, int64(1), got[0].Step)
}

func TestSpecDocumentsWhatTheServiceMayAnswer(t *testing.T) {
	s, err := loadSpec()
	require.NoError(t, err)
	jsonHeader := http.Header{"Content-Type": {"application/json"}}
	problemHeader := http.Header{"Content-Type": {"application/problem+json"}}
	cases := []struct {
		name         string
		method, path string
		status       int
		header       http.Header
		body         string
		documented   bool
	}{
		{"a payload_too_large problem", "POST", "/api/v1/refactor", 413, problemHeader,
			`{"type":"about:blank","title":"Payload Too Large","status":413,"status_code":413,"detail":"too big","code":"payload_too_large","request_id":"r"}`, true},
		{"a status the route does not list", "GET", "/health", 418, jsonHeader, `{}`, false},
		{"a code outside the documented ones", "POST", "/api/v1/refactor", 502, problemHeader,
			`{"type":"about:blank","title":"Bad Gateway","status":502,"status_code":502,"detail":"x","code":"kaboom","request_id":"r"}`, false},
		{"a route that is not there", "DELETE", "/api/v1/refactorings", 200, jsonHeader, `{}`, false},
		{"metrics, checked by status", "GET", "/metrics", 200, http.Header{"Content-Type": {"text/plain; version=0.0.4"}}, "go_goroutines 7\n", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			why := s.check(c.method, c.path, c.status, c.header, []byte(c.body))
			if c.documented {
				assert.Empty(t, why)
			} else {
				assert.NotEmpty(t, why)
			}
		})
	}
}
