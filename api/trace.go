package api

import (
	"context"
	"net/http"

	"go.opentelemetry.io/otel/propagation"
)

// callersTrace makes ctx carry the span a request's W3C traceparent (and
// tracestate) header names, so that the run it starts joins the caller's
// trace: a CI job's trace then holds its refactorings. Only the span's
// identity is taken, never the request's cancellation: runs outlive their
// requests. A missing or malformed header leaves ctx as it is (the run
// starts a trace of its own).
func callersTrace(ctx context.Context, r *http.Request) context.Context {
	return propagation.TraceContext{}.Extract(ctx, propagation.HeaderCarrier(r.Header))
}
