package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/internal/testenv"
)

// The HTTP edge against the real binary, over real sockets: stalled
// clients, browsers, ambiguous JSON, the access log, and a shutdown whose
// grace ends in the middle of a release.

const sumRequest = `{"class_name": "Calculator", "method_name": "sum:with:"}`

// calculatorFile is the Tonel file the runs of these tests change.
func calculatorFile(dir string) string {
	return filepath.Join(dir, "image", "src", "Sample-Shop", "Calculator.class.st")
}

// send sends one request with exactly these headers; host, when set,
// replaces the Host header.
func (s *service) send(method, path, body, host string, header map[string]string) (*http.Response, map[string]any) {
	s.t.Helper()
	req, err := http.NewRequest(method, s.URL+path, strings.NewReader(body))
	require.NoError(s.t, err)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	if host != "" {
		req.Host = host
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(s.t, err)
	defer resp.Body.Close()
	var out map[string]any
	data, err := io.ReadAll(resp.Body)
	require.NoError(s.t, err)
	if len(data) > 0 && strings.Contains(resp.Header.Get("Content-Type"), "json") {
		require.NoError(s.t, json.Unmarshal(data, &out), "%s", data)
	}
	return resp, out
}

// runs lists the audit trail, newest first.
func (s *service) runs() []map[string]any {
	s.t.Helper()
	resp, out := s.send(http.MethodGet, "/api/v1/refactorings", "", "", nil)
	require.Equal(s.t, http.StatusOK, resp.StatusCode, "%v", out)
	var runs []map[string]any
	for _, r := range out["runs"].([]any) {
		runs = append(runs, r.(map[string]any))
	}
	return runs
}

// stalledUpload is a POST whose body never fully comes.
const stalledUpload = "POST /api/v1/refactor HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{\"class_name\": "

// slowHeaders is a request whose headers never end.
const slowHeaders = "POST /api/v1/refactor HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Ty"

// answerOn reads a response from conn within bound (a bound on the test).
func answerOn(t *testing.T, conn net.Conn, bound time.Duration) (*http.Response, map[string]any) {
	t.Helper()
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(bound)))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err, "an answer before the bound")
	defer resp.Body.Close()
	var out map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	return resp, out
}

// stillOpen reports whether conn has neither an answer nor an EOF yet.
func stillOpen(t *testing.T, conn net.Conn) bool {
	t.Helper()
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(20*time.Millisecond)))
	_, err := conn.Read(make([]byte, 1))
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func (s *service) metric(name string) float64 {
	s.t.Helper()
	resp, err := http.Get(s.URL + "/metrics")
	require.NoError(s.t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(s.t, err)
	v, err := testenv.Metric(data, name)
	require.NoError(s.t, err)
	return v
}

func TestStalledClientsAreCutWithinTheLimits(t *testing.T) {
	dir, env := imageEnv(t, approvesSum(answerTheSum, 0))
	s := start(t, dir, append(env, "READ_HEADER_TIMEOUT=500ms", "READ_BODY_TIMEOUT=500ms")...)

	headers := testenv.Dial(t, s.URL, slowHeaders)
	body := testenv.Dial(t, s.URL, stalledUpload)
	resp, out := answerOn(t, body, 30*time.Second)
	assert.Equal(t, http.StatusRequestTimeout, resp.StatusCode, "%v", out)
	assert.Equal(t, "request_timeout", out["code"])
	assert.True(t, testenv.ClosedWithin(t, body, 30*time.Second), "the stalled body's connection is closed")
	assert.True(t, testenv.ClosedWithin(t, headers, 30*time.Second), "the slow headers' connection is closed")

	assert.Equal(t, 1.0, s.metric(`refactord_http_stalled_clients_total{phase="body"}`))
	assert.Equal(t, 1.0, s.metric(`refactord_http_stalled_clients_total{phase="headers"}`))
	assert.Empty(t, s.runs(), "nothing ran")
}

// TestTwoHundredStalledClients: while 200 clients hold connections open
// mid-request (the deadlines are long here), /health answers and a real run
// completes. The test process and refactord each hold about 200 more
// descriptors; Go raises the soft RLIMIT_NOFILE to the hard limit at start.
func TestTwoHundredStalledClients(t *testing.T) {
	dir, env := imageEnv(t, approvesSum(answerTheSum, 0))
	s := start(t, dir, append(env, "READ_HEADER_TIMEOUT=5m", "READ_BODY_TIMEOUT=5m")...)
	var stalled []net.Conn
	for i := range 200 {
		head := stalledUpload
		if i%2 == 1 {
			head = slowHeaders
		}
		stalled = append(stalled, testenv.Dial(t, s.URL, head))
	}
	assert.Equal(t, http.StatusOK, s.get("/health"))
	resp, body, err := s.post("/api/v1/refactor", sumRequest)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode, "%v", body)
	assert.Equal(t, "released", body["outcome"])
	assert.Contains(t, string(mustRead(t, calculatorFile(dir))), `"Answer the sum"`)
	open := 0
	for _, c := range stalled {
		if stillOpen(t, c) {
			open++
		}
	}
	assert.Equal(t, 200, open, "the stalled clients were still open all along")
}

// TestSIGTERMWithAStalledUploadExitsZero: the upload is answered 503 and cut
// at once, slow headers are dropped, and the process exits 0 — long before
// the grace or the read deadlines (ten minutes here) would end.
func TestSIGTERMWithAStalledUploadExitsZero(t *testing.T) {
	dir, env := imageEnv(t, approvesSum(answerTheSum, 0))
	s := start(t, dir, append(env, "READ_HEADER_TIMEOUT=10m", "READ_BODY_TIMEOUT=10m", "SHUTDOWN_GRACE=10m")...)
	upload := testenv.Dial(t, s.URL, stalledUpload)
	headers := testenv.Dial(t, s.URL, slowHeaders)
	require.Eventually(t, func() bool { return stillOpen(t, upload) && stillOpen(t, headers) }, 5*time.Second, 20*time.Millisecond)

	require.NoError(t, s.Signal(syscall.SIGTERM))
	resp, out := answerOn(t, upload, 60*time.Second)
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, "%v", out)
	assert.Equal(t, "shutting_down", out["code"])
	assert.NoError(t, s.WaitExit(t, 60*time.Second), "exit status 0")
	assert.True(t, testenv.ClosedWithin(t, headers, 5*time.Second))
}

// TestBrowserRequestsAreRefused: what a web page can send — a text/plain
// POST, a request from its own origin, a request to a rebound DNS name — is
// refused and changes nothing; the allowed origin works.
func TestBrowserRequestsAreRefused(t *testing.T) {
	const ide = "https://ide.example.com"
	dir, env := imageEnv(t, approvesSum(answerTheSum, 0))
	s := start(t, dir, append(env, "CORS_ALLOW_ORIGINS="+ide)...)
	before := mustRead(t, calculatorFile(dir))
	port := s.URL[strings.LastIndex(s.URL, ":")+1:]
	cases := []struct {
		name        string
		method      string
		path, body  string
		host        string
		header      map[string]string
		status      int
		code        string
		corsAllowed bool
	}{
		{"text/plain POST", http.MethodPost, "/api/v1/refactor", sumRequest, "", map[string]string{"Content-Type": "text/plain;charset=UTF-8"}, 415, "unsupported_media_type", false},
		{"form POST", http.MethodPost, "/api/v1/refactor", "class_name=Calculator", "", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, 415, "unsupported_media_type", false},
		{"foreign Origin", http.MethodPost, "/api/v1/refactor", sumRequest, "", map[string]string{"Content-Type": "application/json", "Origin": "https://evil.example"}, 403, "origin_not_allowed", false},
		{"foreign Origin, text/plain", http.MethodPost, "/api/v1/refactor", sumRequest, "", map[string]string{"Content-Type": "text/plain", "Origin": "https://evil.example"}, 403, "origin_not_allowed", false},
		{"foreign Origin reads the history", http.MethodGet, "/api/v1/refactorings", "", "", map[string]string{"Origin": "https://evil.example"}, 403, "origin_not_allowed", false},
		{"rebound DNS name posts", http.MethodPost, "/api/v1/refactor", sumRequest, "evil.example:" + port, map[string]string{"Content-Type": "application/json", "Origin": "http://evil.example:" + port}, 403, "host_not_allowed", false},
		{"rebound DNS name reads the history", http.MethodGet, "/api/v1/refactorings", "", "evil.example:" + port, nil, 403, "host_not_allowed", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, out := s.send(tc.method, tc.path, tc.body, tc.host, tc.header)
			assert.Equal(t, tc.status, resp.StatusCode, "%v", out)
			assert.Equal(t, tc.code, out["code"])
			assert.Empty(t, resp.Header.Get("Access-Control-Allow-Origin"))
		})
	}
	assert.Equal(t, before, mustRead(t, calculatorFile(dir)), "the Tonel file is byte-identical")
	assert.Empty(t, s.runs(), "nothing ran: no audit row")

	resp, out := s.send(http.MethodOptions, "/api/v1/refactor", "", "", map[string]string{"Origin": ide, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"})
	assert.Equal(t, http.StatusNoContent, resp.StatusCode, "%v", out)
	assert.Equal(t, ide, resp.Header.Get("Access-Control-Allow-Origin"))
	resp, out = s.send(http.MethodPost, "/api/v1/refactor", sumRequest, "localhost:"+port, map[string]string{"Content-Type": "application/json", "Origin": ide})
	require.Equal(t, http.StatusOK, resp.StatusCode, "%v", out)
	assert.Equal(t, "released", out["outcome"])
	assert.Equal(t, ide, resp.Header.Get("Access-Control-Allow-Origin"))
	assert.Len(t, s.runs(), 1)
}

// TestAmbiguousKeysAreRefused: a body two JSON readers would read
// differently runs nothing.
func TestAmbiguousKeysAreRefused(t *testing.T) {
	dir, env := imageEnv(t, approvesSum(answerTheSum, 0))
	s := start(t, dir, env...)
	before := mustRead(t, calculatorFile(dir))
	for _, body := range []string{
		`{"class_name": "Calculator", "method_name": "sum:with:", "dry_run": true, "Dry_Run": false}`,
		`{"class_name": "Calculator", "method_name": "sum:with:", "dry_run": true, "dry_run": false}`,
		`{"Class_Name": "Calculator", "method_name": "sum:with:"}`,
		`{"refactor_request": {"class_name": "Calculator", "method_name": "sum:with:", "DRY_RUN": true}}`,
		`{"refactor_request": {"class_name": "Calculator", "method_name": "sum:with:", "dry_run": true, "dry_run": false}}`,
	} {
		resp, out := s.send(http.MethodPost, "/api/v1/refactor", body, "", map[string]string{"Content-Type": "application/json"})
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "%s: %v", body, out)
		assert.Equal(t, "invalid_request", out["code"])
		assert.Regexp(t, `"(refactor_request\.)?(Dry_Run|dry_run|Class_Name|DRY_RUN)"`, out["detail"], "the detail names the key")
	}
	assert.Equal(t, before, mustRead(t, calculatorFile(dir)))
	assert.Empty(t, s.runs(), "nothing ran")
}

// TestEveryRequestIsLogged: a burst of 1,000 requests gives 1,000 access-log
// lines (zap's production sampling would keep about a tenth). The burst's
// requests carry their own request ids, so other requests do not count.
func TestEveryRequestIsLogged(t *testing.T) {
	dir, env := imageEnv(t, approvesSum(answerTheSum, 0))
	s := start(t, dir, append(env, "LOG_LEVEL=info")...)
	burstLines := func() int {
		return len(regexp.MustCompile(`"logger":"api.access"[^\n]*"request_id":"burst-\d+"`).FindAllString(s.Log(), -1))
	}

	const burst, workers = 1000, 25
	paths := []string{"/health", "/ready", "/api/v1/refactorings?limit=1", "/no-such-route"}
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				req, err := http.NewRequest(http.MethodGet, s.URL+paths[i%len(paths)], nil)
				require.NoError(t, err)
				req.Header.Set("X-Request-ID", fmt.Sprintf("burst-%d", i))
				resp, err := http.DefaultClient.Do(req)
				if assert.NoError(t, err) {
					_, _ = io.Copy(io.Discard, resp.Body)
					_ = resp.Body.Close()
				}
			}
		}()
	}
	for i := range burst {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	require.Eventually(t, func() bool { return burstLines() >= burst }, 20*time.Second, 50*time.Millisecond,
		"access-log lines of the burst: %d", burstLines())
	assert.Equal(t, burst, burstLines(), "exactly one line per request")
}

// TestGraceEndingMidRelease: SIGTERM with a short grace while a release is
// held open (REFACTORD_HOLD_AT, test-only). The release completes, or rolls
// back, before the store and the image connection close; the answer, the
// audit row and the image agree; the exit status is 0. A run that had not
// begun release when the grace ended is stopped and says so.
func TestGraceEndingMidRelease(t *testing.T) {
	const released = "sum: a with: b\n\t\"Answer the sum\"\n\n\t^ a + b"
	const breaksTestSum = "sum: a with: b\n\t\"Answer the total\"\n\n\t^ a - b"
	cases := []struct {
		name       string
		script     testenv.Script
		hold       string
		waitFor    string // a log line that says the run is where the grace must end
		status     int
		code       string // the problem's code; "" for a 200
		rowStatus  string
		imageHolds string // "" for the original, byte for byte
	}{
		// Held longer than refactord gives handlers to answer once the runs
		// are over (answerWait): only waiting for the release itself keeps
		// the store and the image open under it.
		{"release completes", approvesSum(released, 0), "after_compile:" + (answerWait + 2*time.Second).String(), "holding the release", http.StatusOK, "", "released", `"Answer the sum"`},
		{"release rolls back", approvesSum(breaksTestSum, 0), "after_compile:3s", "holding the release", http.StatusUnprocessableEntity, "tests_regressed", "rolled_back", ""},
		{"release not begun", approvesSum(released, 5*time.Second), "", `"busy":true`, http.StatusServiceUnavailable, "shutting_down", "failed", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir, env := imageEnv(t, tc.script)
			original := mustRead(t, calculatorFile(dir))
			// The comparison would stop the test-breaking candidate
			// before its release: the tests guard alone here.
			runEnv := append(env, "SHUTDOWN_GRACE=500ms", "EQUIVALENCE=off")
			if tc.hold != "" {
				runEnv = append(runEnv, "REFACTORD_HOLD_AT="+tc.hold)
			}
			s := start(t, dir, runEnv...)
			type answer struct {
				resp *http.Response
				body map[string]any
				err  error
			}
			done := make(chan answer, 1)
			go func() {
				resp, body, err := s.post("/api/v1/refactor", sumRequest)
				done <- answer{resp, body, err}
			}()
			require.Eventually(t, func() bool {
				if tc.hold != "" {
					return strings.Contains(s.Log(), tc.waitFor)
				}
				resp, err := http.Get(s.URL + "/health")
				if err != nil {
					return false
				}
				defer resp.Body.Close()
				data, _ := io.ReadAll(resp.Body)
				return strings.Contains(string(data), tc.waitFor)
			}, 20*time.Second, 10*time.Millisecond, "the run is where the grace must end")
			require.NoError(t, s.Signal(syscall.SIGTERM))

			a := <-done
			require.NoError(t, a.err, "the client is answered")
			assert.Equal(t, tc.status, testenv.AnsweredStatus(a.resp, a.body), "%v", a.body)
			if tc.code != "" {
				assert.Equal(t, tc.code, a.body["code"])
			}
			id, _ := a.body["id"].(string)
			require.NotEmpty(t, id, "the answer names the run")
			assert.NoError(t, s.WaitExit(t, 60*time.Second), "exit status 0")
			assert.Contains(t, s.Log(), "the shutdown grace is over", "the grace really ended before the run did")

			image := mustRead(t, calculatorFile(dir))
			if tc.imageHolds == "" {
				assert.Equal(t, original, image, "the image holds the original, byte for byte")
			} else {
				assert.Contains(t, string(image), tc.imageHolds, "the image holds the release")
			}
			s2 := start(t, dir, env...)
			resp, row := s2.send(http.MethodGet, "/api/v1/refactorings/"+id, "", "", nil)
			require.Equal(t, http.StatusOK, resp.StatusCode, "%v", row)
			assert.Equal(t, tc.rowStatus, row["status"], "%v", row)
			assert.Equal(t, tc.code, row["error_code"])
			if tc.status == http.StatusOK {
				assert.Equal(t, a.body["refactored_code"], row["final_source"])
				assert.NotNil(t, row["released_at"])
			}
		})
	}
}
