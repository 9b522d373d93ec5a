package openai

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/agents"
	"github.com/pharo-refactor/refactord/internal/testenv"
)

const testKey = "sk-test-123"

func errReply(code int, typ, msg string, header map[string]string) testenv.Reply {
	return testenv.Reply{Status: code, Header: header, Body: map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}}}
}

func completion(message map[string]any, finish string) testenv.Reply {
	message["role"] = "assistant"
	return testenv.Reply{Body: map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000, "model": "qwen-test",
		"choices": []any{map[string]any{"index": 0, "message": message, "finish_reason": finish, "logprobs": nil}},
		"usage":   map[string]any{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
	}}
}

func textReply(text, finish string) testenv.Reply {
	return completion(map[string]any{"content": text}, finish)
}

func callReply(name string, args map[string]any) testenv.Reply {
	raw, _ := json.Marshal(args)
	return completion(map[string]any{"content": nil, "tool_calls": []any{map[string]any{
		"id": "call_1", "type": "function", "function": map[string]any{"name": name, "arguments": string(raw)},
	}}}, "tool_calls")
}

func newModel(t *testing.T, url string, key string, format ResponseFormat) *Model {
	t.Helper()
	m, err := New(Config{BaseURL: url + "/v1", APIKey: key, Model: "qwen-test", Retry: testenv.FastRetry(), ResponseFormat: format})
	require.NoError(t, err)
	return m
}

var review = refactor.Review{Severity: refactor.SeverityLow, Summary: "names"}

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
				assert.Equal(t, "json_schema", testenv.Dig(body, "response_format", "type"))
				assert.Equal(t, "validator_answer", testenv.Dig(body, "response_format", "json_schema", "name"))
				assert.Equal(t, true, testenv.Dig(body, "response_format", "json_schema", "strict"))
				schema := testenv.Dig(body, "response_format", "json_schema", "schema")
				assert.Equal(t, "object", testenv.Dig(schema, "type"))
				assert.Equal(t, false, testenv.Dig(schema, "additionalProperties"))
				assert.Equal(t, []any{"APPROVED", "NEEDS_IMPROVEMENT"}, testenv.Dig(schema, "properties", "verdict", "enum"))
				assert.Equal(t, false, testenv.Dig(schema, "properties", "issues", "items", "additionalProperties"))
				assert.Nil(t, testenv.Dig(body, "tools"))
			}},
		{"json_object", FormatJSONObject, agents.Request{Role: refactor.RoleWriter, System: "write", Messages: []agents.Message{agents.UserText("x")}, Schema: agents.CandidateSchema()},
			func(t *testing.T, body map[string]any) {
				assert.Equal(t, "json_object", testenv.Dig(body, "response_format", "type"))
			}},
		{"no response format", FormatNone, agents.Request{Role: refactor.RoleWriter, System: "write", Messages: []agents.Message{agents.UserText("x")}, Schema: agents.CandidateSchema()},
			func(t *testing.T, body map[string]any) {
				assert.Nil(t, testenv.Dig(body, "response_format"))
			}},
		{"tools", "", agents.Request{Role: refactor.RoleReviewer, System: "review", Messages: []agents.Message{agents.UserText("review it")}, Tools: agents.ToolDecls()},
			func(t *testing.T, body map[string]any) {
				tools, _ := testenv.Dig(body, "tools").([]any)
				var names []string
				for i := range tools {
					assert.Equal(t, "function", testenv.Dig(tools, i, "type"))
					names = append(names, testenv.Dig(tools, i, "function", "name").(string))
				}
				assert.ElementsMatch(t, agents.ToolNames(), names)
				assert.Equal(t, "boolean", testenv.Dig(tools, 0, "function", "parameters", "properties", "is_class_method", "type"))
				assert.Nil(t, testenv.Dig(body, "response_format"))
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, url := testenv.StrictOpenAI(t, testKey, textReply("hello", "stop"))
			resp, err := newModel(t, url, testKey, tc.format).Generate(context.Background(), tc.req)
			require.NoError(t, err)
			assert.Equal(t, "hello", resp.Text)
			assert.Equal(t, agents.FinishStop, resp.FinishReason)
			assert.Equal(t, agents.Usage{InputTokens: 100, OutputTokens: 20}, resp.Usage)

			reqs := f.Requests()
			require.Len(t, reqs, 1)
			assert.Equal(t, "Bearer "+testKey, reqs[0].Header.Get("Authorization"))
			assert.Equal(t, "qwen-test", testenv.Dig(reqs[0].JSON(), "model"))
			assert.Equal(t, string(tc.req.Role), reqs[0].Header.Get(agents.RoleHeader), "the role marker")
			assert.Equal(t, "system", testenv.Dig(reqs[0].JSON(), "messages", 0, "role"))
			assert.Equal(t, tc.req.System, testenv.Dig(reqs[0].JSON(), "messages", 0, "content"))
			assert.Equal(t, "user", testenv.Dig(reqs[0].JSON(), "messages", 1, "role"))
			assert.Equal(t, tc.req.Messages[0].Text, testenv.Dig(reqs[0].JSON(), "messages", 1, "content"))
			tc.check(t, reqs[0].JSON())
		})
	}
}

func TestGenerateReadsToolCalls(t *testing.T) {
	bad := completion(map[string]any{"content": nil, "tool_calls": []any{map[string]any{
		"id": "call_9", "type": "function", "function": map[string]any{"name": "get_class_comment", "arguments": "{not json"},
	}}}, "tool_calls")
	f, url := testenv.StrictOpenAI(t, testKey, callReply("get_class_comment", map[string]any{"class_name": "Calculator"}), bad)
	m := newModel(t, url, testKey, "")
	req := agents.Request{Messages: []agents.Message{agents.UserText("x")}, Tools: agents.ToolDecls()}

	resp, err := m.Generate(context.Background(), req)
	require.NoError(t, err)
	assert.NotContains(t, f.Requests()[0].Header, agents.RoleHeader, "a call made for no role names none")
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
		call        testenv.Reply
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
			f, url := testenv.StrictOpenAI(t, testKey, tc.call, textReply(final, "stop"))
			tools := &testenv.RecordingTools{Answers: map[string]string{"search_implementors": `[{"class": "Calculator", "method": "Calculator>>#sum:with:"}]`}}
			rev, stats, err := testenv.NewRoles(t, newModel(t, url, testKey, ""), tools, tc.rounds).Review(context.Background(), testenv.SumInput())
			require.NoError(t, err)
			assert.Equal(t, refactor.SeverityHigh, rev.Severity)
			assert.Equal(t, 2, stats.Calls)
			assert.Equal(t, int64(200), stats.InputTokens)
			assert.Equal(t, tc.seenByImage, tools.Seen())

			reqs := f.Requests()
			require.Len(t, reqs, 2)
			assert.Equal(t, []refactor.Role{refactor.RoleReviewer, refactor.RoleReviewer}, []refactor.Role{reqs[0].Role, reqs[1].Role}, "both calls name the reviewer")
			first, second := reqs[0].JSON(), reqs[1].JSON()
			assert.NotNil(t, testenv.Dig(first, "tools"))
			assert.Nil(t, testenv.Dig(first, "response_format"), "a call offering tools asks for no schema")
			assert.Equal(t, "assistant", testenv.Dig(second, "messages", 2, "role"))
			assert.Equal(t, "call_1", testenv.Dig(second, "messages", 2, "tool_calls", 0, "id"))
			assert.Equal(t, "tool", testenv.Dig(second, "messages", 3, "role"))
			assert.Equal(t, "call_1", testenv.Dig(second, "messages", 3, "tool_call_id"))
			assert.Contains(t, testenv.Dig(second, "messages", 3, "content"), tc.fedBack)
			if tc.rounds == 1 {
				assert.Nil(t, testenv.Dig(second, "tools"))
				assert.Equal(t, "json_schema", testenv.Dig(second, "response_format", "type"))
				assert.Equal(t, "user", testenv.Dig(second, "messages", 4, "role"))
				assert.Contains(t, testenv.Dig(second, "messages", 4, "content"), "no more tools")
			} else {
				assert.NotNil(t, testenv.Dig(second, "tools"))
			}
		})
	}
}

func TestRetriesOnOpenAI(t *testing.T) {
	t.Run("429 with Retry-After, then success", func(t *testing.T) {
		f, url := testenv.StrictOpenAI(t, testKey, errReply(429, "rate_limit_exceeded", "slow down", map[string]string{"Retry-After": "1"}), textReply(goodCandidate, "stop"))
		cand, stats, err := testenv.NewRoles(t, newModel(t, url, testKey, ""), nil, 0).Write(context.Background(), testenv.SumInput(), review)
		require.NoError(t, err)
		assert.Equal(t, "renamed", cand.Notes)
		assert.Equal(t, 1, stats.Calls)
		reqs := f.Requests()
		require.Len(t, reqs, 2)
		assert.GreaterOrEqual(t, reqs[1].At.Sub(reqs[0].At), time.Second)
	})
	cases := []struct {
		name     string
		replies  []testenv.Reply
		key      string
		requests int
		msg      string
	}{
		{"persistent 500", slices.Repeat([]testenv.Reply{errReply(500, "server_error", "boom", nil)}, 3), testKey, 3, "still failing after the retries"},
		{"auth is not retried", []testenv.Reply{textReply(goodCandidate, "stop")}, "sk-wrong", 1, "refused the credentials"},
		{"bad request is not retried", []testenv.Reply{errReply(400, "invalid_request_error", "context length exceeded", nil)}, testKey, 1, "context length exceeded"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, url := testenv.StrictOpenAI(t, testKey, tc.replies...)
			_, _, err := testenv.NewRoles(t, newModel(t, url, tc.key, ""), nil, 0).Write(context.Background(), testenv.SumInput(), review)
			require.Error(t, err)
			assert.Equal(t, refactor.ModelUnavailable, refactor.KindOf(err))
			assert.Contains(t, err.Error(), tc.msg)
			assert.Len(t, f.Requests(), tc.requests)
		})
	}
}

func TestUnusableAnswersOnOpenAI(t *testing.T) {
	cases := []struct {
		name     string
		replies  []testenv.Reply
		requests int
		wantKind refactor.Kind
		msg      string
	}{
		{"length then good", []testenv.Reply{textReply(`{"code": "sum: augend with:`, "length"), textReply(goodCandidate, "stop")}, 2, "", ""},
		{"garbage then good", []testenv.Reply{textReply("Looks great!", "stop"), textReply(goodCandidate, "stop")}, 2, "", ""},
		{"garbage twice", []testenv.Reply{textReply("Looks great!", "stop"), textReply("Still great.", "stop")}, 2, refactor.ModelBadOutput, "after a corrective retry"},
		{"content filter", []testenv.Reply{textReply("", "content_filter")}, 1, refactor.ModelBadOutput, "blocked the answer (content_filter)"},
		{"refusal", []testenv.Reply{completion(map[string]any{"content": nil, "refusal": "I can't help with that."}, "stop")}, 1, refactor.ModelBadOutput, "refusal: I can't help with that."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, url := testenv.StrictOpenAI(t, testKey, tc.replies...)
			cand, stats, err := testenv.NewRoles(t, newModel(t, url, testKey, ""), nil, 0).Write(context.Background(), testenv.SumInput(), review)
			reqs := f.Requests()
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
			assert.Contains(t, testenv.Dig(reqs[1].JSON(), "messages", 1, "content"), "Your previous answer could not be used")
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
		_, url := testenv.StrictOpenAI(t, testKey, textReply(`{"severity": "LOW"}`, "stop"))
		req := agents.Request{Messages: []agents.Message{agents.UserText("x")}}
		if tc.schema {
			req.Schema = agents.ReviewSchema()
		}
		resp, err := newModel(t, url, testKey, tc.format).Generate(context.Background(), req)
		require.NoError(t, err)
		assert.Equal(t, tc.want, resp.Constrained, "%s, schema %v", tc.format, tc.schema)
	}
}
