-- name: pool
--
-- What the workers of a pool share beside the trail and the queue (river's
-- tables, made by river's own migrations): each worker's heartbeat, each
-- queued run's attempts and queue job, and each run's events and answer,
-- which reach the caller's instance wherever the run ran. Events and answers
-- are transport, not the trail.

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
