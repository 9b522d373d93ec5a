package pool

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"go.uber.org/zap"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/store"
)

// runWorker executes a queued run on this worker's image.
type runWorker struct {
	river.WorkerDefaults[runArgs]
	p *Pool
}

// Work claims the run's row (queued → running, naming this worker) unless
// it was canceled meanwhile or is not this job's any more, runs it and
// records its answer. It never fails the river job: a run's outcome is its
// row and its answer, and a run is never retried by river.
func (w *runWorker) Work(ctx context.Context, j *river.Job[runArgs]) error {
	p, a := w.p, j.Args
	log := p.log.With(zap.String("run_id", a.RunID), zap.Int64("job", j.ID))
	claimed, waited, err := p.claim(ctx, a.RunID, j.ID)
	if err != nil {
		log.Error("claiming a queued run failed; the lease gives it to another worker", zap.Error(err))
		return nil
	}
	if !claimed {
		log.Info("the queued run was canceled or taken again before this worker took it")
		return nil
	}
	p.waits.observe(waited)
	slot, err := p.local.Claim(ctx, a.RunID)
	if err != nil {
		p.fail(ctx, a.RunID, err)
		return nil
	}
	req := refactor.Request{
		Ref:    refactor.MethodRef{Class: a.Class, Selector: a.Selector, ClassSide: a.ClassSide},
		DryRun: a.DryRun, Verify: a.Verify, RunTests: a.RunTests, RequestID: a.RequestID,
	}
	var events *recorder
	if a.Follow {
		events = p.newRecorder(a.RunID)
		req.Observe = events.observe
		p.opts.Runs.add(a.RunID, events)
	}
	res, runErr := slot.Run(continueTrace(ctx, a.TraceParent), req)
	var last []refactor.Event
	if events != nil {
		p.opts.Runs.remove(a.RunID)
		last = events.close()
	}
	p.answer(ctx, a.RunID, last, answer{Result: res}, runErr)
	return nil
}

// answerRetries bounds how long a worker keeps trying to record an answer
// while the database is away: its caller waits for it.
const answerRetries = 5 * time.Minute

// answer records a finished run's answer after its last events, trying
// again while the database does not answer. Events the database refuses
// do not cost the answer: it is recorded without them, as an event that
// cannot be recorded is dropped.
func (p *Pool) answer(ctx context.Context, id string, last []refactor.Event, a answer, runErr error) {
	ctx = context.WithoutCancel(ctx)
	deadline := time.Now().Add(answerRetries)
	for {
		err := p.recordEnd(ctx, id, last, a, runErr)
		if err == nil {
			return
		}
		if len(last) > 0 && !errors.Is(err, store.ErrUnavailable) {
			p.log.Debug("a run's last events could not be recorded; its caller misses them",
				zap.String("run_id", id), zap.Int("events", len(last)), zap.Error(err))
			last = nil
			continue
		}
		if !errors.Is(err, store.ErrUnavailable) || time.Now().After(deadline) {
			p.log.Error("the run ended but its answer could not be recorded; its row says how it ended",
				zap.String("run_id", id), zap.Error(err))
			return
		}
		time.Sleep(fallbackPoll)
	}
}

// claim moves the queued run id to running on this worker, at the run's
// first stage (the pipeline's Claim counts on it: it does not write that
// stage again), if job is still its current job; waited is how long it
// waited in the queue.
func (p *Pool) claim(ctx context.Context, id string, job int64) (claimed bool, waited time.Duration, err error) {
	var created time.Time
	err = p.db.QueryRow(ctx, `UPDATE runs SET status = 'running', worker = $2, image = $3, stage = $5,
			started_at = date_trunc('milliseconds', now()), updated_at = date_trunc('milliseconds', now())
		WHERE id = $1 AND status = 'queued'
		  AND EXISTS (SELECT 1 FROM pool_runs WHERE run_id = $1 AND job_id = $4)
		RETURNING created_at`, id, p.opts.Worker, p.opts.Image, job, refactor.StagePrefetch).Scan(&created)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, 0, nil
	}
	if err != nil {
		return false, 0, err
	}
	return true, time.Since(created), nil
}

// fail ends a claimed run that could not start on this worker.
func (p *Pool) fail(ctx context.Context, id string, cause error) {
	ctx = context.WithoutCancel(ctx)
	_, err := p.db.Exec(ctx, `UPDATE runs SET status = 'failed', error_code = $2, error_message = $3,
		finished_at = date_trunc('milliseconds', now()), updated_at = date_trunc('milliseconds', now())
		WHERE id = $1 AND status = 'running'`, id, string(refactor.KindOf(cause)), refactor.Public(cause))
	err = errors.Join(err, p.recordAnswer(ctx, id, answer{}, cause))
	if err != nil {
		p.log.Error("failing a run that could not start", zap.String("run_id", id), zap.Error(err))
	}
}

// revertWorker executes a revert pinned to this worker's image.
type revertWorker struct {
	river.WorkerDefaults[revertArgs]
	p *Pool
}

func (w *revertWorker) Work(ctx context.Context, j *river.Job[revertArgs]) error {
	p, a := w.p, j.Args
	slot, err := p.local.Wait(ctx, a.RevertID)
	var row refactor.Run
	if err == nil {
		row, err = slot.Revert(continueTrace(ctx, a.TraceParent), a.Of, a.RequestID)
	}
	var ans answer
	if row.ID != "" {
		ans.Row = &row
	}
	p.answer(ctx, a.RevertID, nil, ans, err)
	return nil
}
