package store

// schemaTraceID adds the run's OpenTelemetry trace id (32 hex digits; ”
// for the rows before this step and for runs traced by no one), so that an
// operator goes from a row to its trace. An added column only: like
// schemaWorker it needs no particular place among the steps beside it,
// except after any step that rebuilds the table from a column list
// without it.
const schemaTraceID = `
ALTER TABLE runs ADD COLUMN trace_id TEXT NOT NULL DEFAULT '' CHECK (length(trace_id) <= 32);
`

// postgresTraceID is schemaTraceID in PostgreSQL.
const postgresTraceID = `
ALTER TABLE runs ADD COLUMN trace_id text NOT NULL DEFAULT '' CHECK (length(trace_id) <= 32);
`
