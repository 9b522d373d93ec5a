// Package pool makes refactord a worker of a pool (DATABASE_URL): every
// instance with the same PostgreSQL database takes any API call, queues the
// run durably (river, a kept job queue on PostgreSQL), and executes the
// oldest queued run on its own image when it is idle, one at a time. The
// caller waits on the instance it called, wherever the run executes: the
// run's events and answer come back through the database.
//
// Pool implements refactor.Jobs, the API's view of runs; without
// DATABASE_URL the pipeline is that view, and nothing of this package runs.
package pool

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
	"go.uber.org/zap"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/store"

	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// Local is this worker's pipeline, as the pool uses it.
type Local interface {
	// Claim waits for the run slot for a queued run this worker took
	// (whose row exists); Wait for a revert pinned to this worker.
	Claim(ctx context.Context, id string) (refactor.Reservation, error)
	Wait(ctx context.Context, id string) (refactor.Reservation, error)
	Cancel(ctx context.Context, id string) (refactor.Run, error)
	Busy() bool
	ModelConfigured() bool
}

// Options configure a worker.
type Options struct {
	// Worker names this instance (WORKER_ID), Image the image it drives.
	Worker string
	Image  string
	// QueueMax: past this many queued runs a POST is refused (busy).
	QueueMax int
	// Lease: a worker whose heartbeat is older is taken for dead.
	Lease time.Duration
	// Tracing makes the span that queues a run, the parent of the run's
	// span on whichever worker takes it. Nil traces nothing.
	Tracing trace.TracerProvider
	// Runs is the registry the worker's Trail shares (Trail.Runs); nil
	// makes one the Trail does not see.
	Runs *Runs
}

// runsQueue is the queue every worker takes runs from, oldest first.
const runsQueue = "runs"

// maxAttempts: a run whose worker died before its release is run once
// more by another worker; a second loss fails it (worker_lost).
const maxAttempts = 2

// Pool is one worker of the pool and the API's access to all of it.
type Pool struct {
	tracer   trace.Tracer
	db       *pgxpool.Pool
	river    *river.Client[pgx.Tx]
	trail    *store.Store
	local    Local
	opts     Options
	log      *zap.Logger
	notify   *listener
	waits    *waitStats
	stopping atomic.Bool
	// healthySince is when this worker's heartbeats began to succeed
	// without a miss (unix nanoseconds; 0 after a miss): a worker that
	// could not reach the database itself does not judge the others'
	// heartbeats until it has seen a whole lease of its own.
	healthySince atomic.Int64
	stop         context.CancelFunc
	bg           sync.WaitGroup
}

// Open connects to the pool's database, migrates river's tables under an
// advisory lock and makes the worker; Work starts it. trail is the
// PostgreSQL store of the same database.
func Open(ctx context.Context, url string, trail *store.Store, local Local, opts Options, log *zap.Logger) (*Pool, error) {
	if opts.QueueMax <= 0 {
		opts.QueueMax = 100
	}
	if opts.Lease <= 0 {
		opts.Lease = 30 * time.Second
	}
	db, err := pgxpool.New(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("pool: %w", err)
	}
	if opts.Tracing == nil {
		opts.Tracing = noop.NewTracerProvider()
	}
	if opts.Runs == nil {
		opts.Runs = NewRuns()
	}
	p := &Pool{db: db, trail: trail, local: local, opts: opts, log: log, waits: newWaitStats(),
		tracer: opts.Tracing.Tracer("github.com/pharo-refactor/refactord/pool")}
	if err := p.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	workers := river.NewWorkers()
	river.AddWorker(workers, &runWorker{p: p})
	river.AddWorker(workers, &revertWorker{p: p})
	p.river, err = river.NewClient(riverpgxv5.New(db), &river.Config{
		ID: clientID(opts.Worker),
		Queues: map[string]river.QueueConfig{
			runsQueue:                {MaxWorkers: 1},
			workerQueue(opts.Worker): {MaxWorkers: 1},
		},
		Workers:           workers,
		JobTimeout:        -1,               // a run is bounded by PIPELINE_TIMEOUT, a release is never cut
		FetchCooldown:     time.Millisecond, // river's minimum: a run waits for no cooldown of the last fetch
		FetchPollInterval: 500 * time.Millisecond,
		// The pool's lease (heartbeats, lease.go) decides when a run is
		// lost; river's own rescue comes far later, and with one attempt
		// per job it only discards the dead worker's job.
		RescueStuckJobsAfter: 24 * time.Hour,
		MaxAttempts:          1,
		// river's own log: its warnings and errors only, as JSON lines
		// on stderr beside the service's.
		Logger: slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("pool: river: %w", err)
	}
	p.notify = newListener(db, log, p.cancelHere)
	return p, nil
}

// riverLock serialises river's migrations of workers starting at once.
const riverLock = 7_340_021_424

func (p *Pool) migrate(ctx context.Context) error {
	migrator, err := rivermigrate.New(riverpgxv5.New(p.db), nil)
	if err != nil {
		return fmt.Errorf("pool: river migrations: %w", err)
	}
	// Each of river's steps runs in its own transaction (a step may add an
	// enum value the next one uses); the lock is the session's, held on a
	// connection of its own while the steps run.
	conn, err := p.db.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("pool: river migrations: %w", store.Unavailable(err))
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", riverLock); err != nil {
		return fmt.Errorf("pool: river migrations: lock: %w", store.Unavailable(err))
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", riverLock) //nolint:errcheck // the session's end releases it anyway
	if _, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("pool: river migrations: %w", err)
	}
	return nil
}

// workerQueue is the queue of what only this worker may run: the reverts
// of releases into its image. River's names allow only [a-z0-9_-].
func workerQueue(worker string) string {
	h := fnv.New64a()
	_, _ = h.Write([]byte(worker)) // a hash.Hash never fails
	return fmt.Sprintf("worker_%016x", h.Sum64())
}

// clientID names the worker's river client: river records it in the
// jobs a worker fetched (attempted_by), which the lease reads.
func clientID(worker string) string { return workerQueue(worker) }

// Work registers the worker, starts taking runs and keeps its heartbeat.
func (p *Pool) Work(ctx context.Context) error {
	if err := p.heartbeat(ctx); err != nil {
		return err
	}
	if err := p.answerOrphans(ctx); err != nil {
		return err
	}
	bg, cancel := context.WithCancel(context.WithoutCancel(ctx))
	p.stop = cancel
	if err := p.river.Start(bg); err != nil {
		cancel()
		return fmt.Errorf("pool: start the queue: %w", err)
	}
	p.bg.Add(3)
	go func() { defer p.bg.Done(); p.notify.run(bg) }()
	go func() { defer p.bg.Done(); p.keepHeartbeat(bg) }()
	go func() { defer p.bg.Done(); p.watchLeases(bg) }()
	return nil
}

// Stop takes no new run and waits (up to ctx) for the run in progress to
// end; queued runs stay queued for the others. Then it closes everything.
func (p *Pool) Stop(ctx context.Context) error {
	p.stopping.Store(true)
	_, _ = p.db.Exec(ctx, "UPDATE pool_workers SET stopping = true WHERE id = $1", p.opts.Worker) // the others see it sooner; the lease says it anyway
	err := p.river.Stop(ctx)
	if p.stop != nil {
		p.stop()
	}
	p.bg.Wait()
	_, _ = p.db.Exec(context.WithoutCancel(ctx), "DELETE FROM pool_workers WHERE id = $1", p.opts.Worker) // a clean exit: nothing of it to rescue
	p.db.Close()
	if err != nil {
		return fmt.Errorf("pool: stop: %w", err)
	}
	return nil
}

// heartbeat says this worker is alive now.
func (p *Pool) heartbeat(ctx context.Context) error {
	_, err := p.db.Exec(ctx, `INSERT INTO pool_workers (id, image, started_at, heartbeat_at, stopping)
		VALUES ($1, $2, now(), now(), $3)
		ON CONFLICT (id) DO UPDATE SET image = EXCLUDED.image, heartbeat_at = now(), stopping = EXCLUDED.stopping`,
		p.opts.Worker, p.opts.Image, p.stopping.Load())
	if err != nil {
		p.healthySince.Store(0)
		return fmt.Errorf("pool: heartbeat: %w", store.Unavailable(err))
	}
	p.healthySince.CompareAndSwap(0, time.Now().UnixNano())
	return nil
}

// judging reports whether this worker has reached the database for a
// whole lease: only then are the others' old heartbeats their own fault.
func (p *Pool) judging() bool {
	since := p.healthySince.Load()
	return since != 0 && time.Since(time.Unix(0, since)) > p.opts.Lease
}

// answerOrphans answers the callers of this worker's runs that ended
// without an answer: runs its start-up reconciliation settled after it
// died (or restarted) before the lease ran out. Their callers hear
// worker_lost, and the row says how the run ended.
func (p *Pool) answerOrphans(ctx context.Context) error {
	rows, err := p.db.Query(ctx, `SELECT r.id, r.status FROM runs r JOIN pool_runs q ON q.run_id = r.id
		WHERE r.worker = $1 AND r.status NOT IN ('queued', 'running', 'releasing')
		  AND NOT EXISTS (SELECT 1 FROM run_answers a WHERE a.run_id = r.id)`, p.opts.Worker)
	if err != nil {
		return fmt.Errorf("pool: orphaned runs: %w", store.Unavailable(err))
	}
	orphans := map[string]string{}
	for rows.Next() {
		var id, status string
		if err := rows.Scan(&id, &status); err != nil {
			rows.Close()
			return err
		}
		orphans[id] = status
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for id, status := range orphans {
		cause := refactor.Errorf(refactor.WorkerLost, "worker %s stopped during run %s and started again; the run is %s "+
			"(its row, /api/v1/refactorings/%s, says what the image holds)", p.opts.Worker, id, status, id)
		if err := p.recordAnswer(ctx, id, answer{}, cause); err != nil {
			return err
		}
	}
	return nil
}

func (p *Pool) keepHeartbeat(ctx context.Context) {
	every(ctx, p.opts.Lease/4, func() {
		if err := p.heartbeat(ctx); err != nil && ctx.Err() == nil {
			p.log.Warn("the pool's database does not take this worker's heartbeat", zap.Error(err))
		}
	})
}

// every calls do every period until ctx ends.
func every(ctx context.Context, period time.Duration, do func()) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			do()
		}
	}
}

// Ping reports whether the pool's database answers (for /ready).
func (p *Pool) Ping(ctx context.Context) error {
	if err := p.db.Ping(ctx); err != nil {
		return fmt.Errorf("PostgreSQL (DATABASE_URL) does not answer: %w", err)
	}
	return nil
}

// unavailable is what a call answers when the database cannot be reached.
func unavailable(err error, doing string) error {
	err = store.Unavailable(err)
	if errors.Is(err, store.ErrUnavailable) {
		return refactor.Wrap(refactor.StoreUnavailable, err, "PostgreSQL, which holds the pool's queue and audit trail, does not answer; %s", doing)
	}
	return refactor.Wrap(refactor.Internal, err, "the pool's database refused: %s", doing)
}
