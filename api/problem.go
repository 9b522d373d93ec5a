package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"pharo-refactor/pipeline"
	"pharo-refactor/pipeline/kind"
)

// Problem is an RFC 9457 problem+json body. Extensions carry what a client
// needs to act: the last candidate of an unapproved run, field errors, ….
type Problem struct {
	Type      string `json:"type"`
	Title     string `json:"title"`
	Status    int    `json:"status"`
	Detail    string `json:"detail"`
	Code      string `json:"code"`
	RequestID string `json:"request_id"`

	Errors         []FieldError    `json:"errors,omitempty"`
	RetryAfter     int             `json:"retry_after,omitempty"`
	ID             string          `json:"id,omitempty"`
	OriginalCode   string          `json:"original_code,omitempty"`
	RefactoredCode string          `json:"refactored_code,omitempty"`
	Feedback       string          `json:"feedback,omitempty"`
	Iterations     int             `json:"iterations,omitempty"`
	Usage          *UsageBody      `json:"usage,omitempty"`
	Tests          *pipeline.Tests `json:"tests,omitempty"`
	// RunStatus is the run's audit status: after a release began it says
	// what the image holds (rolled_back: the original; restore_failed: maybe
	// the candidate — both sources are in the body).
	RunStatus string `json:"run_status,omitempty"`
}

// FieldError names one invalid field of a request.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// statusOf is the one place where kinds become HTTP statuses.
func statusOf(k kind.Kind) int {
	switch k {
	case kind.InvalidRequest, kind.NotApproved, kind.TestsRegressed:
		return http.StatusUnprocessableEntity
	case kind.Unauthorized:
		return http.StatusUnauthorized
	case kind.ClassNotFound, kind.MethodNotFound, kind.NotFound:
		return http.StatusNotFound
	case kind.MethodChanged:
		return http.StatusConflict
	case kind.PayloadTooLarge:
		return http.StatusRequestEntityTooLarge
	case kind.PharoUnavailable, kind.PharoError, kind.ModelUnavailable, kind.ModelBadOutput:
		return http.StatusBadGateway
	case kind.Busy, kind.ModelNotConfigured, kind.ShuttingDown:
		return http.StatusServiceUnavailable
	case kind.Timeout:
		return http.StatusGatewayTimeout
	case kind.Canceled:
		return 499 // nginx's "client closed request": nobody receives it
	case kind.UnsupportedMediaType:
		return http.StatusUnsupportedMediaType
	case kind.OriginNotAllowed, kind.HostNotAllowed:
		return http.StatusForbidden
	case kind.RequestTimeout:
		return http.StatusRequestTimeout
	default:
		return http.StatusInternalServerError
	}
}

var titles = map[kind.Kind]string{
	kind.InvalidRequest:     "Invalid request",
	kind.Unauthorized:       "Unauthorized",
	kind.NotFound:           "Not found",
	kind.ClassNotFound:      "Class not found",
	kind.MethodNotFound:     "Method not found",
	kind.MethodChanged:      "Method changed during the run",
	kind.PayloadTooLarge:    "Payload too large",
	kind.NotApproved:        "Refactoring not approved",
	kind.TestsRegressed:     "Tests regressed",
	kind.PharoUnavailable:   "Pharo unavailable",
	kind.PharoError:         "Pharo error",
	kind.ModelUnavailable:   "Model unavailable",
	kind.ModelBadOutput:     "Model gave unusable output",
	kind.Busy:               "Busy",
	kind.ModelNotConfigured: "Model not configured",
	kind.ShuttingDown:       "Shutting down",
	kind.Timeout:            "Run deadline passed",
	kind.ReleaseFailed:      "Release failed",
	kind.Internal:           "Internal error",
	kind.Canceled:           "Client closed request",

	kind.UnsupportedMediaType: "Unsupported media type",
	kind.OriginNotAllowed:     "Origin not allowed",
	kind.HostNotAllowed:       "Host not allowed",
	kind.RequestTimeout:       "Request body not received in time",
}

// newProblem builds the problem for err; internal errors never show their text.
func newProblem(c echo.Context, err error) *Problem {
	k := kind.Of(err)
	detail := err.Error()
	if k == kind.Internal {
		detail = "an internal error occurred; the request id identifies it in the log"
	}
	var ke *kind.Error
	if errors.As(err, &ke) && ke.Message != "" && k != kind.Internal && isUpstream(k) {
		detail = ke.Message // the cause may hold provider or image internals
	}
	return &Problem{
		Type:      "https://refactord.dev/problems/" + string(k),
		Title:     titles[k],
		Status:    statusOf(k),
		Detail:    detail,
		Code:      string(k),
		RequestID: requestID(c),
	}
}

// isUpstream marks kinds whose wrapped cause comes from outside (image,
// provider); clients see our message, the log sees the cause.
func isUpstream(k kind.Kind) bool {
	switch k {
	case kind.PharoUnavailable, kind.ModelUnavailable, kind.ModelBadOutput, kind.ReleaseFailed, kind.Timeout:
		return true
	}
	return false
}

func writeProblem(c echo.Context, p *Problem) error {
	if p.RetryAfter > 0 {
		c.Response().Header().Set("Retry-After", strconv.Itoa(p.RetryAfter))
	}
	body, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("encoding a problem: %w", err)
	}
	return c.Blob(p.Status, "application/problem+json", body)
}
