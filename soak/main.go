// Command soak runs refactord for a while under load, faults and bad input
// and holds what happened against the service's promises (make soak).
//
// It builds refactord and pharo-sim from this checkout, starts them as real
// subprocesses on a copy of the sample image with a fake Gemini server on
// loopback (testenv's, its answers drawn per run: slow, 429, 5xx, empty,
// cut off, garbage, hostile), and lets concurrent clients mix every kind of
// request, well-formed or not, while pharo-sim is killed and refactord is
// killed (SIGKILL) or stopped (SIGTERM) and started again at random
// moments. Everything is recorded in a History, which Check holds against
// the promises; soak/results.json gets the figures and the violations.
//
// SOAK_DURATION (default 3m) and SOAK_SEED (default: the time) configure
// it; the seed and the step of a violation replay the same draws (the
// interleaving of the clients is the machine's). It exits 1 when a promise
// was broken, 2 when the soak itself could not run.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/pharo-refactor/refactord/internal/testenv"
)

const clients = 6

// soak is one soak run: the processes it drives and what it records.
type soak struct {
	seed     int64
	duration time.Duration
	root     string
	tmp      string
	image    string // the Tonel tree pharo-sim serves
	addr     string // refactord's address, the same for every instance

	refactordBin, simBin string
	modelURL             string
	fake                 *testenv.FakeGemini
	model                *modelRecorder
	spec                 *spec
	initial              map[string]string
	rec                  *recorder
	markers              markers

	// load is the clients' HTTP client (keep-alive); control is the
	// soak's own (no keep-alive, so that it holds no connection when the
	// resources are read).
	load, control *http.Client

	step atomic.Int64
	// quiet is held shared by every client action and exclusively by a
	// checkpoint, a restart and a revert.
	quiet sync.RWMutex

	mu  sync.Mutex
	cur *instance
	ids []string

	scriptMu  sync.Mutex
	scenarios map[string]int
}

func (s *soak) url() string { return "http://" + s.addr }

func main() {
	out := flag.String("out", "soak/results.json", "where to write the results")
	flag.Parse()
	duration, seed, err := settings()
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(2)
	}
	violations, err := run(duration, seed, *out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(2)
	}
	if violations > 0 {
		fmt.Fprintf(os.Stderr, "soak: %d violations (see %s); replay with SOAK_SEED=%d SOAK_DURATION=%s make soak\n", violations, *out, seed, duration)
		os.Exit(1)
	}
}

func settings() (time.Duration, int64, error) {
	duration := 3 * time.Minute
	if v := os.Getenv("SOAK_DURATION"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 10*time.Second {
			return 0, 0, fmt.Errorf("SOAK_DURATION=%q: want a duration of at least 10s (30s, 3m, 10m)", v)
		}
		duration = d
	}
	seed := time.Now().UnixNano() % 1_000_000_000
	if v := os.Getenv("SOAK_SEED"); v != "" {
		if _, err := fmt.Sscanf(v, "%d", &seed); err != nil {
			return 0, 0, fmt.Errorf("SOAK_SEED=%q: want an integer", v)
		}
	}
	return duration, seed, nil
}

func run(duration time.Duration, seed int64, out string) (int, error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s, cleanup, err := prepare(duration, seed)
	if err != nil {
		return 0, err
	}
	defer cleanup()
	fmt.Fprintf(os.Stderr, "soak: seed %d, %s, %d clients and %d load clients (%d requests/s asked), refactord at %s\n", seed, duration, clients, loadClients, loadRate, s.url())
	began := time.Now()
	if err := s.drive(ctx); err != nil {
		return 0, err
	}
	h := s.rec.history()
	h.Seed = seed
	violations := Check(h)
	res := summarize(s, h, violations, time.Since(began))
	data, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return 0, err
	}
	if !filepath.IsAbs(out) {
		out = filepath.Join(s.root, out)
	}
	if err := os.WriteFile(out, append(data, '\n'), 0o644); err != nil {
		return 0, err
	}
	printSummary(res)
	return len(violations), nil
}

// prepare builds the binaries, copies the image and starts the fake model.
func prepare(duration time.Duration, seed int64) (*soak, func(), error) {
	root, err := testenv.Root()
	if err != nil {
		return nil, nil, err
	}
	tmp, err := os.MkdirTemp("", "refactord-soak-")
	if err != nil {
		return nil, nil, err
	}
	s := &soak{seed: seed, duration: duration, root: root, tmp: tmp, image: filepath.Join(tmp, "image"), rec: &recorder{}, scenarios: map[string]int{}}
	var srv *httptest.Server
	cleanup := func() {
		if srv != nil {
			srv.Close()
		}
		_ = os.RemoveAll(tmp)
	}
	fail := func(err error) (*soak, func(), error) { cleanup(); return nil, nil, err }
	bins, err := testenv.Build(filepath.Join(tmp, "bin"), "refactord", "pharo-sim")
	if err != nil {
		return fail(err)
	}
	s.refactordBin, s.simBin = bins["refactord"], bins["pharo-sim"]
	if err := testenv.CopyTree(filepath.Join(root, "examples", "sample-image"), s.image); err != nil {
		return fail(err)
	}
	if s.initial, err = imageSources(s.image); err != nil {
		return fail(err)
	}
	if s.spec, err = loadSpec(); err != nil {
		return fail(err)
	}
	if s.addr, err = testenv.FreeAddr(); err != nil {
		return fail(err)
	}
	s.fake = &testenv.FakeGemini{}
	s.model = &modelRecorder{fake: s.fake, rec: s.rec, served: map[string]int{}}
	srv = httptest.NewServer(s.model)
	s.modelURL = srv.URL
	s.load = &http.Client{Timeout: 2 * time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: (clients + loadClients) * 2}}
	s.control = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	return s, cleanup, nil
}

// drive runs the soak: start, load with faults, the final readings.
func (s *soak) drive(ctx context.Context) error {
	in, err := s.startService()
	if err != nil {
		return err
	}
	s.cur = in
	defer func() {
		_ = s.cur.svc.Signal(syscall.SIGTERM)
		s.cur.waitExit(20 * time.Second)
	}()
	if err := s.settle(ctx, s.step.Add(1), "start", time.Time{}); err != nil {
		return err
	}

	loadCtx, endLoad := context.WithTimeout(ctx, s.duration)
	defer endLoad()
	var wg sync.WaitGroup
	errs := make(chan error, 1)
	for c := range clients {
		wg.Add(1)
		go func() { defer wg.Done(); s.client(ctx, loadCtx.Done(), c) }()
	}
	for c := range loadClients {
		wg.Add(1)
		go func() { defer wg.Done(); s.loadClient(ctx, loadCtx.Done(), c) }()
	}
	s.rec.add(func(h *History) { h.LoadFrom = time.Now() })
	wg.Add(2)
	go func() { defer wg.Done(); s.probeHealth(loadCtx) }()
	go func() {
		defer wg.Done()
		if err := s.injectFaults(ctx, loadCtx.Done()); err != nil {
			errs <- err
			endLoad()
		}
	}()
	wg.Wait()
	s.rec.add(func(h *History) { h.LoadTo = time.Now() })
	select {
	case err := <-errs:
		return err
	default:
	}
	if err := ctx.Err(); err != nil {
		return err
	}

	// The load has ended: let the last run finish, close every client
	// connection, read the resources, then stop and start refactord once
	// more and read the rows and the image.
	if err := s.waitIdle(ctx, 2*time.Minute); err != nil {
		return err
	}
	s.load.CloseIdleConnections()
	time.Sleep(2 * time.Second)
	final, err := s.resources(ctx, s.cur.svc.PID())
	if err != nil {
		return fmt.Errorf("reading the final resources: %w", err)
	}
	s.rec.add(func(h *History) { h.Final = final })
	return s.restart(ctx, s.step.Add(1), "refactord_sigterm", syscall.SIGTERM, "end")
}

// settle is what follows every start: a checkpoint, a warm-up run, the
// baseline of the instance's resources.
func (s *soak) settle(ctx context.Context, step int64, why string, restartedAt time.Time) error {
	if err := s.checkpoint(ctx, step, why, restartedAt); err != nil {
		return err
	}
	if why == "end" {
		return nil
	}
	rng := rand.New(rand.NewPCG(uint64(s.seed), uint64(step)))
	for range 2 {
		body, _ := json.Marshal(s.scriptRun(rng))
		s.exchange(ctx, s.step.Add(1), -1, call{kind: "warm_up", method: http.MethodPost, path: "/api/v1/refactor", body: body})
	}
	if err := s.waitIdle(ctx, time.Minute); err != nil {
		return err
	}
	s.load.CloseIdleConnections()
	time.Sleep(500 * time.Millisecond)
	base, err := s.resources(ctx, s.cur.svc.PID())
	if err != nil {
		return fmt.Errorf("reading the baseline resources: %w", err)
	}
	s.rec.add(func(h *History) { h.Baseline = base })
	return nil
}

// client does random actions until the load ends; an action under way
// then completes (ctx cuts it only when the soak is interrupted).
func (s *soak) client(ctx context.Context, until <-chan struct{}, c int) {
	rng := rand.New(rand.NewPCG(uint64(s.seed), uint64(c+1)))
	all := actions()
	total := 0
	for _, a := range all {
		total += a.weight
	}
	for !closed(until) && ctx.Err() == nil {
		n := rng.IntN(total)
		a := all[0]
		for _, cand := range all {
			if n < cand.weight {
				a = cand
				break
			}
			n -= cand.weight
		}
		if a.exclusive {
			s.quiet.Lock()
		} else {
			s.quiet.RLock()
		}
		if !closed(until) {
			a.do(s, ctx, rng, s.step.Add(1), c)
		}
		if a.exclusive {
			s.quiet.Unlock()
		} else {
			s.quiet.RUnlock()
		}
		time.Sleep(time.Duration(rng.IntN(100)) * time.Millisecond)
	}
}

func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// probeHealth GETs /health every quarter second until ctx ends; every
// probe that does not answer 200 is recorded.
func (s *soak) probeHealth(ctx context.Context) {
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		resp, err := client.Get(s.url() + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				err = fmt.Errorf("/health answered %d", resp.StatusCode)
			}
		}
		s.rec.add(func(h *History) { h.HealthProbes++ })
		if err != nil && ctx.Err() == nil {
			s.rec.health(HealthProbe{Step: s.step.Load(), At: time.Now(), Err: err.Error()})
		}
	}
}

// injectFaults kills pharo-sim, or kills or stops refactord and starts
// it again, at random moments until the load ends (a restart under way
// then completes). Restarts stop when 60% of the soak has passed, so that
// the last refactord lives through a long stretch of load before its
// resources are compared with its baseline; quiet checkpoints take their
// turns.
func (s *soak) injectFaults(ctx context.Context, until <-chan struct{}) error {
	rng := rand.New(rand.NewPCG(uint64(s.seed), 0))
	began, restarted := time.Now(), 0
	for {
		select {
		case <-until:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(3000+rng.IntN(7000)) * time.Millisecond):
		}
		step := s.step.Add(1)
		restarts := time.Since(began) < s.duration*6/10
		switch n := rng.IntN(4); {
		case n < 2:
			s.killSim(ctx, step)
		case !restarts:
			if err := s.quietCheckpoint(ctx, step); err != nil {
				return err
			}
		default:
			// Kills and graceful stops take turns, so that both are many.
			kind, sig := "refactord_sigkill", syscall.SIGKILL
			if restarted%2 == 1 {
				kind, sig = "refactord_sigterm", syscall.SIGTERM
			}
			restarted++
			if err := s.restart(ctx, step, kind, sig, "restart after "+kind); err != nil {
				return err
			}
		}
	}
}

// quietCheckpoint holds the clients off, lets the run in flight end and
// reads the rows and the image, with no restart.
func (s *soak) quietCheckpoint(ctx context.Context, step int64) error {
	s.quiet.Lock()
	defer s.quiet.Unlock()
	return s.checkpoint(ctx, step, "quiet moment", time.Time{})
}

// killSim kills pharo-sim where refactord said it runs; refactord must
// notice and start it again.
func (s *soak) killSim(ctx context.Context, step int64) {
	var h struct {
		MCP struct {
			PID int `json:"pid"`
		} `json:"mcp"`
	}
	if s.get(ctx, "/health", &h) != nil || h.MCP.PID <= 0 {
		return
	}
	if syscall.Kill(h.MCP.PID, syscall.SIGKILL) == nil {
		s.rec.fault("pharo_sim_sigkill", step)
	}
}

// restart signals refactord while the clients go on (so that the signal
// lands mid-run), then holds them off, starts it again and settles.
func (s *soak) restart(ctx context.Context, step int64, kind string, sig syscall.Signal, why string) error {
	o := Outage{Kind: kind, Step: step, From: time.Now()}
	if sig == syscall.SIGTERM {
		o.Grace = shutdownGrace + 2*time.Second // and the time to write the answers
	}
	s.rec.fault(kind, step)
	if err := s.cur.svc.Signal(sig); err != nil {
		return fmt.Errorf("%s: %w", kind, err)
	}
	// New actions wait from now on; those in flight end with the process
	// (or, on SIGTERM, with its graceful shutdown).
	s.quiet.Lock()
	defer s.quiet.Unlock()
	s.cur.waitExit(20 * time.Second)
	restartedAt := time.Now()
	in, err := s.startService()
	if err != nil {
		return fmt.Errorf("starting refactord again after %s: %w", kind, err)
	}
	s.cur = in
	o.To, o.ReadyAgain = time.Now(), true
	s.rec.outage(o)
	return s.settle(ctx, step, why, restartedAt)
}
