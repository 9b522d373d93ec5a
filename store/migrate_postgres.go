package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// PostgresSchemaVersion is the PostgreSQL schema version this build
// creates and understands.
func PostgresSchemaVersion() int { return len(postgresMigrations()) }

const createPostgresMigrationsTable = `
CREATE TABLE IF NOT EXISTS schema_migrations (
	version    integer     NOT NULL PRIMARY KEY,
	name       text        NOT NULL,
	applied_at timestamptz NOT NULL DEFAULT now()
)`

// postgresMigrationLock serialises the migrations of workers starting at
// once (a transaction-scoped advisory lock: released at commit or rollback).
const postgresMigrationLock = 7_340_021_423

// migratePostgres brings db to PostgresSchemaVersion in one transaction
// under the advisory lock.
func migratePostgres(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: migrate: begin: %w", postgresDialect.classify(err))
	}
	if err := migratePostgresIn(ctx, tx); err != nil {
		return errors.Join(err, rollback(tx))
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: migrate: commit: %w", postgresDialect.classify(err))
	}
	return nil
}

func migratePostgresIn(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock($1)", postgresMigrationLock); err != nil {
		return fmt.Errorf("store: migrate: lock: %w", err)
	}
	if _, err := tx.ExecContext(ctx, createPostgresMigrationsTable); err != nil {
		return fmt.Errorf("store: create schema_migrations: %w", err)
	}
	var current int
	if err := tx.QueryRowContext(ctx, "SELECT COALESCE(MAX(version), 0) FROM schema_migrations").Scan(&current); err != nil {
		return fmt.Errorf("store: read schema version: %w", err)
	}
	if current > PostgresSchemaVersion() {
		return fmt.Errorf("%w: the database is at schema version %d, this build knows up to %d; "+
			"upgrade refactord or use another DATABASE_URL", ErrSchemaTooNew, current, PostgresSchemaVersion())
	}
	for _, m := range postgresMigrations()[current:] {
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			return fmt.Errorf("store: migration %d (%s): %w", m.version, m.name, err)
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", m.version, m.name); err != nil {
			return fmt.Errorf("store: migration %d (%s): %w", m.version, m.name, err)
		}
	}
	return nil
}
