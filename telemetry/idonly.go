package telemetry

import (
	"context"
	"math/rand/v2"

	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/embedded"
	"go.opentelemetry.io/otel/trace/noop"
)

// idTracer is the tracer of a service that exports no span and keeps the
// SDK's default sampler: it gives each span the span context the SDK
// would (the parent's trace id, or a new one; a new span id; the
// parent's flags and trace state, sampled as ParentBased(AlwaysSample)
// decides), so that a run still has its trace id and a traceparent is
// continued and handed on alike, but it records nothing: the SDK would
// build, fill and drop a span per image call, stage, model call and audit
// transaction, for no reader.
type idTracer struct{ embedded.Tracer }

// idSpan is a span that only carries its span context.
type idSpan struct {
	noop.Span
	sc trace.SpanContext
}

func (s *idSpan) SpanContext() trace.SpanContext { return s.sc }

func (idTracer) Start(ctx context.Context, _ string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	var psc trace.SpanContext
	if len(opts) > 0 && newRoot(opts) {
		ctx = trace.ContextWithSpanContext(ctx, psc)
	} else {
		psc = trace.SpanContextFromContext(ctx)
	}
	scc := trace.SpanContextConfig{TraceID: psc.TraceID(), SpanID: newSpanID(), TraceState: psc.TraceState()}
	if !scc.TraceID.IsValid() {
		scc.TraceID = newTraceID()
	}
	// ParentBased(AlwaysSample): a root is sampled, a child as its parent.
	if !psc.IsValid() || psc.IsSampled() {
		scc.TraceFlags = psc.TraceFlags() | trace.FlagsSampled
	} else {
		scc.TraceFlags = psc.TraceFlags() &^ trace.FlagsSampled
	}
	span := &idSpan{sc: trace.NewSpanContext(scc)}
	return trace.ContextWithSpan(ctx, span), span
}

func newRoot(opts []trace.SpanStartOption) bool {
	cfg := trace.NewSpanStartConfig(opts...)
	return cfg.NewRoot()
}

func newTraceID() trace.TraceID {
	var id trace.TraceID
	for !id.IsValid() {
		hi, lo := rand.Uint64(), rand.Uint64()
		for i := range 8 {
			id[i], id[8+i] = byte(hi>>(56-8*i)), byte(lo>>(56-8*i))
		}
	}
	return id
}

func newSpanID() trace.SpanID {
	var id trace.SpanID
	for !id.IsValid() {
		v := rand.Uint64()
		for i := range 8 {
			id[i] = byte(v >> (56 - 8*i))
		}
	}
	return id
}
