package pipeline

import (
	"context"
	"sync"

	refactor "github.com/pharo-refactor/refactord"
)

// Runs are jobs (docs/design.md, "Runs are jobs"): a run started by Start goes
// on whatever happens to the request that asked for it, and anyone holding
// its id may cancel it until its release begins. Every run, synchronous
// (Reservation.Run) or not, is tracked here while it executes, so Cancel
// reaches it either way.

// Start takes the run slot and runs req on its own goroutine under ctx (not
// the request's context: a client that leaves does not stop the run). The
// row is in the audit trail when Start returns.
func (p *Pipeline) Start(ctx context.Context, req refactor.Request) (refactor.Job, error) {
	slot, err := p.Reserve()
	if err != nil {
		return nil, err
	}
	s := slot.(*reservation)
	r, err := s.begin(ctx, req)
	if err != nil {
		return nil, err
	}
	return refactor.StartJob(s.id, func() (*refactor.Result, error) { return s.complete(r) }), nil
}

// Cancel stops the run id before its release and answers its row once the
// run has stopped.
func (p *Pipeline) Cancel(ctx context.Context, id string) (refactor.Run, error) {
	c := p.live.find(id)
	if c == nil {
		return p.notInProgress(ctx, id)
	}
	if !c.requestCancel(refactor.Errorf(refactor.Canceled, "run %s was canceled before its release; nothing was released", id)) {
		row, err := p.audit.Get(ctx, id)
		if err != nil {
			return refactor.Run{}, err
		}
		return row, refactor.Errorf(refactor.NotCancelable, "run %s can no longer be canceled: its release has begun (it completes or is rolled back, never cut), or it is ending", id)
	}
	select {
	case <-c.stopped:
	case <-ctx.Done():
		return refactor.Run{}, refactor.Wrap(refactor.Canceled, ctx.Err(), "the run was told to stop; its row says when it did")
	}
	return p.audit.Get(ctx, id)
}

// notInProgress answers a cancel for a run this pipeline is not executing.
func (p *Pipeline) notInProgress(ctx context.Context, id string) (refactor.Run, error) {
	row, err := p.audit.Get(ctx, id)
	switch {
	case err != nil:
		return refactor.Run{}, err
	case row.Status == refactor.StatusCanceled:
		return row, nil // canceled already: the same answer again
	case row.Kind == refactor.RunKindRevert:
		return row, refactor.Errorf(refactor.NotCancelable, "run %s is a revert (status %s); a revert is never canceled", id, row.Status)
	case row.Status.Unsettled():
		return row, refactor.Errorf(refactor.NotCancelable, "run %s (status %s) is not in progress in this service", id, row.Status)
	}
	return row, refactor.Errorf(refactor.NotCancelable, "run %s has ended (status %s); there is nothing to cancel", id, row.Status)
}

// control is what Cancel needs of a run in progress: a way to stop it, and
// the moment after which it must not (its release began, or a dry run
// concluded). Both are decided under one lock, so a cancel either stops the
// run before that moment or is refused.
type control struct {
	id      string
	stopped chan struct{} // closed once the run's row is final

	mu        sync.Mutex
	cancel    context.CancelCauseFunc
	canceled  bool
	committed bool
}

// requestCancel stops the run unless it has committed; it reports whether
// the run is (now or already) canceled.
func (c *control) requestCancel(cause error) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.committed {
		return false
	}
	if !c.canceled {
		c.canceled = true
		c.cancel(cause)
	}
	return true
}

// commit marks the point of no cancel; false when a cancel came first.
func (c *control) commit() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.canceled {
		return false
	}
	c.committed = true
	return true
}

// liveRuns are the runs executing now, by id.
type liveRuns struct {
	mu   sync.Mutex
	runs map[string]*control
}

func newLiveRuns() *liveRuns { return &liveRuns{runs: map[string]*control{}} }

// track registers a run and answers the context it executes under: ctx,
// cancelled also by Cancel.
func (l *liveRuns) track(ctx context.Context, id string) (context.Context, *control) {
	ctx, cancel := context.WithCancelCause(ctx)
	c := &control{id: id, stopped: make(chan struct{}), cancel: cancel}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.runs[id] = c
	return ctx, c
}

// untrack forgets a run whose row is final and releases its context.
func (l *liveRuns) untrack(c *control) {
	l.mu.Lock()
	delete(l.runs, c.id)
	l.mu.Unlock()
	c.cancel(nil)
	close(c.stopped)
}

func (l *liveRuns) find(id string) *control {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.runs[id]
}
