package pipeline

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/internal/spans"
)

// startRunSpan opens the span of a whole run, the root of its trace, or
// a child of the span ctx carries (the caller's traceparent, or the
// queue's span for a run a pool's worker took). The run's model calls,
// image calls and audit transactions are its descendants through the
// run's context.
func (p *Pipeline) startRunSpan(ctx context.Context, id string, req refactor.Request) (context.Context, trace.Span) {
	return p.tracer.Start(ctx, "refactor run", trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(
		attribute.String("refactor.run.id", id),
		attribute.String("refactor.class", req.Ref.Class),
		attribute.String("refactor.selector", req.Ref.Selector),
		attribute.Bool("refactor.class_side", req.Ref.ClassSide),
		attribute.Bool("refactor.dry_run", req.DryRun),
		attribute.Bool("refactor.verify", req.Verify),
		attribute.String("refactor.worker", p.opts.Worker),
	))
}

// endRunSpan closes the run's span with what the run came to.
func (r *run) endRunSpan(err error) {
	r.span.SetAttributes(
		attribute.String("refactor.status", string(r.res.RunStatus)),
		attribute.String("refactor.outcome", string(r.res.Outcome)),
		attribute.Int("refactor.iterations", r.res.Iterations),
		attribute.Int("refactor.model_calls", r.res.Usage.ModelCalls),
		attribute.Int64("gen_ai.usage.input_tokens", r.res.Usage.InputTokens),
		attribute.Int64("gen_ai.usage.output_tokens", r.res.Usage.OutputTokens),
	)
	spans.End(r.span, err)
}

// traceIDOf is the trace id of the span ctx carries, "" when none.
func traceIDOf(ctx context.Context) string {
	if sc := trace.SpanContextFromContext(ctx); sc.HasTraceID() {
		return sc.TraceID().String()
	}
	return ""
}
