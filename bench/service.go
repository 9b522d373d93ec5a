package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/bench/internal/measure"
	"github.com/pharo-refactor/refactord/internal/testenv"
	"github.com/pharo-refactor/refactord/wire"
)

const (
	overheadWarmup = 5
	overheadRuns   = 50 // timed runs per round
	countedRuns    = 10 // in-process runs per round, counting the parts
	floorCalls     = 200
	syncedCommits  = 30
	plainCommits   = 100
	// heldReviewDelay holds the busy suite's run in flight through every
	// round of the load, the service's and the floor's.
	heldReviewDelay = 90 * time.Second
	busyDuration    = 2 * time.Second
	busyConns       = 64
	healthEvery     = 10 * time.Millisecond
)

// The two versions the overhead runs release in turn: each run replaces the
// other, so every run really compiles a change into the image.
var sumVersions = []string{
	"sum: augend with: addend\n\t\"Answer the sum of augend and addend\"\n\n\t^ augend + addend",
	"sum: firstNumber with: secondNumber\n\n\t^ firstNumber + secondNumber",
}

const divideVersion = "divide: dividend by: divisor\n\t\"Answer dividend divided by divisor, or nil when divisor is zero\"\n\n\tdivisor isZero ifTrue: [ ^ nil ].\n\t^ dividend / divisor"

// benchScript is the instant model of the service suites: sum:with:
// answers at once; divide:by: holds its run in the reviewer for
// heldReviewDelay.
func benchScript() testenv.Script {
	return testenv.Script{
		"Calculator>>sum:with:": {
			refactor.RoleReviewer:  {testenv.Review()},
			refactor.RoleWriter:    {testenv.Code(sumVersions[0]), testenv.Code(sumVersions[1])},
			refactor.RoleValidator: {testenv.Approved()},
			refactor.RoleRefiner:   {testenv.Code(sumVersions[0])},
		},
		"Calculator>>divide:by:": {
			refactor.RoleReviewer:  {testenv.Review().Delayed(heldReviewDelay)},
			refactor.RoleWriter:    {testenv.Code(divideVersion)},
			refactor.RoleValidator: {testenv.Approved()},
			refactor.RoleRefiner:   {testenv.Code(divideVersion)},
		},
	}
}

func refactorBody(class, selector string) []byte {
	b, _ := json.Marshal(wire.RefactorRequest{ClassName: class, MethodName: selector})
	return b
}

// serviceSuite starts refactord with the instant scripted model and
// measures its memory after one run, the overhead of full runs beside the
// floors of their parts, and how it refuses load while a run is in flight
// beside a bare echo server refusing it.
func serviceSuite(e env) ([]figure, error) {
	script, err := benchScript().Env(e.tmp, true)
	if err != nil {
		return nil, err
	}
	svc, err := startService(e, "service", script)
	if err != nil {
		return nil, err
	}
	defer svc.stop()
	figs, err := measureService(e, svc)
	if err != nil {
		return nil, fmt.Errorf("%w\n%s", err, svc.logTail())
	}
	return figs, nil
}

func measureService(e env, svc *service) ([]figure, error) {
	client := &http.Client{Timeout: time.Minute}
	first, err := releaseRun(e.ctx, client, svc, 0)
	if err != nil {
		return nil, err
	}
	rss, err := measure.RSSMB(svc.PID())
	if err != nil {
		return nil, fmt.Errorf("reading refactord's RSS: %w", err)
	}
	simNote := ""
	if anon, file, err := measure.RSSPartsMB(svc.PID()); err == nil {
		simNote = fmt.Sprintf(" (anonymous %.1f, file-backed %.1f MiB)", anon, file)
	}
	if simRSS, err := measure.RSSMB(svc.simPID); err == nil {
		simNote += fmt.Sprintf("; pharo-sim %.1f MiB", simRSS)
	}
	overhead, err := pipelineOverhead(e, client, svc, first)
	if err != nil {
		return nil, err
	}
	busy, health, err := busyLoad(e, svc)
	if err != nil {
		return nil, err
	}
	return []figure{
		{key: "rss_idle_mb", value: rss, unit: "MiB", note: "VmRSS of refactord after start-up and one run" + simNote},
		{key: "pipeline_overhead", value: overhead},
		{key: "busy_rps", value: busy},
		{key: "health_p99_under_load", value: health},
	}, nil
}

// released is one refactoring over HTTP as the overhead runs make it.
type released struct {
	took time.Duration
	body []byte
	gate string // what the release's test gate did
}

// releaseRun posts one refactoring of benchMethod; anything but 200
// released is an error.
func releaseRun(ctx context.Context, client *http.Client, svc *service, i int) (released, error) {
	start := time.Now()
	resp, data, err := post(ctx, client, svc.URL+"/api/v1/refactor", refactorBody(benchMethod.Class, benchMethod.Selector))
	took := time.Since(start)
	if err != nil {
		return released{}, fmt.Errorf("run %d: %w", i, err)
	}
	var out wire.RefactorBody
	if resp.StatusCode != http.StatusOK || json.Unmarshal(data, &out) != nil || out.Outcome != "released" {
		return released{}, fmt.Errorf("run %d answered %d, not 200 released: %s", i, resp.StatusCode, clip(data, 600))
	}
	r := released{took: took, body: data}
	if out.Tests.Ran {
		r.gate = "the test gate ran " + strings.Join(out.Tests.Classes, ", ") + " before and after each release"
	}
	return r, nil
}

// pipelineOverhead times full runs over HTTP round by round, and beside
// each round the floors of what a run is made of (decomposition.go).
func pipelineOverhead(e env, client *http.Client, svc *service, first released) (*comparison, error) {
	for i := 1; i <= overheadWarmup; i++ {
		if _, err := releaseRun(e.ctx, client, svc, i); err != nil {
			return nil, err
		}
	}
	parts, err := startParts(e, first.body)
	if err != nil {
		return nil, err
	}
	defer parts.close()
	c := &comparison{Unit: "ms", Goal: "p50 − floor ≤ 5 ms, ratio ≤ 1.3",
		What: fmt.Sprintf("p50 of full runs over HTTP, %d a round, every one 200 released (prefetch, 3 instant model calls, checks, dry compile, release; %s)",
			overheadRuns, first.gate),
		FloorIs: "the sum of the floors of its parts: 1 HTTP request × the echo server's p50, " +
			"its synced and unsynced SQLite commits × their floors' p50, and the run's own image calls (test runs and comparisons included) " +
			"made again directly on a pharo-sim subprocess of the same binary and image through mcp-go's client, one after another (p50)"}
	var d decomposition
	for r := range rounds {
		cpuBefore, err := cpuOf(svc)
		if err != nil {
			return nil, err
		}
		lat := make(measure.Samples, 0, overheadRuns)
		for i := range overheadRuns {
			got, err := releaseRun(e.ctx, client, svc, 1+overheadWarmup+r*overheadRuns+i)
			if err != nil {
				return nil, err
			}
			lat = append(lat, got.took)
		}
		cpuAfter, err := cpuOf(svc)
		if err != nil {
			return nil, err
		}
		floor, err := parts.measure(e.ctx, &d)
		if err != nil {
			return nil, err
		}
		s, _ := measure.Summarize(lat)
		c.add(measure.Millis(s.P50), measure.Millis(floor))
		d.p99 = append(d.p99, measure.Millis(s.P99))
		d.refactordCPU = append(d.refactordCPU, measure.Millis((cpuAfter[0]-cpuBefore[0])/overheadRuns))
		d.simCPU = append(d.simCPU, measure.Millis((cpuAfter[1]-cpuBefore[1])/overheadRuns))
	}
	// what refactord adds to its image's own work: the floor holds the
	// run's real test runs and comparisons, which no service can skip
	if err := c.done(func(ratio, value float64) bool { return value-c.Floor.Median <= 5 && ratio <= 1.3 }); err != nil {
		return nil, err
	}
	d.into(c)
	return c, nil
}

// cpuOf answers the CPU time refactord and its pharo-sim have used.
func cpuOf(svc *service) ([2]time.Duration, error) {
	var out [2]time.Duration
	var err error
	if out[0], err = measure.CPUTime(svc.PID()); err != nil {
		return out, fmt.Errorf("refactord's CPU time: %w", err)
	}
	if out[1], err = measure.CPUTime(svc.simPID); err != nil {
		return out, fmt.Errorf("pharo-sim's CPU time: %w", err)
	}
	return out, nil
}

// busyLoad holds one run in flight (divide:by:, whose reviewer answer is
// delayed), captures the busy answer and /health, starts the echo floor
// answering them, then loads both in turn, round by round, with the load
// generator: POSTs from busyConns connections while it probes /health.
func busyLoad(e env, svc *service) (busy, health *comparison, err error) {
	heldCtx, cancelHeld := context.WithCancel(e.ctx)
	defer cancelHeld()
	heldDone := make(chan error, 1)
	go func() {
		resp, data, err := post(heldCtx, &http.Client{}, svc.URL+"/api/v1/refactor", refactorBody("Calculator", "divide:by:"))
		if err == nil {
			err = fmt.Errorf("the held run ended early: %d %s", resp.StatusCode, clip(data, 400))
		}
		heldDone <- err
	}()
	if err := waitBusy(e.ctx, svc, heldDone); err != nil {
		return nil, nil, err
	}
	floor, err := startBusyFloor(e, svc)
	if err != nil {
		return nil, nil, err
	}
	defer floor.stop()
	bodyFile, err := writeTemp(e, "busy-body.json", refactorBody(benchMethod.Class, benchMethod.Selector))
	if err != nil {
		return nil, nil, err
	}
	busy = &comparison{Unit: "req/s", Goal: "ratio ≥ 0.8, 0 non-503",
		What: fmt.Sprintf("POSTs answered per second by refactord, from %d keep-alive connections of the load generator (a process of its own) for %s a round, while one run is in flight",
			busyConns, busyDuration),
		FloorIs: "the same load on an echo server whose one bare handler answers the same 503 body"}
	health = &comparison{Unit: "ms", Goal: "ratio ≤ 2",
		What:    fmt.Sprintf("p99 of GET /health every %s on one more connection during that load", healthEvery),
		FloorIs: "the same probe of the echo server's bare handler answering the same /health body"}
	var b busyRounds
	for r := range rounds {
		targets := []loadTarget{{floor.url, floor.pid()}, {svc.URL, svc.PID()}}
		if r%2 == 1 {
			targets[0], targets[1] = targets[1], targets[0] // neither always goes first
		}
		var got [2]measure.LoadResult
		for _, t := range targets {
			res, err := runLoad(e, t, bodyFile)
			if err != nil {
				return nil, nil, err
			}
			got[map[bool]int{true: 0, false: 1}[t.url == floor.url]] = res
		}
		if err := b.add(got[1], got[0]); err != nil {
			return nil, nil, err
		}
		busy.add(measure.Round(got[1].RPS, 0), measure.Round(got[0].RPS, 0))
		health.add(msOfMicros(got[1].Health.P99), msOfMicros(got[0].Health.P99))
	}
	select {
	case err := <-heldDone:
		return nil, nil, fmt.Errorf("the run held in flight did not last the load: %w", err)
	default:
	}
	if err := busy.done(func(ratio, _ float64) bool { return ratio >= 0.8 && b.improper() == 0 }); err != nil {
		return nil, nil, err
	}
	if err := health.done(atMost(2)); err != nil {
		return nil, nil, err
	}
	b.into(busy, health)
	return busy, health, nil
}

func waitBusy(ctx context.Context, svc *service, heldDone <-chan error) error {
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-heldDone:
			return fmt.Errorf("the held run: %w", err)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
		if h, err := svc.health(ctx, client); err == nil && h.Busy {
			return nil
		}
	}
	return errors.New("the held run never made the service busy")
}

func clip(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}
