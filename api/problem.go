package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	refactor "pharo-refactor"
	"pharo-refactor/pipeline"
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
func statusOf(k refactor.Kind) int {
	switch k {
	case refactor.InvalidRequest, refactor.NotApproved, refactor.TestsRegressed:
		return http.StatusUnprocessableEntity
	case refactor.Unauthorized:
		return http.StatusUnauthorized
	case refactor.ClassNotFound, refactor.MethodNotFound, refactor.NotFound:
		return http.StatusNotFound
	case refactor.MethodChanged:
		return http.StatusConflict
	case refactor.PayloadTooLarge:
		return http.StatusRequestEntityTooLarge
	case refactor.PharoUnavailable, refactor.PharoError, refactor.ModelUnavailable, refactor.ModelBadOutput:
		return http.StatusBadGateway
	case refactor.Busy, refactor.ModelNotConfigured, refactor.ShuttingDown:
		return http.StatusServiceUnavailable
	case refactor.Timeout:
		return http.StatusGatewayTimeout
	case refactor.Canceled:
		return 499 // nginx's "client closed request": nobody receives it
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
	refactor.Canceled:           "Client closed request",

	refactor.UnsupportedMediaType: "Unsupported media type",
	refactor.OriginNotAllowed:     "Origin not allowed",
	refactor.HostNotAllowed:       "Host not allowed",
	refactor.RequestTimeout:       "Request body not received in time",
}

// newProblem builds the problem for err; internal errors never show their text.
func newProblem(c echo.Context, err error) *Problem {
	k := refactor.KindOf(err)
	detail := err.Error()
	if k == refactor.Internal {
		detail = "an internal error occurred; the request id identifies it in the log"
	}
	var ke *refactor.Error
	if errors.As(err, &ke) && ke.Message != "" && k != refactor.Internal && isUpstream(k) {
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
func isUpstream(k refactor.Kind) bool {
	switch k {
	case refactor.PharoUnavailable, refactor.ModelUnavailable, refactor.ModelBadOutput, refactor.ReleaseFailed, refactor.Timeout:
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
