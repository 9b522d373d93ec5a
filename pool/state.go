package pool

import (
	"context"
	"fmt"
	"time"

	refactor "github.com/pharo-refactor/refactord"
)

// workersState lists the pool's workers with the run each one works on
// (the newest it started, should a lost worker's row still name another).
const workersState = `SELECT w.id, w.image, w.started_at, w.heartbeat_at, w.stopping,
	NOT w.stopping AND w.heartbeat_at > now() - $1::interval,
	COALESCE((SELECT r.id FROM runs r WHERE r.worker = w.id AND r.status IN ('running', 'releasing')
		ORDER BY r.started_at DESC LIMIT 1), '')
	FROM pool_workers w ORDER BY w.id LIMIT $2`

// State answers the pool's queue depth and workers. A database that does
// not answer is store_unavailable.
func (p *Pool) State(ctx context.Context) (refactor.PoolState, error) {
	queued, live, err := p.depth(ctx)
	if err != nil {
		return refactor.PoolState{}, refactor.Wrap(refactor.StoreUnavailable, err, "reading the pool's queue")
	}
	state := refactor.PoolState{Queued: queued, LiveWorkers: live, Workers: []refactor.PoolWorker{}}
	rows, err := p.db.Query(ctx, workersState, p.opts.Lease.String(), refactor.MaxPoolWorkersListed)
	if err != nil {
		return refactor.PoolState{}, refactor.Wrap(refactor.StoreUnavailable, err, "reading the pool's workers")
	}
	defer rows.Close()
	for rows.Next() {
		var w refactor.PoolWorker
		var started, beat time.Time
		if err := rows.Scan(&w.ID, &w.Image, &started, &beat, &w.Stopping, &w.Live, &w.Running); err != nil {
			return refactor.PoolState{}, fmt.Errorf("pool: reading a worker: %w", err)
		}
		w.StartedAt, w.HeartbeatAt = started.UTC(), beat.UTC()
		state.Workers = append(state.Workers, w)
	}
	if err := rows.Err(); err != nil {
		return refactor.PoolState{}, refactor.Wrap(refactor.StoreUnavailable, err, "reading the pool's workers")
	}
	return state, nil
}
