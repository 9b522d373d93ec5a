package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// refuser answers POSTs as a busy service does, but every fifth with 200
// and every seventh without Retry-After, counting what it sent; /health
// says busy unless told otherwise.
type refuser struct {
	posts, ok, noRetry atomic.Int64
	notBusy            bool
}

func (f *refuser) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		if f.notBusy {
			_, _ = w.Write([]byte(`{"busy": false}`))
			return
		}
		_, _ = w.Write([]byte(`{"status": "healthy", "busy": true}`))
		return
	}
	n := f.posts.Add(1)
	switch {
	case n%5 == 0:
		f.ok.Add(1)
		w.WriteHeader(http.StatusOK)
	case n%7 == 0:
		f.noRetry.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
	default:
		w.Header().Set("Retry-After", "3")
		w.WriteHeader(http.StatusServiceUnavailable)
	}
}

func TestLoadCountsEveryAnswer(t *testing.T) {
	f := &refuser{}
	srv := httptest.NewServer(f)
	defer srv.Close()
	// Bounded by the number of requests, so that none is cut by the end
	// of the load and the counts can be compared exactly.
	o := options{url: srv.URL, body: []byte(`{}`), conns: 4, duration: time.Minute, maxRequests: 3000,
		health: srv.URL + "/health", healthEvery: time.Millisecond, serverPID: os.Getpid()}
	res, err := load(context.Background(), o)
	require.NoError(t, err)
	assert.Equal(t, 3000, res.Answered)
	assert.Equal(t, int(f.ok.Load()), res.Non503)
	assert.Equal(t, int(f.noRetry.Load()), res.NoRetryAfter)
	assert.Zero(t, res.Errors)
	assert.Equal(t, 3000, res.Latency.N)
	assert.LessOrEqual(t, res.Latency.P50, res.Latency.P99)
	assert.Zero(t, res.HealthNotBusy)
	assert.Positive(t, res.CPU.LoadgenSeconds+res.CPU.ServerSeconds, "the CPU of both is read")
}

func TestLoadCountsAHealthThatIsNotBusy(t *testing.T) {
	f := &refuser{notBusy: true}
	srv := httptest.NewServer(f)
	defer srv.Close()
	o := options{url: srv.URL, body: []byte(`{}`), conns: 1, duration: 200 * time.Millisecond, maxRequests: 1_000_000,
		health: srv.URL + "/health", healthEvery: time.Millisecond}
	res, err := load(context.Background(), o)
	require.NoError(t, err)
	assert.Positive(t, res.Health.N)
	assert.Equal(t, res.Health.N, res.HealthNotBusy)
}

func TestLoopbackOnly(t *testing.T) {
	_, err := loopbackDialer(context.Background(), "tcp", "192.0.2.1:80")
	assert.ErrorContains(t, err, "loopback only")
	_, err = loopbackDialer(context.Background(), "tcp", "example.com:80")
	assert.ErrorContains(t, err, "loopback only")
}

func TestRunPrintsOneResult(t *testing.T) {
	srv := httptest.NewServer(&refuser{})
	defer srv.Close()
	body := filepath.Join(t.TempDir(), "body.json")
	require.NoError(t, os.WriteFile(body, []byte(`{"a": 1}`), 0o644))
	var out bytes.Buffer
	require.NoError(t, run([]string{"-url", srv.URL, "-body", body, "-conns", "2", "-max-requests", "10", "-duration", "1m"}, &out))
	assert.Contains(t, out.String(), `"answered":10`)

	for _, args := range [][]string{
		{"-body", body},
		{"-url", srv.URL},
		{"-url", srv.URL, "-body", body, "-conns", "0"},
		{"-url", srv.URL, "-body", filepath.Join(t.TempDir(), "missing")},
	} {
		assert.Error(t, run(args, &out), "%v", args)
	}
}
