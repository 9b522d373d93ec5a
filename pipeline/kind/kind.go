// Package kind is the service's one vocabulary of error kinds. It lives under
// pipeline because the pipeline owns the meaning of a failed run; it is a leaf
// package so that agents and mcpclient (which pipeline imports) can classify
// their own failures without an import cycle. Only api maps kinds to HTTP.
package kind

import (
	"errors"
	"fmt"
)

// Kind names a class of failure; its value is the `code` clients see.
type Kind string

// The codes of DESIGN.md ("HTTP"), plus those added by later issues.
const (
	InvalidRequest     Kind = "invalid_request"
	Unauthorized       Kind = "unauthorized"
	NotFound           Kind = "not_found" // an unknown refactoring id
	ClassNotFound      Kind = "class_not_found"
	MethodNotFound     Kind = "method_not_found"
	MethodChanged      Kind = "method_changed"
	PayloadTooLarge    Kind = "payload_too_large"
	NotApproved        Kind = "not_approved"
	TestsRegressed     Kind = "tests_regressed"
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
	// Canceled: the client went away before release and the run stopped.
	// Nobody hears the answer; the code is for the audit trail and metrics.
	Canceled Kind = "canceled"
)

// Error carries a Kind, a message safe to show a client, and the cause.
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

// New returns an error of kind k with a client-safe message.
func New(k Kind, format string, args ...any) error {
	return &Error{Kind: k, Message: fmt.Sprintf(format, args...)}
}

// Wrap classifies err as kind k, keeping it as the cause.
func Wrap(k Kind, err error, format string, args ...any) error {
	return &Error{Kind: k, Message: fmt.Sprintf(format, args...), Err: err}
}

// Of returns the kind of the outermost classified error in err's chain, or
// Internal when nothing classified it.
func Of(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return Internal
}

// Is reports whether err is classified as kind k.
func Is(err error, k Kind) bool { return err != nil && Of(err) == k }
