package pool

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// startEnqueueSpan opens the span that queues run id: a producer span,
// the caller's child when its request carried a traceparent.
func (p *Pool) startEnqueueSpan(ctx context.Context, id string) (context.Context, trace.Span) {
	return p.tracer.Start(ctx, "enqueue runs", trace.WithSpanKind(trace.SpanKindProducer), trace.WithAttributes(
		attribute.String("messaging.system", "river"),
		attribute.String("messaging.operation.type", "send"),
		attribute.String("messaging.destination.name", runsQueue),
		attribute.String("refactor.run.id", id),
	))
}

// traceParent is the W3C traceparent of the span ctx carries, "" when none.
func traceParent(ctx context.Context) string {
	carrier := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, carrier)
	return carrier["traceparent"]
}

// traceID is the trace id of the span ctx carries, "" when none.
func traceID(ctx context.Context) string {
	if sc := trace.SpanContextFromContext(ctx); sc.HasTraceID() {
		return sc.TraceID().String()
	}
	return ""
}

// continueTrace makes ctx carry the span a queued run's traceparent names
// (from its job's arguments), so that the run's spans join its trace. A
// missing or malformed value leaves ctx as it is.
func continueTrace(ctx context.Context, parent string) context.Context {
	if parent == "" {
		return ctx
	}
	return propagation.TraceContext{}.Extract(ctx, propagation.MapCarrier{"traceparent": parent})
}
