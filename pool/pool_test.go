package pool_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/agents"
	"github.com/pharo-refactor/refactord/agents/scripted"
	"github.com/pharo-refactor/refactord/internal/testenv"
	"github.com/pharo-refactor/refactord/mcpclient"
	"github.com/pharo-refactor/refactord/pharosim"
	"github.com/pharo-refactor/refactord/pipeline"
	"github.com/pharo-refactor/refactord/pool"
	"github.com/pharo-refactor/refactord/store"
)

// The pool in process, under the race detector: real workers (pharo-sim
// in process, the scripted model, the pipeline) on a real PostgreSQL. The
// end-to-end tests (cmd/refactord/pool_test.go) run the same with
// refactord processes, and the faults.

// worker is one worker of a pool, with its own image.
type worker struct {
	pool  *pool.Pool
	trail *store.Store
	dir   string
}

const answerTheSum = "sum: a with: b\n\t\"Answer the sum\"\n\n\t^ a + b"

func sumScript(delay time.Duration) testenv.Script {
	answers := testenv.ApprovedInRoundOne(answerTheSum)
	answers[refactor.RoleWriter] = []testenv.Reply{testenv.Code(answerTheSum).Delayed(delay)}
	answers[refactor.RoleRefiner] = []testenv.Reply{testenv.Code(answerTheSum)}
	return testenv.Script{"Calculator>>sum:with:": answers}
}

func startWorker(t *testing.T, url, id string, script testenv.Script, opts ...func(*pool.Options)) *worker {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	require.NoError(t, testenv.CopyTree("examples/sample-image", dir))
	sim, err := pharosim.New(pharosim.Options{Dir: dir})
	require.NoError(t, err)
	t.Cleanup(func() { _ = sim.Close() })
	image, err := mcpclient.New(mcpclient.Config{InProcess: sim.MCPServer()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = image.Close() })

	env, err := script.Env(t.TempDir(), true)
	require.NoError(t, err)
	model, err := scripted.Load(modelFile(env))
	require.NoError(t, err)
	roles, err := agents.New(agents.Config{Reviewer: model, Writer: model, Validator: model, Refiner: model})
	require.NoError(t, err)

	trail, err := store.OpenPostgres(ctx, url)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, trail.Close()) })
	runs := pool.NewRuns()
	pipe := pipeline.New(image, roles, pool.Trail{Audit: trail, Worker: id, Runs: runs}, pipeline.Options{Worker: id, Image: dir}, zap.NewNop())
	o := pool.Options{Worker: id, Image: dir, Lease: 5 * time.Second, Runs: runs}
	for _, set := range opts {
		set(&o)
	}
	p, err := pool.Open(ctx, url, trail, pipe, o, zap.NewNop())
	require.NoError(t, err)
	require.NoError(t, p.Work(ctx))
	t.Cleanup(func() {
		stop, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		assert.NoError(t, p.Stop(stop))
	})
	return &worker{pool: p, trail: trail, dir: dir}
}

func modelFile(env []string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "SCRIPTED_MODEL_FILE="); ok {
			return v
		}
	}
	return ""
}

var sum = refactor.MethodRef{Class: "Calculator", Selector: "sum:with:"}

// events records what a caller observes.
type events struct {
	mu   sync.Mutex
	seen []refactor.Event
}

func (e *events) push(ev refactor.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.seen = append(e.seen, ev)
}

func (e *events) all() []refactor.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]refactor.Event{}, e.seen...)
}

func TestRunsQueueAndSpreadOverTheWorkers(t *testing.T) {
	pg := testenv.StartPostgres(t)
	url := pg.NewDatabase(t)
	script := sumScript(300 * time.Millisecond)
	a := startWorker(t, url, "a", script)
	startWorker(t, url, "b", script)

	const runs = 4
	type started struct {
		job    refactor.Job
		events *events
	}
	var jobs []started
	for range runs {
		ev := &events{}
		job, err := a.pool.Start(context.Background(), refactor.Request{Ref: sum, DryRun: true, Observe: ev.push})
		require.NoError(t, err)
		jobs = append(jobs, started{job, ev})
	}
	workers := map[string]int{}
	for _, j := range jobs {
		res, err := j.job.Result()
		require.NoError(t, err)
		assert.Equal(t, refactor.OutcomeProposed, res.Outcome)
		workers[res.Worker]++
		seen := j.events.all()
		require.NotEmpty(t, seen)
		assert.Equal(t, refactor.EventQueued, seen[0].Type, "the first event is the run's place in the queue")
		q, ok := seen[0].Data.(refactor.QueuedEvent)
		require.True(t, ok, "%T", seen[0].Data)
		assert.Equal(t, 2, q.Workers)
		var stages int
		for _, e := range seen {
			if _, ok := e.Data.(refactor.StageEvent); ok {
				stages++
			}
		}
		assert.Positive(t, stages, "the worker's events reach the caller, typed")
		row, err := a.trail.Get(context.Background(), j.job.ID())
		require.NoError(t, err)
		assert.Equal(t, res.Worker, row.Worker)
		assert.Equal(t, res.Image, row.Image)
		require.NotNil(t, row.StartedAt)
		assert.False(t, row.StartedAt.Before(row.CreatedAt))
	}
	assert.Len(t, workers, 2, "both workers took runs: %v", workers)
}

func TestRevertGoesToTheReleasingWorker(t *testing.T) {
	pg := testenv.StartPostgres(t)
	url := pg.NewDatabase(t)
	script := sumScript(0)
	ws := map[string]*worker{"a": startWorker(t, url, "a", script), "b": startWorker(t, url, "b", script)}

	job, err := ws["a"].pool.Start(context.Background(), refactor.Request{Ref: sum})
	require.NoError(t, err)
	res, err := job.Result()
	require.NoError(t, err)
	require.Equal(t, refactor.OutcomeReleased, res.Outcome)
	releaser, other := ws[res.Worker], ws["a"]
	if res.Worker == "a" {
		other = ws["b"]
	}
	assert.Contains(t, readSum(t, releaser.dir), "Answer the sum")

	slot, err := other.pool.Reserve()
	require.NoError(t, err)
	row, err := slot.Revert(context.Background(), job.ID(), "req-1")
	require.NoError(t, err)
	assert.Equal(t, res.Worker, row.Worker, "the revert ran on the releasing worker")
	assert.Equal(t, refactor.StatusReleased, row.Status, "the revert's own row")
	assert.NotContains(t, readSum(t, releaser.dir), "Answer the sum")
	orig, err := other.trail.Get(context.Background(), job.ID())
	require.NoError(t, err)
	assert.Equal(t, refactor.StatusReverted, orig.Status)
}

// TestAVerifyRunTravelsThroughTheQueue: the worker that takes a queued
// verify run verifies (compiled, tested, the original put back), and the
// row says it was a verify run.
func TestAVerifyRunTravelsThroughTheQueue(t *testing.T) {
	pg := testenv.StartPostgres(t)
	w := startWorker(t, pg.NewDatabase(t), "a", sumScript(0))
	before := readSum(t, w.dir)

	job, err := w.pool.Start(context.Background(), refactor.Request{Ref: sum, Verify: true, RunTests: true})
	require.NoError(t, err)
	res, err := job.Result()
	require.NoError(t, err)
	assert.Equal(t, refactor.OutcomeVerified, res.Outcome)
	assert.Equal(t, before, readSum(t, w.dir), "the image holds the original again")
	row, err := w.trail.Get(context.Background(), job.ID())
	require.NoError(t, err)
	assert.True(t, row.Verify, "the row says it was a verify run")
	assert.Equal(t, refactor.StatusVerified, row.Status)
}

func readSum(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "src", "Sample-Shop", "Calculator.class.st"))
	require.NoError(t, err)
	return string(data)
}

func TestBusyOnlyPastQueueMaxAndCancelWhileQueued(t *testing.T) {
	pg := testenv.StartPostgres(t)
	w := startWorker(t, pg.NewDatabase(t), "a", sumScript(time.Second), func(o *pool.Options) { o.QueueMax = 1 })
	ctx := context.Background()
	first, err := w.pool.Start(ctx, refactor.Request{Ref: sum, DryRun: true})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		row, err := w.trail.Get(ctx, first.ID())
		return err == nil && row.Status == refactor.StatusRunning
	}, 10*time.Second, 10*time.Millisecond)
	second, err := w.pool.Start(ctx, refactor.Request{Ref: sum, DryRun: true})
	require.NoError(t, err, "one run may wait")

	_, err = w.pool.Start(ctx, refactor.Request{Ref: sum, DryRun: true})
	assert.True(t, refactor.IsKind(err, refactor.Busy), "past QUEUE_MAX: %v", err)
	assert.GreaterOrEqual(t, w.pool.RetryAfter(), 1)

	row, err := w.pool.Cancel(ctx, second.ID())
	require.NoError(t, err)
	assert.Equal(t, refactor.StatusCanceled, row.Status)
	assert.Empty(t, row.Worker)
	third, err := w.pool.Start(ctx, refactor.Request{Ref: sum, DryRun: true})
	require.NoError(t, err, "the canceled run left the queue: there is room again")
	_, err = second.Result()
	assert.True(t, refactor.IsKind(err, refactor.Canceled), "its caller hears it: %v", err)
	for _, j := range []refactor.Job{first, third} {
		res, err := j.Result()
		require.NoError(t, err)
		assert.Equal(t, "a", res.Worker)
	}
}
