package pool

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"go.uber.org/zap"

	refactor "github.com/pharo-refactor/refactord"
)

// Reserve answers a reservation for a revert (the API's revert route):
// in a pool nothing is reserved here, the revert is queued for the worker
// whose image holds the release.
func (p *Pool) Reserve() (refactor.Reservation, error) {
	return &reservation{p: p, id: newID()}, nil
}

type reservation struct {
	p  *Pool
	id string
}

func (r *reservation) ID() string { return r.id }
func (r *reservation) Free()      {}

// Run queues req and waits for its end, as Start and Result would.
func (r *reservation) Run(ctx context.Context, req refactor.Request) (*refactor.Result, error) {
	j, err := r.p.Start(ctx, req)
	if err != nil {
		return nil, err
	}
	return j.Result()
}

// Revert queues the revert of id for the worker that released it and
// waits for its row. worker_unavailable when that worker is not alive: no
// other image holds the release.
func (r *reservation) Revert(ctx context.Context, id, requestID string) (refactor.Run, error) {
	p := r.p
	orig, err := p.trail.Get(ctx, id)
	if err != nil {
		return refactor.Run{}, err
	}
	if orig.Kind != refactor.RunKindRefactor || orig.Status != refactor.StatusReleased {
		return p.revertHere(ctx, r.id, id, requestID) // the pipeline says why it cannot be reverted
	}
	alive, err := p.alive(ctx, orig.Worker)
	if err != nil {
		return refactor.Run{}, unavailable(err, "nothing was reverted")
	}
	if !alive {
		return refactor.Run{}, refactor.Errorf(refactor.WorkerUnavailable,
			"run %s was released into the image of worker %q, which is not running; start it and revert again", id, orig.Worker)
	}
	if orig.Worker == p.opts.Worker {
		return p.revertHere(ctx, r.id, id, requestID)
	}
	job, err := p.river.Insert(ctx, revertArgs{RevertID: r.id, Of: id, RequestID: requestID, TraceParent: traceParent(ctx)},
		&river.InsertOpts{Queue: workerQueue(orig.Worker), MaxAttempts: 1})
	if err != nil {
		return refactor.Run{}, unavailable(err, "nothing was reverted")
	}
	a, err := p.awaitRevert(context.WithoutCancel(ctx), r.id, job.Job.ID, orig.Worker)
	if a.Row == nil {
		if err == nil {
			err = refactor.Errorf(refactor.Internal, "revert %s ended without its row", r.id)
		}
		return refactor.Run{}, err
	}
	return *a.Row, err
}

// awaitRevert waits for revert id, queued as job for worker. Like a
// release, a revert is not cut by a client that leaves; but if its worker
// stops answering meanwhile, its caller is told instead of waiting for it.
func (p *Pool) awaitRevert(ctx context.Context, id string, job int64, worker string) (answer, error) {
	for {
		wait, cancel := context.WithTimeout(ctx, 2*p.opts.Lease)
		a, err := p.await(wait, id, nil, 0)
		expired := wait.Err() != nil
		cancel()
		if !expired {
			return a, err
		}
		if alive, err := p.alive(ctx, worker); err != nil || alive {
			continue // still there (or the database is away): keep waiting
		}
		row, err := p.river.JobCancel(ctx, job)
		if err == nil && row.State == rivertype.JobStateCancelled {
			return answer{}, refactor.Errorf(refactor.WorkerUnavailable,
				"worker %q, whose image holds the release, stopped before it took the revert; nothing was reverted", worker)
		}
		return answer{}, refactor.Errorf(refactor.WorkerLost,
			"worker %q stopped answering during revert %s; its start-up reconciliation settles the revert's row", worker, id)
	}
}

// revertHere reverts on this worker's image, waiting for its slot.
func (p *Pool) revertHere(ctx context.Context, revID, id, requestID string) (refactor.Run, error) {
	wait, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	slot, err := p.local.Wait(wait, revID)
	if err != nil {
		return refactor.Run{}, err
	}
	return slot.Revert(ctx, id, requestID)
}

// alive reports whether worker's heartbeat is within the lease.
func (p *Pool) alive(ctx context.Context, worker string) (bool, error) {
	var ok bool
	err := p.db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pool_workers WHERE id = $1 AND heartbeat_at > now() - $2::interval)`,
		worker, p.opts.Lease.String()).Scan(&ok)
	return ok, err
}

// Cancel stops run id before its release, wherever it is: a queued run
// leaves the queue at once; a run on this worker is canceled by its
// pipeline; a run on another worker is told to stop through the database
// and answered once its row is final.
func (p *Pool) Cancel(ctx context.Context, id string) (refactor.Run, error) {
	row, err := p.trail.Get(ctx, id)
	if err != nil {
		return refactor.Run{}, err
	}
	switch {
	case row.Status == refactor.StatusQueued:
		return p.cancelQueued(ctx, id)
	case row.Status == refactor.StatusRunning && row.Worker != p.opts.Worker:
		return p.cancelElsewhere(ctx, row)
	}
	return p.local.Cancel(ctx, id)
}

// cancelWait bounds how long a cancel waits for another worker's run to
// stop (it stops at its next step; a model call in flight is cut).
const cancelWait = 30 * time.Second

// cancelElsewhere asks the worker running row to cancel it and answers
// its row once it stopped, or not_cancelable once its release began.
func (p *Pool) cancelElsewhere(ctx context.Context, row refactor.Run) (refactor.Run, error) {
	wake, stop := p.notify.watch(row.ID)
	defer stop()
	if _, err := p.db.Exec(ctx, "SELECT pg_notify($1, $2)", cancelChannel, row.ID); err != nil {
		return refactor.Run{}, unavailable(err, "the run was not canceled")
	}
	ctx, cancel := context.WithTimeout(ctx, cancelWait)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		now, err := p.trail.Get(ctx, row.ID)
		switch {
		case err != nil:
			return refactor.Run{}, err
		case now.Status == refactor.StatusCanceled:
			return now, nil
		case now.Status != refactor.StatusRunning:
			return now, refactor.Errorf(refactor.NotCancelable,
				"run %s can no longer be canceled (status %s): its release has begun (it completes or is rolled back, never cut), or it ended", row.ID, now.Status)
		}
		select {
		case <-ctx.Done():
			return now, refactor.Wrap(refactor.Canceled, ctx.Err(), "run %s on worker %q was told to stop; its row says when it does", row.ID, row.Worker)
		case <-wake:
		case <-tick.C:
		}
	}
}

// cancelHere cancels run id if this worker runs it (a cancel sent to
// another instance); any other worker ignores the request.
func (p *Pool) cancelHere(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), cancelWait)
	defer cancel()
	row, err := p.trail.Get(ctx, id)
	if err != nil || row.Worker != p.opts.Worker {
		return
	}
	if _, err := p.local.Cancel(ctx, id); err != nil && !refactor.IsKind(err, refactor.NotCancelable) {
		p.log.Warn("canceling a run on request of another instance", zap.String("run_id", id), zap.Error(err))
	}
}

func (p *Pool) cancelQueued(ctx context.Context, id string) (refactor.Run, error) {
	cause := refactor.Errorf(refactor.Canceled, "run %s was canceled while queued; nothing was run", id)
	tag, err := p.db.Exec(ctx, `UPDATE runs SET status = 'canceled', error_code = $2, error_message = $3,
		finished_at = date_trunc('milliseconds', now()), updated_at = date_trunc('milliseconds', now())
		WHERE id = $1 AND status = 'queued'`, id, string(refactor.Canceled), refactor.Public(cause))
	if err != nil {
		return refactor.Run{}, unavailable(err, "the run was not canceled")
	}
	if tag.RowsAffected() == 0 {
		return p.Cancel(ctx, id) // a worker took it meanwhile
	}
	if err := p.recordAnswer(ctx, id, answer{}, cause); err != nil {
		return refactor.Run{}, fmt.Errorf("pool: cancel: %w", err)
	}
	p.dropJob(ctx, id)
	return p.trail.Get(ctx, id)
}

// dropJob takes a canceled run's job out of the queue, so that it counts
// no more in the queue's depth and positions. A worker that fetched it
// meanwhile finds the row canceled and leaves it.
func (p *Pool) dropJob(ctx context.Context, id string) {
	var job int64
	if err := p.db.QueryRow(ctx, "SELECT job_id FROM pool_runs WHERE run_id = $1", id).Scan(&job); err != nil {
		p.log.Warn("the canceled run's job stays in the queue until a worker skips it", zap.String("run_id", id), zap.Error(err))
		return
	}
	if _, err := p.river.JobCancel(ctx, job); err != nil {
		p.log.Warn("the canceled run's job stays in the queue until a worker skips it", zap.String("run_id", id), zap.Error(err))
	}
}
