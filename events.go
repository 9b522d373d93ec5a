package refactor

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
)

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
