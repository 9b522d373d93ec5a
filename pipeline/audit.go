package pipeline

import (
	"context"
	"encoding/json"
	"time"

	"go.uber.org/zap"

	refactor "github.com/pharo-refactor/refactord"
)

// auditTimeout bounds one audit write; audit writes outlive the client.
const auditTimeout = 30 * time.Second

// openRow records the run before anything happens to the image, at its
// first stage: the stage the run is about to start, recorded in the same
// commit rather than one more.
func (r *run) openRow(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), auditTimeout)
	defer cancel()
	ref := r.req.Ref
	row := refactor.Run{
		ID: r.res.ID, Kind: refactor.RunKindRefactor, RequestID: r.req.RequestID,
		ClassName: ref.Class, Selector: ref.Selector, IsClassMethod: ref.ClassSide,
		DryRun: r.req.DryRun, Verify: r.req.Verify, RunTests: r.req.RunTests && !r.req.DryRun, Status: refactor.StatusRunning,
		Stage: refactor.StagePrefetch, Models: mustJSON(r.p.opts.Models), CreatedAt: r.started, StartedAt: &r.started,
		Worker: r.p.opts.Worker, Image: r.p.opts.Image, TraceID: r.res.TraceID,
	}
	if err := r.p.audit.Create(ctx, row); err != nil {
		return auditFailure(err, "recording the run in the audit trail; nothing was run")
	}
	r.opened = row
	r.stageInRow = row.Stage
	return nil
}

// auditFailure classifies a write the audit trail refused: its storage
// refusing writes (store_unavailable, which the store's error says) is
// the operator's to mend and the client's to retry; anything else is a bug.
func auditFailure(err error, doing string) error {
	if refactor.IsKind(err, refactor.StoreUnavailable) {
		return refactor.Wrap(refactor.StoreUnavailable, err, "%s: the audit trail refuses writes (its storage is full or read-only); retry once it takes writes again", doing)
	}
	return refactor.Wrap(refactor.Internal, err, "%s", doing)
}

// recordStage puts the stage the run reaches into its row, for clients
// following the run by its id. A failure costs only that view: logged.
func (r *run) recordStage(ctx context.Context, stage string) {
	if stage == r.stageInRow {
		return // the row says so already
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), auditTimeout)
	defer cancel()
	if err := r.p.audit.SetStage(ctx, r.res.ID, stage); err != nil {
		r.log.Warn("recording the run's stage failed", zap.String("stage", stage), zap.Error(err))
		return
	}
	r.stageInRow = stage
}

// closeRow writes everything the run produced. The image is already in
// its final state: a row the store refuses for its storage is kept in
// memory, answered to readers and written when the store takes writes
// again (unrecorded.go); any other failure is logged, and a row left in
// running or releasing is reconciled at the next start.
func (r *run) closeRow(ctx context.Context, runErr error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), auditTimeout)
	defer cancel()
	row, err := r.p.audit.Get(ctx, r.res.ID)
	if err != nil && r.opened.ID != "" && refactor.IsKind(err, refactor.StoreUnavailable) {
		row, err = r.opened, nil // what the run itself wrote at its start
	}
	if err != nil {
		r.log.Error("reading the audit row back failed; the next start reconciles it", zap.Error(err))
		return
	}
	r.fillRow(&row, runErr)
	err = r.p.audit.Update(ctx, row)
	switch {
	case err == nil:
	case refactor.IsKind(err, refactor.StoreUnavailable):
		r.log.Error("the audit trail refused the run's final row; the service holds it and writes it as soon as the store takes writes again",
			zap.String("status", string(row.Status)), zap.Error(err))
		r.p.keepUnrecorded(row)
	default:
		r.log.Error("updating the audit row failed; the next start reconciles it", zap.Error(err))
	}
}

func (r *run) fillRow(row *refactor.Run, runErr error) {
	res := r.res
	now := time.Now()
	row.Status = res.RunStatus
	row.OriginalSource, row.OriginalProtocol, row.FinalSource = res.OriginalCode, res.Protocol, res.RefactoredCode
	if recordable(res.Helpers) {
		row.Helpers = res.Helpers
	}
	row.Review, row.Verdict = mustJSON(res.Review), mustJSON(res.Validation)
	row.Rounds = r.roundsDoc(res.Rounds)
	if res.Equivalence != nil {
		row.Equivalence = mustJSON(res.Equivalence)
	}
	row.Iterations, row.ModelCalls = res.Iterations, res.Usage.ModelCalls
	row.InputTokens, row.OutputTokens = res.Usage.InputTokens, res.Usage.OutputTokens
	row.Stages = mustJSON(res.Stages)
	if row.Models == nil {
		row.Models = mustJSON(r.p.opts.Models) // a run a pool's queue opened: its row did not know them
	}
	row.RunTests = res.Tests.Ran
	if res.Tests.Ran {
		row.TestsBefore, row.TestsAfter = mustJSON(res.Tests.Before), mustJSON(res.Tests.After)
	}
	row.RestoreFailed = res.RestoreFailed
	row.FinishedAt = &now
	if runErr != nil {
		row.ErrorCode, row.ErrorMessage = string(refactor.KindOf(runErr)), runErr.Error()
	}
	if row.Status == refactor.StatusReleased {
		row.ReleasedAt = &now
	}
}

// maxRoundsBytes is the audit trail's bound on one JSON document: a
// larger rounds document would cost the whole row.
const maxRoundsBytes = 1 << 20

// roundsDoc is the rounds as the row keeps them: all of them, or, when
// their candidates are too large together for the row, the last ones
// that fit (each round names its iteration, so a reader sees which are
// left out); nil when no round ran or none fits.
func (r *run) roundsDoc(rounds []refactor.Round) json.RawMessage {
	for first := range rounds {
		doc := mustJSON(rounds[first:])
		if len(doc) <= maxRoundsBytes {
			if first > 0 {
				r.log.Warn("the run's rounds are too large for its row together; it keeps the last ones",
					zap.Int("kept", len(rounds)-first), zap.Int("rounds", len(rounds)))
			}
			return doc
		}
	}
	if len(rounds) > 0 {
		r.log.Warn("the run's last round alone is too large for its row; the row keeps no round", zap.Int("rounds", len(rounds)))
	}
	return nil
}

// recordable says whether a candidate's helpers fit the audit row (a
// selector is at most 256 characters, as MethodRef.Validate says): a set
// the checks refused for its size is left out (the row keeps what its
// write-ahead record holds), so that it cannot cost the row.
func recordable(helpers []refactor.Helper) bool {
	if len(helpers) > refactor.MaxHelpers {
		return false
	}
	for _, h := range helpers {
		if len(h.Source) > refactor.MaxHelperBytes || len(h.Selector) > 256 || len(h.Protocol) > maxProtocolBytes {
			return false
		}
	}
	return true
}

// rowStatus maps a run's end to the audit vocabulary: after a release
// began it says what the image holds (released, verified: the original,
// rolled_back, or
// restore_failed when that could not be confirmed); a run stopped on
// request before it is canceled.
func rowStatus(res *refactor.Result, err error) refactor.Status {
	switch {
	case err == nil && res.Outcome == refactor.OutcomeProposed:
		return refactor.StatusProposed
	case err == nil && res.Outcome == refactor.OutcomeUnchanged:
		return refactor.StatusUnchanged
	case err == nil && res.Outcome == refactor.OutcomeVerified:
		return refactor.StatusVerified
	case err == nil:
		return refactor.StatusReleased
	case res.RestoreFailed:
		return refactor.StatusRestoreFailed
	case res.RolledBack:
		return refactor.StatusRolledBack
	case refactor.IsKind(err, refactor.Canceled):
		return refactor.StatusCanceled
	default:
		return refactor.StatusFailed
	}
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil || string(b) == "null" {
		return nil
	}
	return b
}
