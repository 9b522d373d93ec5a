package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/pharo-refactor/refactord/bench/internal/measure"
)

// commitFloor is the least a SQLite commit costs here: one UPDATE of a row
// the size of a run's audit row, in its own IMMEDIATE transaction, with a
// statement prepared once, on a WAL database in the bench's scratch
// directory (the file system the service's database is on), through the
// same driver as the store — synced (synchronous=FULL) or not (NORMAL).
type commitFloor struct {
	db      *sql.DB
	stmt    *sql.Stmt
	row     []byte
	commits int
}

// auditRowBytes is about the size of a run's audit row (sources, review,
// verdict, stages, test reports).
const auditRowBytes = 4 << 10

func openCommitFloor(ctx context.Context, dir, synchronous string) (*commitFloor, error) {
	q := url.Values{}
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", synchronous)
	q.Set("_txlock", "immediate")
	q.Set("_busy_timeout", "10000")
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(dir, "commit-floor-"+strings.ToLower(synchronous)+".db")), RawQuery: q.Encode()}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	f := &commitFloor{db: db, row: []byte(strings.Repeat("x", auditRowBytes))}
	if _, err := db.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS runs (id INTEGER PRIMARY KEY, doc TEXT NOT NULL)"); err != nil {
		return nil, errors.Join(err, db.Close())
	}
	if _, err := db.ExecContext(ctx, "INSERT OR REPLACE INTO runs (id, doc) VALUES (1, '')"); err != nil {
		return nil, errors.Join(err, db.Close())
	}
	if f.stmt, err = db.PrepareContext(ctx, "UPDATE runs SET doc = ? WHERE id = 1"); err != nil {
		return nil, errors.Join(err, db.Close())
	}
	return f, nil
}

func (f *commitFloor) close() error { return errors.Join(f.stmt.Close(), f.db.Close()) }

// commit is one transaction. Each writes other bytes: SQLite writes
// nothing (and syncs nothing) for an UPDATE that leaves a row as it was.
func (f *commitFloor) commit(ctx context.Context) error {
	f.commits++
	copy(f.row, strconv.Itoa(f.commits))
	tx, err := f.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if _, err := tx.StmtContext(ctx, f.stmt).ExecContext(ctx, string(f.row)); err != nil {
		return errors.Join(err, tx.Rollback())
	}
	return tx.Commit()
}

// p50 times n commits and answers their median.
func (f *commitFloor) p50(ctx context.Context, n int) (time.Duration, error) {
	lat, err := timeN(ctx, n, f.commit)
	if err != nil {
		return 0, fmt.Errorf("commit floor: %w", err)
	}
	s, _ := measure.Summarize(lat)
	return s.P50, nil
}
