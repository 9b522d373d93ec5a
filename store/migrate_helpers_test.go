package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
)

// stepsBefore is the schema history up to, without, the step named name.
func stepsBefore(t *testing.T, name string) []migration {
	t.Helper()
	steps := migrations()
	for i, m := range steps {
		if m.name == name {
			return steps[:i]
		}
	}
	require.Fail(t, "no migration step named "+name)
	return nil
}

// step is the schema step named name.
func step(t *testing.T, name string) migration {
	t.Helper()
	steps := stepsBefore(t, name)
	return migrations()[len(steps)]
}

// writerAt creates a database at path with the schema steps given, as an
// older build left it, and answers a writer on it (the caller closes it).
func writerAt(t *testing.T, ctx context.Context, path string, steps []migration) *sql.DB {
	t.Helper()
	w, err := openWriter(ctx, path)
	require.NoError(t, err)
	_, err = w.ExecContext(ctx, createMigrationsTable)
	require.NoError(t, err)
	for _, m := range steps {
		require.NoError(t, apply(ctx, w, m))
	}
	return w
}

// reopened opens the database at path with this build (migrating it; closed
// when the test ends) and reads the run id.
func reopened(t *testing.T, ctx context.Context, path, id string) (*Store, refactor.Run) {
	t.Helper()
	s, err := Open(ctx, path)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, s.Close()) })
	r, err := s.Get(ctx, id)
	require.NoError(t, err)
	return s, r
}

// A database from before the step "helpers" keeps every row, each with no
// helpers; a release recorded after it keeps the whole set, and Update
// does not erase the write-ahead record of the helpers.
func TestMigrationAddsHelpersAndKeepsRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "refactord.db")
	w := writerAt(t, ctx, path, stepsBefore(t, "helpers"))
	_, err := w.ExecContext(ctx, `INSERT INTO runs (id, kind, class_name, selector, status, original_source, final_source, created_at, updated_at)
		VALUES ('old', 'refactor', 'C', 's', 'released', 's ^1', 's ^2', '2025-01-02T03:04:05.000Z', '2025-01-02T03:04:05.000Z')`)
	require.NoError(t, err)
	require.NoError(t, w.Close())

	s, old := reopened(t, ctx, path, "old")
	assert.Equal(t, "s ^2", old.FinalSource)
	assert.Empty(t, old.Helpers, "a row from before this step changed the method alone")

	set := []refactor.Helper{
		{Selector: "subtotal", Protocol: "private", Source: "subtotal\n\t^ 1"},
		{Selector: "discountOn:", Protocol: "private", Source: "discountOn: x\n\t^ x / 10"},
	}
	require.NoError(t, s.Create(ctx, refactor.Run{ID: "new", Kind: refactor.RunKindRefactor, ClassName: "C", Selector: "s", Status: refactor.StatusRunning}))
	assert.ErrorIs(t, s.BeginRelease(ctx, "new", "s ^1", "p", "s ^2", []refactor.Helper{{Selector: "x"}}), ErrInvalid,
		"reconciliation needs every helper's source")
	require.NoError(t, s.BeginRelease(ctx, "new", "s ^1", "p", "s ^2", set))
	row, err := s.Get(ctx, "new")
	require.NoError(t, err)
	assert.Equal(t, set, row.Helpers)

	require.NoError(t, s.Update(ctx, refactor.Run{ID: "new", ClassName: "C", Selector: "s", Status: refactor.StatusReleased}))
	row, err = s.Get(ctx, "new")
	require.NoError(t, err)
	assert.Equal(t, set, row.Helpers, "an Update without helpers keeps the write-ahead record")
}
