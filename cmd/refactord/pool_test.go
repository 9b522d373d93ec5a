package main

import (
	"bufio"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/internal/testenv"
)

// workerPool is n refactord workers, each with its own copy of the sample
// image, sharing one real PostgreSQL database (DATABASE_URL).
type workerPool struct {
	pg      *testenv.Postgres
	url     string
	workers []*service
	dirs    []string
	envs    [][]string
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
		assert.NotNil(t, row["models"], "the row names the models, though the queue opened it")
		workers[row["worker"].(string)]++
		order = append(order, taken{row["created_at"].(string), row["started_at"].(string)})
	}
	assert.GreaterOrEqual(t, len(workers), 2, "the runs are spread over the workers: %v", workers)
	sort.Slice(order, func(i, j int) bool { return order[i].created < order[j].created })
	// Oldest first: no run waits while a younger one is taken. Workers that
	// fetch in the same moment stamp their rows in either order, so two
	// runs taken in one round may be stamped a little apart the other way;
	// a younger run taken while an older one waited for a whole run (three
	// model calls of 500 ms) would be stamped later by far more than one
	// model call.
	const sameRound = 500 * time.Millisecond
	for i := range order {
		for j := i + 1; j < len(order); j++ {
			older, younger := stamp(t, order[i].started), stamp(t, order[j].started)
			assert.False(t, older.After(younger.Add(sameRound)), "taken in order of arrival: %v", order)
		}
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

// addWorker starts one more worker of p.
func (p *workerPool) addWorker(t *testing.T, script testenv.Script, env ...string) *service {
	t.Helper()
	dir, base := imageEnv(t, script)
	all := append(base, "DATABASE_URL="+p.url, fmt.Sprintf("WORKER_ID=w%d", len(p.workers)+1))
	all = append(all, env...)
	s := start(t, dir, all...)
	p.workers = append(p.workers, s)
	p.dirs = append(p.dirs, dir)
	p.envs = append(p.envs, all)
	return s
}

// restart starts worker i again, on the same image, as the same worker.
func (p *workerPool) restart(t *testing.T, i int) *service {
	t.Helper()
	p.workers[i] = start(t, p.dirs[i], p.envs[i]...)
	return p.workers[i]
}

func emptyPool(t *testing.T) *workerPool {
	t.Helper()
	pg := testenv.StartPostgres(t)
	return &workerPool{pg: pg, url: pg.NewDatabase(t)}
}

var jsonHeader = map[string]string{"Content-Type": "application/json"}

// busyFront starts the pool's first worker and gives it a dry run of its
// own, held by script's delays, so that the next runs go to other workers.
func (p *workerPool) busyFront(t *testing.T, script testenv.Script, env ...string) (*service, map[string]any) {
	t.Helper()
	front := p.addWorker(t, script, env...)
	resp, blocker := front.send(http.MethodPost, "/api/v1/refactor", dryRunSum, "", asyncHeader)
	require.Equal(t, http.StatusAccepted, resp.StatusCode, "%v", blocker)
	waitStatus(t, front, blocker["id"].(string), 10*time.Second, "running")
	return front, blocker
}

// answered is a POST's answer.
type answered struct {
	status int
	body   map[string]any
}

// waitRunning waits until a running run's row (listed by s) is one that
// accept takes, and answers it.
func waitRunning(t *testing.T, s *service, accept func(row map[string]any) bool) map[string]any {
	t.Helper()
	var found map[string]any
	require.Eventually(t, func() bool {
		_, out := s.send(http.MethodGet, "/api/v1/refactorings?outcome=running", "", "", nil)
		for _, r := range out["runs"].([]any) {
			if row := r.(map[string]any); accept(row) {
				found = row
				return true
			}
		}
		return false
	}, 20*time.Second, 20*time.Millisecond)
	return found
}

// await waits for a background POST's answer.
func await(t *testing.T, done <-chan answered, limit time.Duration) answered {
	t.Helper()
	select {
	case got := <-done:
		return got
	case <-time.After(limit):
		t.Fatal("the caller never got an answer")
		return answered{}
	}
}

// postInBackground posts body to s and delivers the answer when it comes.
func postInBackground(s *service, body string) <-chan answered {
	done := make(chan answered, 1)
	go func() {
		resp, out := s.send(http.MethodPost, "/api/v1/refactor", body, "", jsonHeader)
		done <- answered{resp.StatusCode, out}
	}()
	return done
}

var asyncHeader = map[string]string{"Content-Type": "application/json", "Prefer": "respond-async"}

// waitStatus waits until run id's row (read from s) has one of statuses.
func waitStatus(t *testing.T, s *service, id string, limit time.Duration, statuses ...string) map[string]any {
	t.Helper()
	var row map[string]any
	require.Eventually(t, func() bool {
		row = s.row(id)
		for _, st := range statuses {
			if row["status"] == st {
				return true
			}
		}
		return false
	}, limit, 20*time.Millisecond, "run %s never reached %v", id, statuses)
	return row
}

// TestPoolQueuesAndRefusesOnlyPastQueueMax: with one worker busy, a
// stream starts with its place in the queue, respond-async answers 202
// with the row queued, and only past QUEUE_MAX is a POST refused 503 busy
// with Retry-After.
func TestPoolQueuesAndRefusesOnlyPastQueueMax(t *testing.T) {
	p := emptyPool(t)
	w := p.addWorker(t, approvesSum(answerTheSum, 1500*time.Millisecond), "QUEUE_MAX=2")

	resp, first := w.send(http.MethodPost, "/api/v1/refactor", dryRunSum, "", asyncHeader)
	require.Equal(t, http.StatusAccepted, resp.StatusCode, "%v", first)
	assert.Contains(t, []any{"queued", "running"}, first["status"])
	waitStatus(t, w, first["id"].(string), 10*time.Second, "running")

	resp, second := w.send(http.MethodPost, "/api/v1/refactor", dryRunSum, "", asyncHeader)
	require.Equal(t, http.StatusAccepted, resp.StatusCode, "%v", second)
	assert.Equal(t, "queued", second["status"], "the worker is busy: the run waits")
	assert.Equal(t, "", second["worker"], "no worker has it yet")
	assert.Nil(t, second["started_at"])

	events := make(chan []string, 1)
	go func() {
		req, err := http.NewRequest(http.MethodPost, w.URL+"/api/v1/refactor", strings.NewReader(dryRunSum))
		if err != nil {
			events <- nil
			return
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			events <- nil
			return
		}
		defer resp.Body.Close()
		events <- sseEvents(resp)
	}()
	require.Eventually(t, func() bool {
		_, out := w.send(http.MethodGet, "/api/v1/refactorings?outcome=queued", "", "", nil)
		return len(out["runs"].([]any)) == 2
	}, 10*time.Second, 20*time.Millisecond, "the stream's run is queued too")

	resp, refused := w.send(http.MethodPost, "/api/v1/refactor", dryRunSum, "", jsonHeader)
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, "%v", refused)
	assert.Equal(t, "busy", refused["code"])
	assert.NotEmpty(t, resp.Header.Get("Retry-After"))

	resp, canceled := w.send(http.MethodPost, "/api/v1/refactorings/"+second["id"].(string)+"/cancel", "", "", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%v", canceled)
	assert.Equal(t, "canceled", canceled["status"], "a queued run leaves the queue at once")
	assert.Equal(t, "", canceled["worker"], "no worker ever had it")

	var got []string
	select {
	case got = <-events:
	case <-time.After(60 * time.Second):
		t.Fatal("the stream did not end")
	}
	require.GreaterOrEqual(t, len(got), 3, "%v", got)
	assert.Equal(t, "accepted", eventName(got[0]))
	assert.Equal(t, "queued", eventName(got[1]), "the stream starts with the run's place in the queue")
	assert.Contains(t, got[1], `"position":2`, "two runs wait before it is taken: the second one and this one")
	assert.Equal(t, "result", eventName(got[len(got)-1]), "%v", got)
	assert.Contains(t, strings.Join(got, "\n"), "event: stage", "the worker's events reach the caller")
}

// sseEvents reads a whole event stream: each event as its lines.
func sseEvents(resp *http.Response) []string {
	var events []string
	var cur []string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			if len(cur) > 0 {
				events = append(events, strings.Join(cur, "\n"))
			}
			cur = nil
			continue
		}
		if !strings.HasPrefix(line, ":") {
			cur = append(cur, line)
		}
	}
	return events
}

func eventName(event string) string {
	for _, line := range strings.Split(event, "\n") {
		if name, ok := strings.CutPrefix(line, "event: "); ok {
			return name
		}
	}
	return ""
}

// TestPoolWorkerKilledMidRun: a worker killed with SIGKILL while running
// is noticed within the lease; its run, whose release had not begun, is
// run again by another worker, and its caller, waiting on a third
// instance, gets the outcome. No row stays running.
func TestPoolWorkerKilledMidRun(t *testing.T) {
	script := approvesSum(answerTheSum, 3*time.Second)
	p := emptyPool(t)
	front, blocker := p.busyFront(t, script, "POOL_LEASE=2s")
	p.addWorker(t, script, "POOL_LEASE=2s")
	p.addWorker(t, script, "POOL_LEASE=2s")

	done := postInBackground(front, dryRunSum)
	row := waitRunning(t, front, func(row map[string]any) bool { return row["worker"] != "w1" })
	id, victim := row["id"].(string), row["worker"].(string)
	_, killed := p.byWorker(victim)
	require.NoError(t, syscall.Kill(-killed.PID(), syscall.SIGKILL), "SIGKILL the worker and its image")

	got := await(t, done, 60*time.Second)
	require.Equal(t, http.StatusOK, got.status, "the run completed on another worker: %v", got.body)
	assert.NotEqual(t, victim, got.body["worker"], "not on the killed worker")
	final := front.row(id)
	assert.Equal(t, "proposed", final["status"])
	assert.NotEqual(t, victim, final["worker"])

	waitStatus(t, front, blocker["id"].(string), 20*time.Second, "proposed")
	_, out := front.send(http.MethodGet, "/api/v1/refactorings?limit=100", "", "", nil)
	for _, r := range out["runs"].([]any) {
		row := r.(map[string]any)
		assert.NotContains(t, []any{"running", "queued", "releasing"}, row["status"], "no row is left in progress: %v", row["id"])
	}
}

// TestPoolSurvivesTheDatabaseRestarting: PostgreSQL stopped during a run
// on a pool of three, for longer than the lease: /ready says 503 naming
// it, a POST is refused 503 store_unavailable with nothing queued; when it
// is back the workers go on by themselves — none takes the others for
// dead for the heartbeats they could not write — the run in flight
// completes once, on the worker that had it, and new runs are taken.
func TestPoolSurvivesTheDatabaseRestarting(t *testing.T) {
	p := startPool(t, 3, approvesSum(answerTheSum, 6*time.Second), "POOL_LEASE=2s")
	w := p.workers[0]
	done := postInBackground(w, dryRunSum)
	row := waitRunning(t, w, func(map[string]any) bool { return true })

	p.pg.Stop(t)
	resp, ready := w.send(http.MethodGet, "/ready", "", "", nil)
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.Contains(t, fmt.Sprint(ready["reasons"]), "PostgreSQL")
	resp, refused := w.send(http.MethodPost, "/api/v1/refactor", dryRunSum, "", jsonHeader)
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, "%v", refused)
	assert.Equal(t, "store_unavailable", refused["code"])
	time.Sleep(3 * time.Second) // longer than the lease: every heartbeat is stale
	p.pg.Start(t)

	got := await(t, done, 60*time.Second)
	assert.Equal(t, http.StatusOK, got.status, "the run in flight completed: %v", got.body)
	assert.Equal(t, row["worker"], got.body["worker"], "on the worker that had it, not run again elsewhere")
	final := w.row(row["id"].(string))
	assert.Equal(t, "proposed", final["status"])
	assert.Empty(t, final["notes"])
	for _, s := range p.workers {
		require.NoError(t, s.WaitFor("/ready", 20*time.Second), "ready again by itself")
	}
	resp, again := w.send(http.MethodPost, "/api/v1/refactor", dryRunSum, "", jsonHeader)
	assert.Equal(t, http.StatusOK, resp.StatusCode, "new runs are taken: %v", again)
	_, out := w.send(http.MethodGet, "/api/v1/refactorings?limit=100", "", "", nil)
	assert.Len(t, out["runs"], 2, "the refused POST left no row")
}

// TestPoolSIGTERMFinishesTheRunAndTakesNoOther: a worker told to stop
// finishes its run and takes no new one; the queued run stays queued and
// another worker takes it.
func TestPoolSIGTERMFinishesTheRunAndTakesNoOther(t *testing.T) {
	script := approvesSum(answerTheSum, 2*time.Second)
	p := emptyPool(t)
	first := p.addWorker(t, script)
	resp, running := first.send(http.MethodPost, "/api/v1/refactor", dryRunSum, "", asyncHeader)
	require.Equal(t, http.StatusAccepted, resp.StatusCode, "%v", running)
	waitStatus(t, first, running["id"].(string), 10*time.Second, "running")
	resp, queued := first.send(http.MethodPost, "/api/v1/refactor", dryRunSum, "", asyncHeader)
	require.Equal(t, http.StatusAccepted, resp.StatusCode, "%v", queued)

	require.NoError(t, first.Signal(syscall.SIGTERM))
	require.NoError(t, first.WaitExit(t, 60*time.Second))

	second := p.addWorker(t, script)
	row := second.row(running["id"].(string))
	assert.Equal(t, "proposed", row["status"], "the run in flight was finished")
	assert.Equal(t, "w1", row["worker"])
	row = waitStatus(t, second, queued["id"].(string), 30*time.Second, "proposed")
	assert.Equal(t, "w2", row["worker"], "the queued run waited for another worker")
}

// TestPoolReleaseInFlightStaysUnsettled: a worker killed during its
// release: its caller, on another instance, hears worker_lost within the
// lease; the row stays releasing (unsettled, with a note) — it is not run
// again, since the image may hold the candidate — until that worker starts
// again and its reconciliation reads its image.
func TestPoolReleaseInFlightStaysUnsettled(t *testing.T) {
	script := approvesSum(answerTheSum, 2*time.Second)
	p := emptyPool(t)
	front, _ := p.busyFront(t, script, "POOL_LEASE=2s")
	releaser := p.addWorker(t, script, "POOL_LEASE=2s", "REFACTORD_HOLD_AT=after_compile:30s")

	done := postInBackground(front, sumRequest)
	require.Eventually(t, func() bool { return strings.Contains(releaser.Log(), "holding the release") }, 30*time.Second, 20*time.Millisecond)
	_, out := front.send(http.MethodGet, "/api/v1/refactorings?outcome=releasing", "", "", nil)
	require.Len(t, out["runs"], 1)
	id := out["runs"].([]any)[0].(map[string]any)["id"].(string)
	require.NoError(t, syscall.Kill(-releaser.PID(), syscall.SIGKILL))

	got := await(t, done, 30*time.Second)
	assert.Equal(t, http.StatusBadGateway, got.status, "%v", got.body)
	assert.Equal(t, "worker_lost", got.body["code"])
	row := front.row(id)
	assert.Equal(t, "releasing", row["status"], "unsettled: nobody guesses what the image holds")
	assert.Contains(t, row["notes"], "stopped answering during the release")
	time.Sleep(3 * time.Second) // more than a lease: it is not queued again
	assert.Equal(t, "releasing", front.row(id)["status"])

	p.restart(t, 1)
	row = waitStatus(t, front, id, 30*time.Second, "released")
	assert.Equal(t, "w2", row["worker"])
	assert.Contains(t, string(mustRead(t, calculatorFile(p.dirs[1]))), `"Answer the sum"`, "the image holds the release")
}

// TestPoolCancelFromAnotherInstance: a run in progress on one worker is
// canceled by a cancel sent to another instance.
func TestPoolCancelFromAnotherInstance(t *testing.T) {
	script := approvesSum(answerTheSum, 5*time.Second)
	p := emptyPool(t)
	front, blocker := p.busyFront(t, script)
	p.addWorker(t, script)

	resp, run := front.send(http.MethodPost, "/api/v1/refactor", dryRunSum, "", asyncHeader)
	require.Equal(t, http.StatusAccepted, resp.StatusCode, "%v", run)
	id := run["id"].(string)
	row := waitStatus(t, front, id, 10*time.Second, "running")
	require.Equal(t, "w2", row["worker"])

	resp, out := front.send(http.MethodPost, "/api/v1/refactorings/"+id+"/cancel", "", "", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%v", out)
	assert.Equal(t, "canceled", out["status"])
	assert.Equal(t, "w2", out["worker"])
	assert.Equal(t, "running", front.row(blocker["id"].(string))["status"], "the other run goes on")
}

// TestPoolRunLostTwiceFails: a run is run again once; when its second
// worker dies too before the release, it fails with worker_lost and
// nothing was compiled.
func TestPoolRunLostTwiceFails(t *testing.T) {
	script := approvesSum(answerTheSum, 10*time.Second)
	p := emptyPool(t)
	front, _ := p.busyFront(t, script, "POOL_LEASE=2s")
	p.addWorker(t, script, "POOL_LEASE=2s")
	p.addWorker(t, script, "POOL_LEASE=2s")
	done := postInBackground(front, dryRunSum)

	var id string
	killed := map[any]bool{"w1": true} // w1 holds its own run
	killRunner := func() string {
		row := waitRunning(t, front, func(row map[string]any) bool {
			return !killed[row["worker"]] && (id == "" || row["id"] == id)
		})
		id = row["id"].(string)
		worker := row["worker"].(string)
		_, s := p.byWorker(worker)
		require.NoError(t, syscall.Kill(-s.PID(), syscall.SIGKILL))
		killed[worker] = true
		return worker
	}
	first := killRunner()
	second := killRunner()
	require.NotEqual(t, first, second, "the run was taken again by another worker")

	got := await(t, done, 30*time.Second)
	assert.Equal(t, http.StatusBadGateway, got.status, "%v", got.body)
	assert.Equal(t, "worker_lost", got.body["code"])
	row := front.row(id)
	assert.Equal(t, "failed", row["status"])
	assert.Equal(t, "worker_lost", row["error_code"])
}

// TestPoolWorkerBackWithinTheLease: a worker killed mid-run that starts
// again before its lease ran out settles its own run (its reconciliation:
// not_released, nothing was compiled), and the caller, waiting on
// another instance, hears worker_lost.
func TestPoolWorkerBackWithinTheLease(t *testing.T) {
	script := approvesSum(answerTheSum, 4*time.Second)
	p := emptyPool(t)
	front, _ := p.busyFront(t, script)
	runner := p.addWorker(t, script)
	done := postInBackground(front, sumRequest)
	id := waitRunning(t, front, func(row map[string]any) bool { return row["worker"] == "w2" })["id"].(string)
	require.NoError(t, syscall.Kill(-runner.PID(), syscall.SIGKILL))
	p.restart(t, 1)

	got := await(t, done, 30*time.Second)
	assert.Equal(t, http.StatusBadGateway, got.status, "%v", got.body)
	assert.Equal(t, "worker_lost", got.body["code"])
	assert.Contains(t, got.body["detail"], "not_released")
	assert.Equal(t, "not_released", front.row(id)["status"])
}

func stamp(t *testing.T, s string) time.Time {
	t.Helper()
	at, err := time.Parse(time.RFC3339Nano, s)
	require.NoError(t, err, "a row's time")
	return at
}
