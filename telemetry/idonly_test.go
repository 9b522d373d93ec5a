package telemetry

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Without an exporter the spans carry the span contexts the SDK's default
// sampler gives, span for span, without being recorded.
func TestWithoutAnExporterSpansCarryTheSDKsContexts(t *testing.T) {
	t.Setenv("OTEL_TRACES_SAMPLER", "")
	tracing, err := Setup(context.Background(), Settings{Exporter: ExporterNone}, "1", &bytes.Buffer{})
	require.NoError(t, err)
	ours := tracing.Tracer("test")
	sdk := sdktrace.NewTracerProvider().Tracer("test")
	assert.IsType(t, idTracer{}, ours)

	traceID := trace.TraceID{1, 2, 3}
	parent := func(flags trace.TraceFlags, remote bool) context.Context {
		state, err := trace.ParseTraceState("k=v")
		require.NoError(t, err)
		return trace.ContextWithSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{
			TraceID: traceID, SpanID: trace.SpanID{9}, TraceFlags: flags, TraceState: state, Remote: remote,
		}))
	}
	cases := map[string]struct {
		ctx  context.Context
		opts []trace.SpanStartOption
	}{
		"a root":                        {context.Background(), nil},
		"a sampled remote parent":       {parent(trace.FlagsSampled, true), []trace.SpanStartOption{trace.WithAttributes()}},
		"an unsampled remote parent":    {parent(0, true), nil},
		"a sampled local parent":        {parent(trace.FlagsSampled, false), nil},
		"an unsampled local parent":     {parent(0, false), nil},
		"a new root under a parent":     {parent(trace.FlagsSampled, true), []trace.SpanStartOption{trace.WithNewRoot()}},
		"a new root under an unsampled": {parent(0, true), []trace.SpanStartOption{trace.WithNewRoot()}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx, span := ours.Start(tc.ctx, "x", tc.opts...)
			_, want := sdk.Start(tc.ctx, "x", tc.opts...)
			got := span.SpanContext()
			assert.Equal(t, got, trace.SpanContextFromContext(ctx))
			assert.True(t, got.IsValid())
			assert.NotEqual(t, want.SpanContext().SpanID(), got.SpanID())
			assert.Equal(t, want.SpanContext().TraceFlags(), got.TraceFlags())
			assert.Equal(t, want.SpanContext().TraceState(), got.TraceState())
			assert.Equal(t, want.SpanContext().IsRemote(), got.IsRemote())
			if want.SpanContext().TraceID() == traceID {
				assert.Equal(t, traceID, got.TraceID())
			} else {
				assert.NotEqual(t, traceID, got.TraceID())
			}
			assert.False(t, span.IsRecording())
			span.End()
		})
	}
}

// A sampler of the operator's keeps the SDK's own spans.
func TestASamplerKeepsTheSDKsSpans(t *testing.T) {
	t.Setenv("OTEL_TRACES_SAMPLER", "always_on")
	tracing, err := Setup(context.Background(), Settings{Exporter: ExporterNone}, "1", &bytes.Buffer{})
	require.NoError(t, err)
	_, span := tracing.Tracer("test").Start(context.Background(), "x")
	assert.True(t, span.IsRecording())
	span.End()
}
