package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/wire"
)

// Unit tests of the client's own logic: no service needed.

// fakeClock advances only when the code sleeps.
type fakeClock struct {
	now    time.Time
	sleeps []time.Duration
}

func (f *fakeClock) install(d *deps) {
	d.now = func() time.Time { return f.now }
	d.sleep = func(_ context.Context, dur time.Duration) error {
		f.sleeps = append(f.sleeps, dur)
		f.now = f.now.Add(dur)
		return nil
	}
}

func TestBusyDelay(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name       string
		retryAfter string
		round      int
		jitter     func(time.Duration) time.Duration
		want       time.Duration
	}{
		{"Retry-After seconds, no jitter", "3", 0, noJitter, 3 * time.Second},
		{"Retry-After seconds, full jitter is 25%", "4", 7, fullJitter, 5 * time.Second},
		{"Retry-After as an HTTP date", now.Add(10 * time.Second).Format(http.TimeFormat), 0, noJitter, 10 * time.Second},
		{"no header: 1s first", "", 0, noJitter, time.Second},
		{"no header: doubling", "", 3, noJitter, 8 * time.Second},
		{"no header: capped at 30s", "", 9, noJitter, 30 * time.Second},
		{"no header: jitter on top of the cap", "", 9, fullJitter, 30*time.Second + 7500*time.Millisecond},
		{"garbage header counts as none", "soon", 1, noJitter, 2 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl := &client{deps: deps{now: func() time.Time { return now }, jitter: tt.jitter}}
			assert.Equal(t, tt.want, cl.busyDelay(tt.retryAfter, tt.round))
		})
	}
}

func noJitter(time.Duration) time.Duration     { return 0 }
func fullJitter(d time.Duration) time.Duration { return d }

func TestRandomJitterStaysInRange(t *testing.T) {
	for i := 0; i < 1000; i++ {
		j := randomJitter(time.Second)
		require.GreaterOrEqual(t, j, time.Duration(0))
		require.LessOrEqual(t, j, time.Second)
	}
	assert.Zero(t, randomJitter(0))
}

// busyServer answers 503 busy `refusals` times, then 200 with a body.
func busyServer(t *testing.T, refusals int32, retryAfter string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) <= refusals {
			if retryAfter != "" {
				w.Header().Set("Retry-After", retryAfter)
			}
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, `{"status":503,"code":"busy","detail":"Agent is busy","request_id":"x"}`)
			return
		}
		fmt.Fprint(w, `{"runs":[],"next_cursor":""}`)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func TestSendWaitsOutBusyWithinWaitMax(t *testing.T) {
	tests := []struct {
		name       string
		refusals   int32
		retryAfter string
		waitMax    time.Duration
		wantSleeps []time.Duration
		wantBusy   bool
	}{
		{"succeeds after two refusals", 2, "2", time.Minute, []time.Duration{2 * time.Second, 2 * time.Second}, false},
		{"the last wait is cut to what --wait-max leaves", 100, "4", 10 * time.Second,
			[]time.Duration{4 * time.Second, 4 * time.Second, 2 * time.Second}, true},
		{"wait-max 0 does not wait", 100, "4", 0, nil, true},
		{"no header: exponential backoff", 3, "", time.Hour, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, calls := busyServer(t, tt.refusals, tt.retryAfter)
			c := newCLI(nil, strings.NewReader(""), io.Discard, io.Discard)
			clock := &fakeClock{now: time.Unix(0, 0)}
			clock.install(&c.deps)
			c.deps.jitter = noJitter
			var notes []string
			cl := c.newClient(options{url: srv.URL, waitMax: tt.waitMax, timeout: time.Second}, func(s string) { notes = append(notes, s) })
			resp, err := cl.send(context.Background(), call{method: http.MethodGet, path: "/", requestID: "r", waitBusy: true, idempotent: true})
			assert.Equal(t, tt.wantSleeps, clock.sleeps)
			assert.Len(t, notes, len(tt.wantSleeps), "one notice per wait")
			if tt.wantBusy {
				var be *busyError
				require.ErrorAs(t, err, &be)
				assert.Equal(t, exitBusy, exitCode(err))
				assert.Equal(t, int32(len(tt.wantSleeps)+1), calls.Load())
				return
			}
			require.NoError(t, err)
			_ = resp.Body.Close()
			assert.Equal(t, http.StatusOK, resp.StatusCode)
		})
	}
}

// TestARunIsNotResentAfterAnAmbiguousFailure: a POST whose connection broke
// after it was sent is not repeated (the run may have started); a GET is.
func TestARunIsNotResentAfterAnAmbiguousFailure(t *testing.T) {
	tests := []struct {
		name       string
		idempotent bool
		wantCalls  int32
	}{
		{"run (POST)", false, 1},
		{"read (GET)", true, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				conn, _, err := w.(http.Hijacker).Hijack()
				if err == nil {
					_ = conn.Close() // the connection dies before any answer
				}
			}))
			t.Cleanup(srv.Close)
			c := newCLI(nil, strings.NewReader(""), io.Discard, io.Discard)
			(&fakeClock{now: time.Unix(0, 0)}).install(&c.deps)
			cl := c.newClient(options{url: srv.URL, retries: 2, timeout: time.Second}, nil)
			_, err := cl.send(context.Background(), call{method: http.MethodPost, path: "/", requestID: "r", idempotent: tt.idempotent})
			var ue *unreachableError
			require.ErrorAs(t, err, &ue)
			assert.Equal(t, exitUnreachable, exitCode(err))
			assert.Equal(t, tt.wantCalls, calls.Load())
			assert.Equal(t, !tt.idempotent, ue.maybeSent)
		})
	}
}

func TestExitCodes(t *testing.T) {
	api := func(status int, code string) error {
		return &apiError{Status: status, Problem: wire.Problem{Status: status, Code: code}}
	}
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"success", nil, exitOK},
		{"not approved", api(422, "not_approved"), exitNotApproved},
		{"tests regressed", api(422, "tests_regressed"), exitTestsRegressed},
		{"method changed", api(409, "method_changed"), exitConflict},
		{"conflict", api(409, "conflict"), exitConflict},
		{"another 409", api(409, ""), exitConflict},
		{"server-side invalid request is a failure", api(422, "invalid_request"), exitFailure},
		{"unauthorized", api(401, "unauthorized"), exitFailure},
		{"model unavailable", api(502, "model_unavailable"), exitFailure},
		{"still busy", &busyError{}, exitBusy},
		{"unreachable", &unreachableError{err: errors.New("refused")}, exitUnreachable},
		{"dropped stream", &droppedError{runID: "r", err: io.EOF}, exitUnreachable},
		{"usage", usagef("bad"), exitUsage},
		{"reported keeps the code", reported(api(422, "not_approved")), exitNotApproved},
		{"interrupted", fmt.Errorf("interrupted: %w", context.Canceled), exitFailure},
		{"batch", reported(&batchErr{code: 6}), exitConflict},
		{"anything else", errors.New("boom"), exitFailure},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, exitCode(tt.err))
		})
	}
}

func TestBatchCodeIsTheWorst(t *testing.T) {
	runs := func(errs ...error) []methodRun {
		var out []methodRun
		for _, e := range errs {
			out = append(out, methodRun{err: e})
		}
		return out
	}
	notApproved := &apiError{Status: 422, Problem: wire.Problem{Code: "not_approved"}}
	changed := &apiError{Status: 409, Problem: wire.Problem{Code: "method_changed"}}
	assert.Equal(t, exitOK, batchCode(runs(nil, nil), false))
	assert.Equal(t, exitNotApproved, batchCode(runs(nil, notApproved, nil), false))
	assert.Equal(t, exitConflict, batchCode(runs(changed, notApproved), false))
	assert.Equal(t, exitUnreachable, batchCode(runs(&unreachableError{err: io.EOF}, changed), false))
	assert.Equal(t, exitFailure, batchCode(runs(nil), true), "an interrupted batch failed")
}

func TestParseBatch(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		classSide bool
		want      []string
		wantErr   string
	}{
		{name: "both sides, comments, blanks, spaces", in: "# header\n\nFoo>>bar\n  Foo class>>new  \nFoo >> at:put: # trailing\nFoo>>+\n",
			want: []string{"Foo>>bar", "Foo class>>new", "Foo>>at:put:", "Foo>>+"}},
		{name: "CRLF", in: "Foo>>bar\r\nBaz>>qux\r\n", want: []string{"Foo>>bar", "Baz>>qux"}},
		{name: "--class-side applies to every line", in: "Foo>>new\n", classSide: true, want: []string{"Foo class>>new"}},
		{name: "no separator", in: "Foo bar\n", wantErr: "line 1"},
		{name: "every bad line is named", in: "Foo>>ok\nfoo>>bar\nFoo>>has space\n", wantErr: "line 2: \"foo\" is not a class name (a capital letter, then letters, digits or _)\n  line 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			methods, err := parseBatch(strings.NewReader(tt.in), tt.classSide)
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				assert.Equal(t, exitUsage, exitCode(err))
				return
			}
			require.NoError(t, err)
			var got []string
			for _, m := range methods {
				got = append(got, m.String())
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestMethodArgs(t *testing.T) {
	tests := []struct {
		name      string
		args      []string
		classSide bool
		want      refactor.MethodRef
		wantErr   bool
	}{
		{name: "two arguments", args: []string{"Calculator", "sum:with:"}, want: refactor.MethodRef{Class: "Calculator", Selector: "sum:with:"}},
		{name: "one argument", args: []string{"Calculator>>sum:with:"}, want: refactor.MethodRef{Class: "Calculator", Selector: "sum:with:"}},
		{name: "class side in the class", args: []string{"Calculator class", "compute:with:operation:"}, want: refactor.MethodRef{Class: "Calculator", Selector: "compute:with:operation:", ClassSide: true}},
		{name: "class side by flag", args: []string{"Calculator", "new"}, classSide: true, want: refactor.MethodRef{Class: "Calculator", Selector: "new", ClassSide: true}},
		{name: "binary selector", args: []string{"Point", "->"}, want: refactor.MethodRef{Class: "Point", Selector: "->"}},
		{name: "Pharo 13 binary selector", args: []string{"Point", "±"}, want: refactor.MethodRef{Class: "Point", Selector: "±"}},
		{name: "keyword without colon", args: []string{"Calculator", "sum:with"}, wantErr: true},
		{name: "selector over the domain's limit", args: []string{"Calculator", strings.Repeat("a", 257)}, wantErr: true}, // the domain accepts 256
		{name: "none", args: nil, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := methodArgs(tt.args, tt.classSide)
			if tt.wantErr {
				assert.Equal(t, exitUsage, exitCode(err))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseInterspersed(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantPos []string
		wantDry bool
	}{
		{"flags after positionals", []string{"Foo", "bar", "--dry-run"}, []string{"Foo", "bar"}, true},
		{"flags between", []string{"Foo", "--dry-run", "bar"}, []string{"Foo", "bar"}, true},
		{"double dash ends flags", []string{"Foo", "--", "--dry-run"}, []string{"Foo", "--dry-run"}, false},
		{"a binary selector after --", []string{"--dry-run", "Point", "--", "->"}, []string{"Point", "->"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var o options
			fs := newFlagSet("t")
			refactorFlags(fs, &o)
			pos, err := parseInterspersed(fs, tt.args)
			require.NoError(t, err)
			assert.Equal(t, tt.wantPos, pos)
			assert.Equal(t, tt.wantDry, o.dryRun)
		})
	}
}

func TestSSEReader(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []sseEvent
		wantErr error
	}{
		{name: "the service's format", in: "id: 1\nevent: accepted\ndata: {\"id\":\"a\"}\n\n: keep-alive\n\nid: 2\nevent: result\ndata: {}\n\n",
			want: []sseEvent{{"1", "accepted", []byte(`{"id":"a"}`)}, {"2", "result", []byte(`{}`)}}, wantErr: io.EOF},
		{name: "CRLF, no space, multi-line data", in: "event:x\r\ndata:a\r\ndata: b\r\n\r\n",
			want: []sseEvent{{"", "x", []byte("a\nb")}}, wantErr: io.EOF},
		{name: "cut off inside an event", in: "id: 1\nevent: stage\ndata: {}\n",
			wantErr: io.ErrUnexpectedEOF},
		{name: "data without a name is a message", in: "data: 1\n\n", want: []sseEvent{{"", "message", []byte("1")}}, wantErr: io.EOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newSSEReader(strings.NewReader(tt.in))
			var got []sseEvent
			var err error
			for {
				var ev sseEvent
				if ev, err = r.next(); err != nil {
					break
				}
				got = append(got, ev)
			}
			assert.ErrorIs(t, err, tt.wantErr)
			require.Len(t, got, len(tt.want))
			for i := range got {
				assert.Equal(t, tt.want[i].ID, got[i].ID)
				assert.Equal(t, tt.want[i].Name, got[i].Name)
				assert.Equal(t, string(tt.want[i].Data), string(got[i].Data))
			}
		})
	}
}

// TestProgressOnATerminal: passing steps rewrite one status line; lasting
// ones end it. Elsewhere every event is its own line (TestStreamTwoRoundRun).
func TestProgressOnATerminal(t *testing.T) {
	var buf strings.Builder
	now := time.Unix(100, 0)
	p := &progress{w: &buf, tty: true, now: func() time.Time { return now }, start: now}
	p.event(sseEvent{Name: "stage", Data: []byte(`{"name":"review","status":"started"}`)})
	p.event(sseEvent{Name: "model_call", Data: []byte(`{"role":"reviewer","calls":2,"input_tokens":5,"output_tokens":6}`)})
	now = now.Add(3200 * time.Millisecond)
	p.event(sseEvent{Name: "stage", Data: []byte(`{"name":"review","status":"finished","duration_ms":3200}`)})
	p.event(sseEvent{Name: "verdict", Data: []byte(`{"iteration":1,"verdict":"NEEDS_IMPROVEMENT","feedback":"Name\nthings."}`)})
	p.done()
	assert.Equal(t, "\r\033[K[  0.0s] review started"+
		"\r\033[K[  0.0s] reviewer answered (2 model calls, 5→6 tokens)"+
		"\r\033[K[  3.2s] review finished (2 model calls, 3.2s)\n"+
		"[  3.2s] round 1: NEEDS_IMPROVEMENT — Name things.\n", buf.String())
}

func TestQuietPrintsNoProgress(t *testing.T) {
	var buf strings.Builder
	p := &progress{w: &buf, quiet: true, now: time.Now, start: time.Now()}
	p.event(sseEvent{Name: "accepted", Data: []byte(`{"id":"x"}`)})
	p.note("busy")
	assert.Empty(t, buf.String())
}

func TestIsTerminal(t *testing.T) {
	assert.False(t, isTerminal(&strings.Builder{}), "not a file")
	f, err := os.CreateTemp(t.TempDir(), "out")
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.Close() })
	assert.False(t, isTerminal(f), "a regular file")
}
