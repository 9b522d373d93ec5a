package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	refactor "pharo-refactor"
	"pharo-refactor/internal/testenv"
	"pharo-refactor/wire"
)

// The pool scenario (DATABASE_URL): poolRuns runs of a scripted model whose
// every call takes poolLatency, sent at once to one instance of a pool of 1
// and of 3 workers on this machine, each worker with its own image; then
// the queue's cost on an idle pool, against the single image (SQLite).
const (
	poolRuns     = 30
	poolLatency  = 150 * time.Millisecond
	idleRuns     = 40
	idleWarmup   = 5
	poolRunLimit = 5 * time.Minute
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
	w, _ := summarize(three.waits)
	return []figure{
		{"pool_1_worker_s", round(one.elapsed.Seconds(), 2), "s", fmt.Sprintf("%d dry runs posted at once to a pool of 1, model calls %s each", poolRuns, poolLatency)},
		{"pool_3_workers_s", round(three.elapsed.Seconds(), 2), "s", fmt.Sprintf("the same on a pool of 3 (one machine), runs per worker %v", three.perWorker)},
		{"pool_speedup_3_vs_1", round(ratio, 2), "x", "goal ≥ 2.7"},
		{"pool_queue_wait_p50_ms", millis(w.P50), "ms", "3 workers: started_at − created_at of each run (its time in the queue)"},
		{"pool_queue_wait_p99_ms", millis(w.P99), "ms", fmt.Sprintf("max %.2f ms", millis(w.Max))},
		{"pool_idle_added_p50_ms", millis(idle.pool.P50 - idle.single.P50), "ms",
			fmt.Sprintf("goal ≤ 5: %d sequential dry runs with an instant model, p50 %.2f ms on an idle pool of 1 vs %.2f ms on one image (SQLite)",
				idle.pool.N, millis(idle.pool.P50), millis(idle.single.P50))},
		{"pool_idle_queue_wait_p50_ms", millis(idle.wait.P50), "ms", fmt.Sprintf("idle pool: started_at − created_at (ms precision), p99 %.2f ms", millis(idle.wait.P99))},
		{"pool_db_share_of_overhead", round((idle.pool.P50-idle.single.P50).Seconds()/idle.pool.P50.Seconds(), 3), "",
			"the share of an idle pool's run overhead (p50) the database and queue add over one image"},
	}, nil
}

type burst struct {
	elapsed   time.Duration
	waits     samples
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

type idleFigures struct{ pool, single, wait summary }

// idleOverhead times sequential dry runs with an instant model on an idle
// pool of one worker and on one image without DATABASE_URL.
func idleOverhead(e env, pg *testenv.Postgres) (idleFigures, error) {
	url, err := pg.CreateDatabase()
	if err != nil {
		return idleFigures{}, err
	}
	script, err := poolScript(0).Env(e.tmp, true)
	if err != nil {
		return idleFigures{}, err
	}
	var out idleFigures
	for _, c := range []struct {
		name string
		vars []string
		into *summary
	}{
		{"idle-pool", append(append([]string{}, script...), "DATABASE_URL="+url, "WORKER_ID=idle"), &out.pool},
		{"idle-single", script, &out.single},
	} {
		svc, err := startService(e, c.name, c.vars)
		if err != nil {
			return idleFigures{}, err
		}
		lat, ids, err := sequentialRuns(e.ctx, svc)
		if err == nil && c.into == &out.pool {
			out.wait, err = queueWaits(e.ctx, svc, ids)
		}
		svc.stop()
		if err != nil {
			return idleFigures{}, fmt.Errorf("%s: %w", c.name, err)
		}
		*c.into, _ = summarize(lat)
	}
	return out, nil
}

func sequentialRuns(ctx context.Context, svc *service) (samples, []string, error) {
	client := &http.Client{Timeout: time.Minute}
	var lat samples
	var ids []string
	for i := range idleWarmup + idleRuns {
		began := time.Now()
		resp, body, err := post(ctx, client, svc.URL+"/api/v1/refactor", dryRunBody())
		if err != nil {
			return nil, nil, err
		}
		if resp.StatusCode != http.StatusOK {
			return nil, nil, fmt.Errorf("status %d: %s\n%s", resp.StatusCode, clip(body, 300), svc.logTail())
		}
		if i >= idleWarmup {
			lat = append(lat, time.Since(began))
			ids = append(ids, resp.Header.Get("X-Refactoring-ID"))
		}
	}
	return lat, ids, nil
}

// queueWaits is how long each run waited before a worker took it.
func queueWaits(ctx context.Context, svc *service, ids []string) (summary, error) {
	client := &http.Client{Timeout: time.Minute}
	var waits samples
	for _, id := range ids {
		row, err := getRow(ctx, client, svc.URL, id)
		if err != nil {
			return summary{}, err
		}
		if row.StartedAt == nil {
			return summary{}, fmt.Errorf("run %s has no started_at", id)
		}
		waits = append(waits, row.StartedAt.Sub(row.CreatedAt))
	}
	s, _ := summarize(waits)
	return s, nil
}
