package api_test

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/internal/testenv"
)

const newSum = "sum: a with: b\n\t\"Answer the sum of a and b\"\n\n\t^ a + b"

func TestApprovedInRoundOneIsReleasedWithThreeCalls(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		body      string
		file      string
		code      string
		wantDecl  string // what the Tonel file must now hold
		protocol  string
		classSide bool
	}{
		{
			name: "instance side, flat body", file: "Calculator", protocol: "calculating",
			body:     `{"class_name": "Calculator", "method_name": "sum:with:"}`,
			code:     newSum,
			wantDecl: "{ #category : 'calculating' }\nCalculator >> sum: a with: b [\n\t\"Answer the sum of a and b\"\n\n\t^ a + b\n]",
		},
		{
			name: "class side, wrapped body as the original's clients send", file: "ShoppingCart", protocol: "class initialization", classSide: true,
			body:     `{"refactor_request": {"class_name": "ShoppingCart", "method_name": "taxRate", "is_class_method": true}}`,
			code:     "taxRate\n\t\"The tax rate in percent, 20 unless set\"\n\n\t^ TaxRate ifNil: [ TaxRate := 20 ]",
			wantDecl: "{ #category : 'class initialization' }\nShoppingCart class >> taxRate [\n\t\"The tax rate in percent, 20 unless set\"\n\n\t^ TaxRate ifNil: [ TaxRate := 20 ]\n]",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, harnessOpts{})
			h.gem.ScriptAll(testenv.ApprovedInRoundOne(tc.code))
			resp, out := h.refactor(tc.body)
			require.Equal(t, http.StatusOK, resp.StatusCode, "%v", out)
			assert.Equal(t, "released", out["outcome"])
			assert.Equal(t, true, out["success"])
			assert.Equal(t, tc.classSide, out["is_class_method"])
			assert.Equal(t, tc.protocol, out["protocol"])
			assert.Equal(t, 3.0, out["usage"].(map[string]any)["model_calls"])
			assert.Equal(t, 3, h.gem.Total(), "exactly 3 requests reached the model")
			assert.Equal(t, 1.0, out["iterations"])
			legacy := out["result"].(map[string]any)
			assert.Equal(t, tc.code, legacy["refactored_code"], "the original's result object is kept")
			assert.Equal(t, "APPROVED", legacy["validation_result"], "the original's exact text: its clients test equality")
			assert.Equal(t, "RELEASED: "+out["method_name"].(string), legacy["release_status"], "the original's exact text: RELEASED: and the selector")
			assert.NotNil(t, out["validation"], "the verdict's details stay in the service's own field")
			assert.Contains(t, string(h.classFile(tc.file)), tc.wantDecl, "the Tonel file holds the new method in its old protocol")
			for _, r := range h.gem.Requests() {
				assert.Equal(t, "test-key", r.Header.Get("x-goog-api-key"))
			}
		})
	}
}

func TestNeverApprovedReleasesNothing(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{maxIterations: 3})
	before := h.classFile("Calculator")
	h.gem.Script("reviewer", testenv.Review())
	h.gem.Script("writer", testenv.Code("sum: a with: b\n\t^ b + a"))
	h.gem.Script("validator", testenv.NeedsWork("Still unclear."))
	h.gem.Script("refiner", testenv.Code("sum: a with: b\n\t^ a + b + 0"))
	resp, out := h.refactor(`{"class_name": "Calculator", "method_name": "sum:with:"}`)
	require.Equal(t, http.StatusUnprocessableEntity, answered(t, resp, out), "%v", out)
	assert.Equal(t, "not_approved", out["code"])
	assert.Equal(t, "sum: a with: b\n\t^ a + b + 0", out["refactored_code"], "the body carries the last candidate")
	assert.Contains(t, out["feedback"], "Still unclear.")
	assert.Equal(t, 3.0, out["iterations"])
	assert.Equal(t, 7, h.gem.Total(), "review, write, 3 validations, 2 refinements")
	assert.Equal(t, before, h.classFile("Calculator"), "the Tonel file is byte-for-byte unchanged")
}

func TestDryRunProposes(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	before := h.classFile("Calculator")
	h.gem.ScriptAll(testenv.ApprovedInRoundOne(newSum))
	resp, out := h.refactor(`{"class_name": "Calculator", "method_name": "sum:with:", "dry_run": true}`)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%v", out)
	assert.Equal(t, "proposed", out["outcome"])
	assert.Equal(t, newSum, out["refactored_code"])
	assert.Equal(t, before, h.classFile("Calculator"))
}

func TestMethodEditedDuringRunIsNotOverwritten(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	ref := refactor.MethodRef{Class: "Calculator", Selector: "sum:with:"}
	edit := "sum: a with: b\n\t\"edited by a person meanwhile\"\n\t^ a + b"
	h.gem.Script("reviewer", testenv.Review())
	h.gem.Script("writer", testenv.Code(newSum))
	validatorAnswer := testenv.Approved()
	validatorAnswer.Before = func() {
		require.NoError(t, h.image.Install(context.Background(), ref, edit, "calculating"))
	}
	h.gem.Script("validator", validatorAnswer)
	resp, out := h.refactor(`{"class_name": "Calculator", "method_name": "sum:with:"}`)
	require.Equal(t, http.StatusConflict, answered(t, resp, out), "%v", out)
	assert.Equal(t, "method_changed", out["code"])
	src, err := h.image.MethodSource(context.Background(), ref)
	require.NoError(t, err)
	assert.Equal(t, edit, src, "the person's edit is kept")
	assert.Contains(t, string(h.classFile("Calculator")), "edited by a person meanwhile")
}

func TestConcurrentRequestsOneBusy(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	hold := make(chan struct{})
	held := testenv.Review()
	held.Before = func() { <-hold }
	h.gem.Script("reviewer", held)
	h.gem.Script("writer", testenv.Code(newSum))
	h.gem.Script("validator", testenv.Approved())

	type result struct {
		status     int
		retryAfter string
		code       any
		requestID  [2]any // the header's and the body's
		body       map[string]any
	}
	results := make(chan result, 2)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, out := h.refactor(`{"class_name": "Calculator", "method_name": "sum:with:"}`)
			results <- result{resp.StatusCode, resp.Header.Get("Retry-After"), out["code"], [2]any{resp.Header.Get("X-Request-ID"), out["request_id"]}, out}
		}()
	}
	busy := <-results // the loser answers at once; the winner is held
	assert.Equal(t, http.StatusServiceUnavailable, busy.status)
	assert.Equal(t, "busy", busy.code)
	ra, err := strconv.Atoi(busy.retryAfter)
	require.NoError(t, err, "Retry-After is whole seconds")
	assert.GreaterOrEqual(t, ra, 1)
	assert.NotEmpty(t, busy.requestID[0])
	assert.Equal(t, busy.requestID[0], busy.requestID[1], "the busy body carries the request's id")

	require.Eventually(t, func() bool { return h.gem.Count("reviewer") == 1 }, 10*time.Second, 10*time.Millisecond, "the winner is in review")
	// Later refusals (their body encoded once, the id spliced in) say the
	// same as the first, each with its own request id.
	for _, id := range []string{"again-1", "again-2"} {
		resp, data := h.do(http.MethodPost, "/api/v1/refactor", `{"class_name": "Calculator", "method_name": "sum:with:"}`, map[string]string{"X-Request-ID": id})
		assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
		assert.Equal(t, busy.retryAfter, resp.Header.Get("Retry-After"))
		assert.Equal(t, id, resp.Header.Get("X-Request-ID"))
		var again map[string]any
		require.NoError(t, json.Unmarshal(data, &again))
		assert.Equal(t, id, again["request_id"])
		first := maps.Clone(busy.body)
		first["request_id"] = id
		assert.Equal(t, first, again)
	}
	resp, data := h.do(http.MethodGet, "/health", "", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var health map[string]any
	require.NoError(t, json.Unmarshal(data, &health))
	assert.Equal(t, true, health["busy"], "/health answers during a run")
	assert.Equal(t, "healthy", health["status"])
	assert.Equal(t, true, health["mcp"].(map[string]any)["up"])

	close(hold)
	wg.Wait()
	winner := <-results
	assert.Equal(t, http.StatusOK, winner.status)
}

func TestErrorsMapToStatuses(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{maxBody: 2048})
	cases := []struct {
		name   string
		body   string
		status int
		code   string
	}{
		{"class not found", `{"class_name": "NoSuchClass", "method_name": "foo"}`, 404, "class_not_found"},
		{"method not found", `{"class_name": "Calculator", "method_name": "noSuchMethod"}`, 404, "method_not_found"},
		{"injection in class", `{"class_name": "Foo. Smalltalk", "method_name": "foo"}`, 422, "invalid_request"},
		{"injection in selector", `{"class_name": "Calculator", "method_name": "bar: x ]"}`, 422, "invalid_request"},
		{"empty names", `{"class_name": "", "method_name": ""}`, 422, "invalid_request"},
		{"lower-case class", `{"class_name": "calculator", "method_name": "sum:with:"}`, 422, "invalid_request"},
		{"symbol selector", `{"class_name": "Calculator", "method_name": "#foo"}`, 422, "invalid_request"},
		{"missing fields", `{}`, 422, "invalid_request"},
		{"malformed JSON", `{"class_name": "Calculator",`, 400, "invalid_request"},
		{"not an object", `["Calculator"]`, 400, "invalid_request"},
		{"unknown field", `{"class_name": "Calculator", "method_name": "foo", "eval": "1"}`, 400, "invalid_request"},
		{"wrong type", `{"class_name": "Calculator", "method_name": 42}`, 400, "invalid_request"},
		{"wrapped with extra field", `{"refactor_request": {"class_name": "Calculator", "method_name": "foo"}, "x": 1}`, 400, "invalid_request"},
		{"oversized", `{"class_name": "Calculator", "method_name": "` + strings.Repeat("a", 4096) + `"}`, 413, "payload_too_large"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, out := h.refactor(tc.body)
			assert.Equal(t, tc.status, resp.StatusCode, "%v", out)
			assert.Equal(t, tc.code, out["code"])
			assert.Equal(t, "application/problem+json", resp.Header.Get("Content-Type"))
			assert.NotEmpty(t, out["request_id"])
			assert.Equal(t, resp.Header.Get("X-Request-ID"), out["request_id"])
		})
	}
	assert.Zero(t, h.gem.Total(), "no model call for a request that fails before review")
	resp, out := h.refactor(`{"class_name": "Calculator", "method_name": "sum:"}`)
	assert.Equal(t, 404, resp.StatusCode)
	assert.Equal(t, "method_not_found", out["code"])
}

func TestFieldErrorsListEveryMistake(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	resp, out := h.refactor(`{"class_name": "lower", "method_name": "bad selector"}`)
	require.Equal(t, 422, resp.StatusCode)
	errs := out["errors"].([]any)
	require.Len(t, errs, 2)
	fields := []any{errs[0].(map[string]any)["field"], errs[1].(map[string]any)["field"]}
	assert.ElementsMatch(t, []any{"class_name", "method_name"}, fields)
}

func TestAPIKeys(t *testing.T) {
	t.Parallel()
	key := "0123456789abcdef-key"
	h := newHarness(t, harnessOpts{apiKeys: []string{"another-key-0000000", key}})
	body := `{"class_name": "NoSuchClass", "method_name": "foo"}`
	cases := []struct {
		name   string
		header map[string]string
		status int
	}{
		{"no key", nil, 401},
		{"wrong key", map[string]string{"Authorization": "Bearer nope"}, 401},
		{"not bearer", map[string]string{"Authorization": "Basic " + key}, 401},
		{"right key", map[string]string{"Authorization": "Bearer " + key}, 404},
		// The scheme is case-insensitive (RFC 9110 §11.1); the key is not.
		{"lower-case scheme", map[string]string{"Authorization": "bearer " + key}, 404},
		{"upper-case scheme", map[string]string{"Authorization": "BEARER " + key}, 404},
		{"upper-case key", map[string]string{"Authorization": "Bearer " + strings.ToUpper(key)}, 401},
		{"scheme alone", map[string]string{"Authorization": "bearer"}, 401},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, data := h.do(http.MethodPost, "/api/v1/refactor", body, tc.header)
			assert.Equal(t, tc.status, resp.StatusCode, "%s", data)
			if tc.status == 401 {
				assert.Contains(t, string(data), `"code":"unauthorized"`)
				assert.NotEmpty(t, resp.Header.Get("WWW-Authenticate"))
			}
		})
	}
	resp, _ := h.do(http.MethodGet, "/health", "", nil)
	assert.Equal(t, 200, resp.StatusCode, "health needs no key")
	resp, _ = h.do(http.MethodGet, "/api/v1/refactorings", "", nil)
	assert.Equal(t, 401, resp.StatusCode, "the history holds source code: it needs a key")
	resp, _ = h.do(http.MethodGet, "/api/v1/refactorings", "", map[string]string{"Authorization": "Bearer " + key})
	assert.Equal(t, 200, resp.StatusCode)
}

func TestRequestID(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	resp, _ := h.do(http.MethodGet, "/health", "", map[string]string{"X-Request-ID": "ci-job-42.step:3"})
	assert.Equal(t, "ci-job-42.step:3", resp.Header.Get("X-Request-ID"))
	resp, _ = h.do(http.MethodGet, "/health", "", map[string]string{"X-Request-ID": "bad id\twith spaces"})
	assert.NotEqual(t, "bad id\twith spaces", resp.Header.Get("X-Request-ID"))
	assert.Regexp(t, `^[0-9a-f]{32}$`, resp.Header.Get("X-Request-ID"))
}

func TestPharoDown(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		opts harnessOpts
	}{
		{"the MCP server cannot start", harnessOpts{simArgs: []string{"serve", "--dir", "/nonexistent/image"}}},
		{"the MCP server cannot reach the image", harnessOpts{simEnv: []string{"PHARO_SIM_UNREACHABLE=true"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.opts)
			resp, out := h.refactor(`{"class_name": "Calculator", "method_name": "sum:with:"}`)
			assert.Equal(t, http.StatusBadGateway, resp.StatusCode, "%v", out)
			assert.Equal(t, "pharo_unavailable", out["code"])
			ready, data := h.do(http.MethodGet, "/ready", "", nil)
			assert.Equal(t, http.StatusServiceUnavailable, ready.StatusCode, "%s", data)
		})
	}
}

func TestModelPersistentServerError(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{modelRetries: 2})
	h.gem.Script("reviewer", testenv.Reply{Status: 500, Text: "backend exploded"})
	resp, out := h.refactor(`{"class_name": "Calculator", "method_name": "sum:with:"}`)
	assert.Equal(t, http.StatusBadGateway, answered(t, resp, out), "%v", out)
	assert.Equal(t, "model_unavailable", out["code"])
	assert.Equal(t, 3, h.gem.Count("reviewer"), "the first attempt and MODEL_MAX_RETRIES=2 retries")
	assert.Contains(t, out["detail"], "HTTP 500")
	assert.NotContains(t, out["detail"], "test-key", "no credentials in problem details")
}

func TestRunDeadline(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{timeout: 500 * time.Millisecond})
	h.gem.Script("reviewer", testenv.Review().Delayed(2*time.Second))
	resp, out := h.refactor(`{"class_name": "Calculator", "method_name": "sum:with:"}`)
	assert.Equal(t, http.StatusGatewayTimeout, answered(t, resp, out), "%v", out)
	assert.Equal(t, "timeout", out["code"])
	// The slot is free again.
	assert.False(t, h.pipe.Busy())
}

func TestReadyAndOpenAPI(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	resp, data := h.do(http.MethodGet, "/ready", "", nil)
	assert.Equal(t, http.StatusOK, resp.StatusCode, "%s", data)
	resp, data = h.do(http.MethodGet, "/openapi.yaml", "", nil)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	file := readRepoFile(t, "openapi.yaml")
	assert.Equal(t, file, data, "served from the binary, the same bytes as the file at the repo root")
	resp, data = h.do(http.MethodGet, "/metrics", "", nil)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(data), "refactord_run_in_flight")
}

// TestReviewerToolRoundReadsTheImage: a reviewer that asks for a read-only
// tool gets pharo-sim's answer back, and each tool round costs one call.
func TestReviewerToolRoundReadsTheImage(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	h.gem.Script("reviewer",
		testenv.Reply{Call: map[string]any{"name": "get_class_comment", "args": map[string]any{"class_name": "Calculator"}}},
		testenv.Reply{Call: map[string]any{"name": "eval", "args": map[string]any{"code": "Smalltalk at: #Pwned put: 1"}}},
		testenv.Review())
	h.gem.Script("writer", testenv.Code(newSum))
	h.gem.Script("validator", testenv.Approved())
	resp, out := h.refactor(`{"class_name": "Calculator", "method_name": "sum:with:"}`)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%v", out)
	assert.Equal(t, 5, h.gem.Total(), "3 calls plus one per tool round")
	assert.Equal(t, 5.0, out["usage"].(map[string]any)["model_calls"])
	var reqs []string
	for _, r := range h.gem.Requests() {
		if r.Role == refactor.RoleReviewer {
			reqs = append(reqs, string(r.Body))
		}
	}
	require.Len(t, reqs, 3)
	assert.Contains(t, reqs[1], "functionResponse", "the tool result went back to the model")
	assert.Contains(t, reqs[1], "arithmetic", "…holding the class comment read from the image")
	assert.Contains(t, reqs[2], `refused: tool \"eval\" is not available`, "eval was refused, and the model was told")
	exists, err := h.image.ClassExists(context.Background(), "Pwned")
	require.NoError(t, err)
	assert.False(t, exists, "nothing was evaluated")
}
