package store

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Traced makes the store trace its write transactions made within a
// trace (a run's): one span each, named after the operation, with the
// database system and the run id — never a statement's values, which
// hold sources. Call it before the store is shared.
func (s *Store) Traced(tp trace.TracerProvider) *Store {
	s.tracer = tp.Tracer("github.com/pharo-refactor/refactord/store")
	return s
}

func (s *Store) startTxSpan(ctx context.Context, op, id string) (context.Context, trace.Span) {
	system := "sqlite"
	if s.d == postgresDialect {
		system = "postgresql"
	}
	return s.tracer.Start(ctx, op+" runs", trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		attribute.String("db.system.name", system),
		attribute.String("db.operation.name", op),
		attribute.String("db.collection.name", "runs"),
		attribute.String("refactor.run.id", id),
	))
}

func endTxSpan(span trace.Span, err error) {
	if err != nil {
		span.SetAttributes(attribute.String("error.type", errorType(err)))
		span.SetStatus(codes.Error, errorType(err))
	}
	span.End()
}

// errorType names a failed transaction by its sentinel, without its text.
func errorType(err error) string {
	for _, e := range []struct {
		err  error
		name string
	}{
		{ErrNotFound, "not_found"}, {ErrDuplicate, "duplicate"}, {ErrInvalid, "invalid"},
		{ErrTooLarge, "too_large"}, {ErrNotRevertible, "not_revertible"},
		{ErrWrongStatus, "wrong_status"}, {ErrUnavailable, "unavailable"},
	} {
		if errors.Is(err, e.err) {
			return e.name
		}
	}
	return "other"
}
