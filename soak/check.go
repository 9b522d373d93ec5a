package main

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
)

// Violation is one broken promise, with what it takes to find it again:
// the soak's seed, the step that issued the request (or reached the
// checkpoint), and the request's id (sent as X-Request-ID, so it is in
// refactord's log and in the row).
type Violation struct {
	Kind      string `json:"kind"`
	RequestID string `json:"request_id,omitempty"`
	RunID     string `json:"run_id,omitempty"`
	Seed      int64  `json:"seed"`
	Step      int64  `json:"step"`
	Detail    string `json:"detail"`
}

// The kinds of violation, one per promise.
const (
	vIncomplete        = "incomplete_answer"       // a reset, an EOF, a timeout instead of a whole answer
	vUndocumented      = "undocumented_answer"     // a status or body openapi.yaml does not document
	vInternal          = "internal_error"          // 500 internal: a bug by the service's own words
	vOversized         = "oversized_not_413"       // an oversized body not answered 413 (401 without a key)
	vImageUnreleased   = "image_holds_unreleased"  // the image holds code no row says released
	vReleasedUnapprove = "released_unapproved"     // a released code no validator approved
	vHostileReleased   = "hostile_code_released"   // code the checks must refuse reached a row or the image
	vUnsettled         = "unsettled_after_restart" // a row still running/releasing after a restart
	vRevertMismatch    = "revert_mismatch"         // a revert that did not put back exactly the original
	vHealthDown        = "health_failed"           // /health did not answer 200 while the service was up
	vResourceLeak      = "resource_leak"           // goroutines, open files or RSS not back to baseline
	vLoadBelowRate     = "load_below_rate"         // the load phase did not reach minLoadRate answered requests a second
)

const timeOfDay = "15:04:05.000"

// Leak tolerances: what the final reading may exceed the baseline by once
// the load has ended and every client connection is closed.
const (
	goroutineSlack = 20
	openFileSlack  = 10
	rssFactor      = 1.5
	rssSlackMiB    = 48
)

// Check holds h against the service's promises and answers every
// violation, in the order of the steps that show them.
func Check(h History) []Violation {
	var out []Violation
	add := func(v Violation) {
		v.Seed = h.Seed
		out = append(out, v)
	}
	for _, q := range h.Requests {
		checkRequest(h, q, add)
	}
	approved := map[string]bool{}
	for _, cp := range h.Checkpoints {
		checkCheckpoint(h, cp, approved, add)
	}
	for _, r := range h.Reverts {
		if r.Want != r.Got {
			add(Violation{Kind: vRevertMismatch, RequestID: r.RequestID, Step: r.Step,
				Detail: fmt.Sprintf("%s after the revert: %q, the original: %q", r.Method, clip(r.Got, 200), clip(r.Want, 200))})
		}
	}
	for _, p := range h.Health {
		if !duringOutage(h, p.At, p.At) {
			add(Violation{Kind: vHealthDown, Step: p.Step, Detail: p.Err})
		}
	}
	checkResources(h, add)
	checkLoadRate(h, add)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Step < out[j].Step })
	return out
}

func checkRequest(h History, q Request, add func(Violation)) {
	at := func(kind, detail string) {
		add(Violation{Kind: kind, RequestID: q.ID, Step: q.Step, Detail: fmt.Sprintf("%s %s (%s, %s to %s): %s",
			q.Method, q.Path, q.Kind, q.Start.UTC().Format(timeOfDay), q.End.UTC().Format(timeOfDay), detail)})
	}
	if q.Err != "" {
		if !q.Abandoned && !excused(h, q) {
			at(vIncomplete, q.Err)
		}
		return
	}
	if q.Undocumented != "" {
		at(vUndocumented, q.Undocumented)
	}
	if q.Code == "internal" {
		at(vInternal, fmt.Sprintf("answered %d internal", q.Status))
	}
	if len(q.WantStatus) > 0 && !slices.Contains(q.WantStatus, q.Status) {
		at(vOversized, fmt.Sprintf("answered %d %s, want one of %v", q.Status, q.Code, q.WantStatus))
	}
}

// sendRace is how close to a SIGTERM a request may have been sent and
// still be cut: a request written on a keep-alive connection the server
// is closing as idle at that moment cannot be told from one sent after.
const sendRace = 100 * time.Millisecond

// excused reports whether a request without a whole answer was cut by
// refactord going down on purpose: any request during a kill; during a
// graceful stop, one sent after the signal (or at the same moment), or
// one that outlived the grace.
func excused(h History, q Request) bool {
	for _, o := range h.Outages {
		if q.Start.After(o.To) || q.End.Before(o.From) {
			continue
		}
		if o.Grace == 0 || q.Start.After(o.From.Add(-sendRace)) || q.End.After(o.From.Add(o.Grace)) {
			return true
		}
	}
	return false
}

// duringOutage reports whether [from, to] overlaps a window in which
// refactord was down on purpose.
func duringOutage(h History, from, to time.Time) bool {
	for _, o := range h.Outages {
		if !from.After(o.To) && !to.Before(o.From) {
			return true
		}
	}
	return false
}

func checkCheckpoint(h History, cp Checkpoint, approved map[string]bool, add func(Violation)) {
	released := map[string]map[string]bool{} // method → sources some row says released
	for _, r := range cp.Rows {
		if r.Status == "released" {
			if released[r.Method] == nil {
				released[r.Method] = map[string]bool{}
			}
			released[r.Method][r.FinalSource] = true
		}
		if !cp.RestartedAt.IsZero() && r.Unsettled && r.CreatedAt.Before(cp.RestartedAt) {
			add(Violation{Kind: vUnsettled, RunID: r.ID, Step: cp.Step, Detail: fmt.Sprintf("%s: row of %s is %s after the %s", cp.Why, r.Method, r.Status, "restart")})
		}
		if r.Kind == "refactor" && (r.Status == "released" || r.Status == "reverted") && !approved[r.ID] {
			approved[r.ID] = true // reported once, whatever the checkpoints that list it
			if r.Verdict != "APPROVED" || !approvedByValidator(h, r.FinalSource) {
				add(Violation{Kind: vReleasedUnapprove, RunID: r.ID, Step: cp.Step,
					Detail: fmt.Sprintf("%s: row %s of %s (%s, verdict %q) released code no validator approved: %q", cp.Why, r.ID, r.Method, r.Status, r.Verdict, clip(r.FinalSource, 200))})
			}
		}
		if r.Status == "released" && hostileIn(h, r.FinalSource) != "" {
			add(Violation{Kind: vHostileReleased, RunID: r.ID, Step: cp.Step, Detail: fmt.Sprintf("%s: row %s of %s released hostile candidate %s", cp.Why, r.ID, r.Method, hostileIn(h, r.FinalSource))})
		}
	}
	methods := make([]string, 0, len(cp.Image))
	for m := range cp.Image {
		methods = append(methods, m)
	}
	sort.Strings(methods)
	for _, m := range methods {
		src := cp.Image[m]
		if marker := hostileIn(h, src); marker != "" {
			add(Violation{Kind: vHostileReleased, Step: cp.Step, Detail: fmt.Sprintf("%s: the image holds hostile candidate %s in %s", cp.Why, marker, m)})
		}
		if src == cp.Initial[m] || released[m][src] {
			continue
		}
		add(Violation{Kind: vImageUnreleased, Step: cp.Step, Detail: fmt.Sprintf("%s: the image holds in %s code no row says released: %q", cp.Why, m, clip(src, 200))})
	}
}

// approvedByValidator reports whether source was in a prompt the
// validator approved.
func approvedByValidator(h History, source string) bool {
	if source == "" {
		return false
	}
	for _, p := range h.Approvals {
		if strings.Contains(p, source) {
			return true
		}
	}
	return false
}

// hostileIn names the hostile candidate marker source holds, "" if none.
func hostileIn(h History, source string) string {
	for _, m := range candidateMarkers(source) {
		if h.Hostile[m] {
			return m
		}
	}
	return ""
}

func checkResources(h History, add func(Violation)) {
	b, f := h.Baseline, h.Final
	if b == (Resources{}) || f == (Resources{}) {
		return
	}
	var leaks []string
	if f.Goroutines > b.Goroutines+goroutineSlack {
		leaks = append(leaks, fmt.Sprintf("goroutines %d → %d", b.Goroutines, f.Goroutines))
	}
	if f.OpenFiles > b.OpenFiles+openFileSlack {
		leaks = append(leaks, fmt.Sprintf("open files %d → %d", b.OpenFiles, f.OpenFiles))
	}
	if f.RSSMiB > b.RSSMiB*rssFactor+rssSlackMiB {
		leaks = append(leaks, fmt.Sprintf("RSS %.1f → %.1f MiB", b.RSSMiB, f.RSSMiB))
	}
	if len(leaks) > 0 {
		add(Violation{Kind: vResourceLeak, Step: lastStep(h), Detail: "after the load: " + strings.Join(leaks, ", ")})
	}
}

func lastStep(h History) int64 {
	var s int64
	for _, q := range h.Requests {
		s = max(s, q.Step)
	}
	return s
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// checkLoadRate holds the load phase to its rate: its requests answered
// (a request refactord was down for does not count) over the time
// refactord was up during the phase.
func checkLoadRate(h History, add func(Violation)) {
	if h.LoadFrom.IsZero() || !h.LoadTo.After(h.LoadFrom) {
		return
	}
	rate, _ := loadRateOf(h)
	if rate < minLoadRate {
		add(Violation{Kind: vLoadBelowRate, Detail: fmt.Sprintf("the load phase made %.1f answered requests a second while refactord was up, want at least %d", rate, minLoadRate)})
	}
}

// loadRateOf is the load phase's answered requests a second while
// refactord was up, and their count.
func loadRateOf(h History) (float64, int) {
	up := h.LoadTo.Sub(h.LoadFrom)
	for _, o := range h.Outages {
		from, to := maxTime(o.From, h.LoadFrom), minTime(o.To, h.LoadTo)
		if to.After(from) {
			up -= to.Sub(from)
		}
	}
	n := 0
	for _, q := range h.Requests {
		if isLoad(q.Kind) && q.Err == "" && q.Status != 0 {
			n++
		}
	}
	if up <= 0 {
		return 0, n
	}
	return float64(n) / up.Seconds(), n
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
