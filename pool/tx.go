package pool

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// pipelinedTx is a transaction whose BEGIN is sent with its first
// statement and whose COMMIT with its last, each pair in one pgx batch:
// two round trips fewer than a pgx transaction, on the path a caller
// waits on when it queues a run. In between it is its connection's, as a
// pgx.Tx (river inserts the run's job through it). It has no nested
// transactions.
type pipelinedTx struct {
	conn *pgxpool.Conn
	// closed: committed, rolled back, or its connection released.
	closed bool
}

var errNoNestedTx = errors.New("pool: a pipelined transaction has no nested transactions")

// beginWith takes a connection of db and begins a transaction on it with
// q, whose row scan reads. On failure nothing is left open.
func beginWith(ctx context.Context, db *pgxpool.Pool, q string, args []any, scan ...any) (*pipelinedTx, error) {
	conn, err := db.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	tx := &pipelinedTx{conn: conn}
	b := &pgx.Batch{}
	b.Queue("BEGIN")
	b.Queue(q, args...).QueryRow(func(row pgx.Row) error { return row.Scan(scan...) })
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		return nil, errors.Join(err, tx.Rollback(context.WithoutCancel(ctx)))
	}
	return tx, nil
}

// commitWith ends the transaction with q, whose row scan reads, and
// commits it; when either fails the transaction is rolled back.
func (tx *pipelinedTx) commitWith(ctx context.Context, q string, args []any, scan ...any) error {
	if tx.closed {
		return pgx.ErrTxClosed
	}
	b := &pgx.Batch{}
	b.Queue(q, args...).QueryRow(func(row pgx.Row) error { return row.Scan(scan...) })
	b.Queue("COMMIT").Exec(func(tag pgconn.CommandTag) error {
		if tag.String() == "ROLLBACK" {
			return pgx.ErrTxCommitRollback // the transaction had failed
		}
		return nil
	})
	if err := tx.conn.SendBatch(ctx, b).Close(); err != nil {
		return errors.Join(err, tx.Rollback(context.WithoutCancel(ctx)))
	}
	tx.release()
	return nil
}

// release gives the connection back; one left in a transaction (a
// rollback that failed) is closed by the pool rather than reused.
func (tx *pipelinedTx) release() {
	tx.closed = true
	tx.conn.Release()
}

func (tx *pipelinedTx) Begin(context.Context) (pgx.Tx, error) { return nil, errNoNestedTx }

func (tx *pipelinedTx) Commit(ctx context.Context) error {
	if tx.closed {
		return pgx.ErrTxClosed
	}
	tag, err := tx.conn.Exec(ctx, "COMMIT")
	if err == nil && tag.String() == "ROLLBACK" {
		err = pgx.ErrTxCommitRollback
	}
	tx.release()
	return err
}

// Rollback, after Commit or commitWith, does nothing.
func (tx *pipelinedTx) Rollback(ctx context.Context) error {
	if tx.closed {
		return nil
	}
	_, err := tx.conn.Exec(ctx, "ROLLBACK")
	tx.release()
	return err
}

func (tx *pipelinedTx) CopyFrom(ctx context.Context, table pgx.Identifier, columns []string, src pgx.CopyFromSource) (int64, error) {
	return tx.conn.CopyFrom(ctx, table, columns, src)
}

func (tx *pipelinedTx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	return tx.conn.SendBatch(ctx, b)
}

func (tx *pipelinedTx) LargeObjects() pgx.LargeObjects { return pgx.LargeObjects{} }

func (tx *pipelinedTx) Prepare(ctx context.Context, name, sql string) (*pgconn.StatementDescription, error) {
	return tx.conn.Conn().Prepare(ctx, name, sql)
}

func (tx *pipelinedTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	return tx.conn.Exec(ctx, sql, args...)
}

func (tx *pipelinedTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	return tx.conn.Query(ctx, sql, args...)
}

func (tx *pipelinedTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return tx.conn.QueryRow(ctx, sql, args...)
}

func (tx *pipelinedTx) Conn() *pgx.Conn { return tx.conn.Conn() }
