package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// statements are SQLite's statements of the store, prepared once when it
// opens: a write prepared on the one writer connection is reused by every
// transaction (tx.StmtContext finds it there), instead of SQLite compiling
// the SQL again for each run. They are keyed by their text, so that a
// write names its statement once, whichever database runs it. PostgreSQL
// needs none of this: pgx caches the statements it prepares on each
// connection by itself.
type statements struct {
	writes map[string]*sql.Stmt // on the writer
	get    *sql.Stmt            // on the read pool
}

const (
	setStageRun = `UPDATE runs SET stage = ?, updated_at = ?
	WHERE id = ? AND status IN ('running', 'releasing')`
	beginReleaseRun = `UPDATE runs SET status = 'releasing',
	original_source = ?, original_protocol = ?, final_source = ?, helpers = ?, updated_at = ?
	WHERE id = ? AND status = 'running'`
	markRevertedRun = `UPDATE runs SET status = 'reverted', reverted_at = ?, updated_at = ?
	WHERE id = ? AND status = 'released'`
	statusOfRun = "SELECT status FROM runs WHERE id = ?"
	getRun      = "SELECT " + runColumns + " FROM runs WHERE id = ?"
)

func prepare(ctx context.Context, w, r *sql.DB) (*statements, error) {
	s := &statements{writes: map[string]*sql.Stmt{}}
	for _, q := range []string{insertRun, updateRun, setStageRun, beginReleaseRun, markRevertedRun, reconcileRun, statusOfRun} {
		stmt, err := w.PrepareContext(ctx, q)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("store: prepare %.40q: %w", q, err), s.close())
		}
		s.writes[q] = stmt
	}
	get, err := r.PrepareContext(ctx, getRun)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("store: prepare %.40q: %w", getRun, err), s.close())
	}
	s.get = get
	return s, nil
}

func (s *statements) close() error {
	if s == nil {
		return nil
	}
	var errs []error
	for _, stmt := range s.writes {
		errs = append(errs, stmt.Close())
	}
	if s.get != nil {
		errs = append(errs, s.get.Close())
	}
	return errors.Join(errs...)
}
