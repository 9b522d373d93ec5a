package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// SchemaVersion is the schema version this build creates and understands.
func SchemaVersion() int { return len(migrations()) }

// createMigrationsTable is outside the versioned steps: it records them.
const createMigrationsTable = `
CREATE TABLE IF NOT EXISTS schema_migrations (
	version    INTEGER NOT NULL PRIMARY KEY,
	name       TEXT    NOT NULL,
	applied_at TEXT    NOT NULL
) STRICT`

// migrate brings db to SchemaVersion. Each step runs in its own IMMEDIATE
// transaction that re-reads the version first, so two processes opening the
// same file at once apply every step exactly once.
func migrate(ctx context.Context, db *sql.DB) error {
	if _, err := db.ExecContext(ctx, createMigrationsTable); err != nil {
		return fmt.Errorf("store: create schema_migrations: %w", err)
	}
	current, err := schemaVersion(ctx, db)
	if err != nil {
		return err
	}
	if current > SchemaVersion() {
		return fmt.Errorf("%w: the database is at schema version %d, this build knows up to %d; "+
			"upgrade refactord or use another DATA_DIR", ErrSchemaTooNew, current, SchemaVersion())
	}
	for _, m := range migrations()[current:] {
		if err := apply(ctx, db, m); err != nil {
			return err
		}
	}
	return nil
}

type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func schemaVersion(ctx context.Context, q queryer) (int, error) {
	var v int
	err := q.QueryRowContext(ctx, "SELECT COALESCE(MAX(version), 0) FROM schema_migrations").Scan(&v)
	if err != nil {
		return 0, fmt.Errorf("store: read schema version: %w", err)
	}
	return v, nil
}

func apply(ctx context.Context, db *sql.DB, m migration) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: migration %d (%s): begin: %w", m.version, m.name, err)
	}
	if err := applyIn(ctx, tx, m); err != nil {
		return errors.Join(fmt.Errorf("store: migration %d (%s): %w", m.version, m.name, err), rollback(tx))
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: migration %d (%s): commit: %w", m.version, m.name, err)
	}
	return nil
}

// applyIn runs one step inside tx; the caller rolls back on error, leaving
// the previous version intact.
func applyIn(ctx context.Context, tx *sql.Tx, m migration) error {
	current, err := schemaVersion(ctx, tx)
	if err != nil || current >= m.version {
		return err // another process applied it meanwhile
	}
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx,
		"INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
		m.version, m.name, formatTime(time.Now()))
	return err
}
