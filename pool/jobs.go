package pool

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/internal/spans"
	"github.com/pharo-refactor/refactord/store"
)

// runArgs is a queued run: what the worker that takes it needs.
type runArgs struct {
	RunID     string `json:"run_id"`
	Class     string `json:"class"`
	Selector  string `json:"selector"`
	ClassSide bool   `json:"class_side"`
	DryRun    bool   `json:"dry_run"`
	Verify    bool   `json:"verify"`
	RunTests  bool   `json:"run_tests"`
	RequestID string `json:"request_id"`
	// Follow: its caller observes the run's events (a stream, the
	// original's wrapped form); else only its answer is recorded.
	Follow bool `json:"follow"`
	// TraceParent carries the run's trace across the queue: the W3C
	// traceparent of the span that queued it, which the worker's run
	// continues. Empty when nothing is traced.
	TraceParent string `json:"traceparent,omitempty"`
}

func (runArgs) Kind() string { return "refactor_run" }

// revertArgs is a revert, queued for the worker whose image holds the
// release.
type revertArgs struct {
	RevertID  string `json:"revert_id"`
	Of        string `json:"of"`
	RequestID string `json:"request_id"`
	// TraceParent: as runArgs'.
	TraceParent string `json:"traceparent,omitempty"`
}

func (revertArgs) Kind() string { return "refactor_revert" }

func newID() string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b[:])
}

// Busy reports whether this worker is running a run (for /health).
func (p *Pool) Busy() bool { return p.local.Busy() }

// ModelConfigured reports whether this worker can reach a model.
func (p *Pool) ModelConfigured() bool { return p.local.ModelConfigured() }

// RetryAfter is when a refused caller should come back: the queue's
// length times the recent mean duration of a run, shared by the live
// workers, at least 1 s.
func (p *Pool) RetryAfter() int {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	queued, workers, err := p.depth(ctx)
	if err != nil {
		return 5
	}
	mean := p.meanDuration(ctx)
	return max(1, int(math.Ceil(float64(queued)*mean.Seconds()/float64(max(workers, 1)))))
}

// meanDuration is the mean duration of the last runs of the pool (30 s,
// a real model's run, before any).
func (p *Pool) meanDuration(ctx context.Context) time.Duration {
	var secs *float64
	err := p.db.QueryRow(ctx, `SELECT avg(extract(epoch FROM finished_at - started_at)) FROM (
		SELECT finished_at, started_at FROM runs WHERE finished_at IS NOT NULL AND started_at IS NOT NULL
		ORDER BY finished_at DESC LIMIT 20) recent`).Scan(&secs)
	if err != nil || secs == nil {
		return 30 * time.Second
	}
	return time.Duration(*secs * float64(time.Second))
}

// depth counts the runs waiting in the queue and the live workers.
func (p *Pool) depth(ctx context.Context) (queued, workers int, err error) {
	err = p.db.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM river_job WHERE queue = $1 AND state = 'available'),
		(SELECT count(*) FROM pool_workers WHERE NOT stopping AND heartbeat_at > now() - $2::interval)`,
		runsQueue, p.opts.Lease.String()).Scan(&queued, &workers)
	return queued, workers, err
}

// Start queues req durably and answers a job the caller waits on: its
// first event says the run's place in the queue, then the worker's events
// follow, wherever it runs. Refused at once: busy past QUEUE_MAX,
// store_unavailable when the database does not answer.
func (p *Pool) Start(ctx context.Context, req refactor.Request) (refactor.Job, error) {
	if !p.local.ModelConfigured() {
		return nil, refactor.Errorf(refactor.ModelNotConfigured, "no model is configured")
	}
	if err := req.Ref.Validate(); err != nil {
		return nil, err
	}
	id := newID()
	// Listening before the run is queued, the caller is woken by the
	// first thing recorded of it: there is nothing to read before.
	w := p.watch(id)
	ctx, span := p.startEnqueueSpan(ctx, id)
	queued, err := p.enqueue(ctx, id, req)
	spans.End(span, err)
	if err != nil {
		w.stop()
		return nil, err
	}
	if req.Observe != nil {
		req.Observe(refactor.Event{Type: refactor.EventQueued, Data: queued})
	}
	return refactor.StartJob(id, func() (*refactor.Result, error) {
		defer w.stop()
		return p.follow(ctx, w, req.Observe)
	}), nil
}

// createQueued writes the run's row (%s: its INSERT) and reads, in the
// same round trip, the runs waiting before it and the live workers;
// $%d, after the row's values, is the lease.
const createQueued = `WITH created AS (%s RETURNING 1)
	SELECT (SELECT count(*) FROM river_job WHERE queue = '` + runsQueue + `' AND state = 'available'),
		(SELECT count(*) FROM pool_workers WHERE NOT stopping AND heartbeat_at > now() - $%d::interval)`

// enqueue writes the run's row (status queued) and its job in one
// transaction: a run is in the trail exactly when it is in the queue. The
// queue's depth is read by the row's statement, and a full queue rolls
// the row back (busy): a run queued pays no round trip of its own for the
// check. The transaction begins with the row and commits with the job's
// record (pipelinedTx): four round trips in all, river's two included. It
// answers the run's place in the queue, read as it was queued.
func (p *Pool) enqueue(ctx context.Context, id string, req refactor.Request) (refactor.QueuedEvent, error) {
	row := refactor.Run{
		ID: id, Kind: refactor.RunKindRefactor, RequestID: req.RequestID,
		ClassName: req.Ref.Class, Selector: req.Ref.Selector, IsClassMethod: req.Ref.ClassSide,
		DryRun: req.DryRun, Verify: req.Verify, RunTests: (req.RunTests || req.Verify) && !req.DryRun, Status: refactor.StatusQueued,
		CreatedAt: time.Now(), TraceID: traceID(ctx),
	}
	insert, values, err := store.CreateStatement(row)
	if err != nil {
		return refactor.QueuedEvent{}, refactor.Wrap(refactor.Internal, err, "recording the run in the audit trail")
	}
	args := runArgs{RunID: id, Class: req.Ref.Class, Selector: req.Ref.Selector, ClassSide: req.Ref.ClassSide,
		DryRun: req.DryRun, Verify: req.Verify, RunTests: req.RunTests, RequestID: req.RequestID, Follow: req.Observe != nil,
		TraceParent: traceParent(ctx)}
	var queued, workers int
	create := fmt.Sprintf(createQueued, insert, len(values)+1)
	tx, err := beginWith(ctx, p.db, create, append(values, p.opts.Lease.String()), &queued, &workers)
	if err != nil {
		return refactor.QueuedEvent{}, unavailable(err, "nothing was queued or compiled")
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // after the commit, a no-op
	if queued >= p.opts.QueueMax {
		return refactor.QueuedEvent{}, refactor.Errorf(refactor.Busy, "%d runs are already waiting in the pool's queue (QUEUE_MAX); retry later", queued)
	}
	res, err := p.river.InsertTx(ctx, tx, args, &river.InsertOpts{Queue: runsQueue, MaxAttempts: 1})
	if err != nil {
		return refactor.QueuedEvent{}, unavailable(err, "nothing was queued or compiled")
	}
	var pos int
	if err := tx.commitWith(ctx, recordJob, []any{id, res.Job.ID, 1}, &pos); err != nil {
		return refactor.QueuedEvent{}, unavailable(err, "nothing was queued or compiled")
	}
	return refactor.QueuedEvent{Position: pos, Queued: max(queued+1, pos), Workers: workers}, nil
}

// insertRun queues args again (its attempt-th time) for a run whose row
// exists and records the job as the run's current one, in one
// transaction; reason is recorded as a queued event.
func (p *Pool) insertRun(ctx context.Context, args runArgs, attempt int, reason string) error {
	tx, err := p.db.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // after Commit, a no-op
	res, err := p.river.InsertTx(ctx, tx, args, &river.InsertOpts{Queue: runsQueue, MaxAttempts: 1})
	if err != nil {
		return err
	}
	var pos int
	if err := tx.QueryRow(ctx, recordJob, args.RunID, res.Job.ID, attempt).Scan(&pos); err != nil {
		return err
	}
	data, _ := json.Marshal(refactor.QueuedEvent{Reason: reason}) // a plain struct always encodes
	if err := recordEvent(ctx, tx, args.RunID, refactor.EventQueued, data); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// recordJob records a run's current job and counts the jobs waiting up to
// it, its own (inserted earlier in the same transaction) included.
const recordJob = `WITH q AS (INSERT INTO pool_runs (run_id, job_id, attempt) VALUES ($1, $2, $3)
		ON CONFLICT (run_id) DO UPDATE SET job_id = EXCLUDED.job_id, attempt = EXCLUDED.attempt, queued_at = now())
	SELECT count(*) FROM river_job WHERE queue = '` + runsQueue + `' AND state = 'available' AND id <= $2`

// recordEvent stores one event of a run and wakes its waiters.
func recordEvent(ctx context.Context, tx pgx.Tx, id, typ string, data []byte) error {
	_, err := tx.Exec(ctx, `WITH e AS (INSERT INTO run_events (run_id, type, data) VALUES ($1, $2, $3) RETURNING run_id)
		SELECT pg_notify('`+channel+`', run_id) FROM e`, id, typ, data)
	return err
}

// answer is how a run's outcome travels from its worker to its caller.
type answer struct {
	Result *refactor.Result `json:"result,omitempty"`
	Row    *refactor.Run    `json:"row,omitempty"`
}

// follow relays the events of w's run to observe and answers its outcome
// once its worker recorded it. A database that goes away only delays it.
// ctx ends the wait (not the run).
func (p *Pool) follow(ctx context.Context, w waiter, observe func(refactor.Event)) (*refactor.Result, error) {
	a, err := p.awaitWoken(ctx, w, observe)
	if a.Result == nil && err == nil {
		return nil, refactor.Errorf(refactor.Internal, "run %s ended without its result", w.id)
	}
	return a.Result, err
}

// waiter is a caller listening for what is recorded of run id; seq is
// the last event it relayed, look whether something may be there already.
type waiter struct {
	id   string
	wake <-chan struct{}
	stop func()
	seq  int64
	look bool
}

// watch listens for run id, queued from now on.
func (p *Pool) watch(id string) waiter {
	wake, stop := p.notify.watch(id)
	return waiter{id: id, wake: wake, stop: stop}
}

// await waits for run id's answer, relaying its events.
func (p *Pool) await(ctx context.Context, id string, observe func(refactor.Event), seq int64) (answer, error) {
	w := p.watch(id)
	defer w.stop()
	w.seq, w.look = seq, true
	return p.awaitWoken(ctx, w, observe)
}

// awaitWoken looks at w's run when woken (or every fallbackPoll, in case
// a notification was lost) until its answer is there.
func (p *Pool) awaitWoken(ctx context.Context, w waiter, observe func(refactor.Event)) (answer, error) {
	tick := time.NewTicker(fallbackPoll)
	defer tick.Stop()
	for {
		if w.look {
			next, a, done, err := p.look(ctx, w.id, observe, w.seq)
			w.seq = next
			if done {
				return a, err
			}
		}
		w.look = true
		select {
		case <-ctx.Done():
			cause := context.Cause(ctx)
			return answer{}, refactor.Wrap(refactor.KindOf(cause), cause,
				"stopped waiting for run %s; it goes on in the pool and its row says how it ends", w.id)
		case <-w.wake:
		case <-tick.C:
		}
	}
}

const (
	eventsSince = "SELECT seq, type, data FROM run_events WHERE run_id = $1 AND seq > $2 ORDER BY seq"
	answerQuery = "SELECT code, message, body FROM run_answers WHERE run_id = $1"
)

// look is one wake of a waiter: it reads run id's answer and relays its
// events since seq (when observed), both in one round trip. The answer is
// read first: a worker records every event of a run before its answer,
// so once the answer is there the events read after it are all of them.
// A failed read of the events is read again at the next wake, or at once
// when the answer came with it.
func (p *Pool) look(ctx context.Context, id string, observe func(refactor.Event), seq int64) (int64, answer, bool, error) {
	if observe == nil {
		a, done, err := p.answerOf(ctx, id)
		return seq, a, done, err
	}
	b := &pgx.Batch{}
	b.Queue(answerQuery, id)
	b.Queue(eventsSince, id, seq)
	results := p.db.SendBatch(ctx, b)
	a, done, err := scanAnswer(results.QueryRow().Scan, id)
	seq, relayErr := relayRows(results.Query, observe, seq)
	_ = results.Close() // each result's own error is read above
	if done && relayErr != nil {
		seq, _ = p.relay(ctx, id, observe, seq)
	}
	return seq, a, done, err
}

func (p *Pool) relay(ctx context.Context, id string, observe func(refactor.Event), seq int64) (int64, error) {
	return relayRows(func() (pgx.Rows, error) { return p.db.Query(ctx, eventsSince, id, seq) }, observe, seq)
}

// relayRows passes on the events query answers, in order, and answers
// the last one's seq.
func relayRows(query func() (pgx.Rows, error), observe func(refactor.Event), seq int64) (int64, error) {
	rows, err := query()
	if err != nil {
		return seq, err
	}
	defer rows.Close()
	for rows.Next() {
		var typ string
		var data []byte
		if err := rows.Scan(&seq, &typ, &data); err != nil {
			return seq, err
		}
		observe(decodeEvent(typ, data))
	}
	return seq, rows.Err()
}

// answerOf reads run id's answer: done is false while it runs.
func (p *Pool) answerOf(ctx context.Context, id string) (answer, bool, error) {
	return scanAnswer(p.db.QueryRow(ctx, answerQuery, id).Scan, id)
}

// scanAnswer reads an answer row (done is false when there is none yet).
func scanAnswer(scan func(...any) error, id string) (a answer, done bool, err error) {
	var code, message string
	var body []byte
	err = scan(&code, &message, &body)
	if errors.Is(err, pgx.ErrNoRows) {
		return answer{}, false, nil
	}
	if err != nil {
		return answer{}, false, err
	}
	if body != nil {
		if err := json.Unmarshal(body, &a); err != nil {
			return answer{}, true, refactor.Wrap(refactor.Internal, err, "run %s: its answer does not decode", id)
		}
	}
	if code != "" {
		return a, true, refactor.Errorf(refactor.Kind(code), "%s", message)
	}
	return a, true, nil
}

// recordAnswer stores run id's outcome (once) and wakes its waiters.
func (p *Pool) recordAnswer(ctx context.Context, id string, a answer, runErr error) error {
	return p.recordEnd(ctx, id, nil, a, runErr)
}

// recordEnd stores run id's last events, in order, and its outcome (once)
// in one statement, committed synchronously as an answer is, and wakes
// its waiters once: the events are visible exactly when the answer is.
const recordEnd = `WITH e AS (INSERT INTO run_events (run_id, type, data)
		SELECT $1, x.type, x.data FROM unnest($5::text[], $6::json[]) WITH ORDINALITY AS x(type, data, n)
		ORDER BY x.n),
	a AS (INSERT INTO run_answers (run_id, code, message, body) VALUES ($1, $2, $3, $4)
		ON CONFLICT (run_id) DO NOTHING RETURNING run_id)
	SELECT pg_notify('` + channel + `', run_id) FROM a`

// recordEnd records run id's last events (those its recorder left) with
// its answer.
func (p *Pool) recordEnd(ctx context.Context, id string, last []refactor.Event, a answer, runErr error) error {
	body, err := json.Marshal(a)
	if err != nil {
		return fmt.Errorf("pool: encode the answer of run %s: %w", id, err)
	}
	var code, message string
	if runErr != nil {
		code, message = string(refactor.KindOf(runErr)), refactor.Public(runErr)
	}
	types, data := encodeEvents(last)
	if _, err = p.db.Exec(ctx, recordEnd, id, code, message, body, types, data); err != nil {
		return fmt.Errorf("pool: record the answer of run %s: %w", id, store.Unavailable(err))
	}
	return nil
}
