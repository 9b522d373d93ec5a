-- name: trace_id
--
-- The run's OpenTelemetry trace id (32 hex digits; '' for the rows before
-- this step and for runs traced by no one), so that an operator goes from a
-- row to its trace. A plain added column: a later step that rebuilds the
-- table must list it.

ALTER TABLE runs ADD COLUMN trace_id TEXT NOT NULL DEFAULT '' CHECK (length(trace_id) <= 32);
