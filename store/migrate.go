package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// migration is one step of the schema. Steps are only ever appended: a
// released step is never edited, because databases in the field already ran it.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations returns the schema history, oldest first, versions 1..n.
func migrations() []migration {
	return []migration{
		{version: 1, name: "runs", sql: schemaV1},
		{version: 2, name: "restore_failed status", sql: schemaV2},
		{version: 3, name: "unchanged status", sql: schemaV3()},
		{version: 4, name: "canceled status, stage", sql: schemaCanceledStage},
		{version: 5, name: "helpers", sql: schemaHelpers},
		{version: 6, name: "verified status, verify", sql: schemaVerified()},
		{version: 7, name: "worker, image, started_at", sql: schemaWorker},
		{version: 8, name: "trace_id", sql: schemaTraceID},
	}
}

// SchemaVersion is the schema version this build creates and understands.
func SchemaVersion() int { return len(migrations()) }

// schemaV1 is the runs table. Times are TEXT in UTC, RFC 3339 with exactly
// three fractional digits (timeLayout), so that text order is time order and
// the keyset pagination of List can compare them as strings. JSON documents
// are TEXT, NULL when absent. The triggers make the audit trail append-only
// even for someone holding the database file: no row is deleted and no run
// changes its identity.
const schemaV1 = `
CREATE TABLE runs (
	id                TEXT    NOT NULL PRIMARY KEY CHECK (id <> ''),
	kind              TEXT    NOT NULL CHECK (kind IN ('refactor', 'revert')),
	revert_of         TEXT    REFERENCES runs (id),
	request_id        TEXT    NOT NULL DEFAULT '',
	class_name        TEXT    NOT NULL,
	selector          TEXT    NOT NULL,
	is_class_method   INTEGER NOT NULL DEFAULT 0 CHECK (is_class_method IN (0, 1)),
	dry_run           INTEGER NOT NULL DEFAULT 0 CHECK (dry_run IN (0, 1)),
	run_tests         INTEGER NOT NULL DEFAULT 0 CHECK (run_tests IN (0, 1)),
	status            TEXT    NOT NULL CHECK (status IN ('running', 'releasing', 'released',
	                          'proposed', 'failed', 'rolled_back', 'not_released', 'conflict', 'reverted')),
	error_code        TEXT    NOT NULL DEFAULT '',
	error_message     TEXT    NOT NULL DEFAULT '',
	notes             TEXT    NOT NULL DEFAULT '',
	original_source   TEXT    NOT NULL DEFAULT '',
	original_protocol TEXT    NOT NULL DEFAULT '',
	final_source      TEXT    NOT NULL DEFAULT '',
	review            TEXT,
	verdict           TEXT,
	iterations        INTEGER NOT NULL DEFAULT 0 CHECK (iterations >= 0),
	model_calls       INTEGER NOT NULL DEFAULT 0 CHECK (model_calls >= 0),
	input_tokens      INTEGER NOT NULL DEFAULT 0 CHECK (input_tokens >= 0),
	output_tokens     INTEGER NOT NULL DEFAULT 0 CHECK (output_tokens >= 0),
	models            TEXT,
	stages            TEXT,
	tests_before      TEXT,
	tests_after       TEXT,
	restore_failed    INTEGER NOT NULL DEFAULT 0 CHECK (restore_failed IN (0, 1)),
	created_at        TEXT    NOT NULL,
	updated_at        TEXT    NOT NULL,
	finished_at       TEXT,
	released_at       TEXT,
	reverted_at       TEXT,
	CHECK ((kind = 'revert') = (revert_of IS NOT NULL))
) STRICT;

CREATE INDEX runs_newest        ON runs (created_at, id);
CREATE INDEX runs_class_newest  ON runs (class_name, created_at, id);
CREATE INDEX runs_status_newest ON runs (status, created_at, id);
CREATE INDEX runs_revert_of     ON runs (revert_of) WHERE revert_of IS NOT NULL;

CREATE TRIGGER runs_never_deleted BEFORE DELETE ON runs
BEGIN
	SELECT RAISE(ABORT, 'runs are never deleted');
END;

CREATE TRIGGER runs_identity_fixed BEFORE UPDATE OF id, kind, revert_of, created_at ON runs
WHEN NEW.id IS NOT OLD.id OR NEW.kind IS NOT OLD.kind
  OR NEW.revert_of IS NOT OLD.revert_of OR NEW.created_at IS NOT OLD.created_at
BEGIN
	SELECT RAISE(ABORT, 'a run''s id, kind, revert_of and created_at never change');
END;
`

// schemaV2 adds the status restore_failed: a release whose rollback could
// not put the original back within its budget; the image may hold the
// candidate, and start-up reconciliation settles the row by reading it.
// SQLite cannot alter a CHECK constraint, so the table is rebuilt (the
// documented twelve-step way): a copy with the wider CHECK, the rows copied
// in insertion order, the old table dropped (which drops its indexes and
// triggers, and fires none), the copy renamed (which rewrites its
// self-reference), and the indexes and triggers made again, all in the
// migration's transaction.
const schemaV2 = `
PRAGMA defer_foreign_keys = ON;

CREATE TABLE runs_v2 (
	id                TEXT    NOT NULL PRIMARY KEY CHECK (id <> ''),
	kind              TEXT    NOT NULL CHECK (kind IN ('refactor', 'revert')),
	revert_of         TEXT    REFERENCES runs_v2 (id),
	request_id        TEXT    NOT NULL DEFAULT '',
	class_name        TEXT    NOT NULL,
	selector          TEXT    NOT NULL,
	is_class_method   INTEGER NOT NULL DEFAULT 0 CHECK (is_class_method IN (0, 1)),
	dry_run           INTEGER NOT NULL DEFAULT 0 CHECK (dry_run IN (0, 1)),
	run_tests         INTEGER NOT NULL DEFAULT 0 CHECK (run_tests IN (0, 1)),
	status            TEXT    NOT NULL CHECK (status IN ('running', 'releasing', 'released',
	                          'proposed', 'failed', 'rolled_back', 'not_released', 'conflict', 'reverted',
	                          'restore_failed')),
	error_code        TEXT    NOT NULL DEFAULT '',
	error_message     TEXT    NOT NULL DEFAULT '',
	notes             TEXT    NOT NULL DEFAULT '',
	original_source   TEXT    NOT NULL DEFAULT '',
	original_protocol TEXT    NOT NULL DEFAULT '',
	final_source      TEXT    NOT NULL DEFAULT '',
	review            TEXT,
	verdict           TEXT,
	iterations        INTEGER NOT NULL DEFAULT 0 CHECK (iterations >= 0),
	model_calls       INTEGER NOT NULL DEFAULT 0 CHECK (model_calls >= 0),
	input_tokens      INTEGER NOT NULL DEFAULT 0 CHECK (input_tokens >= 0),
	output_tokens     INTEGER NOT NULL DEFAULT 0 CHECK (output_tokens >= 0),
	models            TEXT,
	stages            TEXT,
	tests_before      TEXT,
	tests_after       TEXT,
	restore_failed    INTEGER NOT NULL DEFAULT 0 CHECK (restore_failed IN (0, 1)),
	created_at        TEXT    NOT NULL,
	updated_at        TEXT    NOT NULL,
	finished_at       TEXT,
	released_at       TEXT,
	reverted_at       TEXT,
	CHECK ((kind = 'revert') = (revert_of IS NOT NULL))
) STRICT;

INSERT INTO runs_v2 SELECT * FROM runs ORDER BY rowid;

DROP TABLE runs;

ALTER TABLE runs_v2 RENAME TO runs;

CREATE INDEX runs_newest        ON runs (created_at, id);
CREATE INDEX runs_class_newest  ON runs (class_name, created_at, id);
CREATE INDEX runs_status_newest ON runs (status, created_at, id);
CREATE INDEX runs_revert_of     ON runs (revert_of) WHERE revert_of IS NOT NULL;

CREATE TRIGGER runs_never_deleted BEFORE DELETE ON runs
BEGIN
	SELECT RAISE(ABORT, 'runs are never deleted');
END;

CREATE TRIGGER runs_identity_fixed BEFORE UPDATE OF id, kind, revert_of, created_at ON runs
WHEN NEW.id IS NOT OLD.id OR NEW.kind IS NOT OLD.kind
  OR NEW.revert_of IS NOT OLD.revert_of OR NEW.created_at IS NOT OLD.created_at
BEGIN
	SELECT RAISE(ABORT, 'a run''s id, kind, revert_of and created_at never change');
END;
`

// schemaCanceledStage adds the status canceled (a run stopped on request
// before its release) and the column stage: the stage a run in progress has
// reached, for clients that follow a run by its id after their request
// ended. Rebuilt the same way as schemaV2 (SQLite cannot alter a CHECK);
// the new column is empty in the rows copied. Its CHECK also allows
// 'unchanged', the status a step made beside this one adds (a review that
// finds nothing to rewrite), so that this step can come after that one
// whatever their order of merging: it must stay the last of the two.
const schemaCanceledStage = `
PRAGMA defer_foreign_keys = ON;

CREATE TABLE runs_canceled (
	id                TEXT    NOT NULL PRIMARY KEY CHECK (id <> ''),
	kind              TEXT    NOT NULL CHECK (kind IN ('refactor', 'revert')),
	revert_of         TEXT    REFERENCES runs_canceled (id),
	request_id        TEXT    NOT NULL DEFAULT '',
	class_name        TEXT    NOT NULL,
	selector          TEXT    NOT NULL,
	is_class_method   INTEGER NOT NULL DEFAULT 0 CHECK (is_class_method IN (0, 1)),
	dry_run           INTEGER NOT NULL DEFAULT 0 CHECK (dry_run IN (0, 1)),
	run_tests         INTEGER NOT NULL DEFAULT 0 CHECK (run_tests IN (0, 1)),
	status            TEXT    NOT NULL CHECK (status IN ('running', 'releasing', 'released',
	                          'proposed', 'failed', 'rolled_back', 'not_released', 'conflict', 'reverted',
	                          'restore_failed', 'unchanged', 'canceled')),
	stage             TEXT    NOT NULL DEFAULT '',
	error_code        TEXT    NOT NULL DEFAULT '',
	error_message     TEXT    NOT NULL DEFAULT '',
	notes             TEXT    NOT NULL DEFAULT '',
	original_source   TEXT    NOT NULL DEFAULT '',
	original_protocol TEXT    NOT NULL DEFAULT '',
	final_source      TEXT    NOT NULL DEFAULT '',
	review            TEXT,
	verdict           TEXT,
	iterations        INTEGER NOT NULL DEFAULT 0 CHECK (iterations >= 0),
	model_calls       INTEGER NOT NULL DEFAULT 0 CHECK (model_calls >= 0),
	input_tokens      INTEGER NOT NULL DEFAULT 0 CHECK (input_tokens >= 0),
	output_tokens     INTEGER NOT NULL DEFAULT 0 CHECK (output_tokens >= 0),
	models            TEXT,
	stages            TEXT,
	tests_before      TEXT,
	tests_after       TEXT,
	restore_failed    INTEGER NOT NULL DEFAULT 0 CHECK (restore_failed IN (0, 1)),
	created_at        TEXT    NOT NULL,
	updated_at        TEXT    NOT NULL,
	finished_at       TEXT,
	released_at       TEXT,
	reverted_at       TEXT,
	CHECK ((kind = 'revert') = (revert_of IS NOT NULL))
) STRICT;

INSERT INTO runs_canceled (id, kind, revert_of, request_id, class_name, selector, is_class_method, dry_run,
	run_tests, status, error_code, error_message, notes, original_source, original_protocol, final_source,
	review, verdict, iterations, model_calls, input_tokens, output_tokens, models, stages, tests_before,
	tests_after, restore_failed, created_at, updated_at, finished_at, released_at, reverted_at)
SELECT id, kind, revert_of, request_id, class_name, selector, is_class_method, dry_run,
	run_tests, status, error_code, error_message, notes, original_source, original_protocol, final_source,
	review, verdict, iterations, model_calls, input_tokens, output_tokens, models, stages, tests_before,
	tests_after, restore_failed, created_at, updated_at, finished_at, released_at, reverted_at
FROM runs ORDER BY rowid;

DROP TABLE runs;

ALTER TABLE runs_canceled RENAME TO runs;

CREATE INDEX runs_newest        ON runs (created_at, id);
CREATE INDEX runs_class_newest  ON runs (class_name, created_at, id);
CREATE INDEX runs_status_newest ON runs (status, created_at, id);
CREATE INDEX runs_revert_of     ON runs (revert_of) WHERE revert_of IS NOT NULL;

CREATE TRIGGER runs_never_deleted BEFORE DELETE ON runs
BEGIN
	SELECT RAISE(ABORT, 'runs are never deleted');
END;

CREATE TRIGGER runs_identity_fixed BEFORE UPDATE OF id, kind, revert_of, created_at ON runs
WHEN NEW.id IS NOT OLD.id OR NEW.kind IS NOT OLD.kind
  OR NEW.revert_of IS NOT OLD.revert_of OR NEW.created_at IS NOT OLD.created_at
BEGIN
	SELECT RAISE(ABORT, 'a run''s id, kind, revert_of and created_at never change');
END;
`

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
