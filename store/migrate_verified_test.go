package store

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
)

// A database from before the step "verified status, verify" keeps every
// row, each with verify false; the status verified and the column work
// after it, and the rules stay.
func TestMigrationKeepsRowsAndAddsVerified(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "refactord.db")
	w := writerAt(t, ctx, path, stepsBefore(t, "verified status, verify"))
	_, err := w.ExecContext(ctx, `INSERT INTO runs (id, kind, class_name, selector, status, stage, original_source, created_at, updated_at, helpers)
		VALUES ('old', 'refactor', 'C', 's', 'canceled', 'review', 's ^1', '2025-01-02T03:04:05.000Z', '2025-01-02T03:04:05.000Z',
		'[{"selector": "h", "protocol": "private", "is_class_method": false, "source": "h ^ 1"}]')`)
	require.NoError(t, err)
	_, err = w.ExecContext(ctx, "UPDATE runs SET status = 'verified' WHERE id = 'old'")
	require.ErrorContains(t, err, "CHECK constraint failed", "the version before does not know verified")
	require.NoError(t, w.Close())

	s, err := Open(ctx, path)
	require.NoError(t, err)
	defer func() { assert.NoError(t, s.Close()) }()
	old, err := s.Get(ctx, "old")
	require.NoError(t, err)
	assert.Equal(t, refactor.StatusCanceled, old.Status)
	assert.Equal(t, refactor.StageReview, old.Stage)
	assert.False(t, old.Verify, "rows from before this step were no verify runs")
	require.Len(t, old.Helpers, 1, "the helpers are kept")
	assert.Equal(t, "h ^ 1", old.Helpers[0].Source)

	require.NoError(t, s.Create(ctx, refactor.Run{ID: "new", Kind: refactor.RunKindRefactor, ClassName: "C", Selector: "s", Verify: true, Status: refactor.StatusRunning}))
	require.NoError(t, s.BeginRelease(ctx, "new", "s ^1", "p", "s ^2", nil))
	require.NoError(t, s.Update(ctx, refactor.Run{ID: "new", ClassName: "C", Selector: "s", Verify: true, Status: refactor.StatusVerified}))
	got, err := s.Get(ctx, "new")
	require.NoError(t, err)
	assert.Equal(t, refactor.StatusVerified, got.Status)
	assert.True(t, got.Verify)
	page, err := s.List(ctx, refactor.ListQuery{Status: refactor.StatusVerified})
	require.NoError(t, err)
	require.Len(t, page.Runs, 1, "the history finds verified runs")
	assert.Equal(t, "new", page.Runs[0].ID)

	err = s.Create(ctx, refactor.Run{ID: "both", Kind: refactor.RunKindRefactor, ClassName: "C", Selector: "s", DryRun: true, Verify: true, Status: refactor.StatusRunning})
	assert.ErrorIs(t, err, ErrInvalid, "a dry run is never a verify run")
	for _, bad := range []struct{ sql, want string }{
		{"DELETE FROM runs WHERE id = 'old'", "never deleted"},
		{"UPDATE runs SET created_at = '2000-01-01T00:00:00.000Z' WHERE id = 'old'", "never change"},
		{"UPDATE runs SET status = 'done' WHERE id = 'old'", "CHECK constraint failed"},
		{"UPDATE runs SET dry_run = 1, verify = 1 WHERE id = 'old'", "CHECK constraint failed"},
	} {
		_, err := s.w.ExecContext(ctx, bad.sql)
		assert.ErrorContains(t, err, bad.want, bad.sql)
	}
}

// Every column of the table before this step is in its rebuilt table and
// in its copy: a step that added a column before it is not lost.
func TestSchemaVerifiedKeepsEveryColumn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := writerAt(t, ctx, filepath.Join(t.TempDir(), "refactord.db"), stepsBefore(t, "verified status, verify"))
	rows, err := w.QueryContext(ctx, "SELECT name FROM pragma_table_info('runs')")
	require.NoError(t, err)
	defer rows.Close()
	v := step(t, "verified status, verify").sql
	create := v[strings.Index(v, "CREATE TABLE"):strings.Index(v, ") STRICT;")]
	insert := v[strings.Index(v, "INSERT INTO"):strings.Index(v, "SELECT")]
	for rows.Next() {
		var name string
		require.NoError(t, rows.Scan(&name))
		assert.Regexp(t, `(?m)^\t`+name+` `, create, "the rebuilt table has %s", name)
		assert.Regexp(t, `\b`+name+`\b`, insert, "the copy keeps %s", name)
	}
	require.NoError(t, rows.Err())
}
