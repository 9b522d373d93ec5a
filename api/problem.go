package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	wire "github.com/pharo-refactor/refactord/wire"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"
	"go.uber.org/zap"

	refactor "github.com/pharo-refactor/refactord"
)

// statusOf is the one place where errors become HTTP statuses.
func statusOf(err error) int {
	k := refactor.KindOf(err)
	var m *malformedError
	var he *echo.HTTPError
	switch {
	case k == refactor.InvalidRequest && errors.As(err, &he):
		return he.Code // echo's own: an unknown route (404), a wrong method (405)
	case k == refactor.InvalidRequest && errors.As(err, &m):
		return http.StatusBadRequest
	}
	switch k {
	case refactor.InvalidRequest, refactor.NotApproved, refactor.TestsRegressed, refactor.BehaviourChanged:
		return http.StatusUnprocessableEntity
	case refactor.Unauthorized:
		return http.StatusUnauthorized
	case refactor.ClassNotFound, refactor.MethodNotFound, refactor.NotFound:
		return http.StatusNotFound
	case refactor.MethodChanged, refactor.Canceled, refactor.NotCancelable:
		return http.StatusConflict
	case refactor.PayloadTooLarge:
		return http.StatusRequestEntityTooLarge
	case refactor.PharoUnavailable, refactor.PharoError, refactor.ModelUnavailable, refactor.ModelBadOutput:
		return http.StatusBadGateway
	case refactor.WorkerLost:
		return http.StatusBadGateway // the worker, an upstream of the pool, stopped answering
	case refactor.Busy, refactor.ModelNotConfigured, refactor.ShuttingDown, refactor.StoreUnavailable, refactor.WorkerUnavailable:
		return http.StatusServiceUnavailable
	case refactor.Timeout:
		return http.StatusGatewayTimeout
	case refactor.TestsInconclusive:
		// The image is reachable (not 502) but did not finish the test run
		// within its limit: an upstream that answered too late is what 504
		// says. Not 422: nothing is wrong with the request or the candidate
		// — the same run may pass with a higher limit or fewer classes.
		return http.StatusGatewayTimeout
	case refactor.UnsupportedMediaType:
		return http.StatusUnsupportedMediaType
	case refactor.OriginNotAllowed, refactor.HostNotAllowed:
		return http.StatusForbidden
	case refactor.RequestTimeout:
		return http.StatusRequestTimeout
	default:
		return http.StatusInternalServerError
	}
}

var titles = map[refactor.Kind]string{
	refactor.InvalidRequest:     "Invalid request",
	refactor.Unauthorized:       "Unauthorized",
	refactor.NotFound:           "Not found",
	refactor.ClassNotFound:      "Class not found",
	refactor.MethodNotFound:     "Method not found",
	refactor.MethodChanged:      "Method changed during the run",
	refactor.PayloadTooLarge:    "Payload too large",
	refactor.NotApproved:        "Refactoring not approved",
	refactor.TestsRegressed:     "Tests regressed",
	refactor.BehaviourChanged:   "Behaviour changed",
	refactor.TestsInconclusive:  "Tests did not finish in time",
	refactor.PharoUnavailable:   "Pharo unavailable",
	refactor.PharoError:         "Pharo error",
	refactor.ModelUnavailable:   "Model unavailable",
	refactor.ModelBadOutput:     "Model gave unusable output",
	refactor.Busy:               "Busy",
	refactor.ModelNotConfigured: "Model not configured",
	refactor.ShuttingDown:       "Shutting down",
	refactor.Timeout:            "Run deadline passed",
	refactor.ReleaseFailed:      "Release failed",
	refactor.Internal:           "Internal error",
	refactor.Canceled:           "Run canceled",
	refactor.NotCancelable:      "Run cannot be canceled",
	refactor.StoreUnavailable:   "Store unavailable",
	refactor.WorkerLost:         "Worker lost",
	refactor.WorkerUnavailable:  "Worker unavailable",

	refactor.UnsupportedMediaType: "Unsupported media type",
	refactor.OriginNotAllowed:     "Origin not allowed",
	refactor.HostNotAllowed:       "Host not allowed",
	refactor.RequestTimeout:       "Request body not received in time",
}

// problem builds the problem for err: the one way an answer of an error
// is made. Its detail is the public part of the error: a classified
// error's message with the context around it, never its cause (which may
// hold image, provider or database internals and goes to the log);
// internal errors show nothing of their text, so building one logs its
// cause with the request id at once — an internal answer without its log
// line cannot be written; so does a store_unavailable one, whose cause
// the operator needs (logStoreUnavailable). A store that refuses writes
// is retried after storeRetryAfter.
func (s *Server) problem(c echo.Context, err error) *wire.Problem {
	k := refactor.KindOf(err)
	status := statusOf(err)
	switch k {
	case refactor.Internal:
		s.log.Error("internal error", zap.String("request_id", requestID(c)), zap.String("method", c.Request().Method),
			zap.String("path", c.Request().URL.Path), zap.Error(err))
	case refactor.StoreUnavailable:
		s.logStoreUnavailable(c, err)
	}
	retryAfter := 0
	if k == refactor.StoreUnavailable {
		retryAfter = storeRetryAfter
	}
	return &wire.Problem{
		RetryAfter: retryAfter,
		Type:       "https://refactord.dev/problems/" + string(k),
		Title:      titles[k],
		Status:     status,
		StatusCode: status,
		Detail:     publicDetail(err, k),
		Code:       string(k),
		RequestID:  requestID(c),
	}
}

// logStoreUnavailable writes the one line of a store_unavailable answer:
// the client is told only that the audit trail refuses writes or does not
// answer; the operator needs why (a full disk, a read-only mount, a lock,
// PostgreSQL gone) to mend it. The store, the pipeline and the pool
// return these errors without logging them, so this is the answer's only
// line of its cause. (What they do log is not an answer's: a heartbeat
// refused, a run's final row kept in memory, and the pipeline's "run
// failed" at the end of every run, answered or not.)
//
// Warn, not Error: the service did what it promises — nothing was
// changed, the client is told to retry after Retry-After, /ready says
// why meanwhile — and the fault is the storage's, not the service's.
// Error is kept for the service's own faults (an internal answer) and for
// what needs reconciling (a row the store refused after the image
// changed).
func (s *Server) logStoreUnavailable(c echo.Context, err error) {
	s.log.Warn("store unavailable",
		zap.String("request_id", requestID(c)),
		zap.String("method", c.Request().Method),
		zap.String("route", c.Path()),
		zap.String("path", c.Request().URL.Path),
		zap.String("detail", refactor.Public(err)),
		zap.String("cause", privateCause(err)))
}

// privateCause is what a classified error keeps from the client: the
// cause of its outermost refactor.Error (the store's classification and
// the driver's or the file system's words), or, for an error classified
// without a cause, its whole text.
func privateCause(err error) string {
	var ke *refactor.Error
	if errors.As(err, &ke) && ke.Err != nil {
		return ke.Err.Error()
	}
	return err.Error()
}

// storeRetryAfter is the Retry-After of store_unavailable, in seconds: an
// operator frees space or the database comes back; a client tries again.
const storeRetryAfter = 5

func publicDetail(err error, k refactor.Kind) string {
	if k == refactor.Internal {
		return "an internal error occurred; the request id identifies it in the log"
	}
	return refactor.Public(err)
}

// malformedError marks an invalid_request whose body or query could not be
// read at all (400), as opposed to one whose fields were read and refused
// (422).
type malformedError struct{ err error }

func (e *malformedError) Error() string { return e.err.Error() }
func (e *malformedError) Unwrap() error { return e.err }

// malformed classifies err as an unreadable request (400 invalid_request).
func malformed(err error) error {
	if !refactor.IsKind(err, refactor.InvalidRequest) {
		err = refactor.Wrap(refactor.InvalidRequest, err, "")
	}
	return &malformedError{err}
}

// renderedProblem is a problem body encoded once but for its request id's
// value, which is spliced in per answer.
type renderedProblem struct {
	retryAfter int
	problem    *wire.Problem // the problem less its request id
	head, tail []byte        // the body up to the request id's value, and after it
}

const requestIDKey = `"request_id":"`

// renderProblem encodes p once, less its request id.
func renderProblem(p *wire.Problem) (*renderedProblem, error) {
	q := *p
	q.RequestID = ""
	body, err := json.Marshal(&q)
	if err != nil {
		return nil, fmt.Errorf("encoding a problem: %w", err)
	}
	// A string value cannot hold this sequence unescaped, so the first one
	// is the key's.
	i := bytes.Index(body, []byte(requestIDKey))
	if i < 0 {
		return nil, errors.New("encoding a problem: no request_id in its body")
	}
	i += len(requestIDKey)
	return &renderedProblem{retryAfter: p.RetryAfter, problem: &q, head: body[:i], tail: body[i:]}, nil
}

// body is the rendered problem with id as its request id; false when id
// would need escaping in JSON (then the problem is encoded whole).
func (r *renderedProblem) body(id string) ([]byte, bool) {
	for i := 0; i < len(id); i++ {
		if b := id[i]; b < 0x20 || b >= 0x7f || b == '"' || b == '\\' || b == '<' || b == '>' || b == '&' {
			return nil, false
		}
	}
	out := make([]byte, 0, len(r.head)+len(id)+len(r.tail))
	return append(append(append(out, r.head...), id...), r.tail...), true
}

// busyBody is the rendered busy problem for p (kind busy), encoded again
// only when its Retry-After changes; nil if it cannot be encoded (p is
// then encoded whole).
func (s *Server) busyBody(p *wire.Problem) *renderedProblem {
	if r := s.busyRendered.Load(); r != nil && r.retryAfter == p.RetryAfter {
		return r
	}
	r, err := renderProblem(p)
	if err != nil {
		return nil
	}
	s.busyRendered.Store(r)
	return r
}

// writeProblemError answers with pe's problem, from its rendered body when
// it has one.
func writeProblemError(c echo.Context, pe *problemError) error {
	if pe.rendered == nil {
		return writeProblem(c, pe.p)
	}
	body, ok := pe.rendered.body(pe.requestID)
	if !ok {
		p := *pe.p
		p.RequestID = pe.requestID
		return writeProblem(c, &p)
	}
	if pe.p.RetryAfter > 0 {
		c.Response().Header().Set("Retry-After", strconv.Itoa(pe.p.RetryAfter))
	}
	return c.Blob(pe.p.Status, "application/problem+json", body)
}

func writeProblem(c echo.Context, p *wire.Problem) error {
	if p.RetryAfter > 0 {
		c.Response().Header().Set("Retry-After", strconv.Itoa(p.RetryAfter))
	}
	body, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("encoding a problem: %w", err)
	}
	return c.Blob(p.Status, "application/problem+json", body)
}
