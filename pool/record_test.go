package pool

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/internal/testenv"
	"github.com/pharo-refactor/refactord/store"
)

func recorderPool(t *testing.T) *Pool {
	t.Helper()
	ctx := context.Background()
	url := testenv.StartPostgres(t).NewDatabase(t)
	trail, err := store.OpenPostgres(ctx, url) // the pool's tables
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, trail.Close()) })
	db, err := pgxpool.New(ctx, url)
	require.NoError(t, err)
	t.Cleanup(db.Close)
	return &Pool{db: db, log: zap.NewNop()}
}

// The pipeline hands its events over without waiting; whatever batches
// the writer makes, the caller reads every event, in the order sent, once
// flush returned — and nothing sent after it.
func TestRecorderKeepsEveryEventInOrder(t *testing.T) {
	p := recorderPool(t)
	for _, n := range []int{1, eventBatch - 1, 5*eventBatch + 3} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			id := newID()
			r := p.newRecorder(id)
			for i := range n {
				r.observe(refactor.Event{Type: refactor.EventStage, Data: refactor.StageEvent{Name: "reviewer", Status: "started", Iteration: i}})
			}
			r.flush()
			r.observe(refactor.Event{Type: refactor.EventStage, Data: refactor.StageEvent{Name: "late"}}) // dropped, not a panic
			var seen []refactor.Event
			_, err := p.relay(context.Background(), id, func(e refactor.Event) { seen = append(seen, e) }, 0)
			require.NoError(t, err)
			assertIterationsInOrder(t, seen, n)
		})
	}
}

// Events are transport, committed without waiting for the WAL's flush —
// and only they: the setting ends with their statement's transaction.
func TestEventsAloneCommitAsynchronously(t *testing.T) {
	p := recorderPool(t)
	ctx := context.Background()
	conn, err := p.db.Acquire(ctx)
	require.NoError(t, err)
	defer conn.Release()
	show := func() string {
		var v string
		require.NoError(t, conn.QueryRow(ctx, "SHOW synchronous_commit").Scan(&v))
		return v
	}
	_, err = conn.Exec(ctx, "SET synchronous_commit = on") // the test server's default is off
	require.NoError(t, err)

	tx, err := conn.Begin(ctx)
	require.NoError(t, err)
	_, err = tx.Exec(ctx, recordEvents, newID(), []string{refactor.EventStage}, []string{`{}`})
	require.NoError(t, err)
	var inside string
	require.NoError(t, tx.QueryRow(ctx, "SHOW synchronous_commit").Scan(&inside))
	assert.Equal(t, "off", inside, "the events' transaction commits asynchronously")
	require.NoError(t, tx.Commit(ctx))
	assert.Equal(t, "on", show(), "after it, the connection commits synchronously again")

	_, err = conn.Exec(ctx, recordEvents, newID(), []string{refactor.EventStage}, []string{`{}`})
	require.NoError(t, err)
	assert.Equal(t, "on", show(), "a statement of its own leaves the connection as it was")
}

// The events the writer had not recorded when the run ended are recorded
// with its answer, in the same statement: a caller who reads the answer
// reads them all, in the order sent, and after the ones recorded before.
func TestTheLastEventsTravelWithTheAnswer(t *testing.T) {
	p := recorderPool(t)
	ctx := context.Background()
	const n = 3*eventBatch + 5
	id := newID()
	r := p.newRecorder(id)
	for i := range n {
		r.observe(refactor.Event{Type: refactor.EventStage, Data: refactor.StageEvent{Name: "reviewer", Status: "started", Iteration: i}})
	}
	last := r.close()
	assert.LessOrEqual(t, len(last), eventBatch, "at most one batch is left for the answer")
	require.NoError(t, p.recordEnd(ctx, id, last, answer{}, refactor.Errorf(refactor.Canceled, "stopped")))

	var seen []refactor.Event
	seq, a, done, err := p.look(ctx, id, func(e refactor.Event) { seen = append(seen, e) }, 0)
	assert.True(t, done)
	assert.True(t, refactor.IsKind(err, refactor.Canceled), "the answer: %v", err)
	assert.Nil(t, a.Result)
	assert.Positive(t, seq)
	assertIterationsInOrder(t, seen, n)
}

// assertIterationsInOrder checks that seen are n stage events whose
// iterations count from 0, in order.
func assertIterationsInOrder(t *testing.T, seen []refactor.Event, n int) {
	t.Helper()
	require.Len(t, seen, n)
	for i, e := range seen {
		stage, ok := e.Data.(refactor.StageEvent)
		require.True(t, ok, "%T", e.Data)
		assert.Equal(t, i, stage.Iteration)
	}
}
