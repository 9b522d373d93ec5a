package main

import (
	"fmt"
	"net/http"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharo-refactor/internal/testenv"
)

// workerPool is n refactord workers, each with its own copy of the sample
// image, sharing one real PostgreSQL database (DATABASE_URL).
type workerPool struct {
	pg      *testenv.Postgres
	url     string
	workers []*service
	dirs    []string
}

func startPool(t *testing.T, n int, script testenv.Script, env ...string) *workerPool {
	t.Helper()
	pg := testenv.StartPostgres(t)
	p := &workerPool{pg: pg, url: pg.NewDatabase(t)}
	for i := range n {
		dir, base := imageEnv(t, script)
		all := append(base, "DATABASE_URL="+p.url, fmt.Sprintf("WORKER_ID=w%d", i+1))
		p.workers = append(p.workers, start(t, dir, append(all, env...)...))
		p.dirs = append(p.dirs, dir)
	}
	return p
}

// byWorker is the worker named id.
func (p *workerPool) byWorker(id string) (int, *service) {
	for i, w := range p.workers {
		if fmt.Sprintf("w%d", i+1) == id {
			return i, w
		}
	}
	return -1, nil
}

const dryRunSum = `{"class_name": "Calculator", "method_name": "sum:with:", "dry_run": true}`

// TestPoolRunsConcurrentPostsInOrderOfArrival: posts sent at once to one
// instance of three all complete, spread over the workers, taken oldest
// first; the history from another instance lists every run, each naming
// its worker and image; /metrics shows the queue.
func TestPoolRunsConcurrentPostsInOrderOfArrival(t *testing.T) {
	p := startPool(t, 3, approvesSum(answerTheSum, 500*time.Millisecond))
	front := p.workers[0]
	const runs = 7
	ids := make([]string, runs)
	statuses := make([]int, runs)
	var wg sync.WaitGroup
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Duration(i) * 30 * time.Millisecond) // an order of arrival
			resp, out := front.send(http.MethodPost, "/api/v1/refactor", dryRunSum, "", map[string]string{"Content-Type": "application/json"})
			statuses[i] = resp.StatusCode
			ids[i] = resp.Header.Get("X-Refactoring-ID")
			_ = out
		}()
	}
	wg.Wait()
	for i := range runs {
		assert.Equal(t, http.StatusOK, statuses[i], "run %d completes", i)
	}

	history := p.workers[2]
	resp, out := history.send(http.MethodGet, "/api/v1/refactorings?limit=100", "", "", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	listed := map[string]map[string]any{}
	for _, r := range out["runs"].([]any) {
		row := r.(map[string]any)
		listed[row["id"].(string)] = row
	}
	workers := map[string]int{}
	type taken struct{ created, started string }
	var order []taken
	for _, id := range ids {
		row, ok := listed[id]
		require.True(t, ok, "the history of another instance lists run %s", id)
		assert.Equal(t, "proposed", row["status"])
		assert.NotEmpty(t, row["image"], "the row names its image")
		workers[row["worker"].(string)]++
		order = append(order, taken{row["created_at"].(string), row["started_at"].(string)})
	}
	assert.GreaterOrEqual(t, len(workers), 2, "the runs are spread over the workers: %v", workers)
	sort.Slice(order, func(i, j int) bool { return order[i].created < order[j].created })
	for i := 1; i < len(order); i++ {
		assert.LessOrEqual(t, order[i-1].started, order[i].started, "taken in order of arrival: %v", order)
	}

	for w := range workers {
		resp, out := history.send(http.MethodGet, "/api/v1/refactorings?worker="+w, "", "", nil)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Len(t, out["runs"], workers[w], "worker=%s filters the history", w)
	}
	metrics, err := http.Get(history.URL + "/metrics")
	require.NoError(t, err)
	defer metrics.Body.Close()
	body := readAll(t, metrics)
	depth, err := testenv.Metric(body, "refactord_queue_depth")
	require.NoError(t, err)
	assert.Equal(t, 0.0, depth, "nothing waits any more")
}

func readAll(t *testing.T, resp *http.Response) []byte {
	t.Helper()
	var b []byte
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		b = append(b, buf[:n]...)
		if err != nil {
			return b
		}
	}
}

// TestPoolRevertRunsOnTheReleasingWorker: a release into one worker's
// image is reverted by that worker, whichever instance the revert is
// posted to.
func TestPoolRevertRunsOnTheReleasingWorker(t *testing.T) {
	p := startPool(t, 3, approvesSum(answerTheSum, 0))
	resp, out := p.workers[0].send(http.MethodPost, "/api/v1/refactor", sumRequest, "", map[string]string{"Content-Type": "application/json"})
	require.Equal(t, http.StatusOK, resp.StatusCode, "%v", out)
	id := out["id"].(string)
	row := p.workers[0].row(id)
	require.Equal(t, "released", row["status"])
	at, releaser := p.byWorker(row["worker"].(string))
	require.NotNil(t, releaser)
	assert.Contains(t, string(mustRead(t, calculatorFile(p.dirs[at]))), `"Answer the sum"`, "the releasing worker's image holds it")

	other := p.workers[(at+1)%3]
	resp, out = other.send(http.MethodPost, "/api/v1/refactorings/"+id+"/revert", "", "", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%v", out)
	assert.Equal(t, row["worker"], out["worker"], "the revert ran on the releasing worker")
	assert.NotContains(t, string(mustRead(t, calculatorFile(p.dirs[at]))), `"Answer the sum"`, "the original is back in that image")
	assert.Equal(t, "reverted", other.row(id)["status"])
}

// the data directory of a worker (its image's parent).
func imageOf(dir string) string { return filepath.Join(dir, "image") }
