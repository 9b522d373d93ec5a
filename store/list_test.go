package store_test

import (
	"context"
	"encoding/base64"
	"fmt"
	refactor "github.com/pharo-refactor/refactord"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/store"
)

var listBase = time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC)

// seed creates n runs, two per second (so created_at ties are broken by id),
// alternating classes Foo/Bar and statuses failed/proposed, and returns
// their ids newest first.
func seed(t *testing.T, s *store.Store, n int) []string {
	t.Helper()
	newest := make([]string, n)
	for i := range n {
		r := newRun(fmt.Sprintf("run-%03d", i))
		r.CreatedAt = listBase.Add(time.Duration(i/2) * time.Second)
		r.ClassName = map[bool]string{true: "Foo", false: "Bar"}[i%2 == 0]
		r.Status = map[bool]refactor.Status{true: refactor.StatusFailed, false: refactor.StatusProposed}[i%3 == 0]
		create(t, s, r)
		newest[n-1-i] = r.ID
	}
	return newest
}

func testListNewestFirstWithFilters(t *testing.T, open opener) {
	s := open(t)
	all := seed(t, s, 12)
	keep := func(pred func(i int) bool) []string {
		var out []string
		for i := 11; i >= 0; i-- {
			if pred(i) {
				out = append(out, fmt.Sprintf("run-%03d", i))
			}
		}
		return out
	}
	tests := []struct {
		name string
		q    refactor.ListQuery
		want []string
	}{
		{"all", refactor.ListQuery{}, all},
		{"class", refactor.ListQuery{ClassName: "Foo"}, keep(func(i int) bool { return i%2 == 0 })},
		{"status", refactor.ListQuery{Status: refactor.StatusFailed}, keep(func(i int) bool { return i%3 == 0 })},
		{"class and status", refactor.ListQuery{ClassName: "Bar", Status: refactor.StatusFailed},
			keep(func(i int) bool { return i%2 == 1 && i%3 == 0 })},
		{"no match", refactor.ListQuery{ClassName: "Baz"}, []string{}},
		{"limit", refactor.ListQuery{Limit: 3}, all[:3]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := s.List(context.Background(), tt.q)
			require.NoError(t, err)
			assert.Equal(t, tt.want, ids(p.Runs))
		})
	}
}

func testListLimits(t *testing.T, open opener) {
	s := open(t)
	seed(t, s, refactor.MaxLimit+5)
	tests := []struct {
		limit, want int
	}{{0, refactor.DefaultLimit}, {7, 7}, {refactor.MaxLimit + 1, refactor.MaxLimit}}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.limit), func(t *testing.T) {
			p, err := s.List(context.Background(), refactor.ListQuery{Limit: tt.limit})
			require.NoError(t, err)
			assert.Len(t, p.Runs, tt.want)
			assert.NotEmpty(t, p.NextCursor)
		})
	}
	_, err := s.List(context.Background(), refactor.ListQuery{Limit: -1})
	assert.ErrorIs(t, err, store.ErrInvalid)
	_, err = s.List(context.Background(), refactor.ListQuery{Status: "done"})
	assert.ErrorIs(t, err, store.ErrInvalid)
}

// TestListPagesAreStableUnderInserts walks every page while newer runs keep
// arriving: the walk yields exactly the rows that existed at the start, in
// order, each once.
func testListPagesAreStableUnderInserts(t *testing.T, open opener) {
	for _, q := range []refactor.ListQuery{{Limit: 4}, {Limit: 5, ClassName: "Foo"}} {
		t.Run(fmt.Sprintf("%+v", q), func(t *testing.T) {
			s := open(t)
			all := seed(t, s, 23)
			want := all
			if q.ClassName != "" {
				want = nil
				for _, id := range all {
					r, err := s.Get(context.Background(), id)
					require.NoError(t, err)
					if r.ClassName == q.ClassName {
						want = append(want, id)
					}
				}
			}
			got := walk(t, s, q, func(page int) {
				r := newRun(fmt.Sprintf("late-%d", page))
				r.ClassName = "Foo"
				r.CreatedAt = listBase.Add(time.Hour + time.Duration(page)*time.Second)
				create(t, s, r)
			})
			assert.Equal(t, want, got)
		})
	}
}

// walk follows NextCursor to the end, calling between after each page.
func walk(t *testing.T, s *store.Store, q refactor.ListQuery, between func(page int)) []string {
	t.Helper()
	var got []string
	for page := 0; ; page++ {
		require.Less(t, page, 100, "pagination does not terminate")
		p, err := s.List(context.Background(), q)
		require.NoError(t, err)
		assert.LessOrEqual(t, len(p.Runs), q.Limit)
		got = append(got, ids(p.Runs)...)
		if p.NextCursor == "" {
			return got
		}
		between(page)
		q.Cursor = p.NextCursor
	}
}

func testListBadCursor(t *testing.T, open opener) {
	s := open(t)
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	for _, c := range []string{
		"%%%not-base64",
		enc("no separator"),
		enc("2025-01-01T00:00:00.000Z|"),
		enc("yesterday|run-1"),
		enc("2025-01-01T00:00:00Z|run-1"), // not the canonical form
	} {
		t.Run(c, func(t *testing.T) {
			_, err := s.List(context.Background(), refactor.ListQuery{Cursor: c})
			assert.ErrorIs(t, err, store.ErrBadCursor)
		})
	}
}

// TestConcurrentReadersDuringWrites runs readers against one writer; under
// -race it also checks the Store itself for data races.
func testConcurrentReadersDuringWrites(t *testing.T, open opener) {
	s := open(t)
	ctx := context.Background()
	const writes = 40
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				p, err := s.List(ctx, refactor.ListQuery{Limit: 10})
				if !assert.NoError(t, err) {
					return
				}
				for i := 1; i < len(p.Runs); i++ {
					assert.False(t, p.Runs[i].CreatedAt.After(p.Runs[i-1].CreatedAt), "newest first")
				}
				if len(p.Runs) > 0 {
					_, err := s.Get(ctx, p.Runs[0].ID)
					assert.NoError(t, err)
				}
			}
		})
	}
	for i := range writes {
		r := newRun(fmt.Sprintf("w-%03d", i))
		require.NoError(t, s.Create(ctx, r))
		r.Status, r.Iterations = refactor.StatusProposed, 1
		require.NoError(t, s.Update(ctx, r))
	}
	close(done)
	wg.Wait()

	p, err := s.List(ctx, refactor.ListQuery{Limit: refactor.MaxLimit})
	require.NoError(t, err)
	assert.Len(t, p.Runs, writes)
}
