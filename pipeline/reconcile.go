package pipeline

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	refactor "github.com/pharo-refactor/refactord"
)

// Reconciled is what start-up reconciliation decided for one row.
type Reconciled struct {
	ID     string
	Status refactor.Status
}

// Reconcile settles, at start-up, every row a previous process left
// unsettled (store.Status.Unsettled), by reading the image:
//   - running: the run was interrupted before its release began (a crash,
//     an expired shutdown grace, a full disk). Nothing was compiled — the
//     write-ahead row (releasing) always comes first — so it is
//     not_released, with no need to ask the image.
//   - releasing: the final source in the image → released; the original →
//     not_released; anything else → conflict, for an operator. The run's
//     helpers follow the method: the whole new set or the whole original
//     set (a crash between installing a helper and the method leaves a
//     part, completed here), and the note says which. A verify run's row
//     never settles to released: the final source in the image is put
//     back (compiled and read back, its helpers removed) → rolled_back.
//   - restore_failed: the original in the image → rolled_back; the final
//     source → the rollback is finished (the original is compiled and read
//     back) → rolled_back; anything else → conflict.
//
// Rows whose method cannot be read (or restored) now stay as they are for
// the next start; their errors are joined into the answer.
func (p *Pipeline) Reconcile(ctx context.Context) ([]Reconciled, error) {
	rows, err := p.audit.Unsettled(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing unsettled runs: %w", err)
	}
	var out []Reconciled
	var errs []error
	for _, row := range rows {
		status, note, err := p.settle(ctx, row)
		if err != nil {
			errs = append(errs, fmt.Errorf("run %s (%s): %w", row.ID, row.Status, err))
			continue
		}
		if err := p.audit.Reconcile(ctx, row.ID, status, note); err != nil {
			errs = append(errs, fmt.Errorf("run %s: %w", row.ID, err))
			continue
		}
		if status == refactor.StatusReleased && row.Kind == refactor.RunKindRevert {
			if err := p.audit.MarkReverted(ctx, row.RevertOf, time.Now()); err != nil {
				errs = append(errs, fmt.Errorf("run %s: marking %s reverted: %w", row.ID, row.RevertOf, err))
			}
		}
		level := p.log.Info
		if status == refactor.StatusConflict {
			level = p.log.Warn
		}
		level("reconciled an unsettled run", zap.String("run_id", row.ID), zap.String("was", string(row.Status)),
			zap.String("status", string(status)), zap.String("note", note))
		out = append(out, Reconciled{ID: row.ID, Status: status})
	}
	return out, errors.Join(errs...)
}

func (p *Pipeline) settle(ctx context.Context, row refactor.Run) (refactor.Status, string, error) {
	switch row.Status {
	case refactor.StatusRunning:
		return refactor.StatusNotReleased, "interrupted before its release began (the service stopped); nothing was compiled", nil
	case refactor.StatusReleasing:
		if row.Verify {
			return p.settleVerifying(ctx, row)
		}
		return p.settleReleasing(ctx, row)
	case refactor.StatusRestoreFailed:
		return p.settleRestoreFailed(ctx, row)
	}
	return "", "", fmt.Errorf("status %s needs no reconciliation", row.Status)
}

func refOf(row refactor.Run) refactor.MethodRef {
	return refactor.MethodRef{Class: row.ClassName, Selector: row.Selector, ClassSide: row.IsClassMethod}
}

// current reads the method for settling its row. A method or class that
// is gone settles the row at once, as a conflict (status and note set).
func (p *Pipeline) current(ctx context.Context, ref refactor.MethodRef) (src string, status refactor.Status, note string, err error) {
	src, err = p.image.MethodSource(ctx, ref)
	if refactor.IsKind(err, refactor.MethodNotFound) || refactor.IsKind(err, refactor.ClassNotFound) {
		return "", refactor.StatusConflict, fmt.Sprintf("%s is gone from the image; an operator must look", ref), nil
	}
	return src, "", "", err
}

func (p *Pipeline) settleReleasing(ctx context.Context, row refactor.Run) (refactor.Status, string, error) {
	ref := refOf(row)
	current, status, note, err := p.current(ctx, ref)
	switch {
	case err != nil || status != "":
		return status, note, err
	case refactor.SameSource(current, row.FinalSource):
		if status, note, err := p.completeSet(ctx, row, true); err != nil || status != "" {
			return status, note, err
		}
		return refactor.StatusReleased, "the image holds the final source: the compile took effect before the crash" + setNote(row, true), nil
	case refactor.SameSource(current, row.OriginalSource):
		if status, note, err := p.completeSet(ctx, row, false); err != nil || status != "" {
			return status, note, err
		}
		return refactor.StatusNotReleased, "the image holds the original source: the crash came before the compile" + setNote(row, false), nil
	default:
		return refactor.StatusConflict, fmt.Sprintf("%s holds neither the original nor the final source; an operator must look", ref), nil
	}
}

// completeSet brings the helpers of a row whose method holds one of its two
// sources to the same side: the whole new set (a refactoring's helpers
// installed, or a revert's removed) when final, else the whole original
// set. A helper held with other source than recorded is someone else's
// work: conflict (status set), nothing touched.
func (p *Pipeline) completeSet(ctx context.Context, row refactor.Run, final bool) (refactor.Status, string, error) {
	if len(row.Helpers) == 0 {
		return "", "", nil
	}
	_, foreign, err := p.helpersHeld(ctx, row.ClassName, row.Helpers)
	if err != nil {
		return "", "", err
	}
	if foreign > 0 {
		return refactor.StatusConflict, fmt.Sprintf("%s holds %d of the run's helper selectors with other source; an operator must look", row.ClassName, foreign), nil
	}
	present := final == (row.Kind != refactor.RunKindRevert)
	if present {
		err = p.installHelpers(ctx, row.ClassName, row.Helpers)
	} else {
		err = p.removeHelpers(ctx, p.log, row.ClassName, row.Helpers)
	}
	return "", "", err
}

// setNote says what reconciliation made of a row's helpers.
func setNote(row refactor.Run, final bool) string {
	if len(row.Helpers) == 0 {
		return ""
	}
	if final == (row.Kind != refactor.RunKindRevert) {
		return fmt.Sprintf("; all %d helper methods are in the image (any missing were installed)", len(row.Helpers))
	}
	return fmt.Sprintf("; none of the %d helper methods is in the image (any installed were removed)", len(row.Helpers))
}

// settleRestoreFailed finishes a rollback that could not complete: the run
// answered that nothing was released, so the original set goes back — the
// original method, and none of the helpers.
func (p *Pipeline) settleRestoreFailed(ctx context.Context, row refactor.Run) (refactor.Status, string, error) {
	done := "the image held the final source after a failed rollback; the original was restored and read back"
	if row.Verify {
		done = "the image held the final source after a verify run failed to put the original back; the original was restored and read back"
	}
	return p.settleToOriginal(ctx, row, refactor.StatusRolledBack, "the image holds the original source: the restore had taken effect", done)
}

// settleVerifying settles a verify run interrupted during its release: it
// was never to leave its final source in the image, so a final source
// found there is put back, like a failed rollback's.
func (p *Pipeline) settleVerifying(ctx context.Context, row refactor.Run) (refactor.Status, string, error) {
	return p.settleToOriginal(ctx, row, refactor.StatusNotReleased,
		"a verify run was interrupted; the image holds the original source: nothing of the run is in it",
		"a verify run was interrupted with its final source in the image; the original was restored and read back")
}

// settleToOriginal settles a row whose run must leave the original set in
// the image: the original method found there → holding, with note (any of
// its helpers installed are removed); the final source found there is put
// back, its helpers removed → rolled_back, with done; anything else is a
// conflict.
func (p *Pipeline) settleToOriginal(ctx context.Context, row refactor.Run, holding refactor.Status, note, done string) (refactor.Status, string, error) {
	ref := refOf(row)
	current, status, gone, err := p.current(ctx, ref)
	switch {
	case err != nil || status != "":
		return status, gone, err
	case refactor.SameSource(current, row.OriginalSource):
		if status, note, err := p.completeSet(ctx, row, false); err != nil || status != "" {
			return status, note, err
		}
		return holding, note + setNote(row, false), nil
	case !refactor.SameSource(current, row.FinalSource):
		return refactor.StatusConflict, fmt.Sprintf("%s holds neither the original nor the final source; an operator must look", ref), nil
	}
	return p.putOriginalBack(ctx, row, done)
}

// putOriginalBack compiles the row's original source and reads it back.
func (p *Pipeline) putOriginalBack(ctx context.Context, row refactor.Run, done string) (refactor.Status, string, error) {
	ref := refOf(row)
	if err := p.image.Install(ctx, ref, row.OriginalSource, row.OriginalProtocol); err != nil {
		return "", "", fmt.Errorf("restoring the original of %s: %w", ref, err)
	}
	back, err := p.image.MethodSource(ctx, ref)
	if err != nil {
		return "", "", fmt.Errorf("reading %s back after restoring it: %w", ref, err)
	}
	if !refactor.SameSource(back, row.OriginalSource) {
		return refactor.StatusConflict, fmt.Sprintf("%s does not hold the original after restoring it; an operator must look", ref), nil
	}
	if status, note, err := p.completeSet(ctx, row, false); err != nil || status != "" {
		return status, note, err
	}
	return refactor.StatusRolledBack, done + setNote(row, false), nil
}
