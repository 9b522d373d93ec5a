package gemini

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/agents"
	"github.com/pharo-refactor/refactord/internal/testenv"
)

const testKey = "test-key-123"

func apiErr(code int, status, msg string) map[string]any {
	return map[string]any{"error": map[string]any{"code": code, "message": msg, "status": status}}
}

func usageMeta(in, out int) map[string]any {
	return map[string]any{"promptTokenCount": in, "candidatesTokenCount": out, "thoughtsTokenCount": 3, "totalTokenCount": in + out + 3}
}

func textReply(text, finish string) testenv.Reply {
	return testenv.Reply{Body: map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": []any{map[string]any{"text": "thinking…", "thought": true}, map[string]any{"text": text}}},
			"finishReason": finish, "index": 0,
		}},
		"usageMetadata": usageMeta(100, 20),
		"modelVersion":  "gemini-test",
	}}
}

func callReply(name string, args map[string]any) testenv.Reply {
	return testenv.Reply{Body: map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": []any{map[string]any{"functionCall": map[string]any{"name": name, "args": args}, "thoughtSignature": "c2lnbmF0dXJl"}}},
			"finishReason": "STOP", "index": 0,
		}},
		"usageMetadata": usageMeta(90, 10),
	}}
}

func errReply(code int, status, msg string, header map[string]string) testenv.Reply {
	return testenv.Reply{Status: code, Header: header, Body: apiErr(code, status, msg)}
}

func newModel(t *testing.T, url string) *Model {
	t.Helper()
	m, err := New(context.Background(), Config{APIKey: testKey, BaseURL: url, Model: "gemini-test", Retry: testenv.FastRetry()})
	require.NoError(t, err)
	return m
}

var review = refactor.Review{Severity: refactor.SeverityLow, Summary: "names"}

const goodCandidate = `{"code": "sum: augend with: addend\n\t^ augend + addend", "notes": "renamed"}`

func TestGenerateSendsKeySystemSchemaAndTools(t *testing.T) {
	cases := []struct {
		name  string
		req   agents.Request
		check func(t *testing.T, body map[string]any)
	}{
		{"schema call", agents.Request{Role: refactor.RoleWriter, System: "be a writer", Messages: []agents.Message{agents.UserText("rewrite it")}, Schema: agents.CandidateSchema()},
			func(t *testing.T, body map[string]any) {
				assert.Equal(t, "application/json", testenv.Dig(body, "generationConfig", "responseMimeType"))
				assert.Equal(t, "OBJECT", testenv.Dig(body, "generationConfig", "responseSchema", "type"))
				assert.Equal(t, "STRING", testenv.Dig(body, "generationConfig", "responseSchema", "properties", "code", "type"))
				assert.Equal(t, []any{"code", "helpers", "notes"}, testenv.Dig(body, "generationConfig", "responseSchema", "propertyOrdering"))
				assert.Equal(t, []any{"code", "helpers", "notes"}, testenv.Dig(body, "generationConfig", "responseSchema", "required"))
				assert.Equal(t, "ARRAY", testenv.Dig(body, "generationConfig", "responseSchema", "properties", "helpers", "type"), "helpers is a list of objects")
				assert.Nil(t, testenv.Dig(body, "tools"))
			}},
		{"tool call", agents.Request{Role: refactor.RoleReviewer, System: "be a reviewer", Messages: []agents.Message{agents.UserText("review it")}, Tools: agents.ToolDecls()},
			func(t *testing.T, body map[string]any) {
				var names []string
				decls, _ := testenv.Dig(body, "tools", 0, "functionDeclarations").([]any)
				for i := range decls {
					names = append(names, testenv.Dig(decls, i, "name").(string))
					assert.Equal(t, "OBJECT", testenv.Dig(decls, i, "parameters", "type"))
				}
				assert.ElementsMatch(t, agents.ToolNames(), names)
				assert.Equal(t, "BOOLEAN", testenv.Dig(decls, 0, "parameters", "properties", "is_class_method", "type"))
				assert.Nil(t, testenv.Dig(body, "generationConfig", "responseMimeType"))
				assert.Nil(t, testenv.Dig(body, "generationConfig", "responseSchema"))
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, url := testenv.StrictGemini(t, testKey, textReply("hello", "STOP"))
			resp, err := newModel(t, url).Generate(context.Background(), tc.req)
			require.NoError(t, err)
			assert.Equal(t, "hello", resp.Text, "thought parts are skipped")
			assert.Equal(t, agents.FinishStop, resp.FinishReason)
			assert.Equal(t, agents.Usage{InputTokens: 100, OutputTokens: 23}, resp.Usage)

			reqs := f.Requests()
			require.Len(t, reqs, 1)
			assert.Equal(t, testKey, reqs[0].Header.Get("x-goog-api-key"))
			assert.Equal(t, "/v1beta/models/gemini-test:generateContent", reqs[0].Path)
			assert.Equal(t, string(tc.req.Role), reqs[0].Header.Get(agents.RoleHeader), "the role marker")
			assert.Equal(t, tc.req.System, testenv.Dig(reqs[0].JSON(), "systemInstruction", "parts", 0, "text"))
			assert.Equal(t, "user", testenv.Dig(reqs[0].JSON(), "contents", 0, "role"))
			assert.Equal(t, tc.req.Messages[0].Text, testenv.Dig(reqs[0].JSON(), "contents", 0, "parts", 0, "text"))
			tc.check(t, reqs[0].JSON())
		})
	}
}

func TestGenerateReadsAFunctionCall(t *testing.T) {
	f, url := testenv.StrictGemini(t, testKey, callReply("get_class_comment", map[string]any{"class_name": "Calculator"}))
	resp, err := newModel(t, url).Generate(context.Background(), agents.Request{Messages: []agents.Message{agents.UserText("x")}, Tools: agents.ToolDecls()})
	require.NoError(t, err)
	assert.NotContains(t, f.Requests()[0].Header, agents.RoleHeader, "a call made for no role names none")
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
		call        testenv.Reply
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
			f, url := testenv.StrictGemini(t, testKey, tc.call, textReply(final, "STOP"))
			tools := &testenv.RecordingTools{Answers: map[string]string{"get_class_comment": "I add numbers."}}
			rev, stats, err := testenv.NewRoles(t, newModel(t, url), tools, tc.rounds).Review(context.Background(), testenv.SumInput())
			require.NoError(t, err)
			assert.Equal(t, refactor.SeverityMedium, rev.Severity)
			assert.Equal(t, 2, stats.Calls)
			assert.Equal(t, 1, stats.ToolCalls)
			assert.Equal(t, int64(190), stats.InputTokens)
			assert.Equal(t, tc.seenByImage, tools.Seen())

			reqs := f.Requests()
			require.Len(t, reqs, 2)
			assert.Equal(t, []refactor.Role{refactor.RoleReviewer, refactor.RoleReviewer}, []refactor.Role{reqs[0].Role, reqs[1].Role}, "both calls name the reviewer")
			first, second := reqs[0].JSON(), reqs[1].JSON()
			assert.NotNil(t, testenv.Dig(first, "tools"), "the first call offers tools")
			assert.Nil(t, testenv.Dig(first, "generationConfig", "responseSchema"), "…and so no schema")
			assert.Equal(t, "model", testenv.Dig(second, "contents", 1, "role"))
			assert.Equal(t, "c2lnbmF0dXJl", testenv.Dig(second, "contents", 1, "parts", 0, "thoughtSignature"), "the thought signature is echoed")
			output, _ := testenv.Dig(second, "contents", 2, "parts", 0, "functionResponse", "response", "output").(string)
			assert.Contains(t, output, tc.fedBack)
			if tc.rounds == 1 {
				assert.Nil(t, testenv.Dig(second, "tools"), "no tools after the last round")
				assert.Equal(t, "application/json", testenv.Dig(second, "generationConfig", "responseMimeType"))
				assert.Contains(t, testenv.Dig(second, "contents", 2, "parts", 1, "text"), "no more tools")
			} else {
				assert.NotNil(t, testenv.Dig(second, "tools"))
			}
		})
	}
}

func TestRetriesOnGemini(t *testing.T) {
	t.Run("429 with Retry-After, then success", func(t *testing.T) {
		f, url := testenv.StrictGemini(t, testKey, errReply(429, "RESOURCE_EXHAUSTED", "quota", map[string]string{"Retry-After": "1"}), textReply(goodCandidate, "STOP"))
		cand, stats, err := testenv.NewRoles(t, newModel(t, url), nil, 0).Write(context.Background(), testenv.SumInput(), review)
		require.NoError(t, err)
		assert.Equal(t, "renamed", cand.Notes)
		assert.Equal(t, 1, stats.Calls, "an HTTP retry is not another model call")
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
		{"persistent 500", slices.Repeat([]testenv.Reply{errReply(500, "INTERNAL", "boom", nil)}, 3), testKey, 3, "still failing after the retries"},
		{"auth is not retried", []testenv.Reply{textReply(goodCandidate, "STOP")}, "wrong-key", 1, "API key not valid"},
		{"403 is not retried", []testenv.Reply{errReply(403, "PERMISSION_DENIED", "no access", nil)}, testKey, 1, "refused the credentials"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, url := testenv.StrictGemini(t, testKey, tc.replies...)
			m, err := New(context.Background(), Config{APIKey: tc.key, BaseURL: url, Model: "gemini-test", Retry: testenv.FastRetry()})
			require.NoError(t, err)
			_, _, err = testenv.NewRoles(t, m, nil, 0).Write(context.Background(), testenv.SumInput(), review)
			require.Error(t, err)
			assert.Equal(t, refactor.ModelUnavailable, refactor.KindOf(err))
			assert.Contains(t, err.Error(), tc.msg)
			assert.Len(t, f.Requests(), tc.requests)
		})
	}
}

// A request with tools and a JSON schema is refused by the API (and by the
// fake), with a 400 that is not retried. The roles never send one.
func TestToolsWithJSONSchemaAreRefused(t *testing.T) {
	f, url := testenv.StrictGemini(t, testKey, textReply("unused", "STOP"))
	_, err := newModel(t, url).Generate(context.Background(), agents.Request{
		Messages: []agents.Message{agents.UserText("x")}, Tools: agents.ToolDecls(), Schema: agents.ReviewSchema(),
	})
	require.Error(t, err)
	assert.Equal(t, refactor.ModelUnavailable, refactor.KindOf(err))
	assert.Contains(t, err.Error(), "Function calling with a response mime type")
	assert.Len(t, f.Requests(), 1)
}

func TestUnusableAnswersOnGemini(t *testing.T) {
	cases := []struct {
		name     string
		replies  []testenv.Reply
		requests int
		wantKind refactor.Kind
		msg      string
	}{
		{"MAX_TOKENS then good", []testenv.Reply{textReply(`{"code": "sum: augend with:`, "MAX_TOKENS"), textReply(goodCandidate, "STOP")}, 2, "", ""},
		{"garbage then good", []testenv.Reply{textReply("I like it.", "STOP"), textReply(goodCandidate, "STOP")}, 2, "", ""},
		{"garbage twice", []testenv.Reply{textReply("I like it.", "STOP"), textReply("Really.", "STOP")}, 2, refactor.ModelBadOutput, "after a corrective retry"},
		{"SAFETY", []testenv.Reply{textReply("", "SAFETY")}, 1, refactor.ModelBadOutput, "blocked the answer (SAFETY)"},
		{"prompt blocked", []testenv.Reply{{Body: map[string]any{"promptFeedback": map[string]any{"blockReason": "SAFETY"}, "usageMetadata": usageMeta(50, 0)}}}, 1, refactor.ModelBadOutput, "prompt blocked: SAFETY"},
		{"no candidates", []testenv.Reply{{Body: map[string]any{"usageMetadata": usageMeta(50, 0)}}, textReply(goodCandidate, "STOP")}, 2, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, url := testenv.StrictGemini(t, testKey, tc.replies...)
			cand, stats, err := testenv.NewRoles(t, newModel(t, url), nil, 0).Write(context.Background(), testenv.SumInput(), review)
			reqs := f.Requests()
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
			last, _ := testenv.Dig(reqs[1].JSON(), "contents", 0, "parts", 0, "text").(string)
			assert.Contains(t, last, "Your previous answer could not be used")
			assert.Equal(t, "application/json", testenv.Dig(reqs[1].JSON(), "generationConfig", "responseMimeType"))
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
	_, url := testenv.StrictGemini(t, testKey, textReply(`{"severity": "LOW"}`, "STOP"), textReply("prose", "STOP"))
	m := newModel(t, url)
	resp, err := m.Generate(context.Background(), agents.Request{Messages: []agents.Message{agents.UserText("x")}, Schema: agents.ReviewSchema()})
	require.NoError(t, err)
	assert.True(t, resp.Constrained)
	resp, err = m.Generate(context.Background(), agents.Request{Messages: []agents.Message{agents.UserText("x")}, Tools: agents.ToolDecls()})
	require.NoError(t, err)
	assert.False(t, resp.Constrained)
}
