package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"

	refactor "pharo-refactor"
	"pharo-refactor/internal/testenv"
	"pharo-refactor/wire"
)

const (
	overheadWarmup = 5
	overheadRuns   = 250
	// heldReviewDelay holds the busy suite's run in flight: the load runs
	// busyDuration inside it, with room for start-up and the health probe.
	heldReviewDelay = 25 * time.Second
	busyDuration    = 10 * time.Second
	busyConns       = 64
	busyMaxRequests = 1_000_000
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
// measures its memory after one run, the overhead of full runs, and how
// it refuses load while a run is in flight.
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
	gate := "" // what the release's test gate did, as the service reports it
	run := func(i int) (time.Duration, error) {
		d, g, err := releaseRun(e.ctx, client, svc, i)
		if g != "" {
			gate = g
		}
		return d, err
	}

	// Memory after start-up and one run.
	if _, err := run(0); err != nil {
		return nil, err
	}
	rss, err := rssMB(svc.PID())
	if err != nil {
		return nil, fmt.Errorf("reading refactord's RSS: %w", err)
	}
	simNote := ""
	if simRSS, err := rssMB(svc.simPID); err == nil {
		simNote = fmt.Sprintf("; pharo-sim %.1f MiB", simRSS)
	}

	// Pipeline overhead: full runs, release included, with a model that
	// answers at once.
	for i := 1; i <= overheadWarmup; i++ {
		if _, err := run(i); err != nil {
			return nil, err
		}
	}
	lat := make(samples, 0, overheadRuns)
	for i := 1; i <= overheadRuns; i++ {
		d, err := run(overheadWarmup + i)
		if err != nil {
			return nil, err
		}
		lat = append(lat, d)
	}
	o, _ := summarize(lat)

	busy, err := busyLoad(e.ctx, svc)
	if err != nil {
		return nil, err
	}
	b, _ := summarize(busy.lat)
	h, _ := summarize(busy.health)
	return []figure{
		{"rss_idle_mb", rss, "MiB", "VmRSS of refactord after start-up and one run" + simNote},
		{"pipeline_overhead_p50_ms", millis(o.P50), "ms", fmt.Sprintf("%d full runs over HTTP after %d warm-up, every one 200 released (prefetch, 3 instant model calls, checks, dry compile, release%s)", o.N, overheadWarmup+1, gate)},
		{"pipeline_overhead_p99_ms", millis(o.P99), "ms", fmt.Sprintf("max %.2f ms", millis(o.Max))},
		{"busy_rps", int(math.Round(busy.rps())), "req/s", fmt.Sprintf("%d POSTs from %d keep-alive connections in %.1f s while one run is in flight", busy.answered+busy.errors, busyConns, busy.elapsed.Seconds())},
		{"busy_p99_ms", millis(b.P99), "ms", fmt.Sprintf("p50 %.2f ms, max %.2f ms", millis(b.P50), millis(b.Max))},
		{"busy_non_503", busy.non503 + busy.noRetryAfter + busy.errors, "count", fmt.Sprintf("answers that were not 503 with Retry-After: %d other status, %d without Retry-After, %d transport errors", busy.non503, busy.noRetryAfter, busy.errors)},
		{"health_p99_ms", millis(h.P99), "ms", fmt.Sprintf("GET /health every %s on one more connection during the load, %d probes, p50 %.2f ms", healthEvery, h.N, millis(h.P50))},
	}, nil
}

// releaseRun posts one refactoring of benchMethod and answers how long it
// took and what the release's test gate did; anything but 200 released is
// an error.
func releaseRun(ctx context.Context, client *http.Client, svc *service, i int) (time.Duration, string, error) {
	start := time.Now()
	resp, data, err := post(ctx, client, svc.URL+"/api/v1/refactor", refactorBody(benchMethod.Class, benchMethod.Selector))
	d := time.Since(start)
	if err != nil {
		return 0, "", fmt.Errorf("run %d: %w", i, err)
	}
	var out wire.RefactorBody
	if resp.StatusCode != http.StatusOK || json.Unmarshal(data, &out) != nil || out.Outcome != "released" {
		return 0, "", fmt.Errorf("run %d answered %d, not 200 released: %s", i, resp.StatusCode, clip(data, 600))
	}
	gate := ""
	if out.Tests.Ran {
		gate = "; the test gate ran " + strings.Join(out.Tests.Classes, ", ") + " before and after each release"
	}
	return d, gate, nil
}

type busyResult struct {
	answered     int
	non503       int
	noRetryAfter int
	errors       int
	lat          samples
	health       samples
	elapsed      time.Duration
}

func (b busyResult) rps() float64 {
	return float64(b.answered+b.errors) / b.elapsed.Seconds()
}

// busyLoad holds one run in flight (divide:by:, whose reviewer answer is
// delayed), then loads the service with POSTs from busyConns connections
// and probes /health, and finally cancels the held run.
func busyLoad(ctx context.Context, svc *service) (busyResult, error) {
	heldCtx, cancelHeld := context.WithCancel(ctx)
	defer cancelHeld()
	heldDone := make(chan error, 1)
	go func() {
		resp, data, err := post(heldCtx, &http.Client{}, svc.URL+"/api/v1/refactor", refactorBody("Calculator", "divide:by:"))
		if err == nil {
			err = fmt.Errorf("the held run ended early: %d %s", resp.StatusCode, clip(data, 400))
		}
		heldDone <- err
	}()
	if err := waitBusy(ctx, svc, heldDone); err != nil {
		return busyResult{}, err
	}

	healthStop := make(chan struct{})
	healthDone := make(chan healthProbe, 1)
	go func() { healthDone <- probeHealth(ctx, svc, healthStop) }()
	res := generateLoad(ctx, svc.URL+"/api/v1/refactor", refactorBody(benchMethod.Class, benchMethod.Selector), loadOptions{
		conns: busyConns, duration: busyDuration, maxRequests: busyMaxRequests,
	})
	close(healthStop)
	hp := <-healthDone
	if err := ctx.Err(); err != nil {
		return busyResult{}, err
	}

	select {
	case err := <-heldDone:
		return busyResult{}, fmt.Errorf("the run held in flight did not last the load: %w", err)
	default:
	}
	cancelHeld()
	<-heldDone
	if hp.err != nil {
		return busyResult{}, fmt.Errorf("/health during the load: %w", hp.err)
	}
	if hp.notBusy > 0 {
		return busyResult{}, fmt.Errorf("/health said not busy %d times during the load", hp.notBusy)
	}
	if len(res.lat) == 0 || len(hp.lat) == 0 {
		return busyResult{}, errors.New("no answers measured")
	}
	if res.errors > res.answered {
		return busyResult{}, fmt.Errorf("the load got %d transport errors and only %d answers; first error: %v", res.errors, res.answered, res.firstErr)
	}
	res.health = hp.lat
	return res.busyResult, nil
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

type healthProbe struct {
	lat     samples
	notBusy int
	err     error
}

// probeHealth GETs /health every healthEvery on its own connection until
// stop is closed.
func probeHealth(ctx context.Context, svc *service, stop <-chan struct{}) healthProbe {
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxConnsPerHost: 1, MaxIdleConnsPerHost: 1}}
	defer client.CloseIdleConnections()
	var p healthProbe
	tick := time.NewTicker(healthEvery)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return p
		case <-ctx.Done():
			p.err = ctx.Err()
			return p
		case <-tick.C:
		}
		start := time.Now()
		h, err := svc.health(ctx, client)
		if err != nil {
			p.err = err
			return p
		}
		p.lat = append(p.lat, time.Since(start))
		if !h.Busy {
			p.notBusy++
		}
	}
}

func clip(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}
