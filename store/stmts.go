package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// statements are the store's statements, prepared once when it opens: a
// write prepared on the one writer connection is reused by every
// transaction (tx.StmtContext finds it there), instead of SQLite compiling
// the SQL again for each run.
type statements struct {
	insert, update, setStage, beginRelease, markReverted, reconcile, status *sql.Stmt // writer
	get                                                                     *sql.Stmt // read pool
}

const (
	setStageRun = `UPDATE runs SET stage = ?, updated_at = ?
	WHERE id = ? AND status IN ('running', 'releasing')`
	beginReleaseRun = `UPDATE runs SET status = 'releasing',
	original_source = ?, original_protocol = ?, final_source = ?, updated_at = ?
	WHERE id = ? AND status = 'running'`
	markRevertedRun = `UPDATE runs SET status = 'reverted', reverted_at = ?, updated_at = ?
	WHERE id = ? AND status = 'released'`
	statusOfRun = "SELECT status FROM runs WHERE id = ?"
	getRun      = "SELECT " + runColumns + " FROM runs WHERE id = ?"
)

// insertRun has one placeholder per column of runColumns, counted so that
// a column added there cannot leave it behind.
var insertRun = "INSERT INTO runs (" + runColumns + ") VALUES (" +
	strings.Repeat("?, ", strings.Count(runColumns, ",")) + "?)"

func prepare(ctx context.Context, w, r *sql.DB) (*statements, error) {
	s := &statements{}
	for _, p := range []struct {
		into **sql.Stmt
		db   *sql.DB
		sql  string
	}{
		{&s.insert, w, insertRun}, {&s.update, w, updateRun}, {&s.setStage, w, setStageRun},
		{&s.beginRelease, w, beginReleaseRun},
		{&s.markReverted, w, markRevertedRun}, {&s.reconcile, w, reconcileRun}, {&s.status, w, statusOfRun},
		{&s.get, r, getRun},
	} {
		stmt, err := p.db.PrepareContext(ctx, p.sql)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("store: prepare %.40q: %w", p.sql, err), s.close())
		}
		*p.into = stmt
	}
	return s, nil
}

func (s *statements) close() error {
	var errs []error
	for _, stmt := range []*sql.Stmt{s.insert, s.update, s.setStage, s.beginRelease, s.markReverted, s.reconcile, s.status, s.get} {
		if stmt != nil {
			errs = append(errs, stmt.Close())
		}
	}
	return errors.Join(errs...)
}
