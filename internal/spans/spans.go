// Package spans holds what every traced package does alike with a span:
// mark it with the error kind of a failure, so that a trace says how a
// run ended in the service's own vocabulary.
package spans

import (
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
