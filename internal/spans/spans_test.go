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
