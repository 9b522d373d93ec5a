package spans

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	refactor "github.com/pharo-refactor/refactord"
)

func TestEndMarksTheErrorKind(t *testing.T) {
	cases := []struct {
		name     string
		err      error
		wantCode codes.Code
		wantType string
	}{
		{"no error", nil, codes.Unset, ""},
		{"a kind", refactor.Errorf(refactor.MethodNotFound, "no such method"), codes.Error, string(refactor.MethodNotFound)},
		{"a wrapped kind", errors.Join(errors.New("context"), refactor.Errorf(refactor.PharoUnavailable, "down")), codes.Error, string(refactor.PharoUnavailable)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := tracetest.NewSpanRecorder()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
			_, span := tp.Tracer("test").Start(context.Background(), "op")
			End(span, tc.err)
			ended := rec.Ended()
			require.Len(t, ended, 1)
			assert.Equal(t, tc.wantCode, ended[0].Status().Code)
			var got string
			for _, a := range ended[0].Attributes() {
				if a.Key == attribute.Key("error.type") {
					got = a.Value.AsString()
				}
			}
			assert.Equal(t, tc.wantType, got)
		})
	}
}

func TestRecordingSaysWhetherTheContextsSpanRecords(t *testing.T) {
	recording := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(tracetest.NewSpanRecorder()))
	dropping := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.NeverSample()))
	cases := []struct {
		name string
		ctx  func() context.Context
		want bool
	}{
		{"no span", context.Background, false},
		{"a recording span", func() context.Context {
			ctx, _ := recording.Tracer("test").Start(context.Background(), "run")
			return ctx
		}, true},
		{"a span that records nothing, with its trace id", func() context.Context {
			ctx, span := dropping.Tracer("test").Start(context.Background(), "run")
			require.True(t, span.SpanContext().HasTraceID())
			return ctx
		}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Recording(tc.ctx()))
		})
	}
}
