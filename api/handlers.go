package api

import (
	"errors"
	"fmt"
	wire "github.com/pharo-refactor/refactord/wire"
	"strings"

	"github.com/labstack/echo/v4"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/internal/strictjson"
)

// refactor starts one refactoring as a job and answers as the client asked:
// 202 at once (Prefer: respond-async), a stream of events (Accept:
// text/event-stream), or the result as JSON. The run goes on if the client
// leaves; its id is in the headers (Location, X-Refactoring-ID).
//
// The JSON answer depends on the body's form. The documented (flat) form
// gets the run's true status when it ends — 200, or the problem with its
// status (422 not_approved, 504 tests_inconclusive, …). The original's
// wrapped form ({"refactor_request": …}) is what the original's clients
// send, among them an IDE client on Pharo's Zinc that gives up after 30 s
// of silence while a real run takes 20–60 s: it gets its headers (200, the
// run's id) as the run reaches its first model call and a blank every
// KeepAlive until the body, which says success or failure in the
// original's fields (answerJSON).
func (s *Server) refactor(c echo.Context) error {
	req, wrapped, err := s.parseRefactor(c)
	if err != nil {
		return err
	}
	if s.stopping.Load() {
		return s.refusal(c, errStopping)
	}
	if r, ok := s.pipe.(refusesNow); ok {
		if err := r.Refuses(); err != nil {
			return s.refusal(c, err)
		}
	}
	run := refactor.Request{Ref: req.Ref(), DryRun: req.DryRun, Verify: req.Verify, RunTests: req.WantsTests(), RequestID: requestID(c)}
	async, streamed := prefersAsync(c.Request().Header), wantsStream(c)
	var events *eventQueue
	modelPhase := make(chan struct{})
	switch {
	case async:
	case streamed:
		events = newEventQueue()
		run.Observe = events.push
	default:
		run.Observe = closeAtModelPhase(modelPhase)
	}
	tap := newRunTap()
	run.Observe = tee(run.Observe, tap.observe)
	started, err := s.pipe.Start(callersTrace(s.runsCtx, c.Request()), run)
	if err != nil {
		return s.refusal(c, err)
	}
	job := s.counted(started)
	s.taps.add(tap, job)
	setRunHeaders(c, job.ID())
	switch {
	case async:
		return s.answerAccepted(c, job)
	case streamed:
		return s.stream(c, job, events)
	case wrapped:
		return s.answerJSON(c, job, modelPhase)
	default:
		return s.answerWhenDone(c, job)
	}
}

// parseRefactor reads, decodes and validates the body: 413, 400 or 422.
func (s *Server) parseRefactor(c echo.Context) (req wire.RefactorRequest, wrapped bool, err error) {
	body, err := readBody(c.Request(), s.opts.MaxBodyBytes)
	switch {
	case errors.Is(err, errBodyTooLarge):
		return req, false, refactor.Errorf(refactor.PayloadTooLarge, "the body is over %d bytes", s.opts.MaxBodyBytes)
	case errors.Is(err, errBodyTimeout):
		return req, false, refactor.Errorf(refactor.RequestTimeout, "the body did not arrive within %s; nothing was run", s.opts.ReadBodyTimeout)
	case errors.Is(err, errShuttingDown):
		return req, false, refactor.Errorf(refactor.ShuttingDown, "the service is shutting down; the body was not read; retry on another instance or later")
	case err != nil:
		return req, false, malformed(err)
	}
	req, wrapped, err = decodeRefactor(body)
	if err != nil {
		p := s.problem(c, malformed(refactor.Errorf(refactor.InvalidRequest, "%s", err.Error())))
		var ke *strictjson.KeyError
		if errors.As(err, &ke) {
			p.Errors = []wire.FieldError{fieldError(ke.Field, ke.Field, ke.Message, ke.Type)}
		}
		return req, wrapped, &problemError{p: p}
	}
	fields, err := validateRefactor(s.validate, req, wrapped)
	if err != nil {
		p := s.problem(c, err)
		p.Errors = fields
		return req, wrapped, &problemError{p: p}
	}
	return req, wrapped, nil
}

// errStopping refuses what would start after BeginShutdown.
var errStopping = refactor.Errorf(refactor.ShuttingDown, "the service is shutting down; retry on another instance or later")

func (s *Server) reserve() (refactor.Reservation, error) {
	if s.stopping.Load() {
		return nil, errStopping
	}
	return s.pipe.Reserve()
}

// refusesNow is a runner that tells, without taking its slot, that it
// would refuse a run (one run at a time, and one holds the slot): the
// refusal then comes before the request's run is set up.
type refusesNow interface {
	Refuses() error
}

// refusal answers a run that could not start; busy carries Retry-After and
// the original's message.
func (s *Server) refusal(c echo.Context, err error) error {
	k := refactor.KindOf(err)
	if k == refactor.Busy {
		s.metrics.busy.Inc()
		return s.busyProblem(c, err)
	}
	p := s.problem(c, err)
	if k == refactor.ShuttingDown {
		p.RetryAfter = 5
	}
	return &problemError{p: p}
}

// busyProblem is the busy refusal: under load it is most answers, the
// same problem but for its request id, so it is built and encoded once per
// Retry-After value.
func (s *Server) busyProblem(c echo.Context, err error) error {
	retryAfter := s.pipe.RetryAfter()
	if r := s.busyRendered.Load(); r != nil && r.retryAfter == retryAfter {
		return &problemError{p: r.problem, rendered: r, requestID: requestID(c)}
	}
	p := s.problem(c, err)
	p.RetryAfter = retryAfter
	p.Detail = "Agent is busy processing another request. Please try again later."
	return &problemError{p: p, rendered: s.busyBody(p), requestID: p.RequestID}
}

// runFailure answers a failed run with what the client needs to act.
func (s *Server) runFailure(c echo.Context, res *refactor.Result, err error) error {
	return &problemError{p: s.failureProblem(c, res, err)}
}

// failureProblem is the problem body of a failed run.
func (s *Server) failureProblem(c echo.Context, res *refactor.Result, err error) *wire.Problem {
	p := s.problem(c, err)
	if refactor.KindOf(err) == refactor.ShuttingDown {
		p.RetryAfter = 5 // stopped by a shutdown before release: safe to send again
	}
	if res != nil {
		p.ID = res.ID
		p.Iterations = res.Iterations
		p.Usage = &refactor.Usage{ModelCalls: res.Usage.ModelCalls, InputTokens: res.Usage.InputTokens, OutputTokens: res.Usage.OutputTokens}
		p.RunStatus = string(res.RunStatus)
		p.TraceID = res.TraceID
		switch refactor.KindOf(err) {
		case refactor.NotApproved, refactor.BehaviourChanged:
			p.RefactoredCode, p.Feedback, p.Truncated = res.RefactoredCode, res.Feedback, res.Truncated
		case refactor.ReleaseFailed, refactor.MethodChanged:
			p.OriginalCode, p.RefactoredCode = res.OriginalCode, res.RefactoredCode
		case refactor.TestsRegressed, refactor.TestsInconclusive:
			p.RefactoredCode = res.RefactoredCode
		}
		if res.RestoreFailed {
			p.OriginalCode, p.RefactoredCode = res.OriginalCode, res.RefactoredCode
		}
		if p.RefactoredCode != "" {
			p.Helpers = res.Helpers
		}
		if res.Tests.Ran {
			tests := res.Tests
			p.Tests = &tests
		}
		p.Equivalence = res.Equivalence
	}
	return p
}

// problemError carries a ready problem to the error handler.
type problemError struct {
	p *wire.Problem
	// rendered is p already encoded but for its request id, when p is
	// an answer given too often to encode each time; nil otherwise. p is
	// then the rendered problem, shared by every answer and never
	// changed, and requestID is this answer's.
	rendered  *renderedProblem
	requestID string
}

func (e *problemError) Error() string { return e.p.Detail }

func newRefactorBody(res *refactor.Result) wire.RefactorBody {
	b := wire.RefactorBody{
		Success: true, ClassName: res.Ref.Class, MethodName: res.Ref.Selector,
		ID: res.ID, Outcome: string(res.Outcome), IsClassMethod: res.Ref.ClassSide, Protocol: res.Protocol,
		OriginalCode: res.OriginalCode, Refactored: res.RefactoredCode, Helpers: refactor.HelperList(res.Helpers), Iterations: res.Iterations,
		Rounds: res.Rounds, Stages: res.Stages, DurationMS: res.Duration.Milliseconds(), Tests: res.Tests.Normalized(),
		Usage:     refactor.Usage{ModelCalls: res.Usage.ModelCalls, InputTokens: res.Usage.InputTokens, OutputTokens: res.Usage.OutputTokens},
		Truncated: append([]string{}, res.Truncated...),
		Worker:    res.Worker, Image: res.Image, TraceID: res.TraceID,
		Equivalence: equivalenceOf(res),
	}
	if b.Rounds == nil {
		b.Rounds = []refactor.Round{} // unchanged: no round ran
	}
	if res.Review != nil {
		b.Review = *res.Review
	}
	b.Validation = res.Validation
	b.Result = wire.LegacyResult{
		CodeReview:       reviewText(b.Review),
		RefactoredCode:   res.RefactoredCode,
		ValidationResult: validationText(res.Validation),
		ReleaseStatus:    releaseText(res),
	}
	return b
}

// validationText is the original's validation_result: exactly "APPROVED"
// on approval (its clients test equality), else "NEEDS IMPROVEMENT: " and
// the feedback. The verdict's details are in the body's own `validation`.
func validationText(v *refactor.Verdict) string {
	switch {
	case v == nil:
		return "Not validated: nothing to change."
	case v.Verdict == refactor.VerdictApproved:
		return "APPROVED"
	}
	return strings.TrimSpace("NEEDS IMPROVEMENT: " + v.Feedback)
}

func reviewText(r refactor.Review) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "[%s] %s", r.Severity, r.Summary)
	for _, is := range r.Issues {
		fmt.Fprintf(&sb, "\n- %s: %s Suggestion: %s", is.Principle, is.Problem, is.Suggestion)
	}
	return sb.String()
}

// releaseText is the original's release_status: "RELEASED: <selector>"
// when the method was compiled into the image (its clients test the
// prefix); the other outcomes say what happened without that prefix. The
// details (protocol, side) are in the body's own fields.
func releaseText(res *refactor.Result) string {
	switch res.Outcome {
	case refactor.OutcomeProposed:
		return "Dry run: approved, not compiled into the image."
	case refactor.OutcomeUnchanged:
		return "Unchanged: the review found nothing worth a rewrite; nothing was compiled."
	case refactor.OutcomeVerified:
		return fmt.Sprintf("Verified: %s compiled in protocol '%s', its tests passed, and the original was put back; the image holds what it held.", res.Ref, res.Protocol)
	}
	return "RELEASED: " + res.Ref.Selector
}

// equivalenceOf is the run's comparison for its answer: not_checked, never
// missing, when no candidate got as far as a comparison.
func equivalenceOf(res *refactor.Result) refactor.Equivalence {
	if res.Equivalence == nil {
		return refactor.Equivalence{Outcome: refactor.EquivalenceNotChecked, Reason: "no candidate reached the comparison"}
	}
	return *res.Equivalence
}
