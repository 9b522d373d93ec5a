package gemini

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "pharo-refactor"
	"pharo-refactor/agents"
	"pharo-refactor/internal/testenv"
)

const testKey = "test-key-123"

// fakeGemini speaks the Gemini REST API's generateContent on loopback,
// including its refusal of function declarations with a JSON response type.
type fakeGemini struct {
	t       *testing.T
	mu      sync.Mutex
	replies []reply
	seen    []seen
}

type reply struct {
	status int
	header map[string]string
	body   any
}

type seen struct {
	at   time.Time
	path string
	key  string
	body map[string]any
}

func newFake(t *testing.T, replies ...reply) (*fakeGemini, *httptest.Server) {
	f := &fakeGemini{t: t, replies: replies}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv
}

func (f *fakeGemini) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeJSON(w, reply{status: 400, body: apiErr(400, "INVALID_ARGUMENT", "Invalid JSON payload received.")})
		return
	}
	f.mu.Lock()
	f.seen = append(f.seen, seen{at: time.Now(), path: r.URL.Path, key: r.Header.Get("x-goog-api-key"), body: body})
	f.mu.Unlock()
	switch {
	case r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/v1beta/models/") || !strings.HasSuffix(r.URL.Path, ":generateContent"):
		writeJSON(w, reply{status: 404, body: apiErr(404, "NOT_FOUND", "not found: "+r.URL.Path)})
	case r.Header.Get("x-goog-api-key") != testKey:
		writeJSON(w, reply{status: 400, body: apiErr(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.")})
	case dig(body, "tools") != nil && dig(body, "generationConfig", "responseMimeType") == "application/json":
		writeJSON(w, reply{status: 400, body: apiErr(400, "INVALID_ARGUMENT", "Function calling with a response mime type: 'application/json' is unsupported")})
	default:
		writeJSON(w, f.next())
	}
}

func (f *fakeGemini) next() reply {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.replies) == 0 {
		f.t.Errorf("fake Gemini: unexpected request %d", len(f.seen))
		return reply{status: 500, body: apiErr(500, "INTERNAL", "no reply scripted")}
	}
	r := f.replies[0]
	if len(f.replies) > 1 || r.status < 500 {
		f.replies = f.replies[1:]
	}
	return r
}

func (f *fakeGemini) requests() []seen {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seen(nil), f.seen...)
}

func writeJSON(w http.ResponseWriter, r reply) {
	for k, v := range r.header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	if r.status == 0 {
		r.status = 200
	}
	w.WriteHeader(r.status)
	_ = json.NewEncoder(w).Encode(r.body)
}

func apiErr(code int, status, msg string) map[string]any {
	return map[string]any{"error": map[string]any{"code": code, "message": msg, "status": status}}
}

func usageMeta(in, out int) map[string]any {
	return map[string]any{"promptTokenCount": in, "candidatesTokenCount": out, "thoughtsTokenCount": 3, "totalTokenCount": in + out + 3}
}

func textReply(text, finish string) reply {
	return reply{body: map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": []any{map[string]any{"text": "thinking…", "thought": true}, map[string]any{"text": text}}},
			"finishReason": finish, "index": 0,
		}},
		"usageMetadata": usageMeta(100, 20),
		"modelVersion":  "gemini-test",
	}}
}

func callReply(name string, args map[string]any) reply {
	return reply{body: map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": []any{map[string]any{"functionCall": map[string]any{"name": name, "args": args}, "thoughtSignature": "c2lnbmF0dXJl"}}},
			"finishReason": "STOP", "index": 0,
		}},
		"usageMetadata": usageMeta(90, 10),
	}}
}

func errReply(code int, status, msg string, header map[string]string) reply {
	return reply{status: code, header: header, body: apiErr(code, status, msg)}
}

// dig walks nested JSON objects and arrays (int keys index arrays).
func dig(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

func fastRetry() agents.RetryPolicy {
	return agents.RetryPolicy{MaxRetries: 2, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond, AttemptTimeout: 10 * time.Second}
}

func newModel(t *testing.T, srv *httptest.Server) *Model {
	t.Helper()
	m, err := New(context.Background(), Config{APIKey: testKey, BaseURL: srv.URL, Model: "gemini-test", Retry: fastRetry()})
	require.NoError(t, err)
	return m
}

var calc = refactor.Input{
	MethodRef:       refactor.MethodRef{Class: "Calculator", Selector: "sum:with:"},
	Source:          "sum: a with: b\n\t^ a + b",
	ClassDefinition: "Object subclass: #Calculator",
	ClassComment:    "I add numbers.",
}

var review = refactor.Review{Severity: refactor.SeverityLow, Summary: "names"}

func newRoles(t *testing.T, m agents.Model, tools agents.ImageTools, rounds int) *agents.Roles {
	t.Helper()
	r, err := agents.New(agents.Config{Reviewer: m, Writer: m, Validator: m, Refiner: m, Tools: tools, MaxToolRounds: rounds})
	require.NoError(t, err)
	return r
}

const goodCandidate = `{"code": "sum: augend with: addend\n\t^ augend + addend", "notes": "renamed"}`

func TestGenerateSendsKeySystemSchemaAndTools(t *testing.T) {
	cases := []struct {
		name  string
		req   agents.Request
		check func(t *testing.T, body map[string]any)
	}{
		{"schema call", agents.Request{Role: refactor.RoleWriter, System: "be a writer", Messages: []agents.Message{agents.UserText("rewrite it")}, Schema: agents.CandidateSchema()},
			func(t *testing.T, body map[string]any) {
				assert.Equal(t, "application/json", dig(body, "generationConfig", "responseMimeType"))
				assert.Equal(t, "OBJECT", dig(body, "generationConfig", "responseSchema", "type"))
				assert.Equal(t, "STRING", dig(body, "generationConfig", "responseSchema", "properties", "code", "type"))
				assert.Equal(t, []any{"code", "notes"}, dig(body, "generationConfig", "responseSchema", "propertyOrdering"))
				assert.Equal(t, []any{"code", "notes"}, dig(body, "generationConfig", "responseSchema", "required"))
				assert.Nil(t, dig(body, "tools"))
			}},
		{"tool call", agents.Request{Role: refactor.RoleReviewer, System: "be a reviewer", Messages: []agents.Message{agents.UserText("review it")}, Tools: agents.ToolDecls()},
			func(t *testing.T, body map[string]any) {
				var names []string
				decls, _ := dig(body, "tools", 0, "functionDeclarations").([]any)
				for i := range decls {
					names = append(names, dig(decls, i, "name").(string))
					assert.Equal(t, "OBJECT", dig(decls, i, "parameters", "type"))
				}
				assert.ElementsMatch(t, agents.ToolNames(), names)
				assert.Equal(t, "BOOLEAN", dig(decls, 0, "parameters", "properties", "is_class_method", "type"))
				assert.Nil(t, dig(body, "generationConfig", "responseMimeType"))
				assert.Nil(t, dig(body, "generationConfig", "responseSchema"))
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, srv := newFake(t, textReply("hello", "STOP"))
			resp, err := newModel(t, srv).Generate(context.Background(), tc.req)
			require.NoError(t, err)
			assert.Equal(t, "hello", resp.Text, "thought parts are skipped")
			assert.Equal(t, agents.FinishStop, resp.FinishReason)
			assert.Equal(t, agents.Usage{InputTokens: 100, OutputTokens: 23}, resp.Usage)

			reqs := f.requests()
			require.Len(t, reqs, 1)
			assert.Equal(t, testKey, reqs[0].key)
			assert.Equal(t, "/v1beta/models/gemini-test:generateContent", reqs[0].path)
			assert.Equal(t, tc.req.System, dig(reqs[0].body, "systemInstruction", "parts", 0, "text"))
			assert.Equal(t, "user", dig(reqs[0].body, "contents", 0, "role"))
			assert.Equal(t, tc.req.Messages[0].Text, dig(reqs[0].body, "contents", 0, "parts", 0, "text"))
			tc.check(t, reqs[0].body)
		})
	}
}

func TestGenerateReadsAFunctionCall(t *testing.T) {
	_, srv := newFake(t, callReply("get_class_comment", map[string]any{"class_name": "Calculator"}))
	resp, err := newModel(t, srv).Generate(context.Background(), agents.Request{Messages: []agents.Message{agents.UserText("x")}, Tools: agents.ToolDecls()})
	require.NoError(t, err)
	require.Len(t, resp.ToolCalls, 1)
	assert.Equal(t, "get_class_comment", resp.ToolCalls[0].Name)
	assert.Equal(t, map[string]any{"class_name": "Calculator"}, resp.ToolCalls[0].Args)
	assert.Equal(t, []byte("signature"), resp.ToolCalls[0].Signature)
	assert.Equal(t, agents.FinishToolCalls, resp.FinishReason)
}

// The reviewer offers tools without a schema; a function call, then a text
// answer, is one tool round: two calls.
func TestReviewerToolRoundOnGemini(t *testing.T) {
	reviewJSON := `{"severity": "MEDIUM", "summary": "names", "issues": []}`
	cases := []struct {
		name        string
		call        reply
		rounds      int
		seenByImage []string
		fedBack     string
	}{
		{"allowed tool, rounds left", callReply("get_class_comment", map[string]any{"class_name": "Calculator"}), 2, []string{"get_class_comment"}, "I add numbers."},
		{"allowed tool, last round", callReply("get_class_comment", map[string]any{"class_name": "Calculator"}), 1, []string{"get_class_comment"}, "I add numbers."},
		{"eval is refused without being sent", callReply("eval", map[string]any{"code": "Smalltalk snapshot: false andQuit: true"}), 2, nil, "refused: tool \"eval\" is not available"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// With rounds left the answer comes without a schema (tolerant:
			// prose is fine); after the last round it carries the schema
			// and is the object alone.
			final := "Here you go:\n" + reviewJSON
			if tc.rounds == 1 {
				final = reviewJSON
			}
			f, srv := newFake(t, tc.call, textReply(final, "STOP"))
			tools := &testenv.RecordingTools{Answers: map[string]string{"get_class_comment": "I add numbers."}}
			rev, stats, err := newRoles(t, newModel(t, srv), tools, tc.rounds).Review(context.Background(), calc)
			require.NoError(t, err)
			assert.Equal(t, refactor.SeverityMedium, rev.Severity)
			assert.Equal(t, 2, stats.Calls)
			assert.Equal(t, 1, stats.ToolCalls)
			assert.Equal(t, int64(190), stats.InputTokens)
			assert.Equal(t, tc.seenByImage, tools.Seen())

			reqs := f.requests()
			require.Len(t, reqs, 2)
			first, second := reqs[0].body, reqs[1].body
			assert.NotNil(t, dig(first, "tools"), "the first call offers tools")
			assert.Nil(t, dig(first, "generationConfig", "responseSchema"), "…and so no schema")
			assert.Equal(t, "model", dig(second, "contents", 1, "role"))
			assert.Equal(t, "c2lnbmF0dXJl", dig(second, "contents", 1, "parts", 0, "thoughtSignature"), "the thought signature is echoed")
			output, _ := dig(second, "contents", 2, "parts", 0, "functionResponse", "response", "output").(string)
			assert.Contains(t, output, tc.fedBack)
			if tc.rounds == 1 {
				assert.Nil(t, dig(second, "tools"), "no tools after the last round")
				assert.Equal(t, "application/json", dig(second, "generationConfig", "responseMimeType"))
				assert.Contains(t, dig(second, "contents", 2, "parts", 1, "text"), "no more tools")
			} else {
				assert.NotNil(t, dig(second, "tools"))
			}
		})
	}
}

func TestRetriesOnGemini(t *testing.T) {
	t.Run("429 with Retry-After, then success", func(t *testing.T) {
		f, srv := newFake(t, errReply(429, "RESOURCE_EXHAUSTED", "quota", map[string]string{"Retry-After": "1"}), textReply(goodCandidate, "STOP"))
		cand, stats, err := newRoles(t, newModel(t, srv), nil, 0).Write(context.Background(), calc, review)
		require.NoError(t, err)
		assert.Equal(t, "renamed", cand.Notes)
		assert.Equal(t, 1, stats.Calls, "an HTTP retry is not another model call")
		reqs := f.requests()
		require.Len(t, reqs, 2)
		assert.GreaterOrEqual(t, reqs[1].at.Sub(reqs[0].at), time.Second)
	})
	cases := []struct {
		name     string
		replies  []reply
		key      string
		requests int
		msg      string
	}{
		{"persistent 500", []reply{errReply(500, "INTERNAL", "boom", nil)}, testKey, 3, "still failing after the retries"},
		{"auth is not retried", []reply{textReply(goodCandidate, "STOP")}, "wrong-key", 1, "API key not valid"},
		{"403 is not retried", []reply{errReply(403, "PERMISSION_DENIED", "no access", nil)}, testKey, 1, "refused the credentials"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, srv := newFake(t, tc.replies...)
			m, err := New(context.Background(), Config{APIKey: tc.key, BaseURL: srv.URL, Model: "gemini-test", Retry: fastRetry()})
			require.NoError(t, err)
			_, _, err = newRoles(t, m, nil, 0).Write(context.Background(), calc, review)
			require.Error(t, err)
			assert.Equal(t, refactor.ModelUnavailable, refactor.KindOf(err))
			assert.Contains(t, err.Error(), tc.msg)
			assert.Len(t, f.requests(), tc.requests)
		})
	}
}

// A request with tools and a JSON schema is refused by the API (and by the
// fake), with a 400 that is not retried. The roles never send one.
func TestToolsWithJSONSchemaAreRefused(t *testing.T) {
	f, srv := newFake(t, textReply("unused", "STOP"))
	_, err := newModel(t, srv).Generate(context.Background(), agents.Request{
		Messages: []agents.Message{agents.UserText("x")}, Tools: agents.ToolDecls(), Schema: agents.ReviewSchema(),
	})
	require.Error(t, err)
	assert.Equal(t, refactor.ModelUnavailable, refactor.KindOf(err))
	assert.Contains(t, err.Error(), "Function calling with a response mime type")
	assert.Len(t, f.requests(), 1)
}

func TestUnusableAnswersOnGemini(t *testing.T) {
	cases := []struct {
		name     string
		replies  []reply
		requests int
		wantKind refactor.Kind
		msg      string
	}{
		{"MAX_TOKENS then good", []reply{textReply(`{"code": "sum: augend with:`, "MAX_TOKENS"), textReply(goodCandidate, "STOP")}, 2, "", ""},
		{"garbage then good", []reply{textReply("I like it.", "STOP"), textReply(goodCandidate, "STOP")}, 2, "", ""},
		{"garbage twice", []reply{textReply("I like it.", "STOP"), textReply("Really.", "STOP")}, 2, refactor.ModelBadOutput, "after a corrective retry"},
		{"SAFETY", []reply{textReply("", "SAFETY")}, 1, refactor.ModelBadOutput, "blocked the answer (SAFETY)"},
		{"prompt blocked", []reply{{body: map[string]any{"promptFeedback": map[string]any{"blockReason": "SAFETY"}, "usageMetadata": usageMeta(50, 0)}}}, 1, refactor.ModelBadOutput, "prompt blocked: SAFETY"},
		{"no candidates", []reply{{body: map[string]any{"usageMetadata": usageMeta(50, 0)}}, textReply(goodCandidate, "STOP")}, 2, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, srv := newFake(t, tc.replies...)
			cand, stats, err := newRoles(t, newModel(t, srv), nil, 0).Write(context.Background(), calc, review)
			reqs := f.requests()
			assert.Len(t, reqs, tc.requests)
			assert.Equal(t, tc.requests, stats.Calls, "corrective retries are counted")
			if tc.wantKind != "" {
				require.Error(t, err)
				assert.Equal(t, tc.wantKind, refactor.KindOf(err))
				assert.Contains(t, err.Error(), tc.msg)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "sum: augend with: addend\n\t^ augend + addend", cand.Code)
			last, _ := dig(reqs[1].body, "contents", 0, "parts", 0, "text").(string)
			assert.Contains(t, last, "Your previous answer could not be used")
			assert.Equal(t, "application/json", dig(reqs[1].body, "generationConfig", "responseMimeType"))
		})
	}
}

func TestNewNeedsAKey(t *testing.T) {
	_, err := New(context.Background(), Config{})
	assert.ErrorContains(t, err, "GEMINI_API_KEY")
	env := map[string]string{"GEMINI_API_KEY": "g", "GOOGLE_API_KEY": "G", "GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:1"}
	cfg := ConfigFromEnv(func(k string) string { return env[k] })
	assert.Equal(t, "G", cfg.APIKey, "GOOGLE_API_KEY wins, as in genai")
	assert.Equal(t, "http://127.0.0.1:1", cfg.BaseURL)
}

// responseSchema constrains the decoding: the roles read such an answer as
// the object alone; without a schema (a tool round) tolerantly.
func TestGenerateSaysWhetherTheAnswerWasConstrained(t *testing.T) {
	_, srv := newFake(t, textReply(`{"severity": "LOW"}`, "STOP"), textReply("prose", "STOP"))
	m := newModel(t, srv)
	resp, err := m.Generate(context.Background(), agents.Request{Messages: []agents.Message{agents.UserText("x")}, Schema: agents.ReviewSchema()})
	require.NoError(t, err)
	assert.True(t, resp.Constrained)
	resp, err = m.Generate(context.Background(), agents.Request{Messages: []agents.Message{agents.UserText("x")}, Tools: agents.ToolDecls()})
	require.NoError(t, err)
	assert.False(t, resp.Constrained)
}
