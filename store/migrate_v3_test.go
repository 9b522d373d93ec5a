package store

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
)

// A database at version 2 keeps its rows, links and rules at version 3,
// which knows the status unchanged; a run can be recorded with it.
func TestMigrationV3KeepsRowsAndAddsUnchanged(t *testing.T) {
	t.Parallel()
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
