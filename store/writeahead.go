package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// Which commits reach stable storage.
//
// The writer runs in WAL mode with synchronous=NORMAL: a commit appends its
// pages to the WAL and returns without an fsync. It survives a crash or a
// SIGKILL of the service (the kernel holds the write), and the WAL is synced
// before every checkpoint; only a power loss or a kernel crash can lose it,
// and then only the last commits: WAL recovery keeps a prefix of the commits
// (its frames are checksummed in a chain), never half of one.
//
// Two commits must survive a power loss as well, because nothing would
// repair their loss:
//   - BeginRelease, the write-ahead row: it is committed before the compile
//     changes the image; lost after the compile, nothing would tell start-up
//     reconciliation to look at the image.
//   - MarkReverted: it ends a revert whose own row is settled already, so
//     reconciliation would never come back to it, and the reverted run
//     would go on claiming to be released.
//
// Those commit with synchronous=FULL: SQLite syncs the WAL before the commit
// returns, and the fsync covers every earlier frame, so the run's row
// created before the write-ahead row is durable with it. The pragma cannot
// change inside a transaction, but it is the connection's setting, read at
// each commit: the one writer connection is held for the transaction,
// raised to FULL before it and lowered to NORMAL after it.
//
// Losing any other commit is covered by start-up reconciliation: a run's row
// created (running) or closed before its release began changed nothing in
// the image — a row left running is settled as not_released, a row never
// written stands for a run that never reached the image; a row closed after
// its release began (released, rolled_back, restore_failed) stays releasing
// and is settled by reading the image; a Reconcile lost is done again at the
// next start, since its row is still unsettled; a stage lost (SetStage)
// leaves a row that names an earlier stage of a run in progress, which the
// next start settles all the same.

// The values PRAGMA synchronous answers.
const (
	syncNormal = 1
	syncFull   = 2
)

// inSyncedTx runs fn in a write transaction whose commit is on stable
// storage when inSyncedTx returns nil. PostgreSQL's commits are (its
// synchronous_commit is on by default).
func (s *Store) inSyncedTx(ctx context.Context, op, id string, fn func(*txn) error) (err error) {
	if s.d == postgresDialect {
		return s.inTx(ctx, op, id, fn)
	}
	if trace.SpanFromContext(ctx).IsRecording() {
		var span trace.Span
		ctx, span = s.startTxSpan(ctx, op, id)
		span.SetAttributes(attribute.Bool("refactor.synced_commit", true))
		defer func() { endTxSpan(span, err) }()
	}
	conn, err := s.w.Conn(ctx)
	if err != nil {
		return fmt.Errorf("store: connect: %w", err)
	}
	defer conn.Close() //nolint:errcheck // only gives the connection back to the pool
	if err := setSynchronous(ctx, conn, "FULL"); err != nil {
		return err
	}
	err = s.runTx(ctx, conn, fn)
	if lowerErr := setSynchronous(context.WithoutCancel(ctx), conn, "NORMAL"); lowerErr != nil {
		// Left at FULL the connection would sync every later commit: drop
		// it; the pool opens a new one with the DSN's NORMAL. Raw answers
		// the driver.ErrBadConn that makes it do so.
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
	}
	return err
}

func setSynchronous(ctx context.Context, conn *sql.Conn, level string) error {
	if _, err := conn.ExecContext(ctx, "PRAGMA synchronous = "+level); err != nil {
		return fmt.Errorf("store: synchronous = %s: %w", level, err)
	}
	return nil
}

// checkSynchronous checks the connection's synchronous setting: the DSN's
// setting is silently ignored by a driver that does not know it.
func checkSynchronous(ctx context.Context, db queryer, want int) error {
	var got int
	if err := db.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&got); err != nil {
		return fmt.Errorf("store: read synchronous: %w", err)
	}
	if got != want {
		return fmt.Errorf("store: synchronous is %d, want %d", got, want)
	}
	return nil
}
