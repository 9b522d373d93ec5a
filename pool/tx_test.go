package pool

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A pipelined transaction keeps what it wrote only when its last
// statement and its commit succeed together; otherwise nothing of it
// remains, and the connection is not handed out in a transaction.
func TestAPipelinedTransactionCommitsOrLeavesNothing(t *testing.T) {
	p := recorderPool(t)
	ctx := context.Background()
	const insert = "INSERT INTO pool_workers (id, image) VALUES ($1, 'image') RETURNING id"
	exists := func(id string) bool {
		var n int
		require.NoError(t, p.db.QueryRow(ctx, "SELECT count(*) FROM pool_workers WHERE id = $1", id).Scan(&n))
		return n == 1
	}

	var got string
	tx, err := beginWith(ctx, p.db, insert, []any{"kept"}, &got)
	require.NoError(t, err)
	assert.Equal(t, "kept", got)
	var n int
	require.NoError(t, tx.commitWith(ctx, "SELECT count(*) FROM pool_workers WHERE id = $1", []any{"kept"}, &n))
	assert.Equal(t, 1, n, "the last statement sees the first")
	assert.True(t, exists("kept"))
	assert.NoError(t, tx.Rollback(ctx), "after the commit, a no-op")

	tx, err = beginWith(ctx, p.db, insert, []any{"failed"}, &got)
	require.NoError(t, err)
	assert.Error(t, tx.commitWith(ctx, "SELECT 1 / $1::int", []any{0}, &n))
	assert.False(t, exists("failed"), "a last statement that fails takes the first with it")

	tx, err = beginWith(ctx, p.db, insert, []any{"rolled back"}, &got)
	require.NoError(t, err)
	require.NoError(t, tx.Rollback(ctx))
	assert.False(t, exists("rolled back"))

	_, err = beginWith(ctx, p.db, insert, []any{"kept"}, &got)
	assert.Error(t, err, "a first statement that fails leaves nothing open")
	for range 2 * maxConnsOf(p) {
		assert.False(t, exists("failed")) // every connection of the pool answers outside a transaction
	}
}

func maxConnsOf(p *Pool) int { return int(p.db.Config().MaxConns) }
