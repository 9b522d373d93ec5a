package agents

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	refactor "github.com/pharo-refactor/refactord"
)

// ClassifyError gives a provider's failure its kind. status is the HTTP
// status the provider answered (0 when there was no answer) and detail the
// provider's own message, kept short in the client-safe text.
//
// The run's deadline is refactor.Timeout; a canceled context stays unclassified
// (errors.Is(err, context.Canceled) holds) for the caller to judge; an
// oversized response is refactor.ModelBadOutput; everything else — transport
// errors, auth, bad requests, rate limits and 5xx after the retries — is
// refactor.ModelUnavailable.
func ClassifyError(ctx context.Context, provider string, status int, detail string, err error) error {
	if err == nil {
		return nil
	}
	var classified *refactor.Error
	if errors.As(err, &classified) {
		return err
	}
	if ctx.Err() != nil {
		return contextError(ctx, provider, err)
	}
	if errors.Is(err, errResponseTooLarge) {
		return refactor.Wrap(refactor.ModelBadOutput, err, "%s: the answer exceeds the size limit", provider)
	}
	if status == 0 {
		return refactor.Wrap(refactor.ModelUnavailable, err, "%s: no usable response from the provider", provider)
	}
	return refactor.Wrap(refactor.ModelUnavailable, err, "%s: %s", provider, describeStatus(status, detail))
}

// contextError classifies an error that happened because ctx ended.
func contextError(ctx context.Context, who string, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return refactor.Wrap(refactor.Timeout, err, "%s: the run's deadline passed during a model call", who)
	}
	return fmt.Errorf("%s: model call canceled: %w (%w)", who, ctx.Err(), err)
}

func describeStatus(status int, detail string) string {
	detail = truncate(detail, 300)
	var what string
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		what = "the provider refused the credentials"
	case status == http.StatusNotFound:
		what = "the provider does not know the model or endpoint"
	case status == http.StatusTooManyRequests:
		what = "the provider is still rate limiting after the retries"
	case status >= 500:
		what = "the provider is still failing after the retries"
	case status >= 400:
		what = "the provider rejected the request"
	default:
		what = "unexpected answer"
	}
	if detail == "" {
		return fmt.Sprintf("%s (HTTP %d)", what, status)
	}
	return fmt.Sprintf("%s (HTTP %d): %s", what, status, detail)
}
