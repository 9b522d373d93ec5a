package api_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/internal/testenv"
	wire "github.com/pharo-refactor/refactord/wire"
)

const sumBody = `{"class_name": "Calculator", "method_name": "sum:with:"}`

// wrappedSumBody is the same request in the original's wrapped form.
const wrappedSumBody = `{"refactor_request": {"class_name": "Calculator", "method_name": "sum:with:"}}`

// problemCode decodes a problem body's code.
func problemCode(t *testing.T, data []byte) string {
	t.Helper()
	var p wire.Problem
	require.NoError(t, json.Unmarshal(data, &p), "%s", data)
	return p.Code
}

// nothingHappened: no model call, no audit row, the Tonel file unchanged.
func (h *harness) nothingHappened(before []byte) {
	h.t.Helper()
	assert.Zero(h.t, h.gem.Total(), "no model was called")
	assert.Equal(h.t, before, h.classFile("Calculator"), "the Tonel file is byte-identical")
	page, err := h.audit.List(context.Background(), refactor.ListQuery{})
	require.NoError(h.t, err)
	assert.Empty(h.t, page.Runs, "no run was recorded")
	assert.False(h.t, h.pipe.Busy())
}

func (h *harness) scriptApproval() {
	h.gem.ScriptAll(testenv.ApprovedInRoundOne(newSum))
}

// TestMutatingRoutesTakeOnlyJSON: a browser page may POST text/plain, a
// form or multipart cross-site without asking; only application/json runs.
func TestMutatingRoutesTakeOnlyJSON(t *testing.T) {
	t.Parallel()
	refused := []struct {
		name        string
		contentType []string // nil: no Content-Type header
	}{
		{"text/plain as a form with enctype=text/plain sends", []string{"text/plain"}},
		{"text/plain as fetch sends it", []string{"text/plain;charset=UTF-8"}},
		{"url-encoded form", []string{"application/x-www-form-urlencoded"}},
		{"multipart form", []string{"multipart/form-data; boundary=x"}},
		{"no Content-Type (a Blob body)", nil},
		{"another JSON-ish type", []string{"application/json-patch+json"}},
		{"a charset JSON does not use", []string{"application/json; charset=iso-8859-1"}},
		{"two Content-Types", []string{"application/json", "text/plain"}},
		{"malformed", []string{"application/json; charset"}},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each case owns its harness: its port, image and store
			h := newHarness(t, harnessOpts{})
			before := h.classFile("Calculator")
			h.scriptApproval()
			req := h.request(http.MethodPost, "/api/v1/refactor", sumBody, nil)
			req.Header.Del("Content-Type")
			for _, ct := range tc.contentType {
				req.Header.Add("Content-Type", ct)
			}
			resp, data := h.send(req)
			assert.Equal(t, http.StatusUnsupportedMediaType, resp.StatusCode, "%s", data)
			assert.Equal(t, "unsupported_media_type", problemCode(t, data))
			assert.Equal(t, "application/problem+json", resp.Header.Get("Content-Type"))
			assert.Equal(t, "application/json", resp.Header.Get("Accept-Post"))
			h.nothingHappened(before)
		})
	}

	h := newHarness(t, harnessOpts{})
	for _, ct := range []string{"application/json", "application/json; charset=utf-8", "Application/JSON;Charset=UTF-8", "application/json;charset=utf8"} {
		resp, data := h.send(h.request(http.MethodPost, "/api/v1/refactor", `{"class_name": "NoSuchClass", "method_name": "foo"}`, map[string]string{"Content-Type": ct}))
		assert.Equal(t, http.StatusNotFound, resp.StatusCode, "%s: %s", ct, data)
	}

	// Revert takes no body: none needs no Content-Type; one must be JSON.
	resp, data := h.send(h.request(http.MethodPost, "/api/v1/refactorings/no-such-run/revert", "", nil))
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, "%s", data)
	resp, data = h.send(h.request(http.MethodPost, "/api/v1/refactorings/no-such-run/revert", "{}", map[string]string{"Content-Type": "application/json"}))
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, "%s", data)
	resp, data = h.send(h.request(http.MethodPost, "/api/v1/refactorings/no-such-run/revert", "x=1", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}))
	assert.Equal(t, http.StatusUnsupportedMediaType, resp.StatusCode, "%s", data)
	resp, data = h.send(h.request(http.MethodPost, "/api/v1/refactorings/no-such-run/revert", "x", nil))
	assert.Equal(t, http.StatusUnsupportedMediaType, resp.StatusCode, "a body without a Content-Type: %s", data)
}

// TestForeignOriginsAreRefused: with no CORS_ALLOW_ORIGINS, any request
// carrying an Origin is refused on the API routes, before auth, before the
// body is read; /health and the like answer without CORS headers.
func TestForeignOriginsAreRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	before := h.classFile("Calculator")
	h.scriptApproval()
	routes := []struct{ method, path, body string }{
		{http.MethodPost, "/api/v1/refactor", sumBody},
		{http.MethodGet, "/api/v1/refactorings", ""},
		{http.MethodGet, "/api/v1/refactorings/abc", ""},
		{http.MethodPost, "/api/v1/refactorings/abc/revert", ""},
		{http.MethodOptions, "/api/v1/refactor", ""},
	}
	// Another local service's page (another port) is another origin; the
	// service's own pages are let in (TestOwnPagesAreOfItsOrigin).
	sibling := "http://127.0.0.1:1"
	for _, origin := range []string{"https://evil.example", "null", sibling} {
		for _, r := range routes {
			header := map[string]string{"Origin": origin}
			if r.body != "" {
				header["Content-Type"] = "application/json"
			}
			resp, data := h.send(h.request(r.method, r.path, r.body, header))
			assert.Equal(t, http.StatusForbidden, resp.StatusCode, "%s %s from %s: %s", r.method, r.path, origin, data)
			assert.Equal(t, "origin_not_allowed", problemCode(t, data))
			assert.Empty(t, resp.Header.Get("Access-Control-Allow-Origin"))
		}
	}
	resp, _ := h.send(h.request(http.MethodGet, "/health", "", map[string]string{"Origin": "https://evil.example"}))
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Empty(t, resp.Header.Get("Access-Control-Allow-Origin"), "a page cannot read it")

	// A page's no-cors request (<script src>) carries no Origin; the
	// browser still says who made it.
	for _, site := range []string{"cross-site", "same-site"} {
		resp, data := h.send(h.request(http.MethodGet, "/api/v1/refactorings", "", map[string]string{"Sec-Fetch-Site": site, "Sec-Fetch-Mode": "no-cors"}))
		assert.Equal(t, http.StatusForbidden, resp.StatusCode, "%s: %s", site, data)
		assert.Equal(t, "origin_not_allowed", problemCode(t, data))
	}
	for _, site := range []string{"none", "same-origin"} { // typed in the address bar; the service's own page
		resp, data := h.send(h.request(http.MethodGet, "/api/v1/refactorings", "", map[string]string{"Sec-Fetch-Site": site}))
		assert.Equal(t, http.StatusOK, resp.StatusCode, "%s: %s", site, data)
	}
	h.nothingHappened(before)
}

// TestAllowedOriginWorks: an origin in CORS_ALLOW_ORIGINS gets its
// preflight answered and its run done, with CORS headers; others do not.
func TestAllowedOriginWorks(t *testing.T) {
	t.Parallel()
	const ide = "https://ide.example.com"
	h := newHarness(t, harnessOpts{allowOrigins: []string{ide}})
	before := h.classFile("Calculator")
	h.scriptApproval()

	resp, data := h.send(h.request(http.MethodOptions, "/api/v1/refactor", "", map[string]string{
		"Origin": "https://ide.example.com.evil.example", "Access-Control-Request-Method": "POST",
	}))
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "%s", data)
	resp, data = h.send(h.request(http.MethodPost, "/api/v1/refactor", sumBody, map[string]string{"Origin": "http://ide.example.com", "Content-Type": "application/json"}))
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "another scheme is another origin: %s", data)
	h.nothingHappened(before)

	resp, data = h.send(h.request(http.MethodOptions, "/api/v1/refactor", "", map[string]string{
		"Origin": ide, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type,authorization",
	}))
	require.Equal(t, http.StatusNoContent, resp.StatusCode, "%s", data)
	assert.Equal(t, ide, resp.Header.Get("Access-Control-Allow-Origin"))
	assert.Contains(t, resp.Header.Get("Access-Control-Allow-Methods"), "POST")
	assert.Contains(t, strings.ToLower(resp.Header.Get("Access-Control-Allow-Headers")), "content-type")
	assert.Contains(t, strings.ToLower(resp.Header.Get("Access-Control-Allow-Headers")), "authorization")

	resp, data = h.send(h.request(http.MethodPost, "/api/v1/refactor", sumBody, map[string]string{"Origin": ide, "Content-Type": "application/json"}))
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", data)
	assert.Equal(t, ide, resp.Header.Get("Access-Control-Allow-Origin"))
	assert.Contains(t, resp.Header.Values("Vary"), "Origin")
	assert.Contains(t, resp.Header.Get("Access-Control-Expose-Headers"), "X-Request-Id")
	assert.Contains(t, string(h.classFile("Calculator")), "Answer the sum of a and b", "released")

	resp, data = h.send(h.request(http.MethodGet, "/api/v1/refactorings", "", map[string]string{"Origin": ide}))
	assert.Equal(t, http.StatusOK, resp.StatusCode, "%s", data)
	assert.Equal(t, ide, resp.Header.Get("Access-Control-Allow-Origin"))
}

// TestHostMustBeLoopback: on a loopback listener, a request addressed to
// another name (a DNS name rebound to 127.0.0.1) is refused everywhere.
func TestHostMustBeLoopback(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	before := h.classFile("Calculator")
	h.scriptApproval()
	port := strings.TrimPrefix(h.url[strings.LastIndex(h.url, ":"):], ":")
	for _, host := range []string{"evil.example", "evil.example:" + port, "localhost.evil.example", "127.0.0.1.nip.io", "10.0.0.1", "[::2]:" + port, "0.0.0.0"} {
		for _, r := range []struct{ method, path, body string }{
			{http.MethodPost, "/api/v1/refactor", sumBody},
			{http.MethodGet, "/api/v1/refactorings", ""},
			{http.MethodGet, "/health", ""},
			{http.MethodGet, "/metrics", ""},
		} {
			req := h.request(r.method, r.path, r.body, map[string]string{"Content-Type": "application/json"})
			req.Host = host
			resp, data := h.send(req)
			assert.Equal(t, http.StatusForbidden, resp.StatusCode, "Host %s, %s %s: %s", host, r.method, r.path, data)
			assert.Equal(t, "host_not_allowed", problemCode(t, data))
		}
	}
	h.nothingHappened(before)
	for _, host := range []string{"localhost", "LocalHost:" + port, "localhost.:" + port, "127.0.0.1", "127.8.9.10:" + port, "[::1]:" + port, "[::1]"} {
		req := h.request(http.MethodGet, "/health", "", nil)
		req.Host = host
		resp, data := h.send(req)
		assert.Equal(t, http.StatusOK, resp.StatusCode, "Host %s: %s", host, data)
	}
}

// TestKeysAreExactAndUnique: a body that readers could understand
// differently is refused, naming the key, and nothing runs.
func TestKeysAreExactAndUnique(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, body, field, says string
	}{
		{"case variant of a flag", `{"class_name": "Calculator", "method_name": "sum:with:", "dry_run": true, "Dry_Run": false}`, "Dry_Run", `"dry_run"`},
		{"case variant alone", `{"Class_Name": "Calculator", "method_name": "sum:with:"}`, "Class_Name", `"class_name"`},
		{"upper case", `{"CLASS_NAME": "Calculator", "METHOD_NAME": "sum:with:"}`, "", "case-sensitive"},
		{"duplicate", `{"class_name": "Calculator", "method_name": "sum:with:", "dry_run": true, "dry_run": false}`, "dry_run", "more than once"},
		{"duplicate written with an escape", `{"class_name": "Calculator", "method_name": "sum:with:", "dry_run": true, "dry\u005frun": false}`, "dry_run", "more than once"},
		{"duplicate class", `{"class_name": "ShoppingCart", "class_name": "Calculator", "method_name": "sum:with:"}`, "class_name", "more than once"},
		{"wrapper twice", `{"refactor_request": {"class_name": "Calculator", "method_name": "sum:with:", "dry_run": true}, "refactor_request": {"class_name": "Calculator", "method_name": "sum:with:"}}`, "refactor_request", "more than once"},
		{"duplicate inside the wrapper", `{"refactor_request": {"class_name": "Calculator", "method_name": "sum:with:", "dry_run": true, "dry_run": false}}`, "refactor_request.dry_run", "more than once"},
		{"case variant inside the wrapper", `{"refactor_request": {"class_name": "Calculator", "method_name": "sum:with:", "Dry_run": false}}`, "refactor_request.Dry_run", `"dry_run"`},
		{"case variant of the wrapper", `{"Refactor_Request": {"class_name": "Calculator", "method_name": "sum:with:"}}`, "Refactor_Request", `"refactor_request"`},
		{"duplicate deeper down", `{"class_name": "Calculator", "method_name": "sum:with:", "x": [{"a": 1, "a": 2}]}`, "x[0].a", "more than once"},
		{"unknown field", `{"class_name": "Calculator", "method_name": "sum:with:", "eval": "1"}`, "eval", "not a field"},
		{"wrapper not an object", `{"refactor_request": null}`, "", "must be a JSON object"},
		{"null body", `null`, "", "not a JSON object"},
		{"two values", `{"class_name": "Calculator", "method_name": "sum:with:"} {}`, "", "trailing data"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each case owns its harness: its port, image and store
			h := newHarness(t, harnessOpts{})
			before := h.classFile("Calculator")
			h.scriptApproval()
			resp, out := h.refactor(tc.body)
			assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "%v", out)
			assert.Equal(t, "invalid_request", out["code"])
			assert.Contains(t, out["detail"], tc.says)
			if tc.field != "" {
				assert.Contains(t, out["detail"], `"`+tc.field+`"`, "the detail names the key")
				errs, _ := out["errors"].([]any)
				require.Len(t, errs, 1, "%v", out)
				assert.Equal(t, tc.field, errs[0].(map[string]any)["field"])
			}
			h.nothingHappened(before)
		})
	}
}

// stalledPost is the head of a POST whose body never fully comes.
func stalledPost(path string, header ...string) string {
	return fmt.Sprintf("POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 200\r\n%s\r\n{\"class_name\": ", path, strings.Join(header, ""))
}

// readAnswer reads a response from conn, giving up after bound (a bound on
// the test, not a figure under test).
func (h *harness) readAnswer(conn net.Conn, method, path string, bound time.Duration) (*http.Response, []byte) {
	h.t.Helper()
	require.NoError(h.t, conn.SetReadDeadline(time.Now().Add(bound)))
	br := bufio.NewReader(conn)
	req := h.request(method, path, "", nil)
	resp, err := http.ReadResponse(br, req)
	require.NoError(h.t, err, "an answer before the bound")
	data, err := io.ReadAll(resp.Body)
	require.NoError(h.t, err)
	_ = resp.Body.Close()
	h.validate(req, resp, data)
	return resp, data
}

func (h *harness) metric(name string) float64 {
	h.t.Helper()
	resp, data := h.do(http.MethodGet, "/metrics", "", nil)
	require.Equal(h.t, http.StatusOK, resp.StatusCode)
	v, err := testenv.Metric(data, name)
	require.NoError(h.t, err)
	return v
}

// TestStalledClientsAreCut: headers and bodies that do not arrive in time
// are cut and counted; the run slot is never taken.
func TestStalledClientsAreCut(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{readBody: 300 * time.Millisecond, readHeader: 300 * time.Millisecond})
	before := h.classFile("Calculator")
	h.scriptApproval()

	body := testenv.Dial(t, h.url, stalledPost("/api/v1/refactor", "Content-Type: application/json\r\n"))
	resp, data := h.readAnswer(body, http.MethodPost, "/api/v1/refactor", 20*time.Second)
	assert.Equal(t, http.StatusRequestTimeout, resp.StatusCode, "%s", data)
	assert.Equal(t, "request_timeout", problemCode(t, data))
	assert.True(t, resp.Close, "the connection is closed after the answer")
	assert.True(t, testenv.ClosedWithin(t, body, 20*time.Second))

	headers := testenv.Dial(t, h.url, "POST /api/v1/refactor HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: appl")
	assert.True(t, testenv.ClosedWithin(t, headers, 20*time.Second), "slow headers are cut")
	silent := testenv.Dial(t, h.url, "")
	assert.True(t, testenv.ClosedWithin(t, silent, 20*time.Second), "a connection that sends nothing is cut")

	assert.Equal(t, 1.0, h.metric(`refactord_http_stalled_clients_total{phase="body"}`))
	assert.Equal(t, 2.0, h.metric(`refactord_http_stalled_clients_total{phase="headers"}`))
	h.nothingHappened(before)
}

// TestRefusedBeforeTheBodyIsRead: a request refused on its headers is
// answered at once, however slowly its body comes (the body deadline here
// is ten minutes; the test gives up long before).
func TestRefusedBeforeTheBodyIsRead(t *testing.T) {
	t.Parallel()
	key := "0123456789abcdef-key"
	h := newHarness(t, harnessOpts{apiKeys: []string{key}, readBody: 10 * time.Minute})
	before := h.classFile("Calculator")
	cases := []struct {
		name   string
		header string
		status int
	}{
		{"no key", "Content-Type: application/json\r\n", http.StatusUnauthorized},
		{"foreign origin", "Content-Type: application/json\r\nOrigin: https://evil.example\r\nAuthorization: Bearer " + key + "\r\n", http.StatusForbidden},
		{"text/plain", "Content-Type: text/plain\r\nAuthorization: Bearer " + key + "\r\n", http.StatusUnsupportedMediaType},
	}
	// The cases run side by side, each on its own connection; the checks
	// after them wait for the group.
	t.Run("cases", func(t *testing.T) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				conn := testenv.Dial(t, h.url, stalledPost("/api/v1/refactor", tc.header))
				resp, data := h.readAnswer(conn, http.MethodPost, "/api/v1/refactor", 20*time.Second)
				assert.Equal(t, tc.status, resp.StatusCode, "%s", data)
				assert.True(t, resp.Close, "the unread body is not waited for: the connection closes")
				assert.True(t, testenv.ClosedWithin(t, conn, 20*time.Second))
			})
		}
	})
	assert.Zero(t, h.metric(`refactord_http_stalled_clients_total{phase="body"}`), "refused, not stalled")
	h.nothingHappened(before)
}

// TestLongRunOutlivesTheReadDeadlines: the read deadlines end with the
// body; a run far longer than both is not cut (net/http cancels a request's
// context when a read deadline expires under a handler).
func TestLongRunOutlivesTheReadDeadlines(t *testing.T) {
	t.Parallel()
	for _, streamed := range []bool{false, true} {
		t.Run(map[bool]string{false: "json", true: "stream"}[streamed], func(t *testing.T) {
			h := newHarness(t, harnessOpts{readBody: 200 * time.Millisecond, readHeader: 200 * time.Millisecond})
			h.gem.Script("reviewer", testenv.Review().Delayed(1500*time.Millisecond))
			h.gem.Script("writer", testenv.Code(newSum))
			h.gem.Script("validator", testenv.Approved().Delayed(500*time.Millisecond))
			if !streamed {
				resp, out := h.refactor(sumBody)
				require.Equal(t, http.StatusOK, resp.StatusCode, "%v", out)
				assert.Equal(t, "released", out["outcome"])
			} else {
				resp := h.openStream(context.Background(), sumBody)
				defer resp.Body.Close()
				events, _ := readSSE(t, resp.Body, nil)
				require.NotEmpty(t, events)
				assert.Equal(t, "result", events[len(events)-1].Name, "%s", events[len(events)-1].Data)
			}
			assert.Contains(t, string(h.classFile("Calculator")), "Answer the sum of a and b")
			assert.Zero(t, h.metric(`refactord_http_stalled_clients_total{phase="body"}`))
		})
	}
}

// TestShutdownCutsUploadsAndCancelsRuns: BeginShutdown answers a stalled
// upload at once; CancelRuns stops a run before release and says so, in the
// answer and in the audit row.
func TestShutdownCutsUploadsAndCancelsRuns(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{readBody: 10 * time.Minute})
	before := h.classFile("Calculator")
	inReview, hold := make(chan struct{}), make(chan struct{})
	held := testenv.Review()
	held.Before = func() { close(inReview); <-hold }
	h.gem.Script("reviewer", held)
	h.gem.Script("writer", testenv.Code(newSum))
	h.gem.Script("validator", testenv.Approved())
	type answer struct {
		status    int
		committed bool
		out       map[string]any
	}
	done := make(chan answer, 1)
	go func() {
		resp, out := h.refactor(wrappedSumBody) // the original's form: its headers come at the model call
		done <- answer{answered(t, resp, out), resp.StatusCode == http.StatusOK, out}
	}()
	<-inReview
	upload := testenv.Dial(t, h.url, stalledPost("/api/v1/refactor", "Content-Type: application/json\r\n"))
	require.Eventually(t, func() bool { return h.srv.Inflight() == 2 }, 10*time.Second, 10*time.Millisecond, "the upload is being read, beside the run")

	h.srv.BeginShutdown()
	resp, data := h.readAnswer(upload, http.MethodPost, "/api/v1/refactor", 20*time.Second)
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, "%s", data)
	assert.Equal(t, "shutting_down", problemCode(t, data))

	h.srv.CancelRuns()
	close(hold)
	a := <-done
	assert.Equal(t, http.StatusServiceUnavailable, a.status, "%v", a.out)
	assert.Equal(t, true, a.committed, "the run had reached its model call: its headers were out")
	assert.Equal(t, "shutting_down", a.out["code"], "the audit row says the same (checked by refactor)")
	assert.NotEmpty(t, a.out["id"], "the run is named")
	h.pipe.WaitIdle()
	assert.Equal(t, before, h.classFile("Calculator"), "nothing was released")
	assert.Zero(t, h.gem.Count("validator"), "the run stopped")
}

// TestAnUploadCutByAShutdownGetsItsAnswer: a client still sending its body
// when the shutdown begins gets its 503 and can go on sending for a moment
// without a reset (the cut body is drained within tight bounds), as a
// refused body is.
func TestAnUploadCutByAShutdownGetsItsAnswer(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{readBody: 10 * time.Minute})
	upload := testenv.Dial(t, h.url, "POST /api/v1/refactor HTTP/1.1\r\nHost: 127.0.0.1\r\n"+
		"Content-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{\"class_name\": \"")
	require.Eventually(t, func() bool { return h.srv.Inflight() == 1 }, 10*time.Second, 10*time.Millisecond, "the upload is being read")

	h.srv.BeginShutdown()
	chunk := strings.Repeat("a", 4<<10)
	var writeErr error
	for range 25 { // half a second more of sending, after the answer went out
		if _, writeErr = io.WriteString(upload, chunk); writeErr != nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	assert.NoError(t, writeErr, "the client goes on sending without a reset")
	resp, data := h.readAnswer(upload, http.MethodPost, "/api/v1/refactor", 20*time.Second)
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, "%s", data)
	assert.Equal(t, "shutting_down", problemCode(t, data))
}
