package pipeline_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/agents/scripted"
)

func spanAttrs(s sdktrace.ReadOnlySpan) map[attribute.Key]attribute.Value {
	out := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes() {
		out[kv.Key] = kv.Value
	}
	return out
}

// TestRunSpansSayHowTheRunEnded: the run's span and the failing stage's
// carry the error's code; a model failure marks the model call's span; the
// run's trace id is in its result and its row.
func TestRunSpansSayHowTheRunEnded(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		script    map[refactor.Role][]scripted.Answer
		errorType string // "" for success
		failing   string // the stage span marked failed
		status    string
		modelErr  bool // a model call's span is marked failed
	}{
		{name: "released", script: script(newSum, []scripted.Answer{approvedAnswer()}), status: "released"},
		{name: "rolled back", script: script(subtractingSum, []scripted.Answer{approvedAnswer()}),
			errorType: "tests_regressed", failing: "stage release", status: "rolled_back"},
		{name: "model unavailable", script: map[refactor.Role][]scripted.Answer{refactor.RoleReviewer: {{Error: "overloaded"}}},
			errorType: "model_unavailable", failing: "stage review", status: "failed", modelErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := tracetest.NewSpanRecorder()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
			r := newRig(t, rigOpts{script: tc.script, tracing: tp, noEquivalence: testGateOnly})
			ctx, caller := tp.Tracer("caller").Start(context.Background(), "ci job")
			res, err := r.runCtx(ctx, sumWith)
			caller.End()
			require.NotNil(t, res)
			if tc.errorType == "" {
				require.NoError(t, err)
			} else {
				assert.Equal(t, tc.errorType, string(refactor.KindOf(err)))
			}
			traceID := caller.SpanContext().TraceID().String()
			assert.Equal(t, traceID, res.TraceID)
			assert.Equal(t, traceID, r.row(res.ID).TraceID)

			spans := map[string][]sdktrace.ReadOnlySpan{}
			for _, s := range rec.Ended() {
				assert.Equal(t, traceID, s.SpanContext().TraceID().String(), "span %s is in the caller's trace", s.Name())
				spans[s.Name()] = append(spans[s.Name()], s)
			}
			require.Len(t, spans["refactor run"], 1)
			run := spans["refactor run"][0]
			assert.Equal(t, caller.SpanContext().SpanID(), run.Parent().SpanID())
			assert.Equal(t, tc.status, spanAttrs(run)["refactor.status"].AsString())
			if tc.errorType == "" {
				assert.Equal(t, codes.Unset, run.Status().Code)
				return
			}
			assert.Equal(t, codes.Error, run.Status().Code)
			assert.Equal(t, tc.errorType, spanAttrs(run)["error.type"].AsString())
			require.NotEmpty(t, spans[tc.failing])
			failing := spans[tc.failing][len(spans[tc.failing])-1]
			assert.Equal(t, codes.Error, failing.Status().Code)
			assert.Equal(t, run.SpanContext().SpanID(), failing.Parent().SpanID())
			failedCalls := 0
			for _, m := range spans["chat scripted-model"] {
				if m.Status().Code == codes.Error {
					failedCalls++
					assert.Equal(t, trace.SpanKindClient, m.SpanKind())
					assert.Equal(t, tc.errorType, spanAttrs(m)["error.type"].AsString())
				}
			}
			assert.Equal(t, tc.modelErr, failedCalls > 0)
		})
	}
}
