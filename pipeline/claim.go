package pipeline

import (
	"context"

	refactor "github.com/pharo-refactor/refactord"
)

// In a pool of workers (package pool) runs wait in a durable queue rather
// than being refused: a worker takes one when it is idle. The worker's
// queue consumer asks for the run slot here and waits for it, since a
// revert pinned to this worker's image may hold it for a moment.

// Claim waits for the run slot and answers a reservation for the queued
// run id, whose row the queue opened and this worker has claimed: its Run
// writes that row instead of creating one. The row must be in status
// running, name this worker and be at the run's first stage (prefetch)
// when Run is called, as a row the run creates is: the claim wrote it, so
// the run does not write it again.
func (p *Pipeline) Claim(ctx context.Context, id string) (refactor.Reservation, error) {
	return p.wait(ctx, id, true)
}

// Wait waits for the run slot for the revert id, queued for this worker
// because its image holds the release; the revert creates its row.
func (p *Pipeline) Wait(ctx context.Context, id string) (refactor.Reservation, error) {
	return p.wait(ctx, id, false)
}

func (p *Pipeline) wait(ctx context.Context, id string, claimed bool) (refactor.Reservation, error) {
	if p.agents == nil {
		return nil, refactor.Errorf(refactor.ModelNotConfigured, "no model is configured")
	}
	for {
		if free, ok := p.slot.take(); ok {
			return &reservation{p: p, free: free, id: id, claimed: claimed}, nil
		}
		p.slot.mu.Lock()
		freed := p.slot.freed
		p.slot.mu.Unlock()
		select {
		case <-freed:
		case <-ctx.Done():
			return nil, refactor.Wrap(refactor.Canceled, context.Cause(ctx), "stopped while waiting for the run slot")
		}
	}
}
