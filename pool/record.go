package pool

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"go.uber.org/zap"

	refactor "github.com/pharo-refactor/refactord"
)

// transportCommit is how the rows that only carry a run's progress to its
// caller (run_events) are committed: without waiting for the WAL's flush.
// They are not the audit trail — the trail (runs) and the answers
// (run_answers, which the lease and a restarted worker read to decide a
// run's fate) keep synchronous commits. A crash of PostgreSQL itself can
// lose the last few hundred milliseconds of events: a gap in a progress
// stream, never a row that lies, and the caller still gets its answer. The
// setting is local to the statement's transaction (set_config's third
// argument), so the connection goes back to the pool unchanged.
const transportCommit = `SELECT set_config('synchronous_commit', 'off', true) AS off`

// recordEvents stores events of one run, in order, in one statement (one
// round trip, one commit) and wakes its waiters once.
const recordEvents = `WITH c AS (` + transportCommit + `),
	e AS (INSERT INTO run_events (run_id, type, data)
		SELECT $1, x.type, x.data FROM unnest($2::text[], $3::json[]) WITH ORDINALITY AS x(type, data, n)
		ORDER BY x.n
		RETURNING run_id)
	SELECT pg_notify('` + channel + `', $1) FROM c WHERE EXISTS (SELECT 1 FROM e)`

// eventBatch bounds how many events one statement records.
const eventBatch = 64

// recorder records a run's events for its caller, wherever it waits,
// without holding the run up: the pipeline hands an event over and goes on,
// one writer records what has gathered meanwhile in one statement, in the
// order the pipeline sent it. The run's answer is recorded after every
// event (close, then recordEnd with what close answers), so that a
// caller who reads the answer has every event before it.
type recorder struct {
	p      *Pool
	id     string
	events chan refactor.Event
	done   chan struct{}
	// left is what the writer gathered after close: not recorded by it.
	left []refactor.Event

	mu     sync.Mutex
	closed bool
}

func (p *Pool) newRecorder(id string) *recorder {
	r := &recorder{p: p, id: id, events: make(chan refactor.Event, 4*eventBatch), done: make(chan struct{})}
	go r.write()
	return r
}

// observe hands an event over; it waits only when the writer is a whole
// buffer behind (the database is slow), as recording in line did. An
// event sent after close has no caller left to read it before the answer:
// it is dropped rather than crash the worker.
func (r *recorder) observe(e refactor.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.closed {
		r.events <- e
	}
}

// close ends the writer once its statement in flight is done, and answers
// the events handed over since (at most one batch), which it leaves for
// the statement that records the run's answer: one round trip for both
// at the run's end, where the caller waits.
func (r *recorder) close() []refactor.Event {
	r.mu.Lock()
	if !r.closed {
		r.closed = true
		close(r.events)
	}
	r.mu.Unlock()
	<-r.done
	return r.left
}

// flush records everything handed over and ends the writer.
func (r *recorder) flush() {
	if left := r.close(); len(left) > 0 {
		r.record(left)
	}
}

func (r *recorder) write() {
	defer close(r.done)
	for {
		batch, open := r.gather()
		if !open {
			r.left = batch
			return
		}
		r.record(batch)
	}
}

// gather waits for an event and takes those handed over meanwhile, up to
// a batch; open is false once close was called and nothing is left.
func (r *recorder) gather() (batch []refactor.Event, open bool) {
	e, ok := <-r.events
	if !ok {
		return nil, false
	}
	batch = append(batch, e)
	for len(batch) < eventBatch {
		select {
		case e, ok := <-r.events:
			if !ok {
				return batch, false
			}
			batch = append(batch, e)
		default:
			return batch, true
		}
	}
	return batch, true
}

// record stores one batch. An event that cannot be recorded is dropped:
// the run goes on, and its caller sees a gap in a progress stream.
func (r *recorder) record(batch []refactor.Event) {
	types, data := encodeEvents(batch)
	if len(types) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if _, err := r.p.db.Exec(ctx, recordEvents, r.id, types, data); err != nil {
		r.p.log.Debug("a run's events could not be recorded; its caller misses them", zap.String("run_id", r.id), zap.Int("events", len(types)), zap.Error(err))
	}
}

// encodeEvents are the columns of events' rows; one whose data does not
// encode is left out.
func encodeEvents(events []refactor.Event) (types, data []string) {
	types, data = make([]string, 0, len(events)), make([]string, 0, len(events))
	for _, e := range events {
		b, err := json.Marshal(e.Data)
		if err != nil {
			continue
		}
		types = append(types, e.Type)
		data = append(data, string(b))
	}
	return types, data
}
