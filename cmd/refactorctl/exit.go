package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/pharo-refactor/refactord/wire"
	"net/http"
	"time"
)

// Exit codes (documented in --help and docs/ci.md).
const (
	exitOK             = 0 // released, verified, proposed or unchanged; the command did what it was asked
	exitFailure        = 1 // any other failure
	exitUsage          = 2 // the invocation is wrong (flags, arguments, a bad batch line)
	exitNotApproved    = 3 // the validation loop ended without approval, or with a candidate that changed behaviour
	exitTestsRegressed = 4 // the release was rolled back because tests regressed
	exitBusy           = 5 // the service was still busy after --wait-max
	exitConflict       = 6 // the method changed in the image, or another conflict (--write: DIR does not hold the original)
	exitUnreachable    = 7 // the service could not be reached, or the stream dropped
)

// usageError is a mistake in the invocation itself (exit 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// apiError is an answer of the service that says the request failed.
type apiError struct {
	Status    int
	Problem   wire.Problem
	Raw       []byte // the body as received (printed by --json)
	RequestID string
}

func (e *apiError) Error() string {
	p := e.Problem
	code := p.Code
	if code == "" {
		code = http.StatusText(e.Status)
	}
	msg := fmt.Sprintf("%s (HTTP %d)", code, e.Status)
	if p.Detail != "" {
		msg += ": " + p.Detail
	}
	for _, f := range p.Errors {
		msg += fmt.Sprintf("; %s: %s", f.Field, f.Message)
	}
	return msg
}

// busyError: the service stayed busy for longer than --wait-max.
type busyError struct {
	waited time.Duration
	last   *apiError
}

func (e *busyError) Error() string {
	msg := fmt.Sprintf("the service is still busy after waiting %s (--wait-max); another run holds it — try again later or raise --wait-max",
		e.waited.Round(100*time.Millisecond))
	if e.last != nil && e.last.Problem.RetryAfter > 0 {
		msg += fmt.Sprintf(" (it expects to be free in about %ds)", e.last.Problem.RetryAfter)
	}
	return msg
}

// unreachableError: the service could not be reached after the retries.
type unreachableError struct {
	attempts int
	err      error
	// maybeSent: the request may have reached the service before the
	// connection failed (so it was not repeated).
	maybeSent bool
}

func (e *unreachableError) Error() string {
	msg := fmt.Sprintf("the service is unreachable (%d attempt(s)): %v", e.attempts, e.err)
	if e.maybeSent {
		msg += "; the request may have reached the service, so it was not repeated — check `refactorctl history`"
	}
	return msg
}

func (e *unreachableError) Unwrap() error { return e.err }

// droppedError: the stream ended after the run was accepted but before its
// result, so the run may or may not have completed.
type droppedError struct {
	runID string
	err   error
}

func (e *droppedError) Error() string {
	return fmt.Sprintf("the connection dropped during run %s (%v); the run may or may not have completed — see `refactorctl show %s`",
		e.runID, e.err, e.runID)
}

func (e *droppedError) Unwrap() error { return e.err }

// exitCode maps an error to the documented exit code.
func exitCode(err error) int {
	var (
		ue *usageError
		be *busyError
		ne *unreachableError
		de *droppedError
		ae *apiError
		bt *batchErr
	)
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &bt):
		return bt.code
	case errors.As(err, &ue):
		return exitUsage
	case errors.As(err, &be):
		return exitBusy
	case errors.As(err, &ne), errors.As(err, &de):
		return exitUnreachable
	case errors.As(err, &ae):
		return problemExit(ae)
	case isWriteConflict(err):
		return exitConflict
	case errors.Is(err, context.Canceled):
		return exitFailure
	}
	return exitFailure
}

// problemExit maps a problem code; invalid_request from the server is a
// failure (1), not a usage error: the local checks passed.
func problemExit(e *apiError) int {
	switch e.Problem.Code {
	case "not_approved", "behaviour_changed":
		return exitNotApproved
	case "tests_regressed":
		return exitTestsRegressed
	case "method_changed", "conflict":
		return exitConflict
	case "busy", "shutting_down":
		return exitBusy
	}
	if e.Status == http.StatusConflict {
		return exitConflict
	}
	return exitFailure
}
