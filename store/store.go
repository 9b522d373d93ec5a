// Package store is refactord's audit trail: one SQLite row per run (a
// refactoring or a revert), written ahead of every compile into the image so
// that each change can be explained, reconciled after a crash and reverted.
//
// The database lives in one file (DATA_DIR/refactord.db) in WAL mode. Every
// committed row survives a SIGKILL of the service; the write-ahead row of a
// release (BeginRelease) also survives a power loss of the machine, because
// its commit is synced to stable storage (writeahead.go says why the others
// need not be). The schema is versioned as SQL files, one per step
// (migrations/sqlite, applied by migrate.go); PostgreSQL (a pool of
// workers) has its own history (migrations/postgres).
// Rows are never deleted: the store has no delete operation and the schema
// refuses DELETE statements.
//
// The store returns plain wrapped errors and the sentinels of errors.go;
// callers (pipeline, api) classify them.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver

	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// busyTimeoutMS bounds how long a statement waits for a lock held by another
// connection (another process, or the writer while a reader checkpoints).
const busyTimeoutMS = 10000

// maxReaders bounds the read pool; WAL lets readers run beside the writer.
const maxReaders = 8

// Store is the audit trail. It is safe for concurrent use: writes go through
// a pool of one connection, so they are serialised in-process and never race
// for SQLite's write lock; reads use a separate read-only pool and, thanks to
// WAL, see the last committed state without blocking the writer.
type Store struct {
	w *sql.DB // exactly one connection; every write goes here
	r *sql.DB // read-only connections for Get, List, Releasing
	d dialect
	// stmts are SQLite's prepared statements (stmts.go); nil on PostgreSQL.
	stmts *statements
	// tracer makes the spans of the transactions of a run (Traced).
	tracer trace.Tracer
	// dir holds the SQLite database (a probe of its storage is written
	// there); "" on PostgreSQL.
	dir string
	// writes: whether the storage refuses writes now (Writable).
	writes writeState
}

// Open opens (creating when needed) the database at path, creating its
// directory, and migrates the schema to the version this build knows. A
// database written by a newer build is refused with ErrSchemaTooNew.
func Open(ctx context.Context, path string) (*Store, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("store: resolve %q: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o750); err != nil {
		return nil, fmt.Errorf("store: create directory for %q: %w", abs, err)
	}
	w, err := openWriter(ctx, abs)
	if err != nil {
		return nil, err
	}
	if err := migrate(ctx, w); err != nil {
		return nil, errors.Join(err, w.Close())
	}
	r, err := openPool(ctx, abs, true, maxReaders)
	if err != nil {
		return nil, errors.Join(err, w.Close())
	}
	stmts, err := prepare(ctx, w, r)
	if err != nil {
		return nil, errors.Join(err, r.Close(), w.Close())
	}
	return &Store{w: w, r: r, d: sqliteDialect, stmts: stmts, dir: filepath.Dir(abs), tracer: noop.NewTracerProvider().Tracer("")}, nil
}

// openWriter opens the single-connection write pool and checks that the
// durability settings really took: SQLite silently keeps another journal mode
// when it cannot switch (e.g. on a file system without shared memory).
func openWriter(ctx context.Context, abs string) (*sql.DB, error) {
	w, err := openPool(ctx, abs, false, 1)
	if err != nil {
		return nil, err
	}
	if err := checkDurability(ctx, w); err != nil {
		return nil, errors.Join(err, w.Close())
	}
	return w, nil
}

func checkDurability(ctx context.Context, db *sql.DB) error {
	var mode string
	if err := db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return fmt.Errorf("store: read journal_mode: %w", err)
	}
	if mode != "wal" {
		return fmt.Errorf("store: journal_mode is %q, want \"wal\"", mode)
	}
	return checkSynchronous(ctx, db, syncNormal)
}

// openPool opens a database/sql pool on abs with every connection configured
// by the DSN, so a connection the pool reopens later gets the same settings.
func openPool(ctx context.Context, abs string, readOnly bool, conns int) (*sql.DB, error) {
	db, err := sql.Open("sqlite", dsn(abs, readOnly))
	if err != nil {
		return nil, fmt.Errorf("store: open %q: %w", abs, err)
	}
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	if err := db.PingContext(ctx); err != nil {
		return nil, errors.Join(fmt.Errorf("store: open %q: %w", abs, err), db.Close())
	}
	return db, nil
}

// dsn builds a file: URI so that any path (spaces, '?', '#') reaches SQLite
// intact. Writers begin transactions IMMEDIATE: they take the write lock up
// front, so busy_timeout applies instead of a deferred lock upgrade failing
// with SQLITE_BUSY.
func dsn(abs string, readOnly bool) string {
	q := url.Values{}
	q.Set("_busy_timeout", fmt.Sprint(busyTimeoutMS))
	q.Set("_foreign_keys", "1")
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", "NORMAL") // BeginRelease and MarkReverted raise it for their commit (writeahead.go)
	if readOnly {
		q.Set("_query_only", "1")
	} else {
		q.Set("_txlock", "immediate")
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs), RawQuery: q.Encode()}
	return u.String()
}

// Close closes both pools. The store must not be used afterwards.
func (s *Store) Close() error {
	if s.r == s.w {
		return s.w.Close()
	}
	return errors.Join(s.stmts.close(), s.r.Close(), s.w.Close())
}

// inTx runs fn in a write transaction and commits it. On SQLite the commit
// is in the WAL when inTx returns nil (it survives the process), not
// necessarily on stable storage: see writeahead.go. On PostgreSQL
// the statements run on their own, each committed when it returns (a
// network round trip saved twice per write, which a run makes a dozen
// times): every write of the store is one conditional statement, the
// reads before it only explain a refusal or check what the schema's
// constraints enforce anyway (a duplicate id, an unknown revert_of).
//
// Within a trace that records (a run's, with an exporter), each is a span
// named by op, for the run id.
func (s *Store) inTx(ctx context.Context, op, id string, fn func(*txn) error) (err error) {
	if trace.SpanFromContext(ctx).IsRecording() {
		var span trace.Span
		ctx, span = s.startTxSpan(ctx, op, id)
		defer func() { endTxSpan(span, err) }()
	}
	if s.d == postgresDialect {
		err = storageRefused(s.d.classify(fn(&txn{q: s.w, d: s.d})))
		s.writes.note(err)
		return err
	}
	return s.runTx(ctx, s.w, fn)
}

// inStatement runs fn, a write of one conditional statement (and, when it
// changes no row, the read that says why), without a transaction around
// it: the statement commits by itself, as atomically as in one. On SQLite
// that spares a BEGIN and a COMMIT per write; the statement takes the write
// lock when it starts, as BEGIN IMMEDIATE would, so busy_timeout still
// applies. The read runs after the commit: it only explains a refusal,
// and a run's status only moves forward. On PostgreSQL it is inTx, whose
// statements run on their own already.
func (s *Store) inStatement(ctx context.Context, op, id string, fn func(*txn) error) (err error) {
	if s.d == postgresDialect {
		return s.inTx(ctx, op, id, fn)
	}
	if trace.SpanFromContext(ctx).IsRecording() {
		var span trace.Span
		ctx, span = s.startTxSpan(ctx, op, id)
		defer func() { endTxSpan(span, err) }()
	}
	err = storageRefused(fn(&txn{q: s.w, d: s.d, stmts: s.stmts}))
	s.writes.note(err)
	return err
}

// beginner is a pool or one connection of it.
type beginner interface {
	BeginTx(ctx context.Context, opts *sql.TxOptions) (*sql.Tx, error)
}

// runTx runs fn in a write transaction on db and commits it. A write the
// storage refuses (a full or read-only DATA_DIR) is store_unavailable, and
// Writable says so until a write or a probe succeeds.
func (s *Store) runTx(ctx context.Context, db beginner, fn func(*txn) error) error {
	err := storageRefused(s.commitTx(ctx, db, fn))
	s.writes.note(err)
	return err
}

func (s *Store) commitTx(ctx context.Context, db beginner, fn func(*txn) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: begin: %w", s.d.classify(err))
	}
	if err := fn(&txn{q: tx, d: s.d, tx: tx, stmts: s.stmts}); err != nil {
		return s.d.classify(errors.Join(err, rollback(tx)))
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: commit: %w", s.d.classify(err))
	}
	return nil
}

// rollback ignores ErrTxDone: a cancelled context already rolled back.
func rollback(tx *sql.Tx) error {
	if err := tx.Rollback(); err != nil && !errors.Is(err, sql.ErrTxDone) {
		return fmt.Errorf("store: rollback: %w", err)
	}
	return nil
}

// getRow reads the run id from the read pool, by the prepared statement on
// SQLite.
func (s *Store) getRow(ctx context.Context, id string) *sql.Row {
	if s.stmts != nil {
		return s.stmts.get.QueryRowContext(ctx, id)
	}
	return s.r.QueryRowContext(ctx, s.d.bind(getRun), id)
}
