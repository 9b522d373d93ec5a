package store

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
)

// The schema's history, one SQL file per step and dialect, named
// NNNN_what.sql and numbered from 0001 without gaps. A file opens with
// "-- name: " and the name schema_migrations records, then says in
// comments what the step does and why; the whole file is what the step
// runs. Steps are only ever appended: a released step is never edited,
// because databases in the field already ran it.
//
//go:embed migrations/sqlite/*.sql migrations/postgres/*.sql
var migrationFiles embed.FS

// migration is one step of the schema.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations returns SQLite's schema history, oldest first, versions 1..n.
func migrations() []migration { return mustLoadMigrations("migrations/sqlite") }

// postgresMigrations is the PostgreSQL schema's history, versioned apart
// from SQLite's (its first step is SQLite's latest table at once).
func postgresMigrations() []migration { return mustLoadMigrations("migrations/postgres") }

// mustLoadMigrations reads the steps of one dialect. The files are
// compiled into the binary, so a malformed one is a defect of the build,
// not of its input; the store's tests load both dialects.
func mustLoadMigrations(dir string) []migration {
	steps, err := loadMigrations(migrationFiles, dir)
	if err != nil {
		panic(err)
	}
	return steps
}

// loadMigrations reads dir's NNNN_*.sql files in order and checks that
// they are numbered 1..n and each names itself.
func loadMigrations(fsys fs.FS, dir string) ([]migration, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("store: migrations: %w", err)
	}
	var steps []migration
	for _, e := range entries { // fs.ReadDir sorts by name
		file := path.Join(dir, e.Name())
		prefix, _, ok := strings.Cut(e.Name(), "_")
		version, err := strconv.Atoi(prefix)
		if !ok || err != nil || len(prefix) != 4 || !strings.HasSuffix(e.Name(), ".sql") {
			return nil, fmt.Errorf("store: migration %s: the name is not NNNN_what.sql", file)
		}
		if version != len(steps)+1 {
			return nil, fmt.Errorf("store: migration %s: version %d where %d comes next", file, version, len(steps)+1)
		}
		data, err := fs.ReadFile(fsys, file)
		if err != nil {
			return nil, fmt.Errorf("store: migration %s: %w", file, err)
		}
		first, _, _ := strings.Cut(string(data), "\n")
		name, ok := strings.CutPrefix(first, "-- name: ")
		if !ok || strings.TrimSpace(name) == "" {
			return nil, fmt.Errorf("store: migration %s: the first line is not \"-- name: ...\"", file)
		}
		steps = append(steps, migration{version: version, name: strings.TrimSpace(name), sql: string(data)})
	}
	if len(steps) == 0 {
		return nil, fmt.Errorf("store: migrations: no step in %s", dir)
	}
	return steps, nil
}
