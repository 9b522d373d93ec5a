-- name: worker, image, started_at
--
-- What a pool of workers (DATABASE_URL) records of every run, kept in the
-- single-image SQLite trail too so that the two stores answer alike: the
-- worker that ran it (WORKER_ID), the image it ran on, and when a worker
-- took it (started_at: the rows before this step were taken as they were
-- created, as runs of one image always are). Plain added columns: a later
-- step that rebuilds the table must list them.

ALTER TABLE runs ADD COLUMN worker TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN image TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN started_at TEXT;
UPDATE runs SET started_at = created_at;
CREATE INDEX runs_worker_newest ON runs (worker, created_at, id);
