// Package spans holds what every traced package does alike with a span:
// mark it with the error kind of a failure, so that a trace says how a
// run ended in the service's own vocabulary.
package spans

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	refactor "github.com/pharo-refactor/refactord"
)

// MarkError sets the span's error type and status to err's kind; nothing
// when err is nil.
func MarkError(span trace.Span, err error) {
	if err == nil {
		return
	}
	kind := string(refactor.KindOf(err))
	span.SetAttributes(attribute.String("error.type", kind))
	span.SetStatus(codes.Error, kind)
}

// End marks the span with err (MarkError) and ends it.
func End(span trace.Span, err error) {
	MarkError(span, err)
	span.End()
}

// Recording says whether ctx's span records what is added to it. A span
// of a run made within a span that records nothing (no exporter: the
// run's span only carries its trace id) would record nothing either, so
// callers skip it, and the attributes they would format for it.
func Recording(ctx context.Context) bool {
	return trace.SpanFromContext(ctx).IsRecording()
}
