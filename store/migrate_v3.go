package store

import "strings"

// schemaV3 adds the status unchanged: the review found nothing worth a
// rewrite, and the run ended before any candidate. The table is rebuilt
// the way schemaV2 rebuilt it — the same columns, rules, indexes and
// triggers, a wider CHECK — so the step is made from schemaV2's text
// (never edited, being released) with the status list widened and the
// copy named runs_v3; TestSchemaV3IsV2WithTheWiderCheck pins the result.
func schemaV3() string {
	return strings.NewReplacer(
		"'restore_failed')),", "'restore_failed', 'unchanged')),",
		"runs_v2", "runs_v3",
	).Replace(schemaV2)
}
