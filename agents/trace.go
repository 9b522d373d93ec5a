package agents

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/pharo-refactor/refactord/internal/spans"
)

// ModelSpans describes the model a Traced model calls, for its spans.
type ModelSpans struct {
	// Provider is gen_ai.provider.name: gcp.gemini, openai, or the
	// project's own "scripted".
	Provider string
	// Operation is gen_ai.operation.name: generate_content (Gemini) or
	// chat.
	Operation string
	// Model is gen_ai.request.model, the model id asked for.
	Model string
	// Temperature and MaxTokens are the request's settings, when set.
	Temperature *float64
	MaxTokens   int
}

// Traced wraps m so that each call made within a trace (a run's) is a
// span after OpenTelemetry's GenAI conventions: operation, provider,
// model, tokens used and finish reason. Prompts and answers hold source
// code and are never put in a span.
func Traced(m Model, tp trace.TracerProvider, spans ModelSpans) Model {
	return &tracedModel{next: m, tracer: tp.Tracer("github.com/pharo-refactor/refactord/agents"), spans: spans}
}

type tracedModel struct {
	next   Model
	tracer trace.Tracer
	spans  ModelSpans
}

func (t *tracedModel) Generate(ctx context.Context, req Request) (Response, error) {
	if !spans.Recording(ctx) {
		return t.next.Generate(ctx, req)
	}
	attrs := []attribute.KeyValue{
		attribute.String("gen_ai.operation.name", t.spans.Operation),
		attribute.String("gen_ai.provider.name", t.spans.Provider),
		attribute.String("gen_ai.request.model", t.spans.Model),
		attribute.String("refactor.role", string(req.Role)),
		attribute.Int("refactor.tools_offered", len(req.Tools)),
	}
	if t.spans.Temperature != nil {
		attrs = append(attrs, attribute.Float64("gen_ai.request.temperature", *t.spans.Temperature))
	}
	if t.spans.MaxTokens > 0 {
		attrs = append(attrs, attribute.Int("gen_ai.request.max_tokens", t.spans.MaxTokens))
	}
	if req.Schema != nil {
		attrs = append(attrs, attribute.String("gen_ai.output.type", "json"))
	}
	ctx, span := t.tracer.Start(ctx, t.spans.Operation+" "+t.spans.Model,
		trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	defer span.End()
	resp, err := t.next.Generate(ctx, req)
	if err != nil {
		spans.MarkError(span, err)
		return resp, err
	}
	span.SetAttributes(
		attribute.Int64("gen_ai.usage.input_tokens", resp.Usage.InputTokens),
		attribute.Int64("gen_ai.usage.output_tokens", resp.Usage.OutputTokens),
		attribute.StringSlice("gen_ai.response.finish_reasons", []string{string(resp.FinishReason)}),
		attribute.Int("refactor.tool_calls", len(resp.ToolCalls)),
	)
	return resp, nil
}
