package store

import (
	"context"
	refactor "github.com/pharo-refactor/refactord"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriterPragmas(t *testing.T) {
	t.Parallel()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "refactord.db"))
	require.NoError(t, err)
	defer func() { assert.NoError(t, s.Close()) }()
	tests := []struct {
		pragma string
		want   string
	}{
		{"journal_mode", "wal"},
		{"synchronous", "1"}, // NORMAL: only BeginRelease and MarkReverted sync their commits (writeahead.go)
		{"foreign_keys", "1"},
		{"busy_timeout", "10000"},
	}
	for _, tt := range tests {
		t.Run(tt.pragma, func(t *testing.T) {
			var got string
			require.NoError(t, s.w.QueryRow("PRAGMA "+tt.pragma).Scan(&got))
			assert.Equal(t, tt.want, got)
		})
	}
	var readOnly string
	require.NoError(t, s.r.QueryRow("PRAGMA query_only").Scan(&readOnly))
	assert.Equal(t, "1", readOnly, "the read pool cannot write")
}

// TestSchemaIsAppendOnly checks the triggers that back "nothing is ever
// deleted" even for SQL that bypasses the Store's API.
func TestSchemaIsAppendOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "refactord.db"))
	require.NoError(t, err)
	defer func() { assert.NoError(t, s.Close()) }()
	require.NoError(t, s.Create(ctx, refactor.Run{ID: "r", Kind: refactor.RunKindRefactor, ClassName: "C", Selector: "s", Status: refactor.StatusRunning}))
	tests := []struct {
		name, sql, want string
	}{
		{"delete", "DELETE FROM runs WHERE id = 'r'", "never deleted"},
		{"change id", "UPDATE runs SET id = 'x' WHERE id = 'r'", "never change"},
		{"change created_at", "UPDATE runs SET created_at = '2000-01-01T00:00:00.000Z'", "never change"},
		{"unknown status", "UPDATE runs SET status = 'done'", "CHECK constraint failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.w.ExecContext(ctx, tt.sql)
			assert.ErrorContains(t, err, tt.want)
		})
	}
	_, err = s.Get(ctx, "r")
	assert.NoError(t, err)
}

// TestSyncedCommitsLeaveTheWriterAtNormal checks that the commits raised to
// synchronous=FULL lower the one writer connection back to NORMAL, so that
// the next commits are not synced, and that a later commit still works on it.
func TestSyncedCommitsLeaveTheWriterAtNormal(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "refactord.db"))
	require.NoError(t, err)
	defer func() { assert.NoError(t, s.Close()) }()
	require.NoError(t, s.Create(ctx, refactor.Run{ID: "r", Kind: refactor.RunKindRefactor, ClassName: "C", Selector: "s", Status: refactor.StatusRunning}))
	require.NoError(t, s.BeginRelease(ctx, "r", "s ^1", "accessing", "s ^2", nil))
	require.NoError(t, checkSynchronous(ctx, s.w, syncNormal))
	require.NoError(t, s.Update(ctx, refactor.Run{ID: "r", Kind: refactor.RunKindRefactor, ClassName: "C", Selector: "s", Status: refactor.StatusReleased}))
	require.NoError(t, s.MarkReverted(ctx, "r", time.Time{}))
	require.NoError(t, checkSynchronous(ctx, s.w, syncNormal))

	// Inside the synced transaction the connection is at FULL.
	var during int
	require.NoError(t, s.inSyncedTx(ctx, "test", "", func(tx *txn) error {
		return tx.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&during)
	}))
	assert.Equal(t, syncFull, during)
	require.NoError(t, checkSynchronous(ctx, s.w, syncNormal))
}

// TestAnIDTakenAfterTheCheckIsADuplicate: Create's insert runs without a
// transaction around its check, so an id taken in between is refused by
// the primary key, and that refusal is ErrDuplicate like the check's.
func TestAnIDTakenAfterTheCheckIsADuplicate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "refactord.db"))
	require.NoError(t, err)
	defer func() { assert.NoError(t, s.Close()) }()
	r := refactor.Run{ID: "taken", Kind: refactor.RunKindRefactor, ClassName: "Calculator", Selector: "sum:with:", Status: refactor.StatusRunning}
	require.NoError(t, s.Create(ctx, r))
	values, err := insertValues(r)
	require.NoError(t, err)
	err = s.inStatement(ctx, "create", r.ID, func(tx *txn) error {
		_, err := tx.ExecContext(ctx, insertRun, values...) // as if the check had found the id free
		return duplicate(err)
	})
	assert.ErrorIs(t, err, ErrDuplicate)
}
