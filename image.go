package refactor

import (
	"context"
	"time"
)

// Image is what a run needs from the Pharo image (package mcpclient reaches
// it over MCP). Failures are classified: ClassNotFound, MethodNotFound,
// PharoUnavailable (the connection or the image is down), PharoError (the
// image raised where it should not).
type Image interface {
	MethodSource(ctx context.Context, ref MethodRef) (string, error)
	// Protocol answers the protocol a method is classified in.
	Protocol(ctx context.Context, ref MethodRef) (string, error)
	ClassSource(ctx context.Context, class string) (string, error)
	ClassComment(ctx context.Context, class string) (string, error)
	ClassExists(ctx context.Context, class string) (bool, error)
	// IsTestCase reports whether a global of that name is a class
	// inheriting from TestCase (false when there is no such global).
	IsTestCase(ctx context.Context, class string) (bool, error)
	PackageClasses(ctx context.Context, pkg string) ([]string, error)
	DryCompile(ctx context.Context, ref MethodRef, source string) ([]CompileError, error)
	Install(ctx context.Context, ref MethodRef, source, protocol string) error
	// Remove removes ref's method; it answers whether the method was there
	// (removing an absent one is no error).
	Remove(ctx context.Context, ref MethodRef) (bool, error)
	// Understands reports whether ref's class, on ref's side, understands
	// ref's selector: the class or a superclass (a trait, Object) implements
	// it. With fromSuper it asks the superclass, as a send to super does.
	Understands(ctx context.Context, ref MethodRef, fromSuper bool) (bool, error)
	RunTests(ctx context.Context, class string) (TestReport, error)
	References(ctx context.Context, selector string) ([]Location, error)
	// Compare runs the image's method and a candidate side by side on the
	// same inputs (Equivalence); an image that does not offer it answers
	// not_checked, never same.
	Compare(ctx context.Context, c Comparison) (Equivalence, error)
}

// CompileError is one complaint of the image's compiler.
type CompileError struct {
	Position int    `json:"position"` // 1-based character position in the source; 0 when unknown
	Message  string `json:"message"`
}

// Location is one method found by a search of the image.
type Location struct {
	Class   string `json:"class"`
	Method  string `json:"method"`
	Package string `json:"package"`
}

// TestReport is an SUnit result as the image prints it.
type TestReport struct {
	Ran              int      `json:"ran"`
	Passed           int      `json:"passed"`
	Skipped          int      `json:"skipped"`
	ExpectedFailures int      `json:"expected_failures"`
	Failures         int      `json:"failures"`
	Errors           int      `json:"errors"`
	PassedUnexpected int      `json:"passed_unexpected"`
	FailedTests      []string `json:"failed_tests"`  // `Class>>#selector`, as printed
	ErroredTests     []string `json:"errored_tests"` // likewise
	// PassedUnexpectedTests are the tests expected to fail that passed:
	// SUnit lists them under "Failures:" after the failures, but they are
	// not failures (and never a regression).
	PassedUnexpectedTests []string `json:"passed_unexpected_tests"`
	Summary               string   `json:"summary"` // the first line, verbatim
}

// ImageHealth is a snapshot of the connection to the image, for /health
// and /ready.
type ImageHealth struct {
	Up          bool      `json:"up"`
	PID         int       `json:"pid,omitempty"`
	Restarts    int       `json:"restarts"`
	StartedAt   time.Time `json:"started_at,omitzero"`
	LastSuccess time.Time `json:"last_success,omitzero"`
	LastError   string    `json:"last_error,omitempty"`
	LastErrorAt time.Time `json:"last_error_at,omitzero"`
	// Answering: the last call that ended reached the image (it answered,
	// even if it raised); false before the first answer and after a
	// failure to reach it, until the next answer.
	Answering bool `json:"answering"`
	// InFlight is the oldest call the server is handling now (nil when
	// idle): /ready and /health answer from this state and never wait
	// behind a call.
	InFlight *InFlightCall `json:"in_flight,omitempty"`
	// Abandoned is a call the service stopped waiting for (a test run past
	// TEST_TIMEOUT, a run cancelled mid-call) that the server may still be
	// working on: it handles one call at a time, so the next call waits
	// behind it. It stays until a later call is answered (or the server
	// restarts). notifications/cancelled was sent for it.
	Abandoned *InFlightCall `json:"abandoned,omitempty"`
}

// InFlightCall is a tool call waiting for its answer.
type InFlightCall struct {
	Tool    string    `json:"tool"`
	Since   time.Time `json:"since"`
	Seconds float64   `json:"seconds"` // how long it has been waiting, when the snapshot was taken
	Calls   int       `json:"calls"`   // calls in flight, this one included
}
