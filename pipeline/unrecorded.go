package pipeline

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"

	refactor "github.com/pharo-refactor/refactord"
)

// A run's final state is never lost to a write the audit trail refuses (a
// full or read-only DATA_DIR, PostgreSQL refusing writes): the pipeline
// keeps the row in memory, answers it to readers marked not_recorded, and
// writes it as soon as the store takes writes again — no restart needed.
// Rows still unwritten when the process ends are running or releasing in
// the store, which start-up reconciliation settles.

// unrecorded holds the final rows the audit trail refused, by run id.
type unrecorded struct {
	mu       sync.Mutex
	rows     map[string]refactor.Run
	settling bool // a settle loop runs
}

func newUnrecorded() *unrecorded { return &unrecorded{rows: map[string]refactor.Run{}} }

// keep holds row and reports whether a settle loop must be started.
func (u *unrecorded) keep(row refactor.Run) (start bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	row.NotRecorded = true
	u.rows[row.ID] = row
	if u.settling {
		return false
	}
	u.settling = true
	return true
}

func (u *unrecorded) get(id string) (refactor.Run, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	row, ok := u.rows[id]
	return row, ok
}

// pending answers the rows left to write; when none is left the settle
// loop ends (decided under the lock keep takes, so a row kept meanwhile
// starts a new loop).
func (u *unrecorded) pending() []refactor.Run {
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.rows) == 0 {
		u.settling = false
		return nil
	}
	out := make([]refactor.Run, 0, len(u.rows))
	for _, row := range u.rows {
		out = append(out, row)
	}
	return out
}

func (u *unrecorded) drop(id string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	delete(u.rows, id)
}

// Unrecorded is the number of finished runs whose rows wait for the store
// to take writes.
func (p *Pipeline) Unrecorded() int {
	p.unrecorded.mu.Lock()
	defer p.unrecorded.mu.Unlock()
	return len(p.unrecorded.rows)
}

// keepUnrecorded holds a final row the store refused and writes it later.
func (p *Pipeline) keepUnrecorded(row refactor.Run) {
	if p.unrecorded.keep(row) {
		go p.settleUnrecorded()
	}
}

// settleUnrecorded writes the kept rows every SettleInterval until none is
// left. A row the store refuses for another reason than its storage (its
// status moved on meanwhile) is dropped, logged: retrying cannot help.
func (p *Pipeline) settleUnrecorded() {
	for {
		time.Sleep(p.opts.SettleInterval)
		rows := p.unrecorded.pending()
		if rows == nil {
			return
		}
		for _, row := range rows {
			ctx, cancel := context.WithTimeout(context.Background(), auditTimeout)
			stored := row
			stored.NotRecorded = false
			err := p.audit.Update(ctx, stored)
			cancel()
			log := p.log.With(zap.String("run_id", row.ID), zap.String("status", string(row.Status)))
			switch {
			case err == nil:
				p.unrecorded.drop(row.ID)
				log.Info("the run's final row is recorded: the audit trail takes writes again")
			case refactor.IsKind(err, refactor.StoreUnavailable):
				// still refused: the next round tries again
			default:
				p.unrecorded.drop(row.ID)
				log.Error("the audit trail refused the run's final row for good; start-up reconciliation settles it", zap.Error(err))
			}
		}
	}
}

// History is h with the finished runs whose rows the store refused laid
// over it, marked not_recorded: a client following its run by id never
// reads running for a run that is over.
func (p *Pipeline) History(h refactor.History) refactor.History {
	return &overlaidHistory{History: h, u: p.unrecorded}
}

type overlaidHistory struct {
	refactor.History
	u *unrecorded
}

func (o *overlaidHistory) Get(ctx context.Context, id string) (refactor.Run, error) {
	if row, ok := o.u.get(id); ok {
		return row, nil
	}
	return o.History.Get(ctx, id)
}

func (o *overlaidHistory) List(ctx context.Context, q refactor.ListQuery) (refactor.Page, error) {
	page, err := o.History.List(ctx, q)
	if err != nil {
		return page, err
	}
	for i, row := range page.Runs {
		if kept, ok := o.u.get(row.ID); ok {
			page.Runs[i] = kept
		}
	}
	return page, nil
}
