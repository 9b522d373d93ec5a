package pipeline

import (
	"context"
	"fmt"
	"time"

	"go.uber.org/zap"

	refactor "github.com/pharo-refactor/refactord"
)

// compare runs the original and the candidate side by side on the same
// inputs (the image's comparison) and answers a behaviour_changed check
// error when they differ, with the input that shows it: the candidate
// then goes back to the refiner without a validator call. An image that
// offers no comparison, or one that cannot finish it, leaves the outcome
// not_checked — never same — and the tests still guard the release.
func (r *run) compare(ctx context.Context) ([]refactor.CheckError, error) {
	start := time.Now()
	eq, err := r.equivalence(ctx)
	r.res.Stages = append(r.res.Stages, refactor.StageStat{Name: refactor.StageEquivalence, DurationMS: time.Since(start).Milliseconds()})
	if err != nil {
		return nil, err
	}
	r.res.Equivalence = &eq
	r.log.Debug("compared the original and the candidate", zap.String("outcome", eq.Outcome), zap.Int("compared", eq.Compared),
		zap.Int("activations", eq.Activations), zap.String("reason", eq.Reason))
	if eq.Outcome != refactor.EquivalenceChanged || eq.Witness == nil {
		return nil, nil
	}
	w := eq.Witness
	return []refactor.CheckError{{
		Check:     "behaviour_changed",
		Message:   fmt.Sprintf("the candidate does not do what the original does (%s differs): on %s the original %s, the candidate %s; keep the original's behaviour on every input", w.Aspect, w.Input, w.Original, w.Candidate),
		Input:     w.Input,
		Original:  w.Original,
		Candidate: w.Candidate,
	}}, nil
}

// equivalence asks the image for the comparison. A comparison the image
// could not finish in time, or refused, is not_checked with why; a lost
// connection fails the run (nothing is compiled yet).
func (r *run) equivalence(ctx context.Context) (refactor.Equivalence, error) {
	if r.p.opts.NoEquivalence {
		return refactor.Equivalence{Outcome: refactor.EquivalenceNotChecked, Reason: "the comparison is turned off (EQUIVALENCE=off)"}, nil
	}
	cand := r.candidate()
	eq, err := r.p.image.Compare(ctx, refactor.Comparison{
		Ref: r.req.Ref, Candidate: cand.Code, Helpers: sources(cand.Helpers), Tests: r.guardTests, MaxInputs: r.p.opts.EquivalenceMaxInputs,
	})
	switch {
	case err == nil:
		return eq, nil
	case refactor.IsKind(err, refactor.TestsInconclusive), refactor.IsKind(err, refactor.PharoError):
		r.log.Warn("the comparison could not be made; the tests still guard the release", zap.Error(err))
		return refactor.Equivalence{Outcome: refactor.EquivalenceNotChecked, Reason: "the comparison could not be made: " + refactor.Public(err)}, nil
	}
	return refactor.Equivalence{}, err
}

// guardTests finds the method's test classes once per run (the ones the
// release runs); the comparison records its inputs from their runs.
func (r *run) guardTests(ctx context.Context) ([]string, error) {
	if r.guards == nil {
		chosen, err := r.findTests(ctx, r.askTestLeads(ctx))
		if err != nil {
			return nil, err
		}
		r.guards = &chosen
	}
	names := make([]string, len(*r.guards))
	for i, c := range *r.guards {
		names[i] = c.name
	}
	return names, nil
}

// lastWitness is the witness of the last round's behaviour_changed error,
// nil when the last round had none.
func (r *run) lastWitness() *refactor.Witness {
	if len(r.res.Rounds) == 0 {
		return nil
	}
	for _, e := range r.res.Rounds[len(r.res.Rounds)-1].CheckErrors {
		if e.Check == "behaviour_changed" {
			return &refactor.Witness{Input: e.Input, Original: e.Original, Candidate: e.Candidate}
		}
	}
	return nil
}
