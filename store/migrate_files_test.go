package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/internal/testenv"
)

// sqliteSchema is everything SQLite keeps of a schema: each table, index
// and trigger with the statement that made it, and the steps recorded.
func sqliteSchema(t *testing.T, ctx context.Context, db *sql.DB) []string {
	t.Helper()
	return queryStrings(t, ctx, db, `
		SELECT type || ' ' || name || ' ON ' || tbl_name || ': ' || COALESCE(sql, '') FROM sqlite_master
		UNION ALL SELECT 'step ' || version || ': ' || name FROM schema_migrations
		ORDER BY 1`)
}

func queryStrings(t *testing.T, ctx context.Context, db *sql.DB, query string) []string {
	t.Helper()
	rows, err := db.QueryContext(ctx, query)
	require.NoError(t, err)
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		require.NoError(t, rows.Scan(&s))
		out = append(out, s)
	}
	require.NoError(t, rows.Err())
	return out
}

// The SQL files make, step for step, the schema the Go strings of older
// builds made; and a database an older build left at any version migrates
// with the files to the schema the files make.
func TestMigrationFilesMakeTheSchemaOfTheGoSteps(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	all, legacy := migrations(), legacyMigrations()
	// The steps after the Go strings' last one were written as files.
	require.GreaterOrEqual(t, len(all), len(legacy), "one file per step")
	files := all[:len(legacy)]
	for i := range files {
		assert.Equal(t, legacy[i].name, files[i].name, "step %d keeps its recorded name", i+1)
		assert.Equal(t, legacy[i].version, files[i].version)
	}
	// With the comments of the files removed, every statement is the same.
	for i := range files {
		assert.Equal(t, strings.TrimSpace(legacy[i].sql), strings.TrimSpace(withoutHeader(files[i].sql)), "step %d", i+1)
	}
	dir := t.TempDir()
	atVersion := func(name string, steps []migration) []string {
		w := writerAt(t, ctx, filepath.Join(dir, name+".db"), steps)
		defer func() { assert.NoError(t, w.Close()) }()
		return sqliteSchema(t, ctx, w)
	}
	for v := 1; v <= len(files); v++ {
		assert.Equal(t, atVersion("legacy"+string(rune('0'+v)), legacy[:v]), atVersion("files"+string(rune('0'+v)), files[:v]),
			"the schema at version %d", v)
	}
	want := atVersion("files-all", all)
	for v := 0; v < len(files); v++ {
		path := filepath.Join(dir, "upgraded"+string(rune('0'+v))+".db")
		require.NoError(t, writerAt(t, ctx, path, legacy[:v]).Close())
		s, err := Open(ctx, path)
		require.NoError(t, err)
		assert.Equal(t, want, sqliteSchema(t, ctx, s.w), "a database an older build left at version %d", v)
		require.NoError(t, s.Close())
	}
}

// withoutHeader drops the file's leading comment lines.
func withoutHeader(sql string) string {
	for strings.HasPrefix(sql, "--") {
		_, sql, _ = strings.Cut(sql, "\n")
	}
	return sql
}

// PostgreSQL's files make the tables, columns, constraints, indexes and
// routines the Go strings of older builds made.
func TestPostgresMigrationFilesMakeTheSchemaOfTheGoSteps(t *testing.T) {
	ctx := context.Background()
	all, legacy := postgresMigrations(), legacyPostgresMigrations()
	// The steps after the Go strings' last one were written as files.
	require.GreaterOrEqual(t, len(all), len(legacy), "one file per step")
	files := all[:len(legacy)]
	pg := testenv.StartPostgres(t)
	schemaOf := func(steps []migration) []string {
		db, err := sql.Open("pgx", pg.NewDatabase(t))
		require.NoError(t, err)
		defer func() { assert.NoError(t, db.Close()) }()
		for _, m := range steps {
			_, err := db.ExecContext(ctx, m.sql)
			require.NoError(t, err, "step %d (%s)", m.version, m.name)
		}
		var out []string
		for _, q := range []string{
			`SELECT table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' || COALESCE(column_default, '') ||
				' ' || COALESCE(collation_name, '') || ' #' || ordinal_position FROM information_schema.columns WHERE table_schema = 'public'`,
			`SELECT conrelid::regclass::text || ' ' || contype::text || ' ' || pg_get_constraintdef(oid) FROM pg_constraint
				WHERE connamespace = 'public'::regnamespace`,
			`SELECT indexdef FROM pg_indexes WHERE schemaname = 'public'`,
			`SELECT tgname || ' ' || pg_get_triggerdef(oid) FROM pg_trigger WHERE NOT tgisinternal`,
			`SELECT proname || ' ' || prosrc FROM pg_proc WHERE pronamespace = 'public'::regnamespace`,
		} {
			got := queryStrings(t, ctx, db, q+" ORDER BY 1")
			require.NotEmpty(t, got, q)
			out = append(out, got...)
		}
		return out
	}
	for v := 1; v <= len(files); v++ {
		assert.Equal(t, legacy[v-1].name, files[v-1].name, "step %d keeps its recorded name", v)
		assert.Equal(t, schemaOf(legacy[:v]), schemaOf(files[:v]), "the schema at version %d", v)
	}
}

func TestLoadMigrationsRefusesAMalformedHistory(t *testing.T) {
	t.Parallel()
	file := func(body string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(body)} }
	cases := []struct {
		name    string
		files   fstest.MapFS
		wantErr string // "" when the history loads
	}{
		{name: "two steps", files: fstest.MapFS{
			"m/0001_a.sql": file("-- name: a\nCREATE TABLE a (x);\n"),
			"m/0002_b.sql": file("-- name: b, c\nCREATE TABLE b (x);\n"),
		}},
		{name: "empty", files: fstest.MapFS{"m/README": nil}, wantErr: "not NNNN_what.sql"},
		{name: "no step", files: fstest.MapFS{"other/0001_a.sql": file("-- name: a\n")}, wantErr: "m: "},
		{name: "a gap", files: fstest.MapFS{
			"m/0001_a.sql": file("-- name: a\n"),
			"m/0003_c.sql": file("-- name: c\n"),
		}, wantErr: "version 3 where 2 comes next"},
		{name: "not numbered", files: fstest.MapFS{"m/first.sql": file("-- name: a\n")}, wantErr: "not NNNN_what.sql"},
		{name: "short number", files: fstest.MapFS{"m/1_a.sql": file("-- name: a\n")}, wantErr: "not NNNN_what.sql"},
		{name: "not SQL", files: fstest.MapFS{"m/0001_a.txt": file("-- name: a\n")}, wantErr: "not NNNN_what.sql"},
		{name: "no name", files: fstest.MapFS{"m/0001_a.sql": file("CREATE TABLE a (x);\n")}, wantErr: `the first line is not "-- name: ...`},
		{name: "blank name", files: fstest.MapFS{"m/0001_a.sql": file("-- name:  \n")}, wantErr: `the first line is not "-- name: ...`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			steps, err := loadMigrations(tc.files, "m")
			if tc.wantErr != "" {
				assert.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Len(t, steps, 2)
			assert.Equal(t, migration{version: 2, name: "b, c", sql: "-- name: b, c\nCREATE TABLE b (x);\n"}, steps[1])
		})
	}
}
