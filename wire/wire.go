// Package wire holds the HTTP bodies of the API: what api writes and what
// refactorctl (or any Go client) reads. One definition of each body, checked
// against openapi.yaml by the api tests. The domain's own JSON shapes
// (refactor.Run, refactor.Page, refactor.Review, refactor.Tests, the run's
// events…) are used as they are.
package wire

import refactor "github.com/pharo-refactor/refactord"

// RefactorRequest is the body of POST /api/v1/refactor, flat or wrapped in
// {"refactor_request": …} as the original's clients send it. Keys are exact
// (case and spelling) and unknown keys are refused; the validate tags are
// api's field rules.
type RefactorRequest struct {
	ClassName     string `json:"class_name" validate:"required,smalltalk_class"`
	MethodName    string `json:"method_name" validate:"required,smalltalk_selector"`
	IsClassMethod bool   `json:"is_class_method"`
	DryRun        bool   `json:"dry_run"`
	// Verify takes the whole release path with its tests, then always puts
	// the original back (outcome verified): for CI, which takes the change
	// as a patch. Never with dry_run, nor with run_tests false.
	Verify bool `json:"verify"`
	// RunTests guards the release with the method's tests (default true).
	RunTests *bool `json:"run_tests,omitempty"`
}

// Ref is the method the request names.
func (r RefactorRequest) Ref() refactor.MethodRef {
	return refactor.MethodRef{Class: r.ClassName, Selector: r.MethodName, ClassSide: r.IsClassMethod}
}

// WantsTests reports whether the release is to be guarded by tests.
func (r RefactorRequest) WantsTests() bool { return r.RunTests == nil || *r.RunTests }

// LegacyResult keeps the original service's `result` object for its clients.
type LegacyResult struct {
	CodeReview       string `json:"code_review"`
	RefactoredCode   string `json:"refactored_code"`
	ValidationResult string `json:"validation_result"`
	ReleaseStatus    string `json:"release_status"`
}

// RefactorBody is the 200 body of a run (and the `result` event of a
// stream): the original's fields plus the new ones.
type RefactorBody struct {
	Success       bool         `json:"success"`
	ClassName     string       `json:"class_name"`
	MethodName    string       `json:"method_name"`
	Result        LegacyResult `json:"result"`
	Error         *string      `json:"error"`
	ID            string       `json:"id"`
	Outcome       string       `json:"outcome"`
	IsClassMethod bool         `json:"is_class_method"`
	Protocol      string       `json:"protocol"`
	OriginalCode  string       `json:"original_code"`
	Refactored    string       `json:"refactored_code"`
	// Helpers are the new methods released (or proposed) with
	// refactored_code, installed before it; [] when it needs none.
	Helpers    []refactor.Helper    `json:"helpers"`
	Review     refactor.Review      `json:"review"`
	Validation *refactor.Verdict    `json:"validation"` // null when no validator ran (unchanged)
	Iterations int                  `json:"iterations"`
	Rounds     []refactor.Round     `json:"rounds"`
	Usage      refactor.Usage       `json:"usage"`
	Stages     []refactor.StageStat `json:"stages"`
	DurationMS int64                `json:"duration_ms"`
	Tests      refactor.Tests       `json:"tests"`
	// Truncated names the inputs a prompt showed cut to the context
	// budget; empty when everything fit.
	Truncated []string `json:"truncated"`
	// Worker names the instance that ran the run (WORKER_ID), Image the
	// image it ran on: in a pool, the one that holds a release.
	Worker string `json:"worker"`
	Image  string `json:"image"`
	// TraceID is the run's OpenTelemetry trace id: the caller's when its
	// request carried a traceparent; "" when the service traces nothing.
	TraceID string `json:"trace_id"`
	// Equivalence is the last comparison of the original and a candidate
	// (not_checked when none was made).
	Equivalence refactor.Equivalence `json:"equivalence"`
}

// Problem is an RFC 9457 problem+json body. Extensions carry what a client
// needs to act: the last candidate of an unapproved run, field errors, ….
type Problem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	// StatusCode repeats Status under the original service's name, for its
	// clients.
	StatusCode int    `json:"status_code"`
	Detail     string `json:"detail"`
	Code       string `json:"code"`
	RequestID  string `json:"request_id"`

	Errors         []FieldError `json:"errors,omitempty"`
	RetryAfter     int          `json:"retry_after,omitempty"`
	ID             string       `json:"id,omitempty"`
	OriginalCode   string       `json:"original_code,omitempty"`
	RefactoredCode string       `json:"refactored_code,omitempty"`
	// Helpers come with RefactoredCode when its candidate had any.
	Helpers    []refactor.Helper `json:"helpers,omitempty"`
	Feedback   string            `json:"feedback,omitempty"`
	Truncated  []string          `json:"truncated,omitempty"`
	Iterations int               `json:"iterations,omitempty"`
	Usage      *refactor.Usage   `json:"usage,omitempty"`
	Tests      *refactor.Tests   `json:"tests,omitempty"`
	// RunStatus is the run's audit status: after a release began it says
	// what the image holds (rolled_back: the original; restore_failed: maybe
	// the candidate — both sources are in the body).
	RunStatus string `json:"run_status,omitempty"`
	// TraceID is the failed run's OpenTelemetry trace id, when it has one.
	TraceID string `json:"trace_id,omitempty"`
	// Equivalence is the failed run's last comparison, when it made one
	// (behaviour_changed: its witness).
	Equivalence *refactor.Equivalence `json:"equivalence,omitempty"`
}

// FieldError names one invalid field of a request: Field and Message, and
// the same as the original service's clients read them (FastAPI's
// validation errors): Loc, the path from the body ("body", then keys), Msg,
// and Type, a pydantic-style error type (missing, value_error,
// extra_forbidden, string_type, bool_type, duplicate_key, json_invalid).
type FieldError struct {
	Field   string   `json:"field"`
	Message string   `json:"message"`
	Loc     []string `json:"loc"`
	Msg     string   `json:"msg"`
	Type    string   `json:"type"`
}

// RunFailureBody is the answer of a run that failed after its 200 headers
// went out (a JSON answer is committed when the run reaches its first model
// call, so that a client that stops waiting still has the run's id): the
// original service's failure shape (success false, error) with every field
// of the Problem the failure would have been answered with before the
// headers went out (its status included).
type RunFailureBody struct {
	Success    bool          `json:"success"`
	ClassName  string        `json:"class_name"`
	MethodName string        `json:"method_name"`
	Result     *LegacyResult `json:"result"`
	Error      string        `json:"error"`
	Problem
}

// RootBody is GET /: what the service is and where its pages are.
type RootBody struct {
	Name    string    `json:"name"`
	Version string    `json:"version"`
	Links   RootLinks `json:"links"`
}

// RootLinks are the service's pages and routes.
type RootLinks struct {
	Docs         string `json:"docs"`
	OpenAPIJSON  string `json:"openapi_json"`
	OpenAPIYAML  string `json:"openapi_yaml"`
	Health       string `json:"health"`
	Ready        string `json:"ready"`
	Metrics      string `json:"metrics"`
	Refactor     string `json:"refactor"`
	Refactorings string `json:"refactorings"`
	// Console is the operators' page; Queue the pool's queue browser
	// (River UI), only in a pool.
	Console string `json:"console"`
	Queue   string `json:"queue,omitempty"`
	// Workers is the pool's workers and queue depth, only in a pool.
	Workers string `json:"workers,omitempty"`
}

// HealthBody is GET /health: the original's fields plus busy and the state
// of the image connection.
type HealthBody struct {
	Status  string               `json:"status"`
	Version string               `json:"version"`
	AppName string               `json:"app_name"`
	Busy    bool                 `json:"busy"`
	MCP     refactor.ImageHealth `json:"mcp"`
}

// ReadyBody is GET /ready.
type ReadyBody struct {
	Ready   bool     `json:"ready"`
	Reasons []string `json:"reasons"`
	// MCP is the image connection the answer was read from (a call in
	// flight shows in it).
	MCP *refactor.ImageHealth `json:"mcp,omitempty"`
}

// AcceptedEvent opens a run's event stream.
type AcceptedEvent struct {
	ID        string `json:"id"`
	RequestID string `json:"request_id"`
}
