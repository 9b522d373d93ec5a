package store

import (
	"context"
	refactor "github.com/pharo-refactor/refactord"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A database at the schema version before the step "canceled status,
// stage" keeps every row when that step adds the status canceled and the
// column stage; the rules stay.
func TestMigrationKeepsRowsAndAddsCanceledAndStage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "refactord.db")
	w := writerAt(t, ctx, path, stepsBefore(t, "canceled status, stage"))
	_, err := w.ExecContext(ctx, `INSERT INTO runs (id, kind, class_name, selector, status, original_source, created_at, updated_at)
		VALUES ('old', 'refactor', 'C', 's', 'restore_failed', 's ^1', '2025-01-02T03:04:05.000Z', '2025-01-02T03:04:05.000Z')`)
	require.NoError(t, err)
	_, err = w.ExecContext(ctx, "UPDATE runs SET status = 'canceled' WHERE id = 'old'")
	require.ErrorContains(t, err, "CHECK constraint failed", "the version before does not know canceled")
	require.NoError(t, w.Close())

	s, old := reopened(t, ctx, path, "old")
	assert.Equal(t, refactor.StatusRestoreFailed, old.Status)
	assert.Equal(t, "s ^1", old.OriginalSource)
	assert.Empty(t, old.Stage, "rows from before this step have no stage")
	assert.Empty(t, old.Worker, "rows from before the pool's step name no worker")
	require.NotNil(t, old.StartedAt, "nor did they wait in a queue: taken as they were created")
	assert.Equal(t, old.CreatedAt, *old.StartedAt)

	require.NoError(t, s.Create(ctx, refactor.Run{ID: "new", Kind: refactor.RunKindRefactor, ClassName: "C", Selector: "s", Status: refactor.StatusRunning}))
	require.NoError(t, s.Update(ctx, refactor.Run{ID: "new", ClassName: "C", Selector: "s", Status: refactor.StatusCanceled, ErrorCode: "canceled"}))
	got, err := s.Get(ctx, "new")
	require.NoError(t, err)
	assert.Equal(t, refactor.StatusCanceled, got.Status)
	for _, bad := range []struct{ sql, want string }{
		{"DELETE FROM runs WHERE id = 'old'", "never deleted"},
		{"UPDATE runs SET created_at = '2000-01-01T00:00:00.000Z' WHERE id = 'old'", "never change"},
		{"UPDATE runs SET status = 'done' WHERE id = 'old'", "CHECK constraint failed"},
	} {
		_, err := s.w.ExecContext(ctx, bad.sql)
		assert.ErrorContains(t, err, bad.want, bad.sql)
	}
}

// SetStage moves a run in progress only; Update keeps the stage unless it
// names one.
func TestSetStage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "refactord.db"))
	require.NoError(t, err)
	defer func() { assert.NoError(t, s.Close()) }()
	require.NoError(t, s.Create(ctx, refactor.Run{ID: "r", Kind: refactor.RunKindRefactor, ClassName: "C", Selector: "s", Status: refactor.StatusRunning}))
	require.NoError(t, s.SetStage(ctx, "r", refactor.StageReview))
	got, err := s.Get(ctx, "r")
	require.NoError(t, err)
	assert.Equal(t, refactor.StageReview, got.Stage)

	require.NoError(t, s.BeginRelease(ctx, "r", "s ^1", "p", "s ^2", nil))
	require.NoError(t, s.SetStage(ctx, "r", refactor.StageRelease), "a releasing run moves too")
	require.NoError(t, s.Update(ctx, refactor.Run{ID: "r", ClassName: "C", Selector: "s", Status: refactor.StatusReleased}))
	got, err = s.Get(ctx, "r")
	require.NoError(t, err)
	assert.Equal(t, refactor.StageRelease, got.Stage, "Update without a stage keeps the stored one")

	assert.ErrorIs(t, s.SetStage(ctx, "r", refactor.StageReview), ErrWrongStatus, "a settled row keeps the stage it ended in")
	assert.ErrorIs(t, s.SetStage(ctx, "missing", refactor.StageReview), ErrNotFound)
	assert.ErrorIs(t, s.SetStage(ctx, "r", string(make([]byte, MaxNameBytes+1))), ErrTooLarge)
}
