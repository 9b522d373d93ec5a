-- name: trace_id
--
-- The run's OpenTelemetry trace id (32 hex digits; '' for the rows before
-- this step and for runs traced by no one), so that an operator goes from a
-- row to its trace.

ALTER TABLE runs ADD COLUMN trace_id text NOT NULL DEFAULT '' CHECK (length(trace_id) <= 32);
