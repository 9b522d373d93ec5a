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

// recordStage writes the stage a run reached ($4, at $5) into its row, as
// the store's SetStage does, and stores the events handed over with it in
// the same statement. It is the trail's write: committed synchronously.
const recordStage = `WITH s AS (UPDATE runs SET stage = $4, updated_at = $5
		WHERE id = $1 AND status IN ('running', 'releasing')),
	e AS (INSERT INTO run_events (run_id, type, data)
		SELECT $1, x.type, x.data FROM unnest($2::text[], $3::json[]) WITH ORDINALITY AS x(type, data, n)
		ORDER BY x.n
		RETURNING run_id)
	SELECT pg_notify('` + channel + `', $1) WHERE EXISTS (SELECT 1 FROM e)`

// eventBatch bounds how many events one statement records.
const eventBatch = 64

// recorder records a run's events for its caller, wherever it waits,
// without holding the run up: the pipeline hands an event over and goes on,
// one writer records what has gathered meanwhile in one statement, in the
// order the pipeline sent it. The stages the run reaches travel the same
// way (Trail.SetStage): each is in the row before, or in the same commit
// as, the events handed over after it, so whoever hears of a stage finds
// it in the row, as the pipeline promises; the trail's other writes of
// the run wait for them (settle). The run's answer is recorded after every
// event (close, then recordEnd with what close answers), so that a caller
// who reads the answer has every event before it.
type recorder struct {
	p       *Pool
	id      string
	entries chan entry
	done    chan struct{}
	// left is what the writer gathered after close: not recorded by it.
	left []entry

	mu     sync.Mutex
	closed bool
	handed int // entries handed over
	staged int // how many had been handed over with the last stage

	wmu      sync.Mutex
	wrote    *sync.Cond
	written  int  // entries recorded (or dropped) by the writer
	finished bool // the writer ended
}

// entry is an event of the run, or (stage set) the stage it reached.
type entry struct {
	event refactor.Event
	stage string
	at    time.Time
}

func (p *Pool) newRecorder(id string) *recorder {
	r := &recorder{p: p, id: id, entries: make(chan entry, 4*eventBatch), done: make(chan struct{})}
	r.wrote = sync.NewCond(&r.wmu)
	go r.write()
	return r
}

// observe hands an event over; it waits only when the writer is a whole
// buffer behind (the database is slow), as recording in line did. An
// event sent after close has no caller left to read it before the answer:
// it is dropped rather than crash the worker.
func (r *recorder) observe(e refactor.Event) {
	r.hand(entry{event: e})
}

// stage hands over the stage the run reached; false once the recorder is
// closed (the stage is the trail's to write then).
func (r *recorder) stage(stage string) bool {
	return r.hand(entry{stage: stage, at: time.Now()})
}

func (r *recorder) hand(e entry) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return false
	}
	r.handed++
	if e.stage != "" {
		r.staged = r.handed
	}
	r.entries <- e
	return true
}

// settle waits until the writer has recorded the stages handed over so
// far (and what came before them): the trail's next write of the run
// comes after them. The events handed over since the last stage need not
// wait for it.
func (r *recorder) settle() {
	r.mu.Lock()
	staged := r.staged
	r.mu.Unlock()
	r.wmu.Lock()
	defer r.wmu.Unlock()
	for r.written < staged && !r.finished {
		r.wrote.Wait()
	}
}

// close ends the writer once its statement in flight is done, and answers
// the events handed over since (at most one batch), which it leaves for
// the statement that records the run's answer: one round trip for both
// at the run's end, where the caller waits. A stage among them (none is
// handed over after the run's last write of its row) is recorded here.
func (r *recorder) close() []refactor.Event {
	r.mu.Lock()
	if !r.closed {
		r.closed = true
		close(r.entries)
	}
	r.mu.Unlock()
	<-r.done
	events, stage := split(r.left)
	if stage != nil {
		r.record(r.left)
		return nil
	}
	return events
}

// flush records everything handed over and ends the writer.
func (r *recorder) flush() {
	if left := r.close(); len(left) > 0 {
		r.record(entries(left))
	}
}

func (r *recorder) write() {
	defer func() {
		r.wmu.Lock()
		r.finished = true
		r.wrote.Broadcast()
		r.wmu.Unlock()
		close(r.done)
	}()
	for {
		batch, open := r.gather()
		if !open {
			r.left = batch
			return
		}
		r.record(batch)
		r.wmu.Lock()
		r.written += len(batch)
		r.wrote.Broadcast()
		r.wmu.Unlock()
	}
}

// gather waits for an entry and takes those handed over meanwhile, up to
// a batch; open is false once close was called and nothing is left.
func (r *recorder) gather() (batch []entry, open bool) {
	e, ok := <-r.entries
	if !ok {
		return nil, false
	}
	batch = append(batch, e)
	for len(batch) < eventBatch {
		select {
		case e, ok := <-r.entries:
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

// split parts a batch into its events and its last stage (nil: none).
func split(batch []entry) (events []refactor.Event, stage *entry) {
	for i, e := range batch {
		if e.stage != "" {
			stage = &batch[i]
			continue
		}
		events = append(events, e.event)
	}
	return events, stage
}

func entries(events []refactor.Event) []entry {
	out := make([]entry, len(events))
	for i, e := range events {
		out[i] = entry{event: e}
	}
	return out
}

// record stores one batch: its events, and its last stage in the run's
// row. An event that cannot be recorded is dropped: the run goes on, and
// its caller sees a gap in a progress stream; a stage that cannot be
// written costs the row's view of it, as the store's SetStage would.
func (r *recorder) record(batch []entry) {
	events, stage := split(batch)
	types, data := encodeEvents(events)
	if len(types) == 0 && stage == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if stage == nil {
		if _, err := r.p.db.Exec(ctx, recordEvents, r.id, types, data); err != nil {
			r.p.log.Debug("a run's events could not be recorded; its caller misses them", zap.String("run_id", r.id), zap.Int("events", len(types)), zap.Error(err))
		}
		return
	}
	if _, err := r.p.db.Exec(ctx, recordStage, r.id, types, data, stage.stage, stage.at.UTC().Truncate(time.Millisecond)); err != nil {
		r.p.log.Warn("recording the run's stage failed; its caller misses the events sent with it", zap.String("run_id", r.id),
			zap.String("stage", stage.stage), zap.Int("events", len(types)), zap.Error(err))
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
