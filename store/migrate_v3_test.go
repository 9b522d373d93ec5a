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
// which knows the status unchanged; a run can be recorded with it.
func TestMigrationV3KeepsRowsAndAddsUnchanged(t *testing.T) {
	migrateKeepsRowsAndRules(t, 2, refactor.StatusRolledBack, refactor.StatusUnchanged)

	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "refactord.db"))
	require.NoError(t, err)
	defer func() { assert.NoError(t, s.Close()) }()
	ctx := context.Background()
	require.NoError(t, s.Create(ctx, refactor.Run{ID: "same", Kind: refactor.RunKindRefactor, ClassName: "C", Selector: "s", Status: refactor.StatusRunning}))
	row, err := s.Get(ctx, "same")
	require.NoError(t, err)
	row.Status = refactor.StatusUnchanged
	require.NoError(t, s.Update(ctx, row))
	got, err := s.Get(ctx, "same")
	require.NoError(t, err)
	assert.Equal(t, refactor.StatusUnchanged, got.Status)
	assert.False(t, got.Status.Unsettled(), "nothing to reconcile")
}
