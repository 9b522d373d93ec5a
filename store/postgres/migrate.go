package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"pharo-refactor/store"
)

// migration is one step of the schema; steps are only ever appended.
type migration struct {
	version int
	name    string
	sql     string
}

func migrations() []migration {
	return []migration{
		{version: 1, name: "runs", sql: schemaRuns},
		{version: 2, name: "pool", sql: schemaPool},
	}
}

// SchemaVersion is the schema version this build creates and understands.
func SchemaVersion() int { return len(migrations()) }

// schemaRuns is the audit trail, column for column the SQLite store's
// (store/migrate.go at its latest step) in PostgreSQL's types: times are
// timestamptz at millisecond precision, documents json (kept as written,
// unlike jsonb). The pool's own columns: attempt counts the workers that
// took the run, queue_job is the queue's job of the current attempt,
// lost_at when its worker was found gone during its release. The triggers
// keep the trail append-only as in SQLite.
const schemaRuns = `
CREATE TABLE runs (
	id                text        NOT NULL PRIMARY KEY CHECK (id <> ''),
	kind              text        NOT NULL CHECK (kind IN ('refactor', 'revert')),
	revert_of         text        REFERENCES runs (id),
	request_id        text        NOT NULL DEFAULT '',
	class_name        text        NOT NULL,
	selector          text        NOT NULL,
	is_class_method   boolean     NOT NULL DEFAULT false,
	dry_run           boolean     NOT NULL DEFAULT false,
	run_tests         boolean     NOT NULL DEFAULT false,
	status            text        NOT NULL CHECK (status IN ('queued', 'running', 'releasing', 'released',
	                              'proposed', 'failed', 'rolled_back', 'not_released', 'conflict', 'reverted',
	                              'restore_failed', 'unchanged', 'canceled')),
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
	attempt           integer     NOT NULL DEFAULT 0,
	queue_job         bigint,
	lost_at           timestamptz,
	CHECK ((kind = 'revert') = (revert_of IS NOT NULL))
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

// schemaPool is what the pool's instances share beside the queue (whose
// tables river's own migrations make): each worker's heartbeat, and each
// run's events and end, which reach the caller's instance wherever the run
// ran. Events and ends are transport, not the trail: they are pruned a day
// after they were written.
const schemaPool = `
CREATE TABLE pool_workers (
	id           text        NOT NULL PRIMARY KEY,
	image        text        NOT NULL,
	queue        text        NOT NULL,
	started_at   timestamptz NOT NULL,
	heartbeat_at timestamptz NOT NULL,
	stopping     boolean     NOT NULL DEFAULT false
);

CREATE TABLE run_events (
	seq        bigserial   NOT NULL PRIMARY KEY,
	run_id     text        NOT NULL,
	type       text        NOT NULL,
	data       json        NOT NULL,
	created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX run_events_run ON run_events (run_id, seq);

CREATE TABLE run_ends (
	run_id     text        NOT NULL PRIMARY KEY,
	body       json        NOT NULL,
	created_at timestamptz NOT NULL DEFAULT now()
);
`

const createMigrationsTable = `
CREATE TABLE IF NOT EXISTS schema_migrations (
	version    integer     NOT NULL PRIMARY KEY,
	name       text        NOT NULL,
	applied_at timestamptz NOT NULL DEFAULT now()
)`

// migrationLock serialises the migrations of instances starting at once
// (a transaction-scoped advisory lock: released at commit or rollback).
const migrationLock = 7_340_021_423

// Migrate brings the database to SchemaVersion, in one transaction under
// the advisory lock, then runs also (river's migrations) in it; a database
// migrated by a newer build is refused with store.ErrSchemaTooNew.
func migrate(ctx context.Context, db beginner, also func(context.Context, pgx.Tx) error) error {
	tx, err := db.Begin(ctx)
	if err != nil {
		return fmt.Errorf("postgres: migrate: begin: %w", err)
	}
	if err := migrateIn(ctx, tx, also); err != nil {
		return errors.Join(err, tx.Rollback(context.WithoutCancel(ctx)))
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("postgres: migrate: commit: %w", err)
	}
	return nil
}

type beginner interface {
	Begin(ctx context.Context) (pgx.Tx, error)
}

func migrateIn(ctx context.Context, tx pgx.Tx, also func(context.Context, pgx.Tx) error) error {
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", migrationLock); err != nil {
		return fmt.Errorf("postgres: migrate: lock: %w", err)
	}
	if _, err := tx.Exec(ctx, createMigrationsTable); err != nil {
		return fmt.Errorf("postgres: create schema_migrations: %w", err)
	}
	var current int
	if err := tx.QueryRow(ctx, "SELECT COALESCE(MAX(version), 0) FROM schema_migrations").Scan(&current); err != nil {
		return fmt.Errorf("postgres: read schema version: %w", err)
	}
	if current > SchemaVersion() {
		return fmt.Errorf("%w: the database is at schema version %d, this build knows up to %d; "+
			"upgrade refactord or use another DATABASE_URL", store.ErrSchemaTooNew, current, SchemaVersion())
	}
	for _, m := range migrations()[current:] {
		if _, err := tx.Exec(ctx, m.sql); err != nil {
			return fmt.Errorf("postgres: migration %d (%s): %w", m.version, m.name, err)
		}
		if _, err := tx.Exec(ctx, "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", m.version, m.name); err != nil {
			return fmt.Errorf("postgres: migration %d (%s): %w", m.version, m.name, err)
		}
	}
	if also != nil {
		return also(ctx, tx)
	}
	return nil
}
