package main

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"time"
)

// The load phase: while the clients mix runs and faults, loadClients more
// send cheap requests — health, history, a run's row, a refactoring
// refused busy, bad input — at loadRate a second in all, each recorded and
// held by Check like any other request. Without them the soak proves the
// promises under faults (about 7 requests a second), not under load.
const (
	loadClients = 8
	// loadRate is the pace asked for; minLoadRate the rate the load phase
	// must reach (Check), restarts included.
	loadRate    = 100
	minLoadRate = 50
)

// loadClient sends cheap requests at its share of loadRate until the load
// ends. Its requests change nothing in the image or the rows, so unlike the
// clients' they go on during a revert and a checkpoint (a request that
// meets a restart is judged as any other); only the busy refusal, which
// may start a dry run, keeps out of them.
func (s *soak) loadClient(ctx context.Context, until <-chan struct{}, c int) {
	rng := rand.New(rand.NewPCG(uint64(s.seed), uint64(1000+c)))
	tick := time.NewTicker(time.Second * loadClients / loadRate)
	defer tick.Stop()
	client := clients + c // numbered after the clients
	for {
		select {
		case <-until:
			return
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if closed(until) {
			return
		}
		if !s.cheap(ctx, rng, client) {
			// refactord is down (a restart): recorded, and excused; no
			// point in knocking at its port at full rate meanwhile.
			select {
			case <-until:
			case <-ctx.Done():
			case <-time.After(250 * time.Millisecond):
			}
		}
	}
}

// cheap is one request of the load phase; false when it got no answer.
func (s *soak) cheap(ctx context.Context, rng *rand.Rand, client int) bool {
	step := s.step.Add(1)
	var a answer
	switch rng.IntN(7) {
	case 0:
		a = s.exchange(ctx, step, client, call{kind: "load_health", method: http.MethodGet, path: "/health"})
	case 1:
		q := pick(rng, []string{"?limit=5", "?limit=20", "?outcome=released&limit=3", "", "?class_name=Calculator&limit=2"})
		a = s.exchange(ctx, step, client, call{kind: "load_history", method: http.MethodGet, path: "/api/v1/refactorings" + q})
	case 2:
		a = s.exchange(ctx, step, client, call{kind: "load_show", method: http.MethodGet, path: "/api/v1/refactorings/" + s.someID(rng)})
	case 3:
		// A refactoring refused busy: sent only while a run holds the
		// slot (a run that ended meanwhile makes this one a dry run).
		a = s.exchange(ctx, step, client, call{kind: "load_health", method: http.MethodGet, path: "/health"})
		var h struct {
			Busy bool `json:"busy"`
		}
		if a.Status != http.StatusOK || json.Unmarshal(a.body, &h) != nil || !h.Busy {
			return a.Status != 0
		}
		if !s.quiet.TryRLock() {
			return true // a revert or a checkpoint is under way or waiting
		}
		defer s.quiet.RUnlock()
		req := s.scriptRun(rng)
		req.DryRun, req.Verify = true, false
		body, _ := json.Marshal(req)
		a = s.exchange(ctx, s.step.Add(1), client, call{kind: "load_busy", method: http.MethodPost, path: "/api/v1/refactor", body: body})
	case 4:
		q := pick(rng, []string{"?limit=1&limit=-5", "?outcome=released&outcome=failed", "?cursor=a&cursor=b"})
		a = s.exchange(ctx, step, client, call{kind: "load_repeated_query", method: http.MethodGet, path: "/api/v1/refactorings" + q, want: []int{http.StatusBadRequest}})
	case 5:
		body := pick(rng, []string{`{"class_name": "Calc`, `{"Class_Name": "Calculator", "method_name": "sum:with:"}`,
			`{"class_name": "Calculator", "class_name": "Foo", "method_name": "sum:with:"}`, `{"class_name": "1abc", "method_name": "sum:with:"}`})
		a = s.exchange(ctx, step, client, call{kind: "load_bad_input", method: http.MethodPost, path: "/api/v1/refactor", body: []byte(body)})
	default:
		a = s.exchange(ctx, step, client, call{kind: "load_ready", method: http.MethodGet, path: "/ready"})
	}
	return a.Status != 0
}

// isLoad reports whether a request kind belongs to the load phase.
func isLoad(kind string) bool { return len(kind) > 5 && kind[:5] == "load_" }
