package pool

import (
	"context"
	"sync"
	"time"

	refactor "github.com/pharo-refactor/refactord"
)

// Trail is the audit trail as one worker's pipeline uses it: the pool's
// store, except that start-up reconciliation sees only this worker's
// unsettled runs (it reads this worker's image: another worker's rows are
// settled by that worker, or by the lease), and that the stage of a run
// whose events the worker records travels with them (Runs).
type Trail struct {
	refactor.Audit
	Worker string
	// Runs, shared with the worker's Pool (Options.Runs), hands the stage
	// a run reaches to the recorder of its events, which writes it in the
	// statement that records them rather than the pipeline waiting for a
	// statement of its own; the run's other writes wait for it. Nil: every
	// stage is written by the store, at once.
	Runs *Runs
}

// Unsettled answers this worker's unsettled runs, oldest first.
func (t Trail) Unsettled(ctx context.Context) ([]refactor.Run, error) {
	all, err := t.Audit.Unsettled(ctx)
	if err != nil {
		return nil, err
	}
	mine := all[:0]
	for _, r := range all {
		if r.Worker == t.Worker {
			mine = append(mine, r)
		}
	}
	return mine, nil
}

// SetStage hands the stage to the run's recorder when it has one.
func (t Trail) SetStage(ctx context.Context, id, stage string) error {
	if r := t.Runs.recorder(id); r != nil && r.stage(stage) {
		return nil
	}
	return t.Audit.SetStage(ctx, id, stage)
}

// Get, Update, BeginRelease and MarkReverted read or write the run after
// the stages handed over to its recorder.
func (t Trail) Get(ctx context.Context, id string) (refactor.Run, error) {
	t.Runs.settle(id)
	return t.Audit.Get(ctx, id)
}

func (t Trail) Update(ctx context.Context, r refactor.Run) error {
	t.Runs.settle(r.ID)
	return t.Audit.Update(ctx, r)
}

func (t Trail) BeginRelease(ctx context.Context, id, originalSource, originalProtocol, finalSource string, helpers []refactor.Helper) error {
	t.Runs.settle(id)
	return t.Audit.BeginRelease(ctx, id, originalSource, originalProtocol, finalSource, helpers)
}

func (t Trail) MarkReverted(ctx context.Context, id string, at time.Time) error {
	t.Runs.settle(id)
	return t.Audit.MarkReverted(ctx, id, at)
}

// Runs are the recorders of the runs a worker executes now, by run id.
type Runs struct {
	mu        sync.Mutex
	recorders map[string]*recorder
}

// NewRuns makes the registry a worker's Trail and Pool share.
func NewRuns() *Runs { return &Runs{recorders: map[string]*recorder{}} }

func (rs *Runs) add(id string, r *recorder) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.recorders[id] = r
}

func (rs *Runs) remove(id string) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	delete(rs.recorders, id)
}

// recorder is run id's recorder, nil when it has none (or rs is nil).
func (rs *Runs) recorder(id string) *recorder {
	if rs == nil {
		return nil
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.recorders[id]
}

func (rs *Runs) settle(id string) {
	if r := rs.recorder(id); r != nil {
		r.settle()
	}
}
