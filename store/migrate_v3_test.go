package store

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "pharo-refactor"
)

func TestSchemaV3IsV2WithTheWiderCheck(t *testing.T) {
	v3 := schemaV3()
	assert.Equal(t, 1, strings.Count(v3, "'restore_failed', 'unchanged'))"), "the status list is widened once")
	assert.NotContains(t, v3, "runs_v2")
	assert.Contains(t, v3, "CREATE TABLE runs_v3")
	assert.Contains(t, v3, "ALTER TABLE runs_v3 RENAME TO runs;")
	assert.Equal(t, strings.Count(schemaV2, "CREATE"), strings.Count(v3, "CREATE"), "every index and trigger is made again")
}

// A database at version 2 keeps its rows, links and rules at version 3,
// which knows the status unchanged.
func TestMigrationV3KeepsRowsAndAddsUnchanged(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "refactord.db")
	w, err := openWriter(ctx, path)
	require.NoError(t, err)
	_, err = w.ExecContext(ctx, createMigrationsTable)
	require.NoError(t, err)
	for _, m := range migrations()[:2] {
		require.NoError(t, apply(ctx, w, m))
	}
	v2 := &Store{w: w, r: w}
	require.NoError(t, v2.Create(ctx, refactor.Run{ID: "rel", Kind: refactor.RunKindRefactor, ClassName: "C", Selector: "s", Status: refactor.StatusRunning}))
	require.NoError(t, v2.BeginRelease(ctx, "rel", "s ^1", "p", "s ^2"))
	require.NoError(t, v2.Reconcile(ctx, "rel", refactor.StatusRolledBack, "kept"))
	require.NoError(t, v2.Create(ctx, refactor.Run{ID: "rev", Kind: refactor.RunKindRevert, RevertOf: "rel", ClassName: "C", Selector: "s", Status: refactor.StatusRunning}))
	_, err = w.ExecContext(ctx, "UPDATE runs SET status = 'unchanged' WHERE id = 'rev'")
	require.ErrorContains(t, err, "CHECK constraint failed", "version 2 does not know unchanged")
	require.NoError(t, w.Close())

	s, err := Open(ctx, path)
	require.NoError(t, err)
	defer func() { assert.NoError(t, s.Close()) }()
	var version int
	require.NoError(t, s.r.QueryRowContext(ctx, "SELECT MAX(version) FROM schema_migrations").Scan(&version))
	assert.Equal(t, 3, version)
	rel, err := s.Get(ctx, "rel")
	require.NoError(t, err)
	assert.Equal(t, refactor.StatusRolledBack, rel.Status)
	assert.Contains(t, rel.Notes, "kept")
	rev, err := s.Get(ctx, "rev")
	require.NoError(t, err)
	assert.Equal(t, "rel", rev.RevertOf)

	require.NoError(t, s.Create(ctx, refactor.Run{ID: "same", Kind: refactor.RunKindRefactor, ClassName: "C", Selector: "s", Status: refactor.StatusRunning}))
	row, err := s.Get(ctx, "same")
	require.NoError(t, err)
	row.Status = refactor.StatusUnchanged
	require.NoError(t, s.Update(ctx, row), "version 3 knows unchanged")
	for _, bad := range []struct{ sql, want string }{
		{"DELETE FROM runs WHERE id = 'rev'", "never deleted"},
		{"UPDATE runs SET created_at = '2000-01-01T00:00:00.000Z' WHERE id = 'rel'", "never change"},
		{"UPDATE runs SET status = 'done' WHERE id = 'rel'", "CHECK constraint failed"},
		{"INSERT INTO runs (id, kind, revert_of, class_name, selector, status, created_at, updated_at) VALUES ('x', 'revert', 'missing', 'C', 's', 'running', '', '')", "FOREIGN KEY"},
	} {
		_, err := s.w.ExecContext(ctx, bad.sql)
		assert.ErrorContains(t, err, bad.want, bad.sql)
	}
}
