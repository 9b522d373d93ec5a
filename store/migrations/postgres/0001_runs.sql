-- name: runs
--
-- The audit trail, column for column SQLite's (at its step 7) in
-- PostgreSQL's types: times are timestamptz (written at millisecond
-- precision), documents json (kept as written, unlike jsonb), ids compare
-- bytewise (COLLATE "C", as in SQLite) so that pages come in the same
-- order. The triggers keep the trail append-only as in SQLite.

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
