package store_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	refactor "github.com/pharo-refactor/refactord"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/internal/testenv"
	"github.com/pharo-refactor/refactord/store"
)

// opener gives a case a new, empty store.
type opener func(t *testing.T) *store.Store

// storeCases is the table of cases both databases must pass alike: the
// trail of one image (SQLite) and of a pool (PostgreSQL) answer the same.
var storeCases = []struct {
	name string
	run  func(t *testing.T, open opener)
}{
	{"CreateGetRoundTripsEveryField", testCreateGetRoundTripsEveryField},
	{"CreateDefaultsAndNulls", testCreateDefaultsAndNulls},
	{"CreateRejects", testCreateRejects},
	{"UpdateWritesMutableFieldsOnly", testUpdateWritesMutableFieldsOnly},
	{"UpdateKeepsWriteAheadSources", testUpdateKeepsWriteAheadSources},
	{"UpdateRejects", testUpdateRejects},
	{"NotFound", testNotFound},
	{"BeginRelease", testBeginRelease},
	{"UnsettledOldestFirst", testUnsettledOldestFirst},
	{"Reconcile", testReconcile},
	{"MarkReverted", testMarkReverted},
	{"MarkRevertedConcurrentlyExactlyOneWins", testMarkRevertedConcurrentlyExactlyOneWins},
	{"OversizeRejected", testOversizeRejected},
	{"ListNewestFirstWithFilters", testListNewestFirstWithFilters},
	{"ListByWorker", testListByWorker},
	{"TraceIDIsKeptAndChecked", testTraceIDIsKeptAndChecked},
	{"RoundsAreKeptAndLeftOutOfPages", testRoundsAreKeptAndLeftOutOfPages},
	{"ListLimits", testListLimits},
	{"ListPagesAreStableUnderInserts", testListPagesAreStableUnderInserts},
	{"ListBadCursor", testListBadCursor},
	{"ConcurrentReadersDuringWrites", testConcurrentReadersDuringWrites},
}

func openSQLite(t *testing.T) *store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "data", "refactord.db"))
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, s.Close()) })
	return s
}

// postgresOpener starts one server for every case of the backend's test
// t (it skips t, loudly, where PostgreSQL is not installed; in CI it
// fails) and gives each case a database of its own.
func postgresOpener(t *testing.T) opener {
	pg := testenv.StartPostgres(t)
	return func(ct *testing.T) *store.Store {
		ct.Helper()
		s, err := store.OpenPostgres(context.Background(), pg.NewDatabase(ct))
		require.NoError(ct, err)
		ct.Cleanup(func() { assert.NoError(ct, s.Close()) })
		return s
	}
}

func TestStore(t *testing.T) {
	for _, backend := range []struct {
		name   string
		opener func(t *testing.T) opener
		// parallel: the cases may run at once (each SQLite case has a
		// directory of its own; the PostgreSQL cases share one server).
		parallel bool
	}{
		{"sqlite", func(*testing.T) opener { return openSQLite }, true},
		{"postgres", postgresOpener, false},
	} {
		t.Run(backend.name, func(t *testing.T) {
			open := backend.opener(t)
			for _, c := range storeCases {
				t.Run(c.name, func(t *testing.T) {
					if backend.parallel {
						t.Parallel()
					}
					c.run(t, open)
				})
			}
		})
	}
}

func testListByWorker(t *testing.T, open opener) {
	s := open(t)
	ctx := context.Background()
	for i, w := range []string{"w1", "w2", "w1"} {
		r := newRun(string(rune('a' + i)))
		r.Worker, r.Image = w, "/images/"+w
		create(t, s, r)
	}
	p, err := s.List(ctx, refactor.ListQuery{Worker: "w1"})
	require.NoError(t, err)
	require.Len(t, p.Runs, 2)
	assert.Equal(t, []string{"c", "a"}, []string{p.Runs[0].ID, p.Runs[1].ID})
	assert.Equal(t, "/images/w1", p.Runs[0].Image)
	p, err = s.List(ctx, refactor.ListQuery{Worker: "nobody"})
	require.NoError(t, err)
	assert.Empty(t, p.Runs)
}

// PostgreSQL's own rules: migrations once under a lock (workers start
// together), a newer schema refused, the trail append-only, and an
// unreachable server told apart from a refusal.
func TestPostgresSchema(t *testing.T) {
	pg := testenv.StartPostgres(t)
	ctx := context.Background()
	url := pg.NewDatabase(t)

	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := store.OpenPostgres(ctx, url)
			if err == nil {
				err = s.Close()
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...), "workers starting together all migrate")

	db, err := sql.Open("pgx", url)
	require.NoError(t, err)
	defer db.Close() //nolint:errcheck // the test's own connection
	var steps int
	require.NoError(t, db.QueryRow("SELECT COUNT(*) FROM schema_migrations").Scan(&steps))
	assert.Equal(t, store.PostgresSchemaVersion(), steps, "each step once")

	s, err := store.OpenPostgres(ctx, url)
	require.NoError(t, err)
	create(t, s, newRun("kept"))
	_, err = db.Exec("DELETE FROM runs WHERE id = 'kept'")
	assert.ErrorContains(t, err, "never deleted")
	_, err = db.Exec("UPDATE runs SET kind = 'revert', revert_of = 'kept' WHERE id = 'kept'")
	assert.ErrorContains(t, err, "never change")
	require.NoError(t, s.Close())

	_, err = db.Exec("INSERT INTO schema_migrations (version, name) VALUES ($1, 'future')", store.PostgresSchemaVersion()+1)
	require.NoError(t, err)
	_, err = store.OpenPostgres(ctx, url)
	assert.ErrorIs(t, err, store.ErrSchemaTooNew)

	pg.Stop(t)
	_, err = store.OpenPostgres(ctx, url)
	assert.ErrorIs(t, err, store.ErrUnavailable)
}

// A run's trace id is written when its row is opened (or queued), kept
// by the updates that do not name one, and refused unless it is a W3C
// trace id.
func testTraceIDIsKeptAndChecked(t *testing.T, open opener) {
	s := open(t)
	ctx := context.Background()
	const id = "4bf92f3577b34da6a3ce929d0e0e4736"
	r := newRun("traced")
	r.TraceID = id
	create(t, s, r)
	r.TraceID, r.Status = "", refactor.StatusFailed
	require.NoError(t, s.Update(ctx, r))
	got, err := s.Get(ctx, "traced")
	require.NoError(t, err)
	assert.Equal(t, id, got.TraceID, "an update without a trace id keeps it")
	assert.Equal(t, refactor.StatusFailed, got.Status)

	for _, bad := range []string{"4BF92F3577B34DA6A3CE929D0E0E4736", "4bf92f35", id + "00", "00-" + id[3:], "4bf92f3577b34da6a3ce929d0e0e473z"} {
		r := newRun("bad")
		r.TraceID = bad
		assert.ErrorIs(t, s.Create(ctx, r), store.ErrInvalid, "trace id %q", bad)
	}
}

func testRoundsAreKeptAndLeftOutOfPages(t *testing.T, open opener) {
	s := open(t)
	ctx := context.Background()
	r := newRun("rounds")
	create(t, s, r)
	got, err := s.Get(ctx, "rounds")
	require.NoError(t, err)
	assert.Nil(t, got.Rounds, "a run in progress has no rounds yet")

	rounds := []refactor.Round{
		{Iteration: 1, Code: "foo\n\t^ 1", Helpers: []refactor.Helper{},
			CheckErrors: []refactor.CheckError{{Check: "parse", Message: "unexpected end", Line: 2, Col: 4}}},
		{Iteration: 2, Code: "foo\n\t^ self bar", CheckErrors: []refactor.CheckError{},
			Helpers: []refactor.Helper{{Selector: "bar", Protocol: "private", Source: "bar\n\t^ 1"}},
			Verdict: &refactor.Verdict{Verdict: refactor.VerdictApproved, Feedback: "fine"}},
	}
	doc, err := json.Marshal(rounds)
	require.NoError(t, err)
	r.Status, r.Iterations, r.Rounds = refactor.StatusProposed, 2, doc
	require.NoError(t, s.Update(ctx, r))
	got, err = s.Get(ctx, "rounds")
	require.NoError(t, err)
	require.NotNil(t, got.Rounds)
	var back []refactor.Round
	require.NoError(t, json.Unmarshal(got.Rounds, &back))
	assert.Equal(t, rounds, back, "every round comes back, candidates, helpers, errors and verdicts")

	r.Rounds = nil
	require.NoError(t, s.Update(ctx, r))
	got, err = s.Get(ctx, "rounds")
	require.NoError(t, err)
	assert.JSONEq(t, string(doc), string(got.Rounds), "an update without rounds keeps them")

	page, err := s.List(ctx, refactor.ListQuery{})
	require.NoError(t, err)
	require.Len(t, page.Runs, 1)
	assert.Nil(t, page.Runs[0].Rounds, "a page leaves the rounds out")
	assert.Equal(t, 2, page.Runs[0].Iterations)

	for _, c := range []struct {
		name   string
		rounds json.RawMessage
		want   error
	}{
		{"not JSON", json.RawMessage(`[{"iteration": 1,`), store.ErrInvalid},
		{"too large", json.RawMessage(`["` + strings.Repeat("x", store.MaxJSONBytes) + `"]`), store.ErrTooLarge},
	} {
		r.Rounds = c.rounds
		assert.ErrorIs(t, s.Update(ctx, r), c.want, c.name)
	}
}
