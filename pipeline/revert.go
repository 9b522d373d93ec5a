package pipeline

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/internal/spans"
)

// Revert puts back the original of a released run, through the slot like a
// run, and records it as its own row: the original method back, then the
// helpers the run added removed. It refuses unless the image still holds
// exactly the released set (a person may have edited it since).
func (s *reservation) Revert(ctx context.Context, id, requestID string) (_ refactor.Run, err error) {
	defer s.free()
	p := s.p
	// Like release, a revert is never cut in half by a client that leaves.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), p.opts.ReleaseTimeout)
	defer cancel()
	ctx, span := p.tracer.Start(ctx, "revert run", trace.WithAttributes(
		attribute.String("refactor.run.id", s.id), attribute.String("refactor.revert_of", id)))
	defer func() { spans.End(span, err) }()
	orig, err := p.audit.Get(ctx, id)
	if err != nil {
		return refactor.Run{}, err
	}
	ref := refactor.MethodRef{Class: orig.ClassName, Selector: orig.Selector, ClassSide: orig.IsClassMethod}
	if err := revertable(orig); err != nil {
		return refactor.Run{}, err
	}
	current, err := p.image.MethodSource(ctx, ref)
	if err != nil {
		return refactor.Run{}, err
	}
	if !refactor.SameSource(current, orig.FinalSource) {
		return refactor.Run{}, refactor.Errorf(refactor.MethodChanged, "%s no longer holds the source released by %s; nothing was reverted", ref, id)
	}
	held, _, err := p.helpersHeld(ctx, ref.Class, orig.Helpers)
	if err != nil {
		return refactor.Run{}, err
	}
	if held != len(orig.Helpers) {
		return refactor.Run{}, refactor.Errorf(refactor.MethodChanged, "the helper methods released by %s were changed or removed since; nothing was reverted", id)
	}
	return p.revert(ctx, s.id, requestID, orig, ref)
}

// revertable says whether a row can be reverted at all.
func revertable(orig refactor.Run) error {
	switch {
	case orig.Kind != refactor.RunKindRefactor:
		return refactor.Errorf(refactor.InvalidRequest, "%s is a revert; refactor again instead of reverting a revert", orig.ID)
	case orig.Status == refactor.StatusReverted:
		return refactor.Errorf(refactor.MethodChanged, "%s was already reverted", orig.ID)
	case orig.Status != refactor.StatusReleased:
		return refactor.Errorf(refactor.InvalidRequest, "%s was not released (status %s); there is nothing to revert", orig.ID, orig.Status)
	}
	return nil
}

func (p *Pipeline) revert(ctx context.Context, revID, requestID string, orig refactor.Run, ref refactor.MethodRef) (refactor.Run, error) {
	log := p.log.With(zap.String("run_id", revID), zap.String("revert_of", orig.ID), zap.String("request_id", requestID))
	now := time.Now()
	row := refactor.Run{
		ID: revID, Kind: refactor.RunKindRevert, RevertOf: orig.ID, RequestID: requestID,
		ClassName: ref.Class, Selector: ref.Selector, IsClassMethod: ref.ClassSide, Status: refactor.StatusRunning,
		Worker: p.opts.Worker, Image: p.opts.Image, StartedAt: &now, TraceID: traceIDOf(ctx),
	}
	if err := p.audit.Create(ctx, row); err != nil {
		return refactor.Run{}, auditFailure(err, "recording the revert; nothing was compiled")
	}
	// For the revert, "original" is what the image holds now (the released
	// source) and "final" is what it will hold (the run's original).
	// Its helpers are the ones it removes, after the original method (which
	// does not send them) is back.
	if err := p.audit.BeginRelease(ctx, revID, orig.FinalSource, orig.OriginalProtocol, orig.OriginalSource, orig.Helpers); err != nil {
		return refactor.Run{}, auditFailure(err, "recording the revert before compiling; nothing was compiled")
	}
	p.opts.Checkpoint("after_write_ahead")
	err := p.compileAndCheck(ctx, log, ref, orig.OriginalSource, orig.OriginalProtocol)
	if err == nil {
		if rmErr := p.removeHelpers(ctx, log, ref.Class, orig.Helpers); rmErr != nil {
			err = refactor.Wrap(refactor.ReleaseFailed, rmErr, "the original of %s is back, but its helpers could not all be removed", ref)
		}
	}
	row, getErr := p.audit.Get(ctx, revID)
	if getErr != nil {
		return refactor.Run{}, refactor.Wrap(refactor.Internal, getErr, "reading the revert row")
	}
	now = time.Now()
	row.FinishedAt = &now
	if err != nil {
		row.Status, row.ErrorCode, row.ErrorMessage = refactor.StatusFailed, string(refactor.KindOf(err)), err.Error()
		p.finishRevertRow(ctx, row, log)
		return row, err
	}
	row.Status, row.ReleasedAt = refactor.StatusReleased, &now
	p.finishRevertRow(ctx, row, log)
	if err := p.audit.MarkReverted(ctx, orig.ID, now); err != nil {
		log.Error("marking the reverted run failed", zap.Error(err))
	}
	log.Info("reverted", zap.String("class", ref.Class), zap.String("selector", ref.Selector))
	return p.audit.Get(ctx, revID)
}

func (p *Pipeline) finishRevertRow(ctx context.Context, row refactor.Run, log *zap.Logger) {
	if err := p.audit.Update(ctx, row); err != nil {
		log.Error("updating the revert row failed; the next start reconciles it", zap.Error(err))
	}
}

// compileAndCheck installs source and confirms it by reading it back. A
// compile whose answer is lost with a dying image connection is judged by
// what the image holds once it answers again.
func (p *Pipeline) compileAndCheck(ctx context.Context, log *zap.Logger, ref refactor.MethodRef, source, protocol string) error {
	installErr := p.image.Install(ctx, ref, source, protocol)
	if installErr != nil && !refactor.IsKind(installErr, refactor.PharoUnavailable) {
		return refactor.Wrap(refactor.ReleaseFailed, installErr, "compiling %s", ref)
	}
	var back string
	err := untilImageAnswers(ctx, log, "reading "+ref.String()+" back", func(ctx context.Context) (err error) {
		back, err = p.image.MethodSource(ctx, ref)
		return err
	})
	if err != nil {
		return refactor.Wrap(refactor.ReleaseFailed, err, "reading %s back", ref)
	}
	switch {
	case refactor.SameSource(back, source):
		return nil
	case installErr != nil:
		return refactor.Wrap(refactor.PharoUnavailable, installErr, "the image connection was lost while compiling %s, and the image does not hold the new source", ref)
	default:
		return refactor.Errorf(refactor.ReleaseFailed, "%s holds different source after compiling", ref)
	}
}
