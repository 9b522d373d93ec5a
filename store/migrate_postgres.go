package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// postgresMigrations is the PostgreSQL schema's history, versioned apart
// from SQLite's (its first step is SQLite's latest table at once).
func postgresMigrations() []migration {
	return []migration{
		{version: 1, name: "runs", sql: postgresRuns},
		{version: 2, name: "pool", sql: postgresPool},
		{version: 3, name: "trace_id", sql: postgresTraceID},
	}
}

// PostgresSchemaVersion is the PostgreSQL schema version this build
// creates and understands.
func PostgresSchemaVersion() int { return len(postgresMigrations()) }

// postgresRuns is the audit trail, column for column SQLite's in
// PostgreSQL's types: times are timestamptz (written at millisecond
// precision), documents json (kept as written, unlike jsonb), ids compare
// bytewise (COLLATE "C", as in SQLite) so that pages come in the same
// order. The triggers keep the trail append-only as in SQLite.
const postgresRuns = `
CREATE TABLE runs (
	id                text COLLATE "C" NOT NULL PRIMARY KEY CHECK (id <> ''),
	kind              text        NOT NULL CHECK (kind IN ('refactor', 'revert')),
	revert_of         text COLLATE "C" REFERENCES runs (id),
	request_id        text        NOT NULL DEFAULT '',
	class_name        text        NOT NULL,
	selector          text        NOT NULL,
	is_class_method   boolean     NOT NULL DEFAULT false,
	dry_run           boolean     NOT NULL DEFAULT false,
	verify            boolean     NOT NULL DEFAULT false,
	run_tests         boolean     NOT NULL DEFAULT false,
	status            text        NOT NULL CHECK (status IN ('queued', 'running', 'releasing', 'released',
	                              'proposed', 'failed', 'rolled_back', 'not_released', 'conflict', 'reverted',
	                              'restore_failed', 'unchanged', 'canceled', 'verified')),
	stage             text        NOT NULL DEFAULT '',
	worker            text        NOT NULL DEFAULT '',
	image             text        NOT NULL DEFAULT '',
	error_code        text        NOT NULL DEFAULT '',
	error_message     text        NOT NULL DEFAULT '',
	notes             text        NOT NULL DEFAULT '',
	original_source   text        NOT NULL DEFAULT '',
	original_protocol text        NOT NULL DEFAULT '',
	final_source      text        NOT NULL DEFAULT '',
	review            json,
	verdict           json,
	iterations        integer     NOT NULL DEFAULT 0 CHECK (iterations >= 0),
	model_calls       integer     NOT NULL DEFAULT 0 CHECK (model_calls >= 0),
	input_tokens      bigint      NOT NULL DEFAULT 0 CHECK (input_tokens >= 0),
	output_tokens     bigint      NOT NULL DEFAULT 0 CHECK (output_tokens >= 0),
	models            json,
	stages            json,
	tests_before      json,
	tests_after       json,
	restore_failed    boolean     NOT NULL DEFAULT false,
	created_at        timestamptz NOT NULL,
	updated_at        timestamptz NOT NULL,
	started_at        timestamptz,
	finished_at       timestamptz,
	released_at       timestamptz,
	reverted_at       timestamptz,
	helpers           json,
	CHECK ((kind = 'revert') = (revert_of IS NOT NULL)),
	CHECK (NOT (dry_run AND verify))
);

CREATE INDEX runs_newest        ON runs (created_at, id);
CREATE INDEX runs_class_newest  ON runs (class_name, created_at, id);
CREATE INDEX runs_status_newest ON runs (status, created_at, id);
CREATE INDEX runs_worker_newest ON runs (worker, created_at, id);
CREATE INDEX runs_revert_of     ON runs (revert_of) WHERE revert_of IS NOT NULL;

CREATE FUNCTION runs_never_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION 'runs are never deleted';
END $$;

CREATE TRIGGER runs_never_deleted BEFORE DELETE ON runs
	FOR EACH ROW EXECUTE FUNCTION runs_never_deleted();

CREATE FUNCTION runs_identity_fixed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF NEW.id IS DISTINCT FROM OLD.id OR NEW.kind IS DISTINCT FROM OLD.kind
	   OR NEW.revert_of IS DISTINCT FROM OLD.revert_of OR NEW.created_at IS DISTINCT FROM OLD.created_at THEN
		RAISE EXCEPTION 'a run''s id, kind, revert_of and created_at never change';
	END IF;
	RETURN NEW;
END $$;

CREATE TRIGGER runs_identity_fixed BEFORE UPDATE ON runs
	FOR EACH ROW EXECUTE FUNCTION runs_identity_fixed();
`

// postgresPool is what the workers of a pool share beside the trail and
// the queue (river's tables, made by river's own migrations): each
// worker's heartbeat, each queued run's attempts and queue job, and each
// run's events and answer, which reach the caller's instance wherever the
// run ran. Events and answers are transport, not the trail.
const postgresPool = `
CREATE TABLE pool_workers (
	id           text        NOT NULL PRIMARY KEY,
	image        text        NOT NULL,
	started_at   timestamptz NOT NULL DEFAULT now(),
	heartbeat_at timestamptz NOT NULL DEFAULT now(),
	stopping     boolean     NOT NULL DEFAULT false
);

CREATE TABLE pool_runs (
	run_id   text COLLATE "C" NOT NULL PRIMARY KEY REFERENCES runs (id),
	job_id   bigint      NOT NULL,
	attempt  integer     NOT NULL DEFAULT 1,
	queued_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE run_events (
	seq        bigserial   NOT NULL PRIMARY KEY,
	run_id     text COLLATE "C" NOT NULL,
	type       text        NOT NULL,
	data       json        NOT NULL,
	created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX run_events_run ON run_events (run_id, seq);

CREATE TABLE run_answers (
	run_id     text COLLATE "C" NOT NULL PRIMARY KEY,
	code       text        NOT NULL DEFAULT '',
	message    text        NOT NULL DEFAULT '',
	body       json,
	created_at timestamptz NOT NULL DEFAULT now()
);
`

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
