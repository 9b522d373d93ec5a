package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/bench/internal/measure"
	"github.com/pharo-refactor/refactord/internal/testenv"
	"github.com/pharo-refactor/refactord/wire"
)

// The pool scenario (DATABASE_URL): poolRuns runs of a scripted model whose
// every call takes poolLatency, sent at once to one instance of a pool of 1
// and of 3 workers on this machine, each worker with its own image; then
// the queue's cost on an idle pool, against the single image (SQLite).
const (
	poolRuns         = 30
	poolLatency      = 150 * time.Millisecond
	idleRounds       = 7
	idleRunsPerRound = 15
	idleWarmup       = 5
	poolRunLimit     = 5 * time.Minute
)

func poolScript(latency time.Duration) testenv.Script {
	return testenv.Script{"Calculator>>sum:with:": {
		refactor.RoleReviewer:  {testenv.Review().Delayed(latency)},
		refactor.RoleWriter:    {testenv.Code(sumVersions[0]).Delayed(latency)},
		refactor.RoleValidator: {testenv.Approved().Delayed(latency)},
		refactor.RoleRefiner:   {testenv.Code(sumVersions[0]).Delayed(latency)},
	}}
}

func dryRunBody() []byte {
	b, _ := json.Marshal(wire.RefactorRequest{ClassName: "Calculator", MethodName: "sum:with:", DryRun: true})
	return b
}

func poolSuite(e env) ([]figure, error) {
	pg, err := testenv.LaunchPostgres(testenv.PostgresBin())
	if err != nil {
		return nil, err
	}
	defer pg.Close() //nolint:errcheck // the scratch server goes with the bench
	one, err := poolBurst(e, pg, 1)
	if err != nil {
		return nil, err
	}
	three, err := poolBurst(e, pg, 3)
	if err != nil {
		return nil, err
	}
	idle, err := idleOverhead(e, pg)
	if err != nil {
		return nil, err
	}
	ratio := one.elapsed.Seconds() / three.elapsed.Seconds()
	w, _ := measure.Summarize(three.waits)
	return []figure{
		{"pool_1_worker_s", measure.Round(one.elapsed.Seconds(), 2), "s", fmt.Sprintf("%d dry runs posted at once to a pool of 1, model calls %s each", poolRuns, poolLatency)},
		{"pool_3_workers_s", measure.Round(three.elapsed.Seconds(), 2), "s", fmt.Sprintf("the same on a pool of 3 (one machine), runs per worker %v", three.perWorker)},
		{"pool_speedup_3_vs_1", measure.Round(ratio, 2), "x", "goal ≥ 2.7"},
		{"pool_queue_wait_p50_ms", measure.Millis(w.P50), "ms", "3 workers: started_at − created_at of each run (its time in the queue)"},
		{"pool_queue_wait_p99_ms", measure.Millis(w.P99), "ms", fmt.Sprintf("max %.2f ms", measure.Millis(w.Max))},
		{"pool_idle_added_p50_ms", measure.Millis(idle.median()), "ms",
			fmt.Sprintf("goal ≤ 5: median over %d rounds (min %.2f, max %.2f) of p50(pool) − p50(one image), each round %d sequential dry runs with an instant model on each, interleaved, on an idle pool of 1 and on one image (SQLite) up at once; over all rounds p50 %.2f ms vs %.2f ms",
				len(idle.added), measure.Millis(slices.Min(idle.added)), measure.Millis(slices.Max(idle.added)), idleRunsPerRound, measure.Millis(idle.pool.P50), measure.Millis(idle.single.P50))},
		{"pool_idle_queue_wait_p50_ms", measure.Millis(idle.wait.P50), "ms", fmt.Sprintf("idle pool: started_at − created_at (ms precision), p99 %.2f ms", measure.Millis(idle.wait.P99))},
		{"pool_db_share_of_overhead", measure.Round(idle.median().Seconds()/idle.pool.P50.Seconds(), 3), "",
			"the share of an idle pool's run overhead (p50) the database and queue add over one image"},
	}, nil
}

type burst struct {
	elapsed   time.Duration
	waits     measure.Samples
	perWorker map[string]int
}

// poolBurst starts n workers on a new database and posts poolRuns dry
// runs at once to the first one.
func poolBurst(e env, pg *testenv.Postgres, n int) (burst, error) {
	url, err := pg.CreateDatabase()
	if err != nil {
		return burst{}, err
	}
	script, err := poolScript(poolLatency).Env(e.tmp, true)
	if err != nil {
		return burst{}, err
	}
	var workers []*service
	defer func() {
		for _, w := range workers {
			w.stop()
		}
	}()
	for i := range n {
		w, err := startService(e, fmt.Sprintf("pool%d-w%d", n, i+1), append(script, "DATABASE_URL="+url, fmt.Sprintf("WORKER_ID=w%d", i+1)))
		if err != nil {
			return burst{}, err
		}
		workers = append(workers, w)
	}
	client := &http.Client{Timeout: poolRunLimit}
	ctx, cancel := context.WithTimeout(e.ctx, poolRunLimit)
	defer cancel()
	ids := make([]string, poolRuns)
	errs := make([]error, poolRuns)
	began := time.Now()
	var wg sync.WaitGroup
	for i := range poolRuns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, body, err := post(ctx, client, workers[0].URL+"/api/v1/refactor", dryRunBody())
			if err == nil && resp.StatusCode != http.StatusOK {
				err = fmt.Errorf("status %d: %s", resp.StatusCode, clip(body, 300))
			}
			errs[i] = err
			if resp != nil {
				ids[i] = resp.Header.Get("X-Refactoring-ID")
			}
		}()
	}
	wg.Wait()
	b := burst{elapsed: time.Since(began), perWorker: map[string]int{}}
	if err := errors.Join(errs...); err != nil {
		return burst{}, fmt.Errorf("pool of %d: %w\n%s", n, err, workers[0].logTail())
	}
	for _, id := range ids {
		row, err := getRow(ctx, client, workers[0].URL, id)
		if err != nil {
			return burst{}, err
		}
		if row.StartedAt == nil {
			return burst{}, fmt.Errorf("run %s has no started_at", id)
		}
		b.waits = append(b.waits, row.StartedAt.Sub(row.CreatedAt))
		b.perWorker[row.Worker]++
	}
	return b, nil
}

func getRow(ctx context.Context, client *http.Client, base, id string) (refactor.Run, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/v1/refactorings/"+id, nil)
	if err != nil {
		return refactor.Run{}, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return refactor.Run{}, err
	}
	defer resp.Body.Close()
	var row refactor.Run
	if err := json.NewDecoder(resp.Body).Decode(&row); err != nil {
		return refactor.Run{}, fmt.Errorf("run %s: %w", id, err)
	}
	return row, nil
}

type idleFigures struct {
	pool, single, wait measure.Summary
	// added is p50(pool) − p50(single) of each round, in round order.
	added []time.Duration
}

// median of the rounds' added p50 (the lower middle one of an even count).
func (f idleFigures) median() time.Duration {
	s, _ := measure.Summarize(f.added)
	return s.P50
}

// idleOverhead times sequential dry runs with an instant model on an idle
// pool of one worker and on one image without DATABASE_URL, both up at
// once and their runs interleaved (pool, single, pool, …; the order turned
// every round), so that the machine's load — 2 shared cores — falls on
// both alike. Each round compares the p50 of its own runs; the figure is
// the median over idleRounds rounds.
func idleOverhead(e env, pg *testenv.Postgres) (idleFigures, error) {
	url, err := pg.CreateDatabase()
	if err != nil {
		return idleFigures{}, err
	}
	script, err := poolScript(0).Env(e.tmp, true)
	if err != nil {
		return idleFigures{}, err
	}
	pool, err := startService(e, "idle-pool", append(append([]string{}, script...), "DATABASE_URL="+url, "WORKER_ID=idle"))
	if err != nil {
		return idleFigures{}, err
	}
	defer pool.stop()
	single, err := startService(e, "idle-single", script)
	if err != nil {
		return idleFigures{}, err
	}
	defer single.stop()
	client := &http.Client{Timeout: time.Minute}
	for range idleWarmup {
		for _, svc := range []*service{pool, single} {
			if _, _, err := timedRun(e.ctx, client, svc); err != nil {
				return idleFigures{}, err
			}
		}
	}
	var out idleFigures
	var poolAll, singleAll measure.Samples
	var ids []string
	for round := range idleRounds {
		order := []*service{pool, single}
		if round%2 == 1 {
			order = []*service{single, pool}
		}
		var poolLat, singleLat measure.Samples
		for range idleRunsPerRound {
			for _, svc := range order {
				lat, id, err := timedRun(e.ctx, client, svc)
				if err != nil {
					return idleFigures{}, err
				}
				if svc == pool {
					poolLat, ids = append(poolLat, lat), append(ids, id)
				} else {
					singleLat = append(singleLat, lat)
				}
			}
		}
		p, _ := measure.Summarize(poolLat)
		s, _ := measure.Summarize(singleLat)
		out.added = append(out.added, p.P50-s.P50)
		poolAll, singleAll = append(poolAll, poolLat...), append(singleAll, singleLat...)
	}
	out.pool, _ = measure.Summarize(poolAll)
	out.single, _ = measure.Summarize(singleAll)
	out.wait, err = queueWaits(e.ctx, pool, ids)
	return out, err
}

// timedRun posts one dry run and answers how long its answer took.
func timedRun(ctx context.Context, client *http.Client, svc *service) (time.Duration, string, error) {
	began := time.Now()
	resp, body, err := post(ctx, client, svc.URL+"/api/v1/refactor", dryRunBody())
	if err != nil {
		return 0, "", err
	}
	if resp.StatusCode != http.StatusOK {
		return 0, "", fmt.Errorf("status %d: %s\n%s", resp.StatusCode, clip(body, 300), svc.logTail())
	}
	return time.Since(began), resp.Header.Get("X-Refactoring-ID"), nil
}

// queueWaits is how long each run waited before a worker took it.
func queueWaits(ctx context.Context, svc *service, ids []string) (measure.Summary, error) {
	client := &http.Client{Timeout: time.Minute}
	var waits measure.Samples
	for _, id := range ids {
		row, err := getRow(ctx, client, svc.URL, id)
		if err != nil {
			return measure.Summary{}, err
		}
		if row.StartedAt == nil {
			return measure.Summary{}, fmt.Errorf("run %s has no started_at", id)
		}
		waits = append(waits, row.StartedAt.Sub(row.CreatedAt))
	}
	s, _ := measure.Summarize(waits)
	return s, nil
}
