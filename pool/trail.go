package pool

import (
	"context"

	refactor "github.com/pharo-refactor/refactord"
)

// Trail is the audit trail as one worker's pipeline uses it: the pool's
// store, except that start-up reconciliation sees only this worker's
// unsettled runs (it reads this worker's image: another worker's rows are
// settled by that worker, or by the lease).
type Trail struct {
	refactor.Audit
	Worker string
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
