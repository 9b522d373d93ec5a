-- name: unchanged status
--
-- The status unchanged: the review found nothing worth a rewrite, and the
-- run ended before any candidate. The table is rebuilt as in step 2: the
-- same columns, rules, indexes and triggers, a wider CHECK, the copy named
-- runs_v3.

PRAGMA defer_foreign_keys = ON;

CREATE TABLE runs_v3 (
	id                TEXT    NOT NULL PRIMARY KEY CHECK (id <> ''),
	kind              TEXT    NOT NULL CHECK (kind IN ('refactor', 'revert')),
	revert_of         TEXT    REFERENCES runs_v3 (id),
	request_id        TEXT    NOT NULL DEFAULT '',
	class_name        TEXT    NOT NULL,
	selector          TEXT    NOT NULL,
	is_class_method   INTEGER NOT NULL DEFAULT 0 CHECK (is_class_method IN (0, 1)),
	dry_run           INTEGER NOT NULL DEFAULT 0 CHECK (dry_run IN (0, 1)),
	run_tests         INTEGER NOT NULL DEFAULT 0 CHECK (run_tests IN (0, 1)),
	status            TEXT    NOT NULL CHECK (status IN ('running', 'releasing', 'released',
	                          'proposed', 'failed', 'rolled_back', 'not_released', 'conflict', 'reverted',
	                          'restore_failed', 'unchanged')),
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

INSERT INTO runs_v3 SELECT * FROM runs ORDER BY rowid;

DROP TABLE runs;

ALTER TABLE runs_v3 RENAME TO runs;

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
