package refactor

import (
	"errors"
	"fmt"
	"strings"
)

// Kind names a class of failure; its value is the `code` clients see. Every
// package classifies its own failures with a Kind where they arise; only api
// turns kinds into HTTP statuses.
type Kind string

// The codes clients see, each with its status and meaning in docs/api.md
// ("Errors"); docs/design.md ("HTTP") holds the first of them.
const (
	InvalidRequest  Kind = "invalid_request"
	Unauthorized    Kind = "unauthorized"
	NotFound        Kind = "not_found" // an unknown refactoring id
	ClassNotFound   Kind = "class_not_found"
	MethodNotFound  Kind = "method_not_found"
	MethodChanged   Kind = "method_changed"
	PayloadTooLarge Kind = "payload_too_large"
	NotApproved     Kind = "not_approved"
	TestsRegressed  Kind = "tests_regressed"
	// BehaviourChanged: the last candidate did not do what the original
	// did on an input (the run's equivalence names it); nothing was
	// compiled.
	BehaviourChanged   Kind = "behaviour_changed"
	PharoUnavailable   Kind = "pharo_unavailable"
	PharoError         Kind = "pharo_error"
	ModelUnavailable   Kind = "model_unavailable"
	ModelBadOutput     Kind = "model_bad_output"
	Busy               Kind = "busy"
	ModelNotConfigured Kind = "model_not_configured"
	ShuttingDown       Kind = "shutting_down"
	Timeout            Kind = "timeout"
	ReleaseFailed      Kind = "release_failed"
	Internal           Kind = "internal"
	// Canceled: the run was stopped on request before its release began
	// (POST /api/v1/refactorings/{id}/cancel, or its caller cancelled it).
	// A client that merely disconnects does not stop a run.
	Canceled Kind = "canceled"
	// NotCancelable: a cancel came for a run whose release has begun (it
	// completes or is rolled back, never cut) or that has ended.
	NotCancelable Kind = "not_cancelable"
)

// Codes of a pool of workers (DATABASE_URL).
const (
	// StoreUnavailable: PostgreSQL, which holds the pool's audit trail and
	// queue, cannot be reached; nothing was queued or compiled.
	StoreUnavailable Kind = "store_unavailable"
	// WorkerLost: the worker running the run stopped answering (its
	// heartbeat is older than POOL_LEASE's share) — twice before its
	// release, or once during its release, whose row stays unsettled until
	// that worker starts again and reconciles it.
	WorkerLost Kind = "worker_lost"
	// WorkerUnavailable: the worker whose image holds a release is not
	// running, so the release cannot be reverted now.
	WorkerUnavailable Kind = "worker_unavailable"
)

// TestsInconclusive: a test run around the release did not finish in time
// (the MCP server's per-call limit, 30 s on the real server, or
// TEST_TIMEOUT). It is not pharo_unavailable: the image is reachable, and
// the original is in it — kept when the run before the compile timed out,
// put back when the run after it did.
const TestsInconclusive Kind = "tests_inconclusive"

// Codes of the HTTP edge: requests refused before they reach a run.
const (
	// UnsupportedMediaType: a mutating route got a body that is not
	// application/json (a browser can send text/plain cross-site without
	// asking first).
	UnsupportedMediaType Kind = "unsupported_media_type"
	// OriginNotAllowed: the request carries an Origin that is not in
	// CORS_ALLOW_ORIGINS (a web page the user happened to open).
	OriginNotAllowed Kind = "origin_not_allowed"
	// HostNotAllowed: a loopback listener got a Host header that is not a
	// loopback name or address (DNS rebinding).
	HostNotAllowed Kind = "host_not_allowed"
	// RequestTimeout: the client did not send its body within
	// READ_BODY_TIMEOUT.
	RequestTimeout Kind = "request_timeout"
)

// Error carries a Kind, a message safe to show a client, and the cause,
// which may hold provider or image internals and goes to the log only.
type Error struct {
	Kind    Kind
	Message string
	Err     error
}

func (e *Error) Error() string {
	switch {
	case e.Err == nil:
		return e.Message
	case e.Message == "":
		return e.Err.Error()
	default:
		return e.Message + ": " + e.Err.Error()
	}
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an error of kind k with a client-safe message.
func Errorf(k Kind, format string, args ...any) error {
	return &Error{Kind: k, Message: fmt.Sprintf(format, args...)}
}

// Wrap classifies err as kind k, keeping it as the cause.
func Wrap(k Kind, err error, format string, args ...any) error {
	return &Error{Kind: k, Message: fmt.Sprintf(format, args...), Err: err}
}

// KindOf returns the kind of the outermost classified error in err's chain,
// or Internal when nothing classified it.
func KindOf(err error) Kind {
	if e, ok := err.(*Error); ok {
		return e.Kind // the common case, without errors.As's reflection
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return Internal
}

// Public is the part of err that may be shown to a client: a classified
// error's message with the context around it, never its cause (which may
// hold image, provider or database internals).
func Public(err error) string {
	var ke *Error
	if !errors.As(err, &ke) || ke.Err == nil || ke.Message == "" {
		return err.Error()
	}
	return strings.TrimSuffix(err.Error(), ": "+ke.Err.Error())
}

// IsKind reports whether err is classified as kind k.
func IsKind(err error, k Kind) bool { return err != nil && KindOf(err) == k }
