package store

import "strings"

// schemaVerified adds the status verified (a verify run: compiled, tested,
// and the original put back) and the column verify, which tells start-up
// reconciliation that a run interrupted in releasing must leave the
// original in the image, never its final source. SQLite cannot alter a
// CHECK, so the table is rebuilt the way schemaCanceledStage rebuilt it,
// from that step's text (never edited, being released): the status list
// widened, the column added beside dry_run with a rule that a run is never
// both, the stage and the helpers copied too (the steps "canceled status,
// stage" and "helpers" added them), the copy named runs_verified. The copy
// lists its columns, so the rows copied get verify = 0. TestSchemaVerifiedIsCanceledStageWidened pins
// the result.
//
// This step rebuilds the table with the columns it knows: a step that adds
// a column before it must add that column to the rebuilt table and to the
// copy here as well (TestSchemaVerifiedKeepsEveryColumn checks).
func schemaVerified() string {
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
	).Replace(schemaCanceledStage)
}
