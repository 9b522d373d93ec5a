package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	refactor "github.com/pharo-refactor/refactord"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver

	"go.opentelemetry.io/otel/trace/noop"
)

// PostgreSQL holds the trail of a pool of workers (DATABASE_URL): every
// instance of the pool reads and writes the same rows, so that the history,
// a revert and the metrics work from any of them. The store is the same
// code as on SQLite (dialect.go), on the schema of migrations/postgres.

// maxPostgresConns bounds this instance's connections; a pool of a few
// workers stays far below PostgreSQL's default max_connections (100).
const maxPostgresConns = 8

// OpenPostgres connects to the database at url (a postgres:// URL or a
// key=value DSN) and migrates its schema, under an advisory lock so that
// workers starting at once migrate it exactly once. A database migrated by
// a newer build is refused with ErrSchemaTooNew; one that cannot be
// reached answers ErrUnavailable.
func OpenPostgres(ctx context.Context, url string) (*Store, error) {
	db, err := sql.Open("pgx", url)
	if err != nil {
		return nil, fmt.Errorf("store: open postgres: %w", err)
	}
	db.SetMaxOpenConns(maxPostgresConns)
	db.SetMaxIdleConns(maxPostgresConns)
	// A connection the server dropped (a restart) is not handed out again
	// for long: the pool recovers by itself when the database is back.
	db.SetConnMaxIdleTime(time.Minute)
	if err := db.PingContext(ctx); err != nil {
		return nil, errors.Join(fmt.Errorf("store: open postgres: %w", postgresDialect.classify(err)), db.Close())
	}
	if err := migratePostgres(ctx, db); err != nil {
		return nil, errors.Join(err, db.Close())
	}
	return &Store{w: db, r: db, d: postgresDialect, tracer: noop.NewTracerProvider().Tracer("")}, nil
}

// Ping reports whether the database answers now (for /ready).
func (s *Store) Ping(ctx context.Context) error {
	if err := s.r.PingContext(ctx); err != nil {
		return fmt.Errorf("store: ping: %w", s.d.classify(err))
	}
	return nil
}

// Unavailable marks err with ErrUnavailable when it says that PostgreSQL
// cannot be reached (for the pool's own statements, outside the store).
func Unavailable(err error) error { return postgresDialect.classify(err) }

// CreateStatement is Create's statement for r on PostgreSQL, checked as
// Create checks it, for a caller that writes the row in a transaction of
// its own: a pool writes a queued run's row and its job in one. A taken id
// fails there with PostgreSQL's unique violation.
func CreateStatement(r refactor.Run) (string, []any, error) {
	if err := errors.Join(checkIdentity(r), checkRun(r)); err != nil {
		return "", nil, fmt.Errorf("store: create run %q: %w", r.ID, err)
	}
	if r.CreatedAt.IsZero() {
		r.CreatedAt = time.Now()
	}
	r.UpdatedAt = r.CreatedAt
	values, err := insertValues(r)
	if err != nil {
		return "", nil, fmt.Errorf("store: create run %q: %w", r.ID, err)
	}
	return postgresDialect.bind(insertRun), values, nil
}
