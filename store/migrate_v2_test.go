package store

import (
	"context"
	"database/sql"
	refactor "github.com/pharo-refactor/refactord"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A database written by a build that knew only schema version 1 keeps every
// row, its revert link, its triggers and its indexes when version 2 widens
// the status vocabulary.
func TestMigrationV2KeepsRowsAndRules(t *testing.T) {
	t.Parallel()
	migrateKeepsRowsAndRules(t, 1, refactor.StatusReleased, refactor.StatusRestoreFailed)
}

// migrateKeepsRowsAndRules writes a database at schema version from,
// holding a released run settled to settled and a revert of it, checks
// that it refuses the status added, then opens it with this build and
// checks that the rows, the revert link, the triggers, the indexes and the
// self-reference survived, and that added is known now.
func migrateKeepsRowsAndRules(t *testing.T, from int, settled, added refactor.Status) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "refactord.db")
	w := writerAt(t, ctx, path, migrations()[:from])
	// Rows as a build at version from wrote them: its own statements, since
	// this build's store writes the latest schema's columns.
	for _, stmt := range []string{
		`INSERT INTO runs (id, kind, class_name, selector, status, notes, original_source, original_protocol, final_source, created_at, updated_at)
		 VALUES ('rel', 'refactor', 'C', 's', '` + string(settled) + `', 'reconciled: kept', 's ^1', 'p', 's ^2',
		 '2025-01-02T03:04:05.000Z', '2025-01-02T03:04:05.000Z')`,
		`INSERT INTO runs (id, kind, revert_of, class_name, selector, status, created_at, updated_at)
		 VALUES ('rev', 'revert', 'rel', 'C', 's', 'running', '2025-01-02T03:04:06.000Z', '2025-01-02T03:04:06.000Z')`,
	} {
		_, err := w.ExecContext(ctx, stmt)
		require.NoError(t, err)
	}
	_, err := w.ExecContext(ctx, "UPDATE runs SET status = ? WHERE id = 'rel'", string(added))
	require.ErrorContains(t, err, "CHECK constraint failed", "version %d does not know %s", from, added)
	require.NoError(t, w.Close())

	s, err := Open(ctx, path)
	require.NoError(t, err)
	defer func() { assert.NoError(t, s.Close()) }()
	var version int
	require.NoError(t, s.r.QueryRowContext(ctx, "SELECT MAX(version) FROM schema_migrations").Scan(&version))
	assert.Equal(t, SchemaVersion(), version)

	rel, err := s.Get(ctx, "rel")
	require.NoError(t, err)
	assert.Equal(t, settled, rel.Status)
	assert.Equal(t, "s ^1", rel.OriginalSource)
	assert.Contains(t, rel.Notes, "kept")
	rev, err := s.Get(ctx, "rev")
	require.NoError(t, err)
	assert.Equal(t, "rel", rev.RevertOf)

	_, err = s.w.ExecContext(ctx, "UPDATE runs SET status = ? WHERE id = 'rev'", string(added))
	assert.NoError(t, err, "this build knows %s", added)
	for _, bad := range []struct{ sql, want string }{
		{"DELETE FROM runs WHERE id = 'rev'", "never deleted"},
		{"UPDATE runs SET created_at = '2000-01-01T00:00:00.000Z' WHERE id = 'rel'", "never change"},
		{"UPDATE runs SET status = 'done' WHERE id = 'rel'", "CHECK constraint failed"},
		{"INSERT INTO runs (id, kind, revert_of, class_name, selector, status, created_at, updated_at) VALUES ('x', 'revert', 'missing', 'C', 's', 'running', '', '')", "FOREIGN KEY"},
	} {
		_, err := s.w.ExecContext(ctx, bad.sql)
		assert.ErrorContains(t, err, bad.want, bad.sql)
	}
	var indexes int
	require.NoError(t, s.r.QueryRowContext(ctx, "SELECT COUNT(*) FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'runs' AND name LIKE 'runs_%'").Scan(&indexes))
	assert.Equal(t, 5, indexes, "the four of v1 and the worker's")
	var ref sql.NullString
	require.NoError(t, s.r.QueryRowContext(ctx, "SELECT sql FROM sqlite_schema WHERE name = 'runs'").Scan(&ref))
	assert.Contains(t, ref.String, "REFERENCES \"runs\"", "the self-reference follows the rename")
}

// Unsettled lists running, releasing and restore_failed rows; Reconcile
// settles each of them, and nothing else.
func TestUnsettledAndReconcile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "refactord.db"))
	require.NoError(t, err)
	defer func() { assert.NoError(t, s.Close()) }()
	for _, id := range []string{"run", "rel", "rf", "done"} {
		require.NoError(t, s.Create(ctx, refactor.Run{ID: id, Kind: refactor.RunKindRefactor, ClassName: "C", Selector: "s", Status: refactor.StatusRunning}))
	}
	require.NoError(t, s.BeginRelease(ctx, "rel", "s ^1", "p", "s ^2", nil))
	require.NoError(t, s.BeginRelease(ctx, "rf", "s ^1", "p", "s ^2", nil))
	require.NoError(t, s.Update(ctx, refactor.Run{ID: "rf", ClassName: "C", Selector: "s", Status: refactor.StatusRestoreFailed, RestoreFailed: true}))
	require.NoError(t, s.Update(ctx, refactor.Run{ID: "done", ClassName: "C", Selector: "s", Status: refactor.StatusFailed}))

	rows, err := s.Unsettled(ctx)
	require.NoError(t, err)
	var got []string
	for _, r := range rows {
		got = append(got, r.ID)
		assert.True(t, r.Status.Unsettled())
	}
	assert.ElementsMatch(t, []string{"run", "rel", "rf"}, got)

	require.NoError(t, s.Reconcile(ctx, "run", refactor.StatusNotReleased, "interrupted"))
	require.NoError(t, s.Reconcile(ctx, "rel", refactor.StatusReleased, "final found"))
	require.NoError(t, s.Reconcile(ctx, "rf", refactor.StatusRolledBack, "restored"))
	assert.ErrorIs(t, s.Reconcile(ctx, "done", refactor.StatusNotReleased, ""), ErrWrongStatus)
	rows, err = s.Unsettled(ctx)
	require.NoError(t, err)
	assert.Empty(t, rows)
	rf, err := s.Get(ctx, "rf")
	require.NoError(t, err)
	assert.Equal(t, refactor.StatusRolledBack, rf.Status)
	assert.Equal(t, "s ^2", rf.FinalSource, "both sources stay")
	assert.Nil(t, rf.ReleasedAt)
}
