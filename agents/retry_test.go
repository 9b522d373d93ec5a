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

func post(ctx context.Context, t *testing.T, c *http.Client, url string) (*http.Response, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(`{"q": 1}`))
	require.NoError(t, err)
	return c.Do(req)
}

func TestRetryTransport(t *testing.T) {
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
			s := &script{replies: tc.replies}
			srv := httptest.NewServer(s)
			defer srv.Close()
			resp, err := post(context.Background(), t, fastPolicy().Client(nil), srv.URL)
			require.NoError(t, err)
			defer resp.Body.Close()
			assert.Equal(t, tc.status, resp.StatusCode)
			assert.Equal(t, tc.requests, s.count())
			for _, b := range s.bodies {
				assert.Equal(t, `{"q": 1}`, b, "every attempt sends the whole body")
			}
		})
	}
}

func TestRetryAfterIsHonoured(t *testing.T) {
	cases := []struct {
		name  string
		reply func(http.ResponseWriter, *http.Request)
	}{
		{"Retry-After header", status(429, "Retry-After", "1")},
		{"Google RetryInfo", func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(429)
			_, _ = io.WriteString(w, `{"error": {"code": 429, "status": "RESOURCE_EXHAUSTED", "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "1s"}]}}`)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := &script{replies: []func(http.ResponseWriter, *http.Request){tc.reply, ok("fine")}}
			srv := httptest.NewServer(s)
			defer srv.Close()
			resp, err := post(context.Background(), t, fastPolicy().Client(nil), srv.URL)
			require.NoError(t, err)
			resp.Body.Close()
			require.Equal(t, 2, s.count())
			assert.GreaterOrEqual(t, s.arrived[1].Sub(s.arrived[0]), time.Second, "the retry came before the server's Retry-After")
		})
	}
}

func TestRetryNeverWaitsPastTheDeadline(t *testing.T) {
	s := &script{replies: []func(http.ResponseWriter, *http.Request){status(503, "Retry-After", "30"), ok("fine")}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := post(ctx, t, fastPolicy().Client(nil), srv.URL)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 503, resp.StatusCode, "the last answer is returned instead of a wait past the deadline")
	assert.Equal(t, 1, s.count())
}

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
