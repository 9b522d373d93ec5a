package pipeline

import (
	refactor "pharo-refactor"
	"time"
)

// Outcome is how a successful run ended.
type Outcome string

// Outcomes of a successful run.
const (
	OutcomeReleased Outcome = "released" // compiled into the image
	OutcomeProposed Outcome = "proposed" // dry run: approved, not compiled
)

// Request is one run's input, already validated by the caller.
type Request struct {
	Ref    refactor.MethodRef
	DryRun bool
	// RunTests gates the release on the method's tests.
	RunTests  bool
	RequestID string
	// Observe, when set, receives progress events (the SSE stream). It is
	// called on the run's goroutine and must not block for long.
	Observe func(Event)
}

// Result is what a run produced. A failed run returns a partial Result
// alongside its error whenever it got past prefetch.
type Result struct {
	ID             string
	Ref            refactor.MethodRef
	Outcome        Outcome
	OriginalCode   string
	Protocol       string
	RefactoredCode string // the approved candidate; on failure the last one
	Review         *refactor.Review
	Validation     *refactor.Verdict // the last verdict, if any
	Feedback       string            // the last feedback given to the refiner or the client
	Iterations     int
	Rounds         []Round
	Usage          Usage
	Stages         []StageStat
	Duration       time.Duration
	Tests          Tests // the release's test gate; Ran is false when it did not run
	RolledBack     bool  // compiled, then the original was put back
	RestoreFailed  bool  // a rollback failed: the image may hold the candidate
	releasing      bool  // the write-ahead row was committed
	// RunStatus is the audit row's status: what the image holds after a
	// release began (released, rolled_back, restore_failed), else failed or
	// proposed.
	RunStatus refactor.Status
}

// Round is one pass of the validation loop.
type Round struct {
	Iteration   int               `json:"iteration"`
	Code        string            `json:"code"`
	CheckErrors []CheckError      `json:"check_errors"`
	Verdict     *refactor.Verdict `json:"verdict,omitempty"`
}

// Usage is what the models cost in a run.
type Usage struct {
	ModelCalls   int   `json:"model_calls"`
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
}

func (u *Usage) add(s refactor.CallStats) {
	u.ModelCalls += s.Calls
	u.InputTokens += s.InputTokens
	u.OutputTokens += s.OutputTokens
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
)
