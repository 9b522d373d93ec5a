package pipeline

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/internal/spans"
)

// reservation is the taken run slot (refactor.Reservation): Run, Revert or
// Free ends it.
type reservation struct {
	p    *Pipeline
	free func()
	id   string
	// claimed: the row of id exists already (a queued run this worker
	// took, see Claim); the run does not create it.
	claimed bool
}

// Reserve takes the run slot without waiting. When it is taken the error is
// refactor.Busy; RetryAfter says when to come back.
func (p *Pipeline) Reserve() (refactor.Reservation, error) {
	if p.agents == nil {
		return nil, refactor.Errorf(refactor.ModelNotConfigured, "no model is configured")
	}
	free, ok := p.slot.take()
	if !ok {
		// Built without fmt: under load most requests end here.
		return nil, &refactor.Error{Kind: refactor.Busy, Message: "another refactoring is running; retry in " + strconv.Itoa(p.slot.retryAfter()) + " s"}
	}
	return &reservation{p: p, free: free, id: newID()}, nil
}

func (s *reservation) ID() string { return s.id }

// Free gives the slot back unused.
func (s *reservation) Free() { s.free() }

// Run performs the run and frees the slot. ctx bounds the run: cancelling
// it before release stops the run; once release has begun it completes.
func (s *reservation) Run(ctx context.Context, req refactor.Request) (*refactor.Result, error) {
	r, err := s.begin(ctx, req)
	if err != nil {
		return nil, err
	}
	return s.complete(r)
}

// begin opens a run: its request checked, the run tracked for Cancel, its
// row committed to the audit trail. On failure the slot is free again.
func (s *reservation) begin(ctx context.Context, req refactor.Request) (*run, error) {
	if err := req.Ref.Validate(); err != nil {
		s.free()
		return nil, err
	}
	if req.Verify && req.DryRun {
		s.free()
		return nil, refactor.Errorf(refactor.InvalidRequest, "verify and dry_run exclude each other: a verify run compiles and tests the change, a dry run compiles nothing")
	}
	req.RunTests = req.RunTests || req.Verify // a verify run is its tests
	r := &run{p: s.p, req: req, started: time.Now(),
		res: &refactor.Result{ID: s.id, Ref: req.Ref, Worker: s.p.opts.Worker, Image: s.p.opts.Image}}
	r.log = s.p.log.With(zap.String("run_id", s.id), zap.String("request_id", req.RequestID),
		zap.String("class", req.Ref.Class), zap.String("selector", req.Ref.Selector), zap.Bool("class_side", req.Ref.ClassSide))
	r.ctx, r.ctl = s.p.live.track(ctx, s.id)
	r.ctx, r.span = s.p.startRunSpan(r.ctx, s.id, req)
	if sc := r.span.SpanContext(); sc.HasTraceID() {
		r.res.TraceID = sc.TraceID().String()
	}
	if s.claimed {
		r.stageInRow = refactor.StagePrefetch // the queue opened the row and this worker claimed it at that stage
		return r, nil
	}
	if err := r.openRow(r.ctx); err != nil {
		spans.End(r.span, err)
		s.p.live.untrack(r.ctl)
		s.free()
		return nil, err
	}
	return r, nil
}

// complete executes an opened run to its end, writes its row and frees the
// slot.
func (s *reservation) complete(r *run) (*refactor.Result, error) {
	defer s.free()
	defer s.p.live.untrack(r.ctl) // after the row is final: Cancel reads it
	err := r.execute(r.ctx)
	r.res.Duration = time.Since(r.started)
	r.res.RunStatus = rowStatus(r.res, err)
	r.closeRow(r.ctx, err)
	r.endRunSpan(err)
	if err != nil {
		r.log.Info("run failed", zap.String("code", string(refactor.KindOf(err))), zap.Error(err))
		return r.res, err
	}
	r.log.Info("run finished", zap.String("outcome", string(r.res.Outcome)), zap.Int("iterations", r.res.Iterations),
		zap.Int("model_calls", r.res.Usage.ModelCalls), zap.Duration("duration", r.res.Duration))
	return r.res, nil
}

// run is the state of one execution.
type run struct {
	p       *Pipeline
	ctx     context.Context // the run's: its caller's, also cancelled by Cancel
	ctl     *control
	req     refactor.Request
	res     *refactor.Result
	log     *zap.Logger
	started time.Time
	input   refactor.Input
	scope   *scope
	// stageInRow is the stage the run's row holds, as far as this run
	// wrote it.
	stageInRow string
	span       trace.Span // the run's: its trace
	// opened is the row the run created (empty for a row a pool's queue
	// created).
	opened refactor.Run
	// guards are the test classes found for the method, once per run: the
	// comparison records its inputs from their runs.
	guards *[]testClass
}

func (r *run) execute(ctx context.Context) error {
	runCtx, cancel := context.WithTimeout(ctx, r.p.opts.Timeout)
	defer cancel()
	r.sayIfImageBusy()
	steps := []struct {
		stage string
		do    func(context.Context) error
	}{
		{refactor.StagePrefetch, r.prefetch},
		{refactor.StageReview, r.review},
		{refactor.StageWrite, r.write},
		{refactor.StageValidate, r.validate},
	}
	for _, step := range steps {
		if err := r.stage(runCtx, step.stage, 0, step.do); err != nil {
			return r.classify(ctx, runCtx, err)
		}
		if r.res.Outcome == refactor.OutcomeUnchanged {
			return nil // the review found nothing to change: no candidate, no release
		}
	}
	// The last moment a cancel (or a shutdown) stops the run: past it, a
	// release completes or is rolled back, and a dry run concludes.
	if err := ctx.Err(); err != nil {
		return r.classify(ctx, runCtx, err)
	}
	if !r.ctl.commit() {
		return r.classify(ctx, runCtx, context.Cause(ctx))
	}
	if r.req.DryRun {
		r.res.Outcome = refactor.OutcomeProposed
		r.emit(refactor.EventRelease, refactor.ReleaseEvent{Status: "skipped"})
		return nil
	}
	// From here on nothing can cut the run in half.
	relCtx, relCancel := context.WithTimeout(context.WithoutCancel(ctx), r.p.opts.ReleaseTimeout)
	defer relCancel()
	if r.req.Verify {
		if err := r.stage(relCtx, refactor.StageRelease, 0, r.verifyMethod); err != nil {
			return err
		}
		r.res.Outcome = refactor.OutcomeVerified
		return nil
	}
	if err := r.stage(relCtx, refactor.StageRelease, 0, r.releaseMethod); err != nil {
		return err
	}
	r.res.Outcome = refactor.OutcomeReleased
	return nil
}

// classify turns a stage failure into the run's error: a passed deadline is
// a timeout whatever the stage made of it; a client gone is a cancellation.
func (r *run) classify(ctx, runCtx context.Context, err error) error {
	var stopped *refactor.Error
	switch {
	case ctx.Err() != nil && errors.As(context.Cause(ctx), &stopped):
		return stopped // the caller said why it stopped the run (e.g. shutting_down)
	case ctx.Err() != nil && errors.Is(ctx.Err(), context.Canceled):
		return refactor.Wrap(refactor.Canceled, context.Canceled, "the run's caller cancelled it before release; nothing was released")
	case runCtx.Err() != nil && errors.Is(runCtx.Err(), context.DeadlineExceeded):
		return refactor.Wrap(refactor.Timeout, err, "the run's deadline (%s) passed", r.p.opts.Timeout)
	}
	return err
}

// stage times a stage, counts its model calls and reports it to observers.
func (r *run) stage(ctx context.Context, name string, iteration int, do func(context.Context) error) error {
	r.recordStage(ctx, name) // first: whoever hears of the stage finds it in the row
	r.emit(refactor.EventStage, refactor.StageEvent{Name: name, Status: "started", Iteration: iteration})
	callsBefore := r.res.Usage.ModelCalls
	start := time.Now()
	err := r.traceStage(ctx, name, iteration, do)
	d := time.Since(start)
	calls := r.res.Usage.ModelCalls - callsBefore
	r.res.Stages = append(r.res.Stages, refactor.StageStat{Name: name, DurationMS: d.Milliseconds(), ModelCalls: calls})
	r.log.Debug("stage finished", zap.String("stage", name), zap.Duration("duration", d), zap.Int("model_calls", calls), zap.Bool("ok", err == nil))
	r.emit(refactor.EventStage, refactor.StageEvent{Name: name, Status: "finished", Iteration: iteration, DurationMS: d.Milliseconds()})
	return err
}

// traceStage runs do within the stage's span when the run's span records
// (an exporter): without one nothing would read it.
func (r *run) traceStage(ctx context.Context, name string, iteration int, do func(context.Context) error) error {
	if !spans.Recording(ctx) {
		return do(ctx)
	}
	callsBefore := r.res.Usage.ModelCalls
	ctx, span := r.p.tracer.Start(ctx, "stage "+name, trace.WithAttributes(
		attribute.String("refactor.stage", name), attribute.Int("refactor.iteration", iteration)))
	err := do(ctx)
	span.SetAttributes(attribute.Int("refactor.model_calls", r.res.Usage.ModelCalls-callsBefore))
	spans.End(span, err)
	return err
}

func (r *run) emit(typ string, data any) {
	if r.req.Observe != nil {
		r.req.Observe(refactor.Event{Type: typ, Data: data})
	}
}

func (r *run) spent(s refactor.CallStats) {
	addUsage(&r.res.Usage, s)
	r.res.Truncated = refactor.AddTruncated(r.res.Truncated, s.Truncated...)
	r.emit(refactor.EventModelCall, refactor.ModelCallEvent{Role: string(s.Role), Calls: s.Calls, InputTokens: s.InputTokens, OutputTokens: s.OutputTokens})
}

// prefetch reads what every later stage needs, without any model.
func (r *run) prefetch(ctx context.Context) error {
	in, m, sc, err := readInput(ctx, r.p.image, r.req.Ref)
	if err != nil {
		return err
	}
	r.res.OriginalCode, r.res.Protocol = m.Source, m.Protocol
	r.input, r.scope = in, sc
	return nil
}

// ReadInput reads from the image what the roles get for ref, exactly as a
// run's prefetch does (for `refactord prompts render`).
func ReadInput(ctx context.Context, image refactor.Image, ref refactor.MethodRef) (refactor.Input, error) {
	if err := ref.Validate(); err != nil {
		return refactor.Input{}, err
	}
	in, _, _, err := readInput(ctx, image, ref)
	return in, err
}

// readInput reads the method, its class and its comment: the roles' input,
// the method as the image holds it, and what a method of the class can
// name (prefetch.go).
func readInput(ctx context.Context, image refactor.Image, ref refactor.MethodRef) (refactor.Input, refactor.Method, *scope, error) {
	m, sc, err := readMethodAndClass(ctx, image, ref)
	if err != nil {
		return refactor.Input{}, m, nil, err
	}
	comment, err := sc.comment(ctx, image)
	if err != nil {
		return refactor.Input{}, m, nil, err
	}
	in := refactor.Input{
		MethodRef: ref, Source: m.Source, ClassDefinition: sc.describe(), ClassComment: comment,
		Selectors: sc.selectors(), Related: sc.related(m.Source),
	}
	return in, m, sc, nil
}

// review asks for the review. A LOW review without issues ends the run
// here, unchanged: nothing is worth a rewrite. A method whose source the
// prompts had to cut ends it too, after its review: no rewrite of it could
// be written whole or checked against it.
func (r *run) review(ctx context.Context) error {
	rev, stats, err := r.p.agents.Review(ctx, r.input)
	r.spent(stats)
	if err != nil {
		return err
	}
	r.res.Review = &rev
	if slices.Contains(stats.Truncated, refactor.TruncatedMethodSource) {
		r.res.Feedback = "The method's source is longer than the context budget for method sources, so the prompts showed it cut: " +
			"a rewrite could be neither written whole nor compared with the original. Raise PROMPT_MAX_METHOD_BYTES, or split the method by hand."
		return refactor.Errorf(refactor.NotApproved, "the method is longer than the context budget (%d bytes); reviewed, not rewritten; nothing was released", len(r.input.Source))
	}
	if rev.Severity == refactor.SeverityLow && len(rev.Issues) == 0 {
		r.res.Outcome, r.res.RefactoredCode = refactor.OutcomeUnchanged, r.res.OriginalCode
		r.emit(refactor.EventRelease, refactor.ReleaseEvent{Status: "unchanged"})
	}
	return nil
}

func (r *run) write(ctx context.Context) error {
	cand, stats, err := r.p.agents.Write(ctx, r.input, *r.res.Review)
	r.spent(stats)
	if err != nil {
		return err
	}
	r.take(cand)
	return nil
}

// take makes cand the run's candidate: its code (the roles answer it
// normalized) and its helpers.
func (r *run) take(cand refactor.Candidate) {
	r.res.RefactoredCode, r.res.Helpers = cand.Code, cand.Helpers
}

// candidate is the run's current candidate, as the roles get it.
func (r *run) candidate() refactor.Candidate {
	return refactor.Candidate{Code: r.res.RefactoredCode, Helpers: r.res.Helpers}
}

// validate is the bounded loop: checks, dry compile, verdict, refine.
func (r *run) validate(ctx context.Context) error {
	max := r.p.opts.MaxIterations
	for i := 1; i <= max; i++ {
		r.res.Iterations = i
		approved, feedback, err := r.round(ctx, i)
		if err != nil {
			return err
		}
		if approved {
			return nil
		}
		r.res.Feedback = feedback
		if i == max {
			break
		}
		cand, stats, err := r.p.agents.Refine(ctx, r.inputFor(r.candidate()), *r.res.Review, r.candidate(), feedback)
		r.spent(stats)
		if err != nil {
			return err
		}
		r.take(cand)
	}
	if w := r.lastWitness(); w != nil {
		return refactor.Errorf(refactor.BehaviourChanged,
			"the last candidate does not do what the original does (on %s the original %s, the candidate %s); nothing was compiled",
			w.Input, w.Original, w.Candidate)
	}
	return refactor.Errorf(refactor.NotApproved, "not approved after %d validation rounds; nothing was released", max)
}

// round checks one candidate: local checks and the image's dry compile
// first, the validator only when both pass (a broken candidate costs no
// validator call). It answers whether it was approved, else the feedback.
func (r *run) round(ctx context.Context, i int) (bool, string, error) {
	problems, err := r.check(ctx) // first: it names the helpers
	cand := r.candidate()
	helpers := refactor.HelperList(cand.Helpers)
	r.emit(refactor.EventCandidate, refactor.CandidateEvent{Iteration: i, Code: cand.Code, Helpers: helpers})
	round := refactor.Round{Iteration: i, Code: cand.Code, Helpers: helpers, CheckErrors: []refactor.CheckError{}}
	defer func() { r.res.Rounds = append(r.res.Rounds, round) }()
	if err != nil {
		return false, "", err
	}
	if problems == nil {
		problems = []refactor.CheckError{}
	}
	round.CheckErrors = problems
	if len(problems) == 0 {
		// The comparison comes last among the checks: it runs the
		// candidate, so only one that parses, passes every check and
		// compiles gets there.
		changed, err := r.compare(ctx)
		if err != nil {
			return false, "", err
		}
		problems = append(problems, changed...)
		round.CheckErrors = problems
	}
	r.emit(refactor.EventCheck, refactor.CheckEvent{Iteration: i, Errors: problems})
	if len(problems) > 0 {
		return false, checkFeedback(problems), nil
	}
	verdict, stats, err := r.p.agents.Validate(ctx, r.inputFor(cand), *r.res.Review, cand)
	r.spent(stats)
	if err != nil {
		return false, "", err
	}
	round.Verdict = &verdict
	r.res.Validation = &verdict
	r.emit(refactor.EventVerdict, refactor.VerdictEvent{Iteration: i, Verdict: string(verdict.Verdict), Feedback: verdict.Feedback})
	return verdict.Approved(), verdictFeedback(verdict), nil
}

func checkFeedback(problems []refactor.CheckError) string {
	var b strings.Builder
	b.WriteString("The candidate was rejected before review by these checks; fix every one:\n")
	for _, p := range problems {
		b.WriteString("- " + p.String() + "\n")
	}
	return b.String()
}

func verdictFeedback(v refactor.Verdict) string {
	var b strings.Builder
	b.WriteString(v.Feedback)
	for _, is := range v.Issues {
		fmt.Fprintf(&b, "\n- %s: %s (suggestion: %s)", is.Principle, is.Problem, is.Suggestion)
	}
	return b.String()
}

// inputFor is the input with the class's methods the candidate's set
// sends to self added to the related ones, so that the validator and the
// refiner see what a send the rewrite introduced does.
func (r *run) inputFor(cand refactor.Candidate) refactor.Input {
	in := r.input
	for _, code := range append([]string{cand.Code}, sources(cand.Helpers)...) {
		if more := r.scope.sentBy(code, in.Related); len(more) > 0 {
			in.Related = append(slices.Clone(in.Related), more...)
		}
	}
	return in
}

func sources(helpers []refactor.Helper) []string {
	out := make([]string, len(helpers))
	for i, h := range helpers {
		out[i] = h.Source
	}
	return out
}

func addUsage(u *refactor.Usage, s refactor.CallStats) {
	u.ModelCalls += s.Calls
	u.InputTokens += s.InputTokens
	u.OutputTokens += s.OutputTokens
}

// imageHealth is the image connection's state, where the image has one
// (mcpclient's client).
type imageHealth interface {
	Health() refactor.ImageHealth
}

// sayIfImageBusy tells the run's followers that its first call waits
// behind a call the service gave up on and the image is still working on
// (a test run past TEST_TIMEOUT): a wait they would otherwise not explain.
func (r *run) sayIfImageBusy() {
	h, ok := r.p.image.(imageHealth)
	if !ok {
		return
	}
	a := h.Health().Abandoned
	if a == nil {
		return
	}
	detail := fmt.Sprintf("the image is still working on %s, given up on %.1f s after it was sent; this run's first call waits behind it", a.Tool, a.Seconds)
	r.log.Info("the run waits behind an abandoned call", zap.String("tool", a.Tool), zap.Float64("seconds", a.Seconds))
	r.emit(refactor.EventImageBusy, refactor.ImageBusyEvent{Tool: a.Tool, Since: a.Since, Seconds: a.Seconds, Detail: detail})
}
