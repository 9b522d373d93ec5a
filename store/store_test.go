package store_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	refactor "github.com/pharo-refactor/refactord"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/store"
)

// newRun is a minimal valid refactoring run.
func newRun(id string) refactor.Run {
	return refactor.Run{
		ID: id, Kind: refactor.RunKindRefactor, ClassName: "OrderedCollection",
		Selector: "addAll:", Status: refactor.StatusRunning,
	}
}

func create(t *testing.T, s *store.Store, r refactor.Run) {
	t.Helper()
	require.NoError(t, s.Create(context.Background(), r))
}

// released takes a run through the write-ahead protocol to released.
func released(t *testing.T, s *store.Store, id string) {
	t.Helper()
	ctx := context.Background()
	create(t, s, newRun(id))
	require.NoError(t, s.BeginRelease(ctx, id, "foo ^1", "accessing", "foo ^2", nil))
	r, err := s.Get(ctx, id)
	require.NoError(t, err)
	now := time.Now()
	r.Status, r.ReleasedAt, r.FinishedAt = refactor.StatusReleased, &now, &now
	require.NoError(t, s.Update(ctx, r))
}

func ms(t time.Time) time.Time { return t.UTC().Truncate(time.Millisecond) }

func msPtr(t time.Time) *time.Time {
	v := ms(t)
	return &v
}

func rawDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, db.Close()) })
	return db
}

func TestOpenMigratesOnceAndReopens(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "nested", "dir", "refactord.db")
	for i := range 3 {
		s, err := store.Open(ctx, path)
		require.NoError(t, err, "open #%d", i+1)
		if i == 0 {
			create(t, s, newRun("kept"))
		}
		_, err = s.Get(ctx, "kept")
		assert.NoError(t, err, "open #%d keeps the data", i+1)
		require.NoError(t, s.Close())
	}
	db := rawDB(t, path)
	var rows, maxVersion int
	require.NoError(t, db.QueryRow("SELECT COUNT(*), MAX(version) FROM schema_migrations").Scan(&rows, &maxVersion))
	assert.Equal(t, store.SchemaVersion(), rows, "each migration recorded once")
	assert.Equal(t, store.SchemaVersion(), maxVersion)
	var mode string
	require.NoError(t, db.QueryRow("PRAGMA journal_mode").Scan(&mode))
	assert.Equal(t, "wal", mode)
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "refactord.db")
	s, err := store.Open(ctx, path)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	future := store.SchemaVersion() + 1
	_, err = rawDB(t, path).Exec("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, 'future', '')", future)
	require.NoError(t, err)

	_, err = store.Open(ctx, path)
	require.Error(t, err)
	assert.ErrorIs(t, err, store.ErrSchemaTooNew)
	assert.Contains(t, err.Error(), fmt.Sprintf("schema version %d", future))
}

func TestOpenOddPath(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "a dir?with#odd%chars", "refactord.db")
	s, err := store.Open(ctx, path)
	require.NoError(t, err)
	create(t, s, newRun("r1"))
	require.NoError(t, s.Close())

	assert.FileExists(t, path, "the database is at the given path, not at a truncated one")
	s, err = store.Open(ctx, path)
	require.NoError(t, err)
	defer func() { assert.NoError(t, s.Close()) }()
	_, err = s.Get(ctx, "r1")
	assert.NoError(t, err)
}

// fullRun sets every field, with times in a non-UTC zone and below
// millisecond precision, to check normalisation.
func fullRun(id string) refactor.Run {
	zone := time.FixedZone("CET", 3600)
	t0 := time.Date(2025, 3, 4, 5, 6, 7, 123456789, zone)
	fin, rel, rev := t0.Add(time.Minute), t0.Add(2*time.Minute), t0.Add(3*time.Minute)
	return refactor.Run{
		ID: id, Kind: refactor.RunKindRefactor, RequestID: "req-1", ClassName: "Foo",
		Selector: "bar:baz:", IsClassMethod: true, DryRun: true, RunTests: true,
		Status: refactor.StatusProposed, Stage: refactor.StageValidate, ErrorCode: "not_approved", ErrorMessage: "loop exhausted",
		OriginalSource: "bar: a baz: b\n\t^a + b", OriginalProtocol: "arithmetic",
		FinalSource: "bar: a baz: b\n\t^ a + b", Review: json.RawMessage(`{"severity":"LOW","issues":[]}`),
		Verdict: json.RawMessage(`{"verdict":"APPROVED"}`), Iterations: 2, ModelCalls: 5,
		InputTokens: 1234, OutputTokens: 567,
		Models:      json.RawMessage(`{"reviewer":"gemini-2.5-flash","writer":"m2"}`),
		Stages:      json.RawMessage(`[{"name":"review","duration_ms":12}]`),
		TestsBefore: json.RawMessage(`{"passed":3,"failed":0}`),
		TestsAfter:  json.RawMessage(`{"passed":3,"failed":0}`), RestoreFailed: true,
		Helpers:   []refactor.Helper{{Selector: "twice:", Protocol: "private", ClassSide: true, Source: "twice: a\n\t^ a + a"}},
		CreatedAt: t0, FinishedAt: &fin, ReleasedAt: &rel, RevertedAt: &rev,
		TraceID: "4bf92f3577b34da6a3ce929d0e0e4736",
	}
}

func testCreateGetRoundTripsEveryField(t *testing.T, open opener) {
	s := open(t)
	ctx := context.Background()
	in := fullRun("full")
	create(t, s, in)

	got, err := s.Get(ctx, "full")
	require.NoError(t, err)
	want := in
	want.CreatedAt, want.UpdatedAt = ms(in.CreatedAt), ms(in.CreatedAt)
	want.FinishedAt, want.ReleasedAt, want.RevertedAt = msPtr(*in.FinishedAt), msPtr(*in.ReleasedAt), msPtr(*in.RevertedAt)
	assert.Equal(t, want, got)
	assert.Equal(t, time.UTC, got.CreatedAt.Location())
}

func testCreateDefaultsAndNulls(t *testing.T, open opener) {
	s := open(t)
	ctx := context.Background()
	before := ms(time.Now())
	r := newRun("min")
	r.Review = json.RawMessage("null") // JSON null is stored as absent
	create(t, s, r)

	got, err := s.Get(ctx, "min")
	require.NoError(t, err)
	assert.False(t, got.CreatedAt.Before(before), "created_at defaults to now")
	assert.Equal(t, got.CreatedAt, got.UpdatedAt)
	assert.Nil(t, got.Review)
	assert.Nil(t, got.Stages)
	assert.Nil(t, got.FinishedAt)
	assert.Empty(t, got.RevertOf)
}

func testCreateRejects(t *testing.T, open opener) {
	s := open(t)
	create(t, s, newRun("taken"))
	revert := func(of string) refactor.Run {
		r := newRun("rv-" + of)
		r.Kind, r.RevertOf = refactor.RunKindRevert, of
		return r
	}
	tests := []struct {
		name string
		mod  func(*refactor.Run)
		run  refactor.Run
		want error
	}{
		{"duplicate id", nil, newRun("taken"), store.ErrDuplicate},
		{"empty id", nil, newRun(""), store.ErrInvalid},
		{"unknown kind", func(r *refactor.Run) { r.Kind = "rename" }, newRun("k"), store.ErrInvalid},
		{"unknown status", func(r *refactor.Run) { r.Status = "done" }, newRun("s"), store.ErrInvalid},
		{"empty class", func(r *refactor.Run) { r.ClassName = "" }, newRun("c"), store.ErrInvalid},
		{"negative tokens", func(r *refactor.Run) { r.InputTokens = -1 }, newRun("n"), store.ErrInvalid},
		{"bad json", func(r *refactor.Run) { r.Verdict = json.RawMessage(`{"verdict":`) }, newRun("j"), store.ErrInvalid},
		{"revert_of on a refactor", func(r *refactor.Run) { r.RevertOf = "taken" }, newRun("ro"), store.ErrInvalid},
		{"revert without revert_of", func(r *refactor.Run) { r.Kind = refactor.RunKindRevert }, newRun("rk"), store.ErrInvalid},
		{"revert of unknown run", nil, revert("ghost"), store.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.run
			if tt.mod != nil {
				tt.mod(&r)
			}
			err := s.Create(context.Background(), r)
			assert.ErrorIs(t, err, tt.want)
		})
	}
	t.Run("revert of a known run", func(t *testing.T) {
		create(t, s, revert("taken"))
		got, err := s.Get(context.Background(), "rv-taken")
		require.NoError(t, err)
		assert.Equal(t, "taken", got.RevertOf)
		assert.Equal(t, refactor.RunKindRevert, got.Kind)
	})
}

func testUpdateWritesMutableFieldsOnly(t *testing.T, open opener) {
	s := open(t)
	ctx := context.Background()
	created := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	orig := newRun("u1")
	orig.CreatedAt = created
	create(t, s, orig)

	upd := fullRun("u1")
	upd.Status = refactor.StatusFailed
	upd.Kind = refactor.RunKindRevert // immutable: ignored
	upd.CreatedAt = time.Now()        // immutable: ignored
	upd.Notes = "not via Update"      // owned by Reconcile
	require.NoError(t, s.Update(ctx, upd))

	got, err := s.Get(ctx, "u1")
	require.NoError(t, err)
	want := upd
	want.Kind, want.CreatedAt, want.Notes, want.RevertedAt = refactor.RunKindRefactor, created, "", nil
	want.FinishedAt, want.ReleasedAt = msPtr(*upd.FinishedAt), msPtr(*upd.ReleasedAt)
	want.UpdatedAt = got.UpdatedAt
	assert.Equal(t, want, got)
	assert.True(t, got.UpdatedAt.After(created), "updated_at is set on update")
}

func testUpdateKeepsWriteAheadSources(t *testing.T, open opener) {
	s := open(t)
	ctx := context.Background()
	stale := newRun("wa")
	create(t, s, stale)
	require.NoError(t, s.BeginRelease(ctx, "wa", "m ^1", "accessing", "m ^2", nil))

	stale.Status = refactor.StatusReleased // a Run value from before BeginRelease
	require.NoError(t, s.Update(ctx, stale))

	got, err := s.Get(ctx, "wa")
	require.NoError(t, err)
	assert.Equal(t, refactor.StatusReleased, got.Status)
	assert.Equal(t, "m ^1", got.OriginalSource)
	assert.Equal(t, "accessing", got.OriginalProtocol)
	assert.Equal(t, "m ^2", got.FinalSource)
}

func testUpdateRejects(t *testing.T, open opener) {
	s := open(t)
	released(t, s, "rel")
	require.NoError(t, s.MarkReverted(context.Background(), "rel", time.Time{}))
	tests := []struct {
		name string
		run  refactor.Run
		want error
	}{
		{"absent", newRun("ghost"), store.ErrNotFound},
		{"reverted row", newRun("rel"), store.ErrWrongStatus},
		{"status reverted", func() refactor.Run { r := newRun("rel"); r.Status = refactor.StatusReverted; return r }(), store.ErrInvalid},
		{"oversize", func() refactor.Run { r := newRun("rel"); r.FinalSource = big(store.MaxSourceBytes + 1); return r }(), store.ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.ErrorIs(t, s.Update(context.Background(), tt.run), tt.want)
		})
	}
}

func testNotFound(t *testing.T, open opener) {
	s := open(t)
	ctx := context.Background()
	_, err := s.Get(ctx, "nope")
	assert.ErrorIs(t, err, store.ErrNotFound)
	assert.ErrorIs(t, s.Update(ctx, newRun("nope")), store.ErrNotFound)
	assert.ErrorIs(t, s.BeginRelease(ctx, "nope", "a", "", "b", nil), store.ErrNotFound)
	assert.ErrorIs(t, s.MarkReverted(ctx, "nope", time.Now()), store.ErrNotFound)
	assert.ErrorIs(t, s.Reconcile(ctx, "nope", refactor.StatusConflict, ""), store.ErrNotFound)
}

func testBeginRelease(t *testing.T, open opener) {
	s := open(t)
	ctx := context.Background()
	create(t, s, newRun("br"))
	require.NoError(t, s.BeginRelease(ctx, "br", "m ^1", "accessing", "m ^2", nil))

	got, err := s.Get(ctx, "br")
	require.NoError(t, err)
	assert.Equal(t, refactor.StatusReleasing, got.Status)
	assert.Equal(t, "m ^1", got.OriginalSource)
	assert.Equal(t, "accessing", got.OriginalProtocol)
	assert.Equal(t, "m ^2", got.FinalSource)

	err = s.BeginRelease(ctx, "br", "m ^1", "accessing", "m ^2", nil)
	assert.ErrorIs(t, err, store.ErrWrongStatus, "only a running run starts a release")
	create(t, s, newRun("br2"))
	assert.ErrorIs(t, s.BeginRelease(ctx, "br2", "", "p", "m ^2", nil), store.ErrInvalid)
	assert.ErrorIs(t, s.BeginRelease(ctx, "br2", "m", "p", "", nil), store.ErrInvalid)
}

func testUnsettledOldestFirst(t *testing.T, open opener) {
	s := open(t)
	ctx := context.Background()
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, id := range []string{"c", "a", "b", "idle"} {
		r := newRun(id)
		r.CreatedAt = base.Add(time.Duration(i) * time.Second)
		create(t, s, r)
		if id != "idle" {
			require.NoError(t, s.BeginRelease(ctx, id, "m ^1", "p", "m ^2", nil))
		}
	}
	require.NoError(t, s.Reconcile(ctx, "a", refactor.StatusNotReleased, ""))

	got, err := s.Unsettled(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"c", "b", "idle"}, ids(got), "releasing and running rows, oldest first; the settled one is not")
	assert.Equal(t, "m ^1", got[0].OriginalSource)
}

func testReconcile(t *testing.T, open opener) {
	tests := []struct {
		status   refactor.Status
		released bool
	}{
		{refactor.StatusReleased, true},
		{refactor.StatusNotReleased, false},
		{refactor.StatusConflict, false},
	}
	for _, tt := range tests {
		t.Run(string(tt.status), func(t *testing.T) {
			s := open(t)
			ctx := context.Background()
			create(t, s, newRun("r"))
			require.NoError(t, s.BeginRelease(ctx, "r", "m ^1", "p", "m ^2", nil))
			require.NoError(t, s.Reconcile(ctx, "r", tt.status, "image holds something else"))

			got, err := s.Get(ctx, "r")
			require.NoError(t, err)
			assert.Equal(t, tt.status, got.Status)
			assert.Equal(t, tt.released, got.ReleasedAt != nil)
			assert.NotNil(t, got.FinishedAt)
			assert.Contains(t, got.Notes, "reconciled as "+string(tt.status)+": image holds something else")
			assert.Equal(t, "m ^1", got.OriginalSource, "sources stay for the operator")

			err = s.Reconcile(ctx, "r", tt.status, "again")
			assert.ErrorIs(t, err, store.ErrWrongStatus, "only a releasing run is reconciled")
		})
	}
	t.Run("bad target status", func(t *testing.T) {
		s := open(t)
		create(t, s, newRun("r"))
		assert.ErrorIs(t, s.Reconcile(context.Background(), "r", refactor.StatusFailed, ""), store.ErrInvalid)
	})
}

func testMarkReverted(t *testing.T, open opener) {
	s := open(t)
	ctx := context.Background()
	released(t, s, "rel")
	at := time.Date(2025, 6, 1, 12, 0, 0, 987654321, time.UTC)
	require.NoError(t, s.MarkReverted(ctx, "rel", at))

	got, err := s.Get(ctx, "rel")
	require.NoError(t, err)
	assert.Equal(t, refactor.StatusReverted, got.Status)
	require.NotNil(t, got.RevertedAt)
	assert.Equal(t, ms(at), *got.RevertedAt)

	assert.ErrorIs(t, s.MarkReverted(ctx, "rel", at), store.ErrNotRevertible, "twice")
	create(t, s, newRun("running"))
	assert.ErrorIs(t, s.MarkReverted(ctx, "running", at), store.ErrNotRevertible, "never released")
}

func testMarkRevertedConcurrentlyExactlyOneWins(t *testing.T, open opener) {
	s := open(t)
	released(t, s, "rel")
	const n = 16
	errs := make(chan error, n)
	start := make(chan struct{})
	for range n {
		go func() {
			<-start
			errs <- s.MarkReverted(context.Background(), "rel", time.Now())
		}()
	}
	close(start)
	wins, losses := 0, 0
	for range n {
		err := <-errs
		switch {
		case err == nil:
			wins++
		case assert.ErrorIs(t, err, store.ErrNotRevertible):
			losses++
		}
	}
	assert.Equal(t, 1, wins)
	assert.Equal(t, n-1, losses)
}

func big(n int) string { return strings.Repeat("x", n) }

func testOversizeRejected(t *testing.T, open opener) {
	s := open(t)
	ctx := context.Background()
	create(t, s, newRun("ok"))
	hugeJSON := json.RawMessage(`"` + big(store.MaxJSONBytes) + `"`)
	tests := []struct {
		name string
		op   func() error
	}{
		{"create original_source", func() error {
			r := newRun("a")
			r.OriginalSource = big(store.MaxSourceBytes + 1)
			return s.Create(ctx, r)
		}},
		{"create review", func() error { r := newRun("b"); r.Review = hugeJSON; return s.Create(ctx, r) }},
		{"create error_message", func() error {
			r := newRun("c")
			r.ErrorMessage = big(store.MaxTextBytes + 1)
			return s.Create(ctx, r)
		}},
		{"create id", func() error { return s.Create(ctx, newRun(big(store.MaxNameBytes+1))) }},
		{"update stages", func() error { r := newRun("ok"); r.Stages = hugeJSON; return s.Update(ctx, r) }},
		{"begin release final", func() error {
			return s.BeginRelease(ctx, "ok", "m", "p", big(store.MaxSourceBytes+1), nil)
		}},
		{"reconcile note", func() error {
			return s.Reconcile(ctx, "ok", refactor.StatusConflict, big(store.MaxTextBytes+1))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.op()
			assert.ErrorIs(t, err, store.ErrTooLarge)
			assert.ErrorContains(t, err, "limit")
		})
	}
	t.Run("at the limit", func(t *testing.T) {
		r := newRun("max")
		r.OriginalSource, r.FinalSource = big(store.MaxSourceBytes), big(store.MaxSourceBytes)
		assert.NoError(t, s.Create(ctx, r))
	})
}

func TestRunJSON(t *testing.T) {
	t.Parallel()
	r := fullRun("j")
	r.CreatedAt = time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	r.UpdatedAt = r.CreatedAt
	r.ReleasedAt = nil
	r.Rounds = json.RawMessage(`[{"iteration":1,"code":"bar: a baz: b\n\t^ a + b","check_errors":[],"helpers":[]}]`)
	r.Equivalence = json.RawMessage(`{"outcome":"same","activations":3,"recorded":2,"generated":9,"compared":11,"unstable":0}`)
	b, err := json.Marshal(r)
	require.NoError(t, err)

	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(b, &m))
	assert.JSONEq(t, `"2025-03-04T05:06:07.000Z"`, string(m["created_at"]))
	assert.JSONEq(t, `"2025-03-04T04:07:07.123Z"`, string(m["finished_at"]), "UTC, milliseconds")
	assert.JSONEq(t, `null`, string(m["released_at"]), "unset times are null")
	assert.JSONEq(t, `{"verdict":"APPROVED"}`, string(m["verdict"]), "documents are embedded")
	assert.JSONEq(t, string(r.Rounds), string(m["rounds"]), "the rounds are embedded")
	assert.JSONEq(t, string(r.Equivalence), string(m["equivalence"]), "the comparison is embedded")
	assert.Len(t, m, 41, "every field is present")

	var back refactor.Run
	require.NoError(t, json.Unmarshal(b, &back))
	want := r
	want.FinishedAt, want.RevertedAt = msPtr(*r.FinishedAt), msPtr(*r.RevertedAt)
	assert.Equal(t, want, back)

	empty, err := json.Marshal(newRun("e"))
	require.NoError(t, err)
	assert.Contains(t, string(empty), `"review":null`)
	assert.Contains(t, string(empty), `"rounds":null`)
	assert.Contains(t, string(empty), `"equivalence":null`)
	assert.Contains(t, string(empty), `"helpers":[]`, "a list, never null")
}

func ids(runs []refactor.Run) []string {
	out := make([]string, 0, len(runs))
	for _, r := range runs {
		out = append(out, r.ID)
	}
	return out
}
