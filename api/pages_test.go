package api_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The pages are not JSON: the response validation reads them as text.
func init() {
	asText := func(body io.Reader, _ http.Header, _ *openapi3.SchemaRef, _ openapi3filter.EncodingFn) (any, error) {
		data, err := io.ReadAll(body)
		return string(data), err
	}
	for _, ct := range []string{"text/html", "text/javascript", "text/css", "image/png"} {
		openapi3filter.RegisterBodyDecoder(ct, asText)
	}
}

// TestRootNamesTheServiceAndItsPages: GET / answers name, version and
// links, and every link answers.
func TestRootNamesTheServiceAndItsPages(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	resp, data := h.do(http.MethodGet, "/", "", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", data)
	var root struct {
		Name    string            `json:"name"`
		Version string            `json:"version"`
		Links   map[string]string `json:"links"`
	}
	require.NoError(t, json.Unmarshal(data, &root))
	assert.Equal(t, "refactord", root.Name)
	assert.Equal(t, "test", root.Version)
	require.NotEmpty(t, root.Links)
	for name, link := range root.Links {
		if link == "/api/v1/refactor" {
			continue // POST only
		}
		resp, data := h.do(http.MethodGet, link, "", nil)
		assert.Equal(t, http.StatusOK, resp.StatusCode, "%s → %s: %.200s", name, link, data)
	}
}

// TestDocsPageIsServedFromTheBinary: /docs and its files come from the
// binary, under a policy that runs only the service's own files; /redoc
// leads there; a file it does not have is 404.
func TestDocsPageIsServedFromTheBinary(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	resp, data := h.do(http.MethodGet, "/docs", "", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "text/html; charset=utf-8", resp.Header.Get("Content-Type"))
	csp := resp.Header.Get("Content-Security-Policy")
	assert.Contains(t, csp, "script-src 'self'")
	assert.Contains(t, csp, "connect-src 'self'")
	assert.NotContains(t, csp, "unsafe-inline")
	assert.NotContains(t, string(data), "<script>", "no inline script: the policy would block it")
	for _, ref := range []string{"/docs/swagger-ui-bundle.js", "/docs/swagger-ui.css", "/docs/docs.js"} {
		assert.Contains(t, string(data), ref)
		resp, body := h.do(http.MethodGet, ref, "", nil)
		assert.Equal(t, http.StatusOK, resp.StatusCode, ref)
		assert.NotEmpty(t, body)
		assert.Equal(t, "nosniff", resp.Header.Get("X-Content-Type-Options"))
		assert.NotContains(t, string(body), "://cdn", "%s loads nothing from a CDN", ref)
	}
	resp, body := h.do(http.MethodGet, "/docs/LICENSE", "", nil)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(body), "Apache License", "Swagger UI's licence is served beside it")
	resp, _ = h.do(http.MethodGet, "/docs/nope.js", "", nil)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)

	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	redoc, err := noRedirect.Get(h.url + "/redoc")
	require.NoError(t, err)
	_ = redoc.Body.Close()
	assert.Equal(t, http.StatusFound, redoc.StatusCode)
	assert.Equal(t, "/docs", redoc.Header.Get("Location"))
}

// TestOpenAPIJSONIsTheYAMLDocument: /openapi.json is /openapi.yaml, as
// OpenAPI reads them, and keeps its order of paths.
func TestOpenAPIJSONIsTheYAMLDocument(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	resp, fromJSON := h.do(http.MethodGet, "/openapi.json", "", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	require.True(t, json.Valid(fromJSON))
	_, fromYAML := h.do(http.MethodGet, "/openapi.yaml", "", nil)
	load := func(data []byte) string {
		doc, err := openapi3.NewLoader().LoadFromData(data)
		require.NoError(t, err)
		require.NoError(t, doc.Validate(context.Background()))
		out, err := json.Marshal(doc)
		require.NoError(t, err)
		return string(out)
	}
	assert.JSONEq(t, load(fromYAML), load(fromJSON))
	assert.Less(t, strings.Index(string(fromJSON), `"/api/v1/refactor"`), strings.Index(string(fromJSON), `"/health"`), "the paths keep the document's order")
}

// TestTrailingSlashesAreTolerated: every route also answers with a
// trailing slash, the run route included.
func TestTrailingSlashesAreTolerated(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	h.scriptApproval()
	req, err := http.NewRequest(http.MethodPost, h.url+"/api/v1/refactor/", strings.NewReader(sumBody))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", data)
	var out map[string]any
	require.NoError(t, json.Unmarshal(data, &out))
	assert.Equal(t, "released", out["outcome"])
	id := out["id"].(string)
	for _, path := range []string{"/health/", "/ready/", "/openapi.yaml/", "/docs/", "/api/v1/refactorings/", "/api/v1/refactorings/" + id + "/"} {
		resp, err := http.Get(h.url + path)
		require.NoError(t, err)
		_ = resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode, path)
	}
}

// TestProblemsSpeakBothDialects: a problem carries the original's
// status_code; a field error its loc, msg and type beside field and
// message.
func TestProblemsSpeakBothDialects(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	cases := []struct {
		name, body string
		status     int
		want       []map[string]any
	}{
		{"invalid names, wrapped", `{"refactor_request": {"class_name": "lower", "method_name": ""}}`, 422, []map[string]any{
			{"field": "class_name", "loc": []any{"body", "refactor_request", "class_name"}, "type": "value_error"},
			{"field": "method_name", "loc": []any{"body", "refactor_request", "method_name"}, "type": "missing"},
		}},
		{"unknown field", `{"class_name": "Calculator", "method_name": "foo", "dryrun": true}`, 400, []map[string]any{
			{"field": "dryrun", "loc": []any{"body", "dryrun"}, "type": "extra_forbidden"},
		}},
		{"wrong type", `{"class_name": "Calculator", "method_name": "foo", "dry_run": "yes"}`, 400, []map[string]any{
			{"field": "dry_run", "loc": []any{"body", "dry_run"}, "type": "bool_type"},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, out := h.refactor(tc.body)
			require.Equal(t, tc.status, resp.StatusCode, "%v", out)
			assert.Equal(t, float64(tc.status), out["status_code"])
			errs, _ := out["errors"].([]any)
			require.Len(t, errs, len(tc.want), "%v", out)
			for i, want := range tc.want {
				got := errs[i].(map[string]any)
				for k, v := range want {
					assert.Equal(t, v, got[k], k)
				}
				assert.NotEmpty(t, got["msg"])
				assert.Equal(t, got["message"], got["msg"])
			}
		})
	}
	assert.Zero(t, h.gem.Total(), "nothing ran")
	resp, data := h.do(http.MethodGet, "/api/v1/refactorings/nope", "", nil)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	assert.Contains(t, string(data), `"status_code":404`)
}

// TestNamesAreTrimmed: blanks around the names are not part of them.
func TestNamesAreTrimmed(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	h.scriptApproval()
	resp, out := h.refactor(`{"class_name": " Calculator\t", "method_name": " sum:with: ", "dry_run": true}`)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%v", out)
	assert.Equal(t, "Calculator", out["class_name"])
	assert.Equal(t, "sum:with:", out["method_name"])
	assert.Equal(t, "proposed", out["outcome"])
}

// TestOwnPagesAreOfItsOrigin: a page the service served itself (/docs and
// its "Try it out") sends the service's own origin; on a loopback listener
// that origin is let in without being listed. On a public listener (DNS
// rebinding is possible there) it is not.
func TestOwnPagesAreOfItsOrigin(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	h.scriptApproval()
	body := `{"class_name": "Calculator", "method_name": "sum:with:", "dry_run": true}`
	own := map[string]string{"Origin": h.url, "Sec-Fetch-Site": "same-origin", "Content-Type": "application/json"}
	resp, data := h.send(h.request(http.MethodPost, "/api/v1/refactor", body, own))
	assert.Equal(t, http.StatusOK, resp.StatusCode, "%s", data)
	resp, data = h.send(h.request(http.MethodGet, "/api/v1/refactorings", "", map[string]string{"Origin": h.url}))
	assert.Equal(t, http.StatusOK, resp.StatusCode, "%s", data)

	public := newHarness(t, harnessOpts{publicListener: true})
	before := public.classFile("Calculator")
	resp, data = public.send(public.request(http.MethodPost, "/api/v1/refactor", body, map[string]string{"Origin": public.url, "Content-Type": "application/json"}))
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "%s", data)
	assert.Equal(t, "origin_not_allowed", problemCode(t, data))
	public.nothingHappened(before)
}
