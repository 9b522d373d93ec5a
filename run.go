package refactor

import (
	"context"
	"fmt"
	"time"
)

// Runner runs refactorings one at a time on the image (package pipeline).
// The image is reached over one connection, so a second run is refused,
// not queued: Reserve answers Busy at once while a run holds the slot.
type Runner interface {
	Reserve() (Reservation, error)
	// Busy reports whether a run holds the slot; RetryAfter is the
	// expected remaining seconds of the run holding it (at least 1).
	Busy() bool
	RetryAfter() int
	// ModelConfigured reports whether runs can reach a model.
	ModelConfigured() bool
}

// Reservation is the taken run slot. Exactly one of Run, Revert or Free
// ends it and frees the slot.
type Reservation interface {
	// ID names the run or revert the reservation will record.
	ID() string
	// Run performs a refactoring. ctx is the client's: cancelling it
	// before release stops the run; a release under way always completes
	// or is rolled back.
	Run(ctx context.Context, req Request) (*Result, error)
	// Revert puts back the original of a released run, recorded as its
	// own run.
	Revert(ctx context.Context, id, requestID string) (Run, error)
	// Free gives the slot back unused.
	Free()
}

// Request is one run's input, already validated by the caller.
type Request struct {
	Ref    MethodRef
	DryRun bool
	// Verify takes the whole release path, tests before and after, then
	// always puts the original back: the image is a test bench and the
	// change leaves as a proposal proven by the tests. Never with DryRun;
	// it implies RunTests.
	Verify bool
	// RunTests guards the release with the method's tests, run before and
	// after the compile.
	RunTests  bool
	RequestID string
	// Observe, when set, receives progress events (the SSE stream). It is
	// called on the run's goroutine and must not block for long.
	Observe func(Event)
}

// Outcome is how a successful run ended.
type Outcome string

// Outcomes of a successful run.
const (
	OutcomeReleased Outcome = "released" // compiled into the image
	OutcomeProposed Outcome = "proposed" // dry run: approved, not compiled
	// OutcomeUnchanged: the review found nothing worth changing (LOW, no
	// issues); no candidate was written and nothing was compiled.
	OutcomeUnchanged Outcome = "unchanged"
	// OutcomeVerified: a verify run compiled the approved candidate, its
	// tests showed no regression, and the original was put back and read
	// back: the image holds what it held.
	OutcomeVerified Outcome = "verified"
)

// Result is what a run produced. A failed run returns a partial Result
// alongside its error whenever it got past prefetch.
type Result struct {
	ID             string
	Ref            MethodRef
	Outcome        Outcome
	OriginalCode   string
	Protocol       string
	RefactoredCode string // the approved candidate; on failure the last one
	Review         *Review
	Validation     *Verdict // the last verdict, if any
	Feedback       string   // the last feedback given to the refiner or the client
	Iterations     int
	Rounds         []Round
	Usage          Usage
	Stages         []StageStat
	Duration       time.Duration
	Tests          Tests // the tests around the release; Ran is false when they did not run
	RolledBack     bool  // compiled, then the original was put back
	RestoreFailed  bool  // a rollback failed: the image may hold the candidate
	// Helpers are the new methods that come with RefactoredCode (released
	// with it, before it); empty when the candidate needs none.
	Helpers []Helper
	// RunStatus is the audit row's status: what the image holds after a
	// release began (released, verified, rolled_back, restore_failed), else
	// failed, proposed or unchanged.
	RunStatus Status
	// Worker names the instance that ran the run (WORKER_ID), Image the
	// image it ran on.
	Worker string
	Image  string
	// TraceID is the run's OpenTelemetry trace (32 hex digits): the
	// caller's when its request carried a traceparent; empty when the
	// service traces nothing.
	TraceID string
	// Truncated names the inputs a prompt showed cut to the context budget
	// (TruncatedMethodSource, …), sorted; empty when everything fit.
	Truncated []string
	// Equivalence is the last comparison of the original and a candidate;
	// nil when no candidate got that far.
	Equivalence *Equivalence
}

// Round is one pass of the validation loop.
type Round struct {
	Iteration   int          `json:"iteration"`
	Code        string       `json:"code"`
	CheckErrors []CheckError `json:"check_errors"`
	Verdict     *Verdict     `json:"verdict,omitempty"`
	// Helpers are the candidate's new helper methods (never null).
	Helpers []Helper `json:"helpers"`
}

// CheckError is one reason a candidate was refused before the validator saw it.
type CheckError struct {
	Check   string `json:"check"` // parse, selector, argument_assignment, unreachable, undeclared, capability, compile, behaviour_changed
	Message string `json:"message"`
	Line    int    `json:"line,omitempty"`
	Col     int    `json:"column,omitempty"`
	// Capability and Name say what a capability check refused: the family
	// (reflection, files, global, …) and the selector, pragma or global.
	Capability string `json:"capability,omitempty"`
	Name       string `json:"name,omitempty"`
	// Input, Original and Candidate are the witness of a
	// behaviour_changed error: the input, what the original did on it and
	// what the candidate did.
	Input     string `json:"input,omitempty"`
	Original  string `json:"original,omitempty"`
	Candidate string `json:"candidate,omitempty"`
	// Helper is the selector of the helper the error is about; "" for the
	// method (Line and Column count in the source it names). With helpers,
	// Check may also be helpers (their number, size, protocol or
	// selectors), overwrite (a helper would replace a method the class has
	// or inherits) or unresolved_send (a new send to self or super that
	// neither the class's hierarchy nor a helper of the set implements).
	Helper string `json:"helper,omitempty"`
}

func (c CheckError) String() string {
	where := c.Check
	if c.Helper != "" {
		where += " in helper #" + c.Helper
	}
	if c.Line > 0 {
		return fmt.Sprintf("%s (line %d, column %d): %s", where, c.Line, c.Col, c.Message)
	}
	return where + ": " + c.Message
}

// Usage is what the models cost in a run.
type Usage struct {
	ModelCalls   int   `json:"model_calls"`
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
}

// StageStat is the time and model calls one stage took.
type StageStat struct {
	Name       string `json:"name"`
	DurationMS int64  `json:"duration_ms"`
	ModelCalls int    `json:"model_calls"`
}

// The stages of a run, in order.
const (
	StagePrefetch = "prefetch"
	StageReview   = "review"
	StageWrite    = "write"
	StageValidate = "validate" // the whole validation loop, refinements included
	StageRelease  = "release"
	// StageEquivalence is one comparison of the original and a candidate,
	// within validate: one entry per round that reached it.
	StageEquivalence = "equivalence"
)

// TestRun is one test class's report, and why the class was chosen.
type TestRun struct {
	Class  string     `json:"class"`
	Reason TestReason `json:"reason"`
	Report TestReport `json:"report"`
}

// TestReason says why a test class guards a release.
type TestReason string

// The reasons, in the order the classes are chosen.
const (
	// TestOwnClass: the method's class's own test class (FooTest, FooTests).
	TestOwnClass TestReason = "own_test_class"
	// TestSenderInPackage: a TestCase of the class's package that sends
	// the selector.
	TestSenderInPackage TestReason = "sender_in_package"
	// TestSenderConfigured: a TestCase that sends the selector in a
	// package the operator listed (TEST_PACKAGES).
	TestSenderConfigured TestReason = "sender_in_configured_package"
)

// Tests is what the tests around a release showed: the method's test
// classes run before the compile, and the re-run after it.
type Tests struct {
	Ran         bool      `json:"ran"`
	Classes     []string  `json:"classes"`
	Before      []TestRun `json:"before"`
	After       []TestRun `json:"after"`
	Regressions []string  `json:"regressions"` // Class>>#selector that passed before and not after
}

// Normalized has empty lists rather than nil ones, for JSON clients.
func (t Tests) Normalized() Tests {
	for _, l := range []*[]string{&t.Classes, &t.Regressions} {
		if *l == nil {
			*l = []string{}
		}
	}
	for _, l := range []*[]TestRun{&t.Before, &t.After} {
		if *l == nil {
			*l = []TestRun{}
		}
	}
	return t
}

// Event is one step of a run as an observer sees it.
type Event struct {
	Type string
	Data any
}

// Event types and their data (see openapi.yaml, the SSE stream).
const (
	EventStage     = "stage"      // StageEvent
	EventModelCall = "model_call" // ModelCallEvent
	EventCandidate = "candidate"  // CandidateEvent
	EventCheck     = "check"      // CheckEvent
	EventVerdict   = "verdict"    // VerdictEvent
	EventRelease   = "release"    // ReleaseEvent
	// EventQueued: in a pool, the run waits in the durable queue
	// (QueuedEvent); it comes first, and again when a run is queued anew
	// because its worker stopped answering.
	EventQueued = "queued"
	// EventImageBusy: the image is still working on a call the service
	// gave up on (ImageBusyEvent); the run's first call waits behind it.
	EventImageBusy = "image_busy"
)

// ImageBusyEvent names the abandoned call the run waits behind.
type ImageBusyEvent struct {
	Tool    string    `json:"tool"`
	Since   time.Time `json:"since"`
	Seconds float64   `json:"seconds"`
	Detail  string    `json:"detail"`
}

// QueuedEvent says where a run stands in a pool's queue.
type QueuedEvent struct {
	// Position is the run's place among the queued runs, oldest first: 1
	// is taken by the next idle worker.
	Position int `json:"position"`
	// Queued counts every run waiting in the pool; Workers the workers
	// alive now.
	Queued  int `json:"queued"`
	Workers int `json:"workers"`
	// Reason says why the run was queued again, when it was.
	Reason string `json:"reason,omitempty"`
}

// StageEvent marks a stage starting or finishing.
type StageEvent struct {
	Name       string `json:"name"`
	Status     string `json:"status"` // started | finished
	Iteration  int    `json:"iteration,omitempty"`
	DurationMS int64  `json:"duration_ms,omitempty"`
}

// ModelCallEvent reports what one role invocation spent.
type ModelCallEvent struct {
	Role         string `json:"role"`
	Calls        int    `json:"calls"`
	InputTokens  int64  `json:"input_tokens"`
	OutputTokens int64  `json:"output_tokens"`
}

// CandidateEvent carries a candidate method.
type CandidateEvent struct {
	Iteration int    `json:"iteration"`
	Code      string `json:"code"`
	// Helpers are the candidate's new helper methods (never null).
	Helpers []Helper `json:"helpers"`
}

// CheckEvent reports the local and compile checks of a candidate.
type CheckEvent struct {
	Iteration int          `json:"iteration"`
	Errors    []CheckError `json:"errors"`
}

// VerdictEvent reports the validator's decision.
type VerdictEvent struct {
	Iteration int    `json:"iteration"`
	Verdict   string `json:"verdict"`
	Feedback  string `json:"feedback"`
}

// ReleaseEvent reports the release's progress.
type ReleaseEvent struct {
	Status string `json:"status"` // started | released | skipped (dry run) | …
	Tests  any    `json:"tests,omitempty"`
}
