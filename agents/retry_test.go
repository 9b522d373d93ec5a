package agents

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// script is an httptest handler answering from a list of replies and
// recording when each request arrived.
type script struct {
	mu      sync.Mutex
	replies []func(w http.ResponseWriter, r *http.Request)
	arrived []time.Time
	bodies  []string
}

func (s *script) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	n := len(s.arrived)
	s.arrived = append(s.arrived, time.Now())
	s.bodies = append(s.bodies, string(body))
	reply := s.replies[min(n, len(s.replies)-1)]
	s.mu.Unlock()
	reply(w, r)
}

func (s *script) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.arrived)
}

func status(code int, header ...string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, _ *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.WriteHeader(code)
		_, _ = io.WriteString(w, `{"error": {"code": `+http.StatusText(code)+`}}`)
	}
}

func ok(body string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, body) }
}

func fastPolicy() RetryPolicy {
	return RetryPolicy{MaxRetries: 3, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond, AttemptTimeout: 5 * time.Second}
}

// fakeClock is a retryClock that never waits: it records each wait and
// moves its time on by it, so retry tests see exact waits at once.
type fakeClock struct {
	mu    sync.Mutex
	now   time.Time
	waits []time.Duration
}

// newFakeClock starts at the wall time, whole seconds (HTTP dates have no
// fractions), so that a request context's real deadline still applies.
func newFakeClock() *fakeClock { return &fakeClock{now: time.Now().Truncate(time.Second)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.waits = append(c.waits, d)
	c.now = c.now.Add(d)
	return ctx.Err()
}

func (c *fakeClock) recorded() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.waits...)
}

func post(ctx context.Context, t *testing.T, c *http.Client, url string) (*http.Response, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(`{"q": 1}`))
	require.NoError(t, err)
	return c.Do(req)
}

func TestRetryTransport(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		replies  []func(http.ResponseWriter, *http.Request)
		status   int
		requests int
	}{
		{"success at once", []func(http.ResponseWriter, *http.Request){ok("fine")}, 200, 1},
		{"500 then success", []func(http.ResponseWriter, *http.Request){status(500), ok("fine")}, 200, 2},
		{"503 and 502 then success", []func(http.ResponseWriter, *http.Request){status(503), status(502), ok("fine")}, 200, 3},
		{"persistent 500 stops after MaxRetries", []func(http.ResponseWriter, *http.Request){status(500)}, 500, 4},
		{"429 without a header", []func(http.ResponseWriter, *http.Request){status(429), ok("fine")}, 200, 2},
		{"400 is not retried", []func(http.ResponseWriter, *http.Request){status(400)}, 400, 1},
		{"401 is not retried", []func(http.ResponseWriter, *http.Request){status(401)}, 401, 1},
		{"403 is not retried", []func(http.ResponseWriter, *http.Request){status(403)}, 403, 1},
		{"501 is not retried", []func(http.ResponseWriter, *http.Request){status(501)}, 501, 1},
		{"a Retry-After beyond MaxRetryAfter ends the retries", []func(http.ResponseWriter, *http.Request){status(429, "Retry-After", "3600"), ok("fine")}, 429, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := &script{replies: tc.replies}
			srv := httptest.NewServer(s)
			defer srv.Close()
			clock := newFakeClock()
			p := fastPolicy()
			resp, err := post(context.Background(), t, p.clientWith(nil, clock), srv.URL)
			require.NoError(t, err)
			defer resp.Body.Close()
			assert.Equal(t, tc.status, resp.StatusCode)
			assert.Equal(t, tc.requests, s.count())
			waits := clock.recorded()
			require.Len(t, waits, tc.requests-1, "one wait before each retry")
			for i, w := range waits {
				full := min(p.BaseDelay<<i, p.MaxDelay)
				assert.GreaterOrEqual(t, w, full/2, "retry %d: half the backoff is fixed", i+1)
				assert.LessOrEqual(t, w, full, "retry %d: the backoff doubles up to MaxDelay", i+1)
			}
			for _, b := range s.bodies {
				assert.Equal(t, `{"q": 1}`, b, "every attempt sends the whole body")
			}
		})
	}
}

func TestRetryAfterIsHonoured(t *testing.T) {
	t.Parallel()
	type reply = func(http.ResponseWriter, *http.Request)
	cases := []struct {
		name  string
		reply func(clock *fakeClock) reply
		wait  time.Duration
	}{
		{"Retry-After in seconds", func(*fakeClock) reply { return status(429, "Retry-After", "1") }, time.Second},
		{"Retry-After in fractional seconds", func(*fakeClock) reply { return status(503, "Retry-After", "0.25") }, 250 * time.Millisecond},
		{"Retry-After as an HTTP date", func(clock *fakeClock) reply {
			return status(503, "Retry-After", clock.Now().Add(7*time.Second).UTC().Format(http.TimeFormat))
		}, 7 * time.Second},
		{"Retry-After date in the past", func(*fakeClock) reply {
			return status(503, "Retry-After", "Mon, 02 Jan 2006 15:04:05 GMT")
		}, 0},
		{"Google RetryInfo", func(*fakeClock) reply {
			return func(w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(429)
				_, _ = io.WriteString(w, `{"error": {"code": 429, "status": "RESOURCE_EXHAUSTED", "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "1.5s"}]}}`)
			}
		}, 1500 * time.Millisecond},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clock := newFakeClock()
			s := &script{replies: []reply{tc.reply(clock), ok("fine")}}
			srv := httptest.NewServer(s)
			defer srv.Close()
			resp, err := post(context.Background(), t, fastPolicy().clientWith(nil, clock), srv.URL)
			require.NoError(t, err)
			resp.Body.Close()
			require.Equal(t, 2, s.count())
			assert.Equal(t, []time.Duration{tc.wait}, clock.recorded(), "the retry waits exactly what the server asked")
		})
	}
}

func TestRetryNeverWaitsPastTheDeadline(t *testing.T) {
	t.Parallel()
	s := &script{replies: []func(http.ResponseWriter, *http.Request){status(503, "Retry-After", "30"), ok("fine")}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	clock := newFakeClock()
	resp, err := post(ctx, t, fastPolicy().clientWith(nil, clock), srv.URL)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 503, resp.StatusCode, "the last answer is returned instead of a wait past the deadline")
	assert.Equal(t, 1, s.count())
	assert.Empty(t, clock.recorded(), "no wait at all")
}

// The attempt timeout is a real context deadline, so the two tests of it
// run alone rather than beside the parallel tests: an answer must come
// within 50 ms.
func TestAttemptTimeoutIsRetried(t *testing.T) {
	hang := func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }
	s := &script{replies: []func(http.ResponseWriter, *http.Request){hang, ok("fine")}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	p := fastPolicy()
	p.AttemptTimeout = 50 * time.Millisecond
	var reasons []string
	p.OnRetry = func(_ int, _ time.Duration, reason string) { reasons = append(reasons, reason) }
	resp, err := post(context.Background(), t, p.Client(nil), srv.URL)
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, "fine", string(body))
	assert.Equal(t, 2, s.count())
	require.Len(t, reasons, 1)
	assert.Contains(t, reasons[0], "timed out")
}

// A model that times out twice in a row is not tried a third time, however
// many retries other failures get.
//
// It runs alone, as TestAttemptTimeoutIsRetried does.
func TestAttemptTimeoutIsRetriedOnlyOnce(t *testing.T) {
	hang := func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }
	s := &script{replies: []func(http.ResponseWriter, *http.Request){hang, hang, ok("too late")}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	p := fastPolicy()
	p.AttemptTimeout = 50 * time.Millisecond
	_, err := post(context.Background(), t, p.Client(nil), srv.URL)
	require.Error(t, err)
	assert.ErrorIs(t, err, errAttemptTimeout)
	assert.Equal(t, 2, s.count(), "one try and one retry, though MaxRetries is %d", p.MaxRetries)

	s2 := &script{replies: []func(http.ResponseWriter, *http.Request){hang, status(503), ok("fine")}}
	srv2 := httptest.NewServer(s2)
	defer srv2.Close()
	resp, err := post(context.Background(), t, p.Client(nil), srv2.URL)
	require.NoError(t, err, "a timeout and a 503 are two different failures, each retried")
	resp.Body.Close()
	assert.Equal(t, 3, s2.count())
}

func TestResponseSizeIsBounded(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(ok(strings.Repeat("x", 2000))))
	defer srv.Close()
	p := fastPolicy()
	p.MaxResponseBytes = 1000
	resp, err := post(context.Background(), t, p.Client(nil), srv.URL)
	require.NoError(t, err)
	defer resp.Body.Close()
	_, err = io.ReadAll(resp.Body)
	assert.True(t, errors.Is(err, errResponseTooLarge), "%v", err)

	p.MaxResponseBytes = 2000
	resp2, err := post(context.Background(), t, p.Client(nil), srv.URL)
	require.NoError(t, err)
	defer resp2.Body.Close()
	b, err := io.ReadAll(resp2.Body)
	require.NoError(t, err, "a body exactly at the limit is fine")
	assert.Len(t, b, 2000)
}
