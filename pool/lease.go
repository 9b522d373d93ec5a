package pool

import (
	"context"
	"fmt"
	"time"

	"go.uber.org/zap"

	refactor "github.com/pharo-refactor/refactord"
)

// A worker that stops answering (killed, its machine gone) keeps no run
// hostage: every live worker looks for workers whose heartbeat is older
// than the lease, and one of them (an advisory lock per dead worker)
// settles what the dead one held. A run whose release had not begun is
// queued again (once: a second loss fails it, worker_lost); a release in
// flight is not guessed at: its row stays releasing, with a note, until
// that worker starts again and its reconciliation reads its image; its
// caller hears worker_lost at once.

func (p *Pool) watchLeases(ctx context.Context) {
	every(ctx, max(p.opts.Lease/4, 100*time.Millisecond), func() {
		if p.stopping.Load() || !p.judging() {
			return
		}
		if err := p.rescue(ctx); err != nil && ctx.Err() == nil {
			p.log.Warn("looking for lost workers failed", zap.Error(err))
		}
	})
}

// rescue settles the runs of every worker whose lease expired.
func (p *Pool) rescue(ctx context.Context) error {
	rows, err := p.db.Query(ctx, `SELECT id FROM pool_workers WHERE id <> $1 AND heartbeat_at < now() - $2::interval`,
		p.opts.Worker, p.opts.Lease.String())
	if err != nil {
		return err
	}
	var dead []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return err
		}
		dead = append(dead, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, w := range dead {
		if err := p.rescueWorker(ctx, w); err != nil {
			return fmt.Errorf("worker %s: %w", w, err)
		}
	}
	return nil
}

type lostRun struct {
	id, status string
	attempt    int
	args       runArgs
}

func (p *Pool) rescueWorker(ctx context.Context, worker string) error {
	tx, err := p.db.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // after Commit, a no-op
	var mine bool
	if err := tx.QueryRow(ctx, "SELECT pg_try_advisory_xact_lock(hashtext($1))", "refactord-rescue:"+worker).Scan(&mine); err != nil || !mine {
		return err // another worker is at it
	}
	// Still expired, under the lock (it may have come back).
	var expired bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pool_workers WHERE id = $1 AND heartbeat_at < now() - $2::interval)`,
		worker, p.opts.Lease.String()).Scan(&expired); err != nil || !expired {
		return err
	}
	rows, err := tx.Query(ctx, `SELECT r.id, r.status, COALESCE(q.attempt, 1), r.class_name, r.selector, r.is_class_method,
			r.dry_run, r.verify, r.run_tests, r.request_id
		FROM runs r LEFT JOIN pool_runs q ON q.run_id = r.id
		WHERE r.kind = 'refactor' AND NOT EXISTS (SELECT 1 FROM run_answers a WHERE a.run_id = r.id)
		  AND ((r.worker = $1 AND r.status IN ('running', 'releasing'))
		    -- fetched from the queue by the lost worker, which died before it claimed the row
		    OR (r.status = 'queued' AND EXISTS (SELECT 1 FROM river_job j WHERE j.id = q.job_id AND j.state = 'running'
		          AND j.attempted_by[array_length(j.attempted_by, 1)] = $2)))`, worker, clientID(worker))
	if err != nil {
		return err
	}
	var lost []lostRun
	for rows.Next() {
		var l lostRun
		if err := rows.Scan(&l.id, &l.status, &l.attempt, &l.args.Class, &l.args.Selector, &l.args.ClassSide,
			&l.args.DryRun, &l.args.Verify, &l.args.RunTests, &l.args.RequestID); err != nil {
			rows.Close()
			return err
		}
		l.args.RunID, l.args.Follow = l.id, true // a caller may be streaming it
		lost = append(lost, l)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "DELETE FROM pool_workers WHERE id = $1", worker); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return err
	}
	for _, l := range lost {
		if err := p.settleLost(ctx, worker, l); err != nil {
			return err
		}
	}
	return nil
}

// settleLost decides what becomes of one run of a lost worker.
func (p *Pool) settleLost(ctx context.Context, worker string, l lostRun) error {
	log := p.log.With(zap.String("run_id", l.id), zap.String("lost_worker", worker))
	switch {
	case l.status == string(refactor.StatusReleasing):
		msg := fmt.Sprintf("worker %s stopped answering during the release of run %s; the row stays releasing "+
			"(unsettled) until that worker starts again and its reconciliation reads its image", worker, l.id)
		if _, err := p.db.Exec(ctx, `UPDATE runs SET notes = CASE WHEN notes = '' THEN $2 ELSE notes || E'\n' || $2 END,
			updated_at = date_trunc('milliseconds', now()) WHERE id = $1 AND status = 'releasing'`,
			l.id, time.Now().UTC().Format("2006-01-02T15:04:05.000Z")+" "+msg); err != nil {
			return err
		}
		log.Warn("a lost worker's release stays unsettled until it starts again")
		return p.recordAnswer(ctx, l.id, answer{}, refactor.Errorf(refactor.WorkerLost, "%s", msg))
	case l.status == string(refactor.StatusQueued):
		// Never started: queued anew, and its attempt does not count.
		reason := fmt.Sprintf("worker %s stopped answering after taking the run from the queue, before it began; queued again", worker)
		if err := p.insertRun(ctx, l.args, l.attempt, reason); err != nil {
			return err
		}
		log.Warn("a run a lost worker had taken from the queue is queued again")
		return nil
	case l.attempt < maxAttempts:
		tag, err := p.db.Exec(ctx, `UPDATE runs SET status = 'queued', worker = '', image = '', stage = '', started_at = NULL,
			updated_at = date_trunc('milliseconds', now()) WHERE id = $1 AND status = 'running' AND worker = $2`, l.id, worker)
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		reason := fmt.Sprintf("worker %s stopped answering before the release; the run is queued again (attempt %d of %d)",
			worker, l.attempt+1, maxAttempts)
		if err := p.insertRun(ctx, l.args, l.attempt+1, reason); err != nil {
			return err
		}
		log.Warn("a lost worker's run is queued again")
		return nil
	default:
		cause := refactor.Errorf(refactor.WorkerLost, "run %s lost its worker twice (%s was the last) before its release; "+
			"nothing was compiled; send it again", l.id, worker)
		if _, err := p.db.Exec(ctx, `UPDATE runs SET status = 'failed', error_code = $2, error_message = $3,
			finished_at = date_trunc('milliseconds', now()), updated_at = date_trunc('milliseconds', now())
			WHERE id = $1 AND status = 'running'`, l.id, string(refactor.WorkerLost), refactor.Public(cause)); err != nil {
			return err
		}
		log.Warn("a run lost its worker twice: failed")
		return p.recordAnswer(ctx, l.id, answer{}, cause)
	}
}
