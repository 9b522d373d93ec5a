package store

import "strings"

// The schema's steps as the store defined them in Go before they became
// SQL files, two of them derived from earlier ones by replacements. They
// are kept here only to prove that the files make the same schema
// (migrate_files_test.go): a database migrated by an older build and one
// migrated from the files must be alike at every version.

// legacyMigrations is SQLite's history as the Go strings made it.
func legacyMigrations() []migration {
	return []migration{
		{version: 1, name: "runs", sql: legacySchemaV1},
		{version: 2, name: "restore_failed status", sql: legacySchemaV2},
		{version: 3, name: "unchanged status", sql: legacySchemaV3()},
		{version: 4, name: "canceled status, stage", sql: legacySchemaCanceledStage},
		{version: 5, name: "helpers", sql: legacySchemaHelpers},
		{version: 6, name: "verified status, verify", sql: legacySchemaVerified()},
		{version: 7, name: "worker, image, started_at", sql: legacySchemaWorker},
	}
}

// legacyPostgresMigrations is PostgreSQL's history as the Go strings made it.
func legacyPostgresMigrations() []migration {
	return []migration{
		{version: 1, name: "runs", sql: legacyPostgresRuns},
		{version: 2, name: "pool", sql: legacyPostgresPool},
	}
}

const legacySchemaV1 = `
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

const legacySchemaV2 = `
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

const legacySchemaCanceledStage = `
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

const legacySchemaHelpers = `ALTER TABLE runs ADD COLUMN helpers TEXT;`

const legacySchemaWorker = `
ALTER TABLE runs ADD COLUMN worker TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN image TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN started_at TEXT;
UPDATE runs SET started_at = created_at;
CREATE INDEX runs_worker_newest ON runs (worker, created_at, id);
`

func legacySchemaV3() string {
	return strings.NewReplacer(
		"'restore_failed')),", "'restore_failed', 'unchanged')),",
		"runs_v2", "runs_v3",
	).Replace(legacySchemaV2)
}

func legacySchemaVerified() string {
	return strings.NewReplacer(
		"'restore_failed', 'unchanged', 'canceled')),", "'restore_failed', 'unchanged', 'canceled', 'verified')),",
		"\tdry_run           INTEGER NOT NULL DEFAULT 0 CHECK (dry_run IN (0, 1)),\n",
		"\tdry_run           INTEGER NOT NULL DEFAULT 0 CHECK (dry_run IN (0, 1)),\n"+
			"\tverify            INTEGER NOT NULL DEFAULT 0 CHECK (verify IN (0, 1)),\n",
		"\tCHECK ((kind = 'revert') = (revert_of IS NOT NULL))\n",
		"\tCHECK ((kind = 'revert') = (revert_of IS NOT NULL)),\n\tCHECK (NOT (dry_run = 1 AND verify = 1))\n",
		"\trun_tests, status, error_code,", "\trun_tests, status, stage, error_code,", // the copy keeps the stage
		// and the helpers (step 5, "helpers", added the column)
		"\treverted_at       TEXT,\n", "\treverted_at       TEXT,\n\thelpers           TEXT,\n",
		"released_at, reverted_at)", "released_at, reverted_at, helpers)",
		"released_at, reverted_at\nFROM runs", "released_at, reverted_at, helpers\nFROM runs",
		"runs_canceled", "runs_verified",
	).Replace(legacySchemaCanceledStage)
}

const legacyPostgresRuns = `
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

const legacyPostgresPool = `
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
