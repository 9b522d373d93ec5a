package openai

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "pharo-refactor"
	"pharo-refactor/agents"
	"pharo-refactor/internal/testenv"
)

const testKey = "sk-test-123"

// fakeOpenAI speaks the chat completions API on loopback, the way vLLM,
// Ollama and llama.cpp do.
type fakeOpenAI struct {
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
	auth string
	body map[string]any
}

func newFake(t *testing.T, replies ...reply) (*fakeOpenAI, *httptest.Server) {
	f := &fakeOpenAI{t: t, replies: replies}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv
}

func (f *fakeOpenAI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeJSON(w, errReply(400, "invalid_request_error", "invalid JSON", nil))
		return
	}
	f.mu.Lock()
	f.seen = append(f.seen, seen{at: time.Now(), path: r.URL.Path, auth: r.Header.Get("Authorization"), body: body})
	f.mu.Unlock()
	switch {
	case r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions":
		writeJSON(w, errReply(404, "invalid_request_error", "unknown path "+r.URL.Path, nil))
	case r.Header.Get("Authorization") != "Bearer "+testKey:
		writeJSON(w, errReply(401, "invalid_request_error", "Incorrect API key provided", nil))
	default:
		writeJSON(w, f.next())
	}
}

func (f *fakeOpenAI) next() reply {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.replies) == 0 {
		f.t.Errorf("fake OpenAI: unexpected request %d", len(f.seen))
		return errReply(500, "server_error", "no reply scripted", nil)
	}
	r := f.replies[0]
	if len(f.replies) > 1 || r.status < 500 {
		f.replies = f.replies[1:]
	}
	return r
}

func (f *fakeOpenAI) requests() []seen {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seen(nil), f.seen...)
}

func writeJSON(w http.ResponseWriter, r reply) {
	for k, v := range r.header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json")
	if r.status == 0 {
		r.status = 200
	}
	w.WriteHeader(r.status)
	_ = json.NewEncoder(w).Encode(r.body)
}

func errReply(code int, typ, msg string, header map[string]string) reply {
	return reply{status: code, header: header, body: map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}}}
}

func completion(message map[string]any, finish string) reply {
	message["role"] = "assistant"
	return reply{body: map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000, "model": "qwen-test",
		"choices": []any{map[string]any{"index": 0, "message": message, "finish_reason": finish, "logprobs": nil}},
		"usage":   map[string]any{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
	}}
}

func textReply(text, finish string) reply {
	return completion(map[string]any{"content": text}, finish)
}

func callReply(name string, args map[string]any) reply {
	raw, _ := json.Marshal(args)
	return completion(map[string]any{"content": nil, "tool_calls": []any{map[string]any{
		"id": "call_1", "type": "function", "function": map[string]any{"name": name, "arguments": string(raw)},
	}}}, "tool_calls")
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

func newModel(t *testing.T, srv *httptest.Server, key string, format ResponseFormat) *Model {
	t.Helper()
	m, err := New(Config{BaseURL: srv.URL + "/v1", APIKey: key, Model: "qwen-test", Retry: fastRetry(), ResponseFormat: format})
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
		name   string
		format ResponseFormat
		req    agents.Request
		check  func(t *testing.T, body map[string]any)
	}{
		{"json_schema", "", agents.Request{Role: refactor.RoleValidator, System: "be strict", Messages: []agents.Message{agents.UserText("validate it")}, Schema: agents.VerdictSchema()},
			func(t *testing.T, body map[string]any) {
				assert.Equal(t, "json_schema", dig(body, "response_format", "type"))
				assert.Equal(t, "validator_answer", dig(body, "response_format", "json_schema", "name"))
				assert.Equal(t, true, dig(body, "response_format", "json_schema", "strict"))
				schema := dig(body, "response_format", "json_schema", "schema")
				assert.Equal(t, "object", dig(schema, "type"))
				assert.Equal(t, false, dig(schema, "additionalProperties"))
				assert.Equal(t, []any{"APPROVED", "NEEDS_IMPROVEMENT"}, dig(schema, "properties", "verdict", "enum"))
				assert.Equal(t, false, dig(schema, "properties", "issues", "items", "additionalProperties"))
				assert.Nil(t, dig(body, "tools"))
			}},
		{"json_object", FormatJSONObject, agents.Request{Role: refactor.RoleWriter, System: "write", Messages: []agents.Message{agents.UserText("x")}, Schema: agents.CandidateSchema()},
			func(t *testing.T, body map[string]any) {
				assert.Equal(t, "json_object", dig(body, "response_format", "type"))
			}},
		{"no response format", FormatNone, agents.Request{Role: refactor.RoleWriter, System: "write", Messages: []agents.Message{agents.UserText("x")}, Schema: agents.CandidateSchema()},
			func(t *testing.T, body map[string]any) {
				assert.Nil(t, dig(body, "response_format"))
			}},
		{"tools", "", agents.Request{Role: refactor.RoleReviewer, System: "review", Messages: []agents.Message{agents.UserText("review it")}, Tools: agents.ToolDecls()},
			func(t *testing.T, body map[string]any) {
				tools, _ := dig(body, "tools").([]any)
				var names []string
				for i := range tools {
					assert.Equal(t, "function", dig(tools, i, "type"))
					names = append(names, dig(tools, i, "function", "name").(string))
				}
				assert.ElementsMatch(t, agents.ToolNames(), names)
				assert.Equal(t, "boolean", dig(tools, 0, "function", "parameters", "properties", "is_class_method", "type"))
				assert.Nil(t, dig(body, "response_format"))
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, srv := newFake(t, textReply("hello", "stop"))
			resp, err := newModel(t, srv, testKey, tc.format).Generate(context.Background(), tc.req)
			require.NoError(t, err)
			assert.Equal(t, "hello", resp.Text)
			assert.Equal(t, agents.FinishStop, resp.FinishReason)
			assert.Equal(t, agents.Usage{InputTokens: 100, OutputTokens: 20}, resp.Usage)

			reqs := f.requests()
			require.Len(t, reqs, 1)
			assert.Equal(t, "Bearer "+testKey, reqs[0].auth)
			assert.Equal(t, "qwen-test", dig(reqs[0].body, "model"))
			assert.Equal(t, "system", dig(reqs[0].body, "messages", 0, "role"))
			assert.Equal(t, tc.req.System, dig(reqs[0].body, "messages", 0, "content"))
			assert.Equal(t, "user", dig(reqs[0].body, "messages", 1, "role"))
			assert.Equal(t, tc.req.Messages[0].Text, dig(reqs[0].body, "messages", 1, "content"))
			tc.check(t, reqs[0].body)
		})
	}
}

func TestGenerateReadsToolCalls(t *testing.T) {
	bad := completion(map[string]any{"content": nil, "tool_calls": []any{map[string]any{
		"id": "call_9", "type": "function", "function": map[string]any{"name": "get_class_comment", "arguments": "{not json"},
	}}}, "tool_calls")
	_, srv := newFake(t, callReply("get_class_comment", map[string]any{"class_name": "Calculator"}), bad)
	m := newModel(t, srv, testKey, "")
	req := agents.Request{Messages: []agents.Message{agents.UserText("x")}, Tools: agents.ToolDecls()}

	resp, err := m.Generate(context.Background(), req)
	require.NoError(t, err)
	require.Len(t, resp.ToolCalls, 1)
	assert.Equal(t, agents.ToolCall{ID: "call_1", Name: "get_class_comment", Args: map[string]any{"class_name": "Calculator"}}, resp.ToolCalls[0])
	assert.Equal(t, agents.FinishToolCalls, resp.FinishReason)

	resp, err = m.Generate(context.Background(), req)
	require.NoError(t, err)
	require.Len(t, resp.ToolCalls, 1)
	assert.NotEmpty(t, resp.ToolCalls[0].ArgsError)
}

func TestReviewerToolRoundOnOpenAI(t *testing.T) {
	reviewJSON := `{"severity": "HIGH", "summary": "feature envy", "issues": []}`
	cases := []struct {
		name        string
		call        reply
		rounds      int
		seenByImage []string
		fedBack     string
	}{
		{"allowed tool, rounds left", callReply("search_implementors", map[string]any{"method_name": "sum:with:"}), 2, []string{"search_implementors"}, "Calculator>>#sum:with:"},
		{"allowed tool, last round", callReply("search_implementors", map[string]any{"method_name": "sum:with:"}), 1, []string{"search_implementors"}, "Calculator>>#sum:with:"},
		{"compile is refused without being sent", callReply("compile", map[string]any{"code": "Object subclass: #X"}), 2, nil, "refused: tool \"compile\" is not available"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// With rounds left the answer comes without a schema (tolerant: a
			// fence is fine); after the last round it carries the schema
			// and is the object alone.
			final := "```json\n" + reviewJSON + "\n```"
			if tc.rounds == 1 {
				final = reviewJSON
			}
			f, srv := newFake(t, tc.call, textReply(final, "stop"))
			tools := &testenv.RecordingTools{Answers: map[string]string{"search_implementors": `[{"class": "Calculator", "method": "Calculator>>#sum:with:"}]`}}
			rev, stats, err := newRoles(t, newModel(t, srv, testKey, ""), tools, tc.rounds).Review(context.Background(), calc)
			require.NoError(t, err)
			assert.Equal(t, refactor.SeverityHigh, rev.Severity)
			assert.Equal(t, 2, stats.Calls)
			assert.Equal(t, int64(200), stats.InputTokens)
			assert.Equal(t, tc.seenByImage, tools.Seen())

			reqs := f.requests()
			require.Len(t, reqs, 2)
			first, second := reqs[0].body, reqs[1].body
			assert.NotNil(t, dig(first, "tools"))
			assert.Nil(t, dig(first, "response_format"), "a call offering tools asks for no schema")
			assert.Equal(t, "assistant", dig(second, "messages", 2, "role"))
			assert.Equal(t, "call_1", dig(second, "messages", 2, "tool_calls", 0, "id"))
			assert.Equal(t, "tool", dig(second, "messages", 3, "role"))
			assert.Equal(t, "call_1", dig(second, "messages", 3, "tool_call_id"))
			assert.Contains(t, dig(second, "messages", 3, "content"), tc.fedBack)
			if tc.rounds == 1 {
				assert.Nil(t, dig(second, "tools"))
				assert.Equal(t, "json_schema", dig(second, "response_format", "type"))
				assert.Equal(t, "user", dig(second, "messages", 4, "role"))
				assert.Contains(t, dig(second, "messages", 4, "content"), "no more tools")
			} else {
				assert.NotNil(t, dig(second, "tools"))
			}
		})
	}
}

func TestRetriesOnOpenAI(t *testing.T) {
	t.Run("429 with Retry-After, then success", func(t *testing.T) {
		f, srv := newFake(t, errReply(429, "rate_limit_exceeded", "slow down", map[string]string{"Retry-After": "1"}), textReply(goodCandidate, "stop"))
		cand, stats, err := newRoles(t, newModel(t, srv, testKey, ""), nil, 0).Write(context.Background(), calc, review)
		require.NoError(t, err)
		assert.Equal(t, "renamed", cand.Notes)
		assert.Equal(t, 1, stats.Calls)
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
		{"persistent 500", []reply{errReply(500, "server_error", "boom", nil)}, testKey, 3, "still failing after the retries"},
		{"auth is not retried", []reply{textReply(goodCandidate, "stop")}, "sk-wrong", 1, "refused the credentials"},
		{"bad request is not retried", []reply{errReply(400, "invalid_request_error", "context length exceeded", nil)}, testKey, 1, "context length exceeded"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, srv := newFake(t, tc.replies...)
			_, _, err := newRoles(t, newModel(t, srv, tc.key, ""), nil, 0).Write(context.Background(), calc, review)
			require.Error(t, err)
			assert.Equal(t, refactor.ModelUnavailable, refactor.KindOf(err))
			assert.Contains(t, err.Error(), tc.msg)
			assert.Len(t, f.requests(), tc.requests)
		})
	}
}

func TestUnusableAnswersOnOpenAI(t *testing.T) {
	cases := []struct {
		name     string
		replies  []reply
		requests int
		wantKind refactor.Kind
		msg      string
	}{
		{"length then good", []reply{textReply(`{"code": "sum: augend with:`, "length"), textReply(goodCandidate, "stop")}, 2, "", ""},
		{"garbage then good", []reply{textReply("Looks great!", "stop"), textReply(goodCandidate, "stop")}, 2, "", ""},
		{"garbage twice", []reply{textReply("Looks great!", "stop"), textReply("Still great.", "stop")}, 2, refactor.ModelBadOutput, "after a corrective retry"},
		{"content filter", []reply{textReply("", "content_filter")}, 1, refactor.ModelBadOutput, "blocked the answer (content_filter)"},
		{"refusal", []reply{completion(map[string]any{"content": nil, "refusal": "I can't help with that."}, "stop")}, 1, refactor.ModelBadOutput, "refusal: I can't help with that."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, srv := newFake(t, tc.replies...)
			cand, stats, err := newRoles(t, newModel(t, srv, testKey, ""), nil, 0).Write(context.Background(), calc, review)
			reqs := f.requests()
			assert.Len(t, reqs, tc.requests)
			assert.Equal(t, tc.requests, stats.Calls)
			if tc.wantKind != "" {
				require.Error(t, err)
				assert.Equal(t, tc.wantKind, refactor.KindOf(err))
				assert.Contains(t, err.Error(), tc.msg)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "sum: augend with: addend\n\t^ augend + addend", cand.Code)
			assert.Contains(t, dig(reqs[1].body, "messages", 1, "content"), "Your previous answer could not be used")
		})
	}
}

func TestNewChecksItsConfig(t *testing.T) {
	_, err := New(Config{Model: "m"})
	assert.ErrorContains(t, err, "OPENAI_BASE_URL")
	_, err = New(Config{BaseURL: "http://127.0.0.1:1/v1"})
	assert.ErrorContains(t, err, "model")
	_, err = New(Config{BaseURL: "http://127.0.0.1:1/v1", Model: "m", ResponseFormat: "xml"})
	assert.ErrorContains(t, err, "unknown response format")
}

// json_schema (and json_object) constrain the decoding; FormatNone and a
// call without a schema leave the answer to the tolerant reading.
func TestGenerateSaysWhetherTheAnswerWasConstrained(t *testing.T) {
	cases := []struct {
		format ResponseFormat
		schema bool
		want   bool
	}{
		{FormatJSONSchema, true, true},
		{FormatJSONObject, true, true},
		{FormatNone, true, false},
		{FormatJSONSchema, false, false},
	}
	for _, tc := range cases {
		_, srv := newFake(t, textReply(`{"severity": "LOW"}`, "stop"))
		req := agents.Request{Messages: []agents.Message{agents.UserText("x")}}
		if tc.schema {
			req.Schema = agents.ReviewSchema()
		}
		resp, err := newModel(t, srv, testKey, tc.format).Generate(context.Background(), req)
		require.NoError(t, err)
		assert.Equal(t, tc.want, resp.Constrained, "%s, schema %v", tc.format, tc.schema)
	}
}
