package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.uber.org/zap"

	refactor "github.com/pharo-refactor/refactord"
)

// releaseMethod compiles the approved candidate into the image, in the
// original protocol and side, unless the method changed since prefetch.
// With RunTests it runs the method's tests before and after, and puts
// the original back when a test that passed before no longer does.
func (r *run) releaseMethod(ctx context.Context) error {
	ref, code := r.req.Ref, r.res.RefactoredCode
	r.emit(refactor.EventRelease, refactor.ReleaseEvent{Status: "started"})
	// The re-read and the questions that find the tests are all reads:
	// one wave of concurrent calls. Their answers are judged in the order
	// a sequential release would meet them.
	var (
		current string
		err     error
		leads   *testLeads
	)
	reread := func(ctx context.Context) { current, err = r.p.image.MethodSource(ctx, ref) }
	if r.req.RunTests && r.guards == nil {
		leads = r.askTestLeads(ctx, reread)
	} else {
		reread(ctx) // the comparison found the tests already
	}
	if err != nil {
		return fmt.Errorf("re-reading %s before release: %w", ref, err)
	}
	if !refactor.SameSource(current, r.res.OriginalCode) {
		r.emit(refactor.EventRelease, refactor.ReleaseEvent{Status: "conflict"})
		return refactor.Errorf(refactor.MethodChanged, "%s was changed in the image during the run; nothing was released", ref)
	}
	if err := r.p.helpersAbsent(ctx, ref.Class, r.res.Helpers); err != nil {
		r.emit(refactor.EventRelease, refactor.ReleaseEvent{Status: "conflict"})
		return err
	}
	if err := r.baseline(ctx, leads); err != nil {
		return err
	}
	if err := r.p.audit.BeginRelease(ctx, r.res.ID, r.res.OriginalCode, r.res.Protocol, code, r.res.Helpers); err != nil {
		return auditFailure(err, "recording the release before compiling; nothing was compiled")
	}
	r.p.opts.Checkpoint("after_write_ahead")
	// The helpers first: the method that sends them comes last, so the
	// image never holds a method whose helpers are missing.
	for _, h := range r.res.Helpers {
		if err := r.install(ctx, h.Ref(ref.Class), h.Source, h.Protocol); err != nil {
			r.emit(refactor.EventRelease, refactor.ReleaseEvent{Status: "failed"})
			return err
		}
	}
	if len(r.res.Helpers) > 0 {
		r.p.opts.Checkpoint("after_helpers")
	}
	if err := r.install(ctx, ref, code, r.res.Protocol); err != nil {
		r.emit(refactor.EventRelease, refactor.ReleaseEvent{Status: "failed"})
		return err
	}
	r.p.opts.Checkpoint("after_compile")
	if err := r.rerunTests(ctx); err != nil {
		return err
	}
	if !r.req.Verify {
		r.emit(refactor.EventRelease, refactor.ReleaseEvent{Status: "released", Tests: r.testsOrNil()})
	}
	return nil
}

// verifyMethod takes the whole release path, then puts the original back
// whatever the tests said: the image is a test bench. A regression has
// already put it back (rollBack); a passing run puts it back here, with
// the same guarantee: restored and read back, or restore_failed for the
// next start to finish.
func (r *run) verifyMethod(ctx context.Context) error {
	if err := r.releaseMethod(ctx); err != nil {
		return err
	}
	r.p.opts.Checkpoint("before_put_back")
	if err := r.putBack(ctx, "putting_back", "verified"); err != nil {
		return refactor.Wrap(refactor.ReleaseFailed, err,
			"%s: the candidate passed its tests, but the original could not be put back; the image may hold the candidate; the response holds both sources", r.req.Ref)
	}
	return nil
}

// baseline finds the method's tests and runs them before anything changes.
// A class whose run does not finish in time stops the release there
// (tests_inconclusive): nothing has been compiled.
func (r *run) baseline(ctx context.Context, leads *testLeads) error {
	if !r.req.RunTests {
		return nil
	}
	var chosen []testClass
	if r.guards != nil {
		chosen = *r.guards
	} else {
		found, err := r.findTests(ctx, leads)
		if err != nil {
			return err
		}
		chosen = found
	}
	classes := make([]string, len(chosen))
	for i, c := range chosen {
		classes[i] = c.name
	}
	r.res.Tests = refactor.Tests{Ran: true, Classes: classes, Before: []refactor.TestRun{}, After: []refactor.TestRun{}, Regressions: []string{}}
	for _, class := range chosen {
		rep, err := r.p.image.RunTests(ctx, class.name)
		if refactor.IsKind(err, refactor.TestsInconclusive) {
			return fmt.Errorf("the tests could not be judged before the release, so nothing was compiled and the original is in the image; %w", err)
		}
		if err != nil {
			return fmt.Errorf("running %s before the release (nothing was compiled): %w", class.name, err)
		}
		r.res.Tests.Before = append(r.res.Tests.Before, refactor.TestRun{Class: class.name, Reason: class.reason, Report: rep})
		if err := r.checkTestsRan(ctx, class.name, rep, nil); err != nil {
			return fmt.Errorf("the tests could not be judged before the release, so nothing was compiled and the original is in the image; %w", err)
		}
	}
	r.emit(refactor.EventRelease, refactor.ReleaseEvent{Status: "tests_before", Tests: r.res.Tests.Before})
	return nil
}

// rerunTests runs the tests again after the compile; a regression rolls
// back, and so does a run that does not finish in time (its result cannot
// vouch for the candidate).
func (r *run) rerunTests(ctx context.Context) error {
	if !r.req.RunTests {
		return nil
	}
	for _, before := range r.res.Tests.Before {
		// Never through untilImageAnswers: a run that killed the image
		// would kill it again on every restart. The restore comes first.
		rep, err := r.p.image.RunTests(ctx, before.Class)
		if refactor.IsKind(err, refactor.PharoUnavailable) {
			return r.rollBack(ctx, r.diedInTests(before, err))
		}
		if refactor.IsKind(err, refactor.TestsInconclusive) {
			return r.rollBack(ctx, fmt.Errorf("the tests could not be judged after compiling %s, so the original was put back; %w", r.req.Ref, err))
		}
		if err != nil {
			return r.rollBack(ctx, refactor.Wrap(refactor.ReleaseFailed, err, "the tests could not run after compiling %s", r.req.Ref))
		}
		r.res.Tests.After = append(r.res.Tests.After, refactor.TestRun{Class: before.Class, Reason: before.Reason, Report: rep})
		if err := r.checkTestsRan(ctx, before.Class, rep, &before.Report); err != nil {
			return r.rollBack(ctx, fmt.Errorf("the tests could not be judged after compiling %s, so the original was put back; %w", r.req.Ref, err))
		}
		r.res.Tests.Regressions = append(r.res.Tests.Regressions, regressions(before.Report, rep)...)
	}
	if len(r.res.Tests.Regressions) == 0 {
		return nil
	}
	return r.rollBack(ctx, refactor.Errorf(refactor.TestsRegressed, "the release broke %s; the original was put back",
		strings.Join(r.res.Tests.Regressions, ", ")))
}

// diedInTests is why a run ends whose tests after the compile lost the
// image connection (the candidate's tests may have killed the image): a
// regression when tests of the class had passed before — none of them
// passed now — else inconclusive. The test run is never repeated.
func (r *run) diedInTests(before refactor.TestRun, err error) error {
	if before.Report.Passed == 0 {
		return refactor.Wrap(refactor.TestsInconclusive, err,
			"the image connection was lost while %s ran after compiling %s (its tests may have killed the image), so the original was put back before anything else ran",
			before.Class, r.req.Ref)
	}
	r.res.Tests.Regressions = append(r.res.Tests.Regressions,
		fmt.Sprintf("%s (the image died while its tests ran; %d had passed before)", before.Class, before.Report.Passed))
	return refactor.Wrap(refactor.TestsRegressed, err,
		"the image connection was lost while %s ran after compiling %s: %d of its tests passed before and none could pass after (its tests may have killed the image); the original was put back before anything else ran",
		before.Class, r.req.Ref, before.Report.Passed)
}

// regressions lists the tests failing or erroring after that did not before.
// An unexpected pass is listed apart from the failures (see TestReport), so
// it is never one.
func regressions(before, after refactor.TestReport) []string {
	bad := map[string]bool{}
	for _, t := range append(append([]string{}, before.FailedTests...), before.ErroredTests...) {
		bad[t] = true
	}
	var out []string
	for _, t := range append(append([]string{}, after.FailedTests...), after.ErroredTests...) {
		if !bad[t] {
			out = append(out, t)
		}
	}
	return out
}

// rollBack restores the original after a compile; cause says why. When
// the original cannot be put back and confirmed within the release budget,
// the run ends restore_failed: the answer and the audit row carry both
// sources, and start-up reconciliation finishes the rollback.
func (r *run) rollBack(ctx context.Context, cause error) error {
	if err := r.putBack(ctx, "rolling_back", "rolled_back"); err != nil {
		return refactor.Wrap(refactor.ReleaseFailed, errors.Join(cause, err),
			"%s: the original could not be restored; the image may hold the candidate; the response holds both sources", r.req.Ref)
	}
	r.res.RolledBack = true
	return cause
}

// putBack restores the original and confirms it, reporting started, then
// done or restore_failed. A failure marks the run restore_failed.
func (r *run) putBack(ctx context.Context, started, done string) error {
	r.emit(refactor.EventRelease, refactor.ReleaseEvent{Status: started, Tests: r.testsOrNil()})
	if err := r.restore(ctx); err != nil {
		r.res.RestoreFailed = true
		r.log.Error("restoring the original failed: the image may hold the candidate; the next start retries", zap.Error(err),
			zap.String("original", r.res.OriginalCode), zap.String("candidate", r.res.RefactoredCode))
		r.emit(refactor.EventRelease, refactor.ReleaseEvent{Status: "restore_failed", Tests: r.testsOrNil()})
		return err
	}
	r.emit(refactor.EventRelease, refactor.ReleaseEvent{Status: done, Tests: r.testsOrNil()})
	return nil
}

func (r *run) testsOrNil() any {
	if !r.res.Tests.Ran {
		return nil
	}
	return r.res.Tests
}

// install compiles one method of the set and reads it back; on any
// failure it puts the original set back so the image is never left
// half-changed. A compile whose answer is lost with a dying connection is
// treated as failed: the original set is put back once the image answers
// again.
func (r *run) install(ctx context.Context, ref refactor.MethodRef, code, protocol string) error {
	if err := r.p.image.Install(ctx, ref, code, protocol); err != nil {
		if refactor.IsKind(err, refactor.PharoUnavailable) {
			return r.rollBack(ctx, refactor.Wrap(refactor.PharoUnavailable, err, "the image connection was lost while compiling %s; the original was restored", ref))
		}
		return r.rollBack(ctx, refactor.Wrap(refactor.ReleaseFailed, err, "releasing %s failed; the original was restored", ref))
	}
	// Read once, not until the image answers: after a compile, a dead
	// image is asked for the restore first (rollBack), never anything else.
	back, err := r.p.image.MethodSource(ctx, ref)
	if refactor.IsKind(err, refactor.PharoUnavailable) {
		return r.rollBack(ctx, refactor.Wrap(refactor.PharoUnavailable, err, "the image connection was lost while reading %s back after compiling it; the original was restored", ref))
	}
	if err == nil && !refactor.SameSource(back, code) {
		err = errors.New("the image holds different source after compiling")
	}
	if err != nil {
		return r.rollBack(ctx, refactor.Wrap(refactor.ReleaseFailed, err, "releasing %s failed; the original was restored", ref))
	}
	return nil
}

// readBack reads a method from the image, waiting out a restart of the
// image connection.
func (r *run) readBack(ctx context.Context, ref refactor.MethodRef) (string, error) {
	var back string
	err := r.untilImageAnswers(ctx, "reading "+ref.String()+" back", func(ctx context.Context) (err error) {
		back, err = r.p.image.MethodSource(ctx, ref)
		return err
	})
	return back, err
}

// restoreAttempts bounds the restores of one rollback (each within the
// release budget): a compile the image keeps refusing (its file system
// full) is not tried for the whole budget.
const restoreAttempts = 5

// restore recompiles the original in its protocol and confirms it by
// reading it back, then removes the helpers (confirmed gone), each step
// waiting out a restart of the image connection. The method comes first:
// while it sends the helpers they stay. The read-back decides, not the
// compile's answer: a compile of the candidate that failed left the
// original in place, and a restore refused as well (the image's file
// system full) is then no failure — the image holds the original. A
// restore that does not leave the original is tried again, with growing
// waits, within the release budget.
func (r *run) restore(ctx context.Context) error {
	ref := r.req.Ref
	wait := firstImageRetry
	for attempt := 1; ; attempt++ {
		installErr := r.untilImageAnswers(ctx, "restoring "+ref.String(), func(ctx context.Context) error {
			return r.p.image.Install(ctx, ref, r.res.OriginalCode, r.res.Protocol)
		})
		back, readErr := r.readBack(ctx, ref)
		if readErr == nil && refactor.SameSource(back, r.res.OriginalCode) {
			if installErr != nil {
				r.log.Warn("the restore's compile failed, but the image holds the original (read back)", zap.Error(installErr))
			}
			return r.p.removeHelpers(ctx, r.log, ref.Class, r.res.Helpers)
		}
		err := errors.Join(installErr, readErr)
		switch {
		case readErr != nil:
		case refactor.SameSource(back, r.res.RefactoredCode):
			err = errors.Join(err, errors.New("the image holds the candidate (read back)"))
		default:
			err = errors.Join(err, errors.New("the image holds neither the original nor the candidate (read back)"))
		}
		if attempt >= restoreAttempts || ctx.Err() != nil {
			return err
		}
		r.log.Warn("the restore did not leave the original in the image; trying again", zap.Int("attempt", attempt), zap.Error(err))
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
		wait = min(4*wait, maxImageRetry)
	}
}

func (r *run) untilImageAnswers(ctx context.Context, what string, op func(context.Context) error) error {
	return untilImageAnswers(ctx, r.log, what, op)
}

// Waits between attempts of untilImageAnswers.
const (
	firstImageRetry = 25 * time.Millisecond
	maxImageRetry   = time.Second
)

// untilImageAnswers runs op, and runs it again while it fails because the
// image connection is down (the MCP server died, or cannot reach the image)
// — the client restarts the server under supervision — until op succeeds,
// fails otherwise, or ctx (the release budget) ends. Only operations that
// are safe to repeat go through it: reads, test runs, the restore.
func untilImageAnswers(ctx context.Context, log *zap.Logger, what string, op func(context.Context) error) error {
	wait := firstImageRetry
	for attempt := 1; ; attempt++ {
		err := op(ctx)
		if err == nil || !refactor.IsKind(err, refactor.PharoUnavailable) || ctx.Err() != nil {
			return err
		}
		if attempt%10 == 1 { // the first failure, then every tenth: a long outage logs little
			log.Warn("the image connection is down; trying again after its restart", zap.String("step", what), zap.Int("attempt", attempt), zap.Error(err))
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
		wait = min(2*wait, maxImageRetry)
	}
}
