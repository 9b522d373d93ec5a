package store

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	refactor "github.com/pharo-refactor/refactord"
)

// dialect is what differs between the two databases the trail lives in:
// SQLite in DATA_DIR (one image) and PostgreSQL (a pool of workers). The
// statements are written once, in SQLite's placeholders; the few
// constructs the two spell differently are kept out of them (the newline
// Reconcile joins notes with is a parameter).
type dialect int

const (
	sqliteDialect dialect = iota
	postgresDialect
)

// bind rewrites the placeholders of q for the database: PostgreSQL numbers
// them ($1, $2, …); "?N" keeps its number. No statement of the store has a
// '?' inside a string literal.
func (d dialect) bind(q string) string {
	if d == sqliteDialect {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 16)
	next := 0
	for i := 0; i < len(q); i++ {
		if q[i] != '?' {
			b.WriteByte(q[i])
			continue
		}
		j := i + 1
		for j < len(q) && q[j] >= '0' && q[j] <= '9' {
			j++
		}
		b.WriteByte('$')
		if j > i+1 {
			b.WriteString(q[i+1 : j])
		} else {
			next++
			b.WriteString(strconv.Itoa(next))
		}
		i = j - 1
	}
	return b.String()
}

// classify marks an error that says the database cannot be reached (as
// opposed to one it answered) with ErrUnavailable: a pool's PostgreSQL
// may be down for a while, and callers answer store_unavailable then.
// SQLite is a file: it has no such state.
func (d dialect) classify(err error) error {
	if err == nil || d == sqliteDialect || errors.Is(err, ErrUnavailable) ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, sql.ErrNoRows) {
		return err
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		// Class 08 (connection exception) and 57P (operator intervention:
		// the server is shutting down or restarting) mean the database is
		// going away; any other answer is the database's verdict.
		if !strings.HasPrefix(pgErr.Code, "08") && !strings.HasPrefix(pgErr.Code, "57P") {
			return err
		}
	} else if !isConnectionError(err) {
		return err
	}
	return refactor.Wrap(refactor.StoreUnavailable, errors.Join(ErrUnavailable, err),
		"PostgreSQL (DATABASE_URL), which holds the audit trail, does not answer; retry when it is back")
}

func isConnectionError(err error) bool {
	var connectErr *pgconn.ConnectError
	return errors.As(err, &connectErr) || pgconn.SafeToRetry(err) || pgconn.Timeout(err) ||
		errors.Is(err, sql.ErrConnDone) || strings.Contains(err.Error(), "driver: bad connection") ||
		strings.Contains(err.Error(), "conn closed") || strings.Contains(err.Error(), "unexpected EOF") ||
		strings.Contains(err.Error(), "connection refused") || strings.Contains(err.Error(), "broken pipe")
}

// txn runs the statements of one write, bound for the dialect: in a
// transaction on SQLite, each on its own on PostgreSQL (see Store.inTx).
type txn struct {
	q querier
	d dialect
	// tx and stmts: on SQLite, the transaction (nil for a write of one
	// statement: Store.inStatement) and the statements prepared at open,
	// reused in tx.
	tx    *sql.Tx
	stmts *statements
}

// prepared is q's prepared statement, in t's transaction when it has
// one, or nil.
func (t *txn) prepared(ctx context.Context, q string) *sql.Stmt {
	if t.stmts == nil {
		return nil
	}
	stmt, ok := t.stmts.writes[q]
	switch {
	case !ok:
		return nil
	case t.tx == nil:
		return stmt
	}
	return t.tx.StmtContext(ctx, stmt)
}

type querier interface {
	ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
}

func (t *txn) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	if stmt := t.prepared(ctx, q); stmt != nil {
		return stmt.ExecContext(ctx, args...)
	}
	return t.q.ExecContext(ctx, t.d.bind(q), args...)
}

func (t *txn) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	if stmt := t.prepared(ctx, q); stmt != nil {
		return stmt.QueryRowContext(ctx, args...)
	}
	return t.q.QueryRowContext(ctx, t.d.bind(q), args...)
}
