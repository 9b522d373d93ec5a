package main

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// clientFault reports whether a request kind is a fault of the client.
func clientFault(kind string) bool {
	switch kind {
	case "malformed", "wrong_type", "hostile_body", "wrong_content_type", "no_auth",
		"oversized", "slow_client", "stalled_body", "stalled_headers", "disconnect_mid_run":
		return true
	}
	return false
}

// modelFault reports whether a kind of model reply is a fault.
func modelFault(kind string) bool {
	return kind != replyOK && kind != replyApprove && kind != replyNeedsWork
}

// results is soak/results.json.
type results struct {
	Date            string         `json:"date"`
	Seed            int64          `json:"seed"`
	DurationSeconds float64        `json:"duration_s"`
	Replay          string         `json:"replay"`
	Machine         map[string]any `json:"machine"`
	Requests        int            `json:"requests"`
	// LoadRequests are the load phase's answered requests, LoadPerSecond
	// their rate while refactord was up.
	LoadRequests    int                `json:"load_requests"`
	LoadPerSecond   float64            `json:"load_requests_per_s"`
	RequestsByKind  map[string]int     `json:"requests_by_kind"`
	FaultsByKind    map[string]int     `json:"faults_by_kind"`
	ModelScenarios  map[string]int     `json:"model_scenarios"`
	AnswersByStatus map[string]int     `json:"answers_by_status"`
	Excused         int                `json:"transport_errors_during_restarts"`
	Abandoned       int                `json:"abandoned_by_the_client"`
	Latency         map[string]latency `json:"latency_ms"`
	Checks          map[string]int     `json:"checks"`
	Outages         []outage           `json:"restarts"`
	RowsAtEnd       map[string]int     `json:"rows_by_kind_and_status_at_end"`
	Resources       map[string]any     `json:"resources"`
	ViolationCount  int                `json:"violation_count"`
	Violations      []Violation        `json:"violations"`
}

// outage is a restart as results.json lists it.
type outage struct {
	Kind string `json:"kind"`
	Step int64  `json:"step"`
	From string `json:"down_at"`
	To   string `json:"ready_at"`
}

type latency struct {
	N   int     `json:"n"`
	P50 float64 `json:"p50"`
	P99 float64 `json:"p99"`
}

func summarize(s *soak, h History, violations []Violation, elapsed time.Duration) results {
	r := results{
		Date: time.Now().UTC().Format(time.RFC3339), Seed: h.Seed, DurationSeconds: float64(elapsed.Round(100*time.Millisecond)) / float64(time.Second),
		Replay:         fmt.Sprintf("SOAK_SEED=%d SOAK_DURATION=%s make soak", h.Seed, s.duration),
		Machine:        map[string]any{"cpus": runtime.NumCPU(), "goos": runtime.GOOS, "goarch": runtime.GOARCH, "go": runtime.Version()},
		Requests:       len(h.Requests),
		RequestsByKind: map[string]int{}, FaultsByKind: map[string]int{}, AnswersByStatus: map[string]int{},
		Latency: map[string]latency{}, ModelScenarios: s.scenarios, Violations: violations, ViolationCount: len(violations),
	}
	rate, n := loadRateOf(h)
	r.LoadRequests, r.LoadPerSecond = n, float64(int(rate*10+0.5))/10
	if data, err := os.ReadFile("/proc/loadavg"); err == nil {
		r.Machine["loadavg_1m_at_end"] = strings.Fields(string(data))[0]
	}
	byKind := map[string][]time.Duration{}
	for _, q := range h.Requests {
		r.RequestsByKind[q.Kind]++
		// A client that means to leave mid-run counts once it did.
		if clientFault(q.Kind) && (q.Kind != "disconnect_mid_run" || q.Abandoned) {
			r.FaultsByKind["client_"+q.Kind]++
		}
		switch {
		case q.Abandoned:
			r.Abandoned++
			r.AnswersByStatus["abandoned"]++
		case q.Err != "" && excused(h, q):
			r.Excused++
			r.AnswersByStatus["no_answer_refactord_down"]++
		case q.Err != "":
			r.AnswersByStatus["no_answer"]++
		case q.Status == 0:
			r.AnswersByStatus["closed_without_answer"]++
		default:
			r.AnswersByStatus[strconv.Itoa(q.Status)]++
			byKind[q.Kind] = append(byKind[q.Kind], q.End.Sub(q.Start))
			byKind["all"] = append(byKind["all"], q.End.Sub(q.Start))
		}
	}
	for k, d := range byKind {
		r.Latency[k] = percentiles(d)
	}
	for _, o := range h.Outages {
		r.Outages = append(r.Outages, outage{Kind: o.Kind, Step: o.Step, From: o.From.UTC().Format(timeOfDay), To: o.To.UTC().Format(timeOfDay)})
	}
	for _, f := range h.Faults {
		r.FaultsByKind[f.Kind]++
	}
	for k, n := range s.model.counts() {
		if modelFault(k) {
			r.FaultsByKind[k] += n
		}
	}
	rowsAtEnd := map[string]int{}
	if len(h.Checkpoints) > 0 {
		for _, row := range h.Checkpoints[len(h.Checkpoints)-1].Rows {
			rowsAtEnd[row.Kind+"_"+row.Status]++
		}
	}
	r.RowsAtEnd = rowsAtEnd
	r.Checks = map[string]int{
		"checkpoints": len(h.Checkpoints), "restarts": len(h.Outages), "reverts_compared": len(h.Reverts),
		"validator_approvals": len(h.Approvals), "hostile_candidates": len(h.Hostile), "health_probes": h.HealthProbes,
		"health_failures_while_up": countUp(h),
	}
	r.Resources = map[string]any{
		"baseline": h.Baseline, "final": h.Final,
		"tolerance": fmt.Sprintf("goroutines +%d, open files +%d, RSS ×%.1f +%d MiB", goroutineSlack, openFileSlack, rssFactor, rssSlackMiB),
	}
	return r
}

func countUp(h History) int {
	n := 0
	for _, p := range h.Health {
		if !duringOutage(h, p.At, p.At) {
			n++
		}
	}
	return n
}

// percentiles are the nearest-rank p50 and p99 of d, in milliseconds.
func percentiles(d []time.Duration) latency {
	sorted := slices.Clone(d)
	slices.Sort(sorted)
	at := func(p int) float64 {
		i := (p*len(sorted) + 99) / 100 // ceil(p/100 · n)
		ms := float64(sorted[max(i-1, 0)]) / float64(time.Millisecond)
		return float64(int(ms*10+0.5)) / 10
	}
	return latency{N: len(sorted), P50: at(50), P99: at(99)}
}

func printSummary(r results) {
	w := os.Stderr
	fmt.Fprintf(w, "soak: seed %d, %.0f s, %d requests, %d violations\n", r.Seed, r.DurationSeconds, r.Requests, r.ViolationCount)
	section := func(title string, m map[string]int) {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		fmt.Fprintf(w, "  %s:", title)
		for _, k := range keys {
			fmt.Fprintf(w, " %s %d,", k, m[k])
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "  load phase: %d answered requests, %.1f a second while refactord was up\n", r.LoadRequests, r.LoadPerSecond)
	section("requests", r.RequestsByKind)
	section("faults", r.FaultsByKind)
	section("answers", r.AnswersByStatus)
	section("checks", r.Checks)
	section("rows at the end", r.RowsAtEnd)
	if l, ok := r.Latency["all"]; ok {
		fmt.Fprintf(w, "  latency: p50 %.1f ms, p99 %.1f ms over %d answers\n", l.P50, l.P99, l.N)
	}
	fmt.Fprintf(w, "  resources: %v\n", r.Resources)
	for i, v := range r.Violations {
		if i == 20 {
			fmt.Fprintf(w, "  … %d more in results.json\n", len(r.Violations)-20)
			break
		}
		fmt.Fprintf(w, "  VIOLATION %s step %d %s %s: %s\n", v.Kind, v.Step, v.RequestID, v.RunID, v.Detail)
	}
}
