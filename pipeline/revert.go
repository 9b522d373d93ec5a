package pipeline

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"pharo-refactor/mcpclient"
	"pharo-refactor/pipeline/kind"
	"pharo-refactor/store"
)

// Revert puts back the original of a released run, through the slot like a
// run, and records it as its own row. It refuses unless the image still
// holds exactly the released source (a person may have edited it since).
func (s *Slot) Revert(ctx context.Context, id, requestID string) (store.Run, error) {
	defer s.release()
	p := s.p
	// Like release, a revert is never cut in half by a client that leaves.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), p.opts.ReleaseTimeout)
	defer cancel()
	orig, err := p.audit.Get(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return store.Run{}, kind.New(kind.NotFound, "no refactoring with id %q", id)
	}
	if err != nil {
		return store.Run{}, kind.Wrap(kind.Internal, err, "reading refactoring %s", id)
	}
	ref := mcpclient.MethodRef{Class: orig.ClassName, Selector: orig.Selector, ClassSide: orig.IsClassMethod}
	if err := revertable(orig); err != nil {
		return store.Run{}, err
	}
	current, err := p.image.MethodSource(ctx, ref)
	if err != nil {
		return store.Run{}, err
	}
	if !mcpclient.SameSource(current, orig.FinalSource) {
		return store.Run{}, kind.New(kind.MethodChanged, "%s no longer holds the source released by %s; nothing was reverted", ref, id)
	}
	return p.revert(ctx, s.ID, requestID, orig, ref)
}

// revertable says whether a row can be reverted at all.
func revertable(orig store.Run) error {
	switch {
	case orig.Kind != store.KindRefactor:
		return kind.New(kind.InvalidRequest, "%s is a revert; refactor again instead of reverting a revert", orig.ID)
	case orig.Status == store.StatusReverted:
		return kind.New(kind.MethodChanged, "%s was already reverted", orig.ID)
	case orig.Status != store.StatusReleased:
		return kind.New(kind.InvalidRequest, "%s was not released (status %s); there is nothing to revert", orig.ID, orig.Status)
	}
	return nil
}

func (p *Pipeline) revert(ctx context.Context, revID, requestID string, orig store.Run, ref mcpclient.MethodRef) (store.Run, error) {
	log := p.log.With(zap.String("run_id", revID), zap.String("revert_of", orig.ID), zap.String("request_id", requestID))
	row := store.Run{
		ID: revID, Kind: store.KindRevert, RevertOf: orig.ID, RequestID: requestID,
		ClassName: ref.Class, Selector: ref.Selector, IsClassMethod: ref.ClassSide, Status: store.StatusRunning,
	}
	if err := p.audit.Create(ctx, row); err != nil {
		return store.Run{}, kind.Wrap(kind.Internal, err, "recording the revert")
	}
	// For the revert, "original" is what the image holds now (the released
	// source) and "final" is what it will hold (the run's original).
	if err := p.audit.BeginRelease(ctx, revID, orig.FinalSource, orig.OriginalProtocol, orig.OriginalSource); err != nil {
		return store.Run{}, kind.Wrap(kind.Internal, err, "recording the revert before compiling; nothing was compiled")
	}
	p.opts.Checkpoint("after_write_ahead")
	err := p.compileAndCheck(ctx, ref, orig.OriginalSource, orig.OriginalProtocol)
	row, getErr := p.audit.Get(ctx, revID)
	if getErr != nil {
		return store.Run{}, kind.Wrap(kind.Internal, getErr, "reading the revert row")
	}
	now := time.Now()
	row.FinishedAt = &now
	if err != nil {
		row.Status, row.ErrorCode, row.ErrorMessage = store.StatusFailed, string(kind.Of(err)), err.Error()
		p.finishRevertRow(ctx, row, log)
		return row, err
	}
	row.Status, row.ReleasedAt = store.StatusReleased, &now
	p.finishRevertRow(ctx, row, log)
	if err := p.audit.MarkReverted(ctx, orig.ID, now); err != nil {
		log.Error("marking the reverted run failed", zap.Error(err))
	}
	log.Info("reverted", zap.String("class", ref.Class), zap.String("selector", ref.Selector))
	return p.audit.Get(ctx, revID)
}

func (p *Pipeline) finishRevertRow(ctx context.Context, row store.Run, log *zap.Logger) {
	if err := p.audit.Update(ctx, row); err != nil {
		log.Error("updating the revert row failed; the next start reconciles it", zap.Error(err))
	}
}

// compileAndCheck installs source and confirms it by reading it back.
func (p *Pipeline) compileAndCheck(ctx context.Context, ref mcpclient.MethodRef, source, protocol string) error {
	if err := p.image.Install(ctx, ref, source, protocol); err != nil {
		return kind.Wrap(kind.ReleaseFailed, err, "compiling %s", ref)
	}
	back, err := p.image.MethodSource(ctx, ref)
	if err != nil {
		return kind.Wrap(kind.ReleaseFailed, err, "reading %s back", ref)
	}
	if !mcpclient.SameSource(back, source) {
		return kind.New(kind.ReleaseFailed, "%s holds different source after compiling", ref)
	}
	return nil
}

// Reconciled is what start-up reconciliation decided for one row.
type Reconciled struct {
	ID     string
	Status store.Status
}

// Reconcile settles rows left in releasing by a crash, by reading the
// method from the image: the final source → released; the original → not
// released; anything else → conflict, for an operator. Rows whose method
// cannot be read now stay in releasing for the next start.
func (p *Pipeline) Reconcile(ctx context.Context) ([]Reconciled, error) {
	rows, err := p.audit.Releasing(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing rows left in releasing: %w", err)
	}
	var out []Reconciled
	var errs []error
	for _, row := range rows {
		status, note, err := p.settle(ctx, row)
		if err != nil {
			errs = append(errs, fmt.Errorf("run %s: %w", row.ID, err))
			continue
		}
		if err := p.audit.Reconcile(ctx, row.ID, status, note); err != nil {
			errs = append(errs, fmt.Errorf("run %s: %w", row.ID, err))
			continue
		}
		if status == store.StatusReleased && row.Kind == store.KindRevert {
			if err := p.audit.MarkReverted(ctx, row.RevertOf, time.Now()); err != nil {
				errs = append(errs, fmt.Errorf("run %s: marking %s reverted: %w", row.ID, row.RevertOf, err))
			}
		}
		level := p.log.Info
		if status == store.StatusConflict {
			level = p.log.Warn
		}
		level("reconciled a run interrupted during release", zap.String("run_id", row.ID), zap.String("status", string(status)), zap.String("note", note))
		out = append(out, Reconciled{ID: row.ID, Status: status})
	}
	return out, errors.Join(errs...)
}

func (p *Pipeline) settle(ctx context.Context, row store.Run) (store.Status, string, error) {
	ref := mcpclient.MethodRef{Class: row.ClassName, Selector: row.Selector, ClassSide: row.IsClassMethod}
	current, err := p.image.MethodSource(ctx, ref)
	switch {
	case kind.Is(err, kind.MethodNotFound) || kind.Is(err, kind.ClassNotFound):
		return store.StatusConflict, fmt.Sprintf("%s is gone from the image; an operator must look", ref), nil
	case err != nil:
		return "", "", err
	case mcpclient.SameSource(current, row.FinalSource):
		return store.StatusReleased, "the image holds the final source: the compile took effect before the crash", nil
	case mcpclient.SameSource(current, row.OriginalSource):
		return store.StatusNotReleased, "the image holds the original source: the crash came before the compile", nil
	default:
		return store.StatusConflict, fmt.Sprintf("%s holds neither the original nor the final source; an operator must look", ref), nil
	}
}
