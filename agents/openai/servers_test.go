package openai

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/agents"
	"github.com/pharo-refactor/refactord/internal/testenv"
)

// A server's refusal of what the request asked for names the setting that
// avoids it, whatever shape its error body has.
func TestRefusalsNameTheSettingThatAvoidsThem(t *testing.T) {
	cases := []struct {
		name   string
		like   testenv.OpenAIServer
		format ResponseFormat
		req    agents.Request
		want   []string
	}{
		{"vLLM without a tool parser", testenv.VLLMWithoutToolParser, FormatJSONSchema,
			agents.Request{Role: refactor.RoleReviewer, Messages: []agents.Message{agents.UserText("review")}, Tools: agents.ToolDecls()},
			[]string{"HTTP 400", "--enable-auto-tool-choice", "OPENAI_TOOLS=off"}},
		{"llama.cpp refusing json_schema", testenv.LlamaCppWithoutJSONSchema, FormatJSONSchema,
			agents.Request{Role: refactor.RoleWriter, Messages: []agents.Message{agents.UserText("write")}, Schema: agents.CandidateSchema()},
			[]string{"HTTP 400", "but got: json_schema", "OPENAI_RESPONSE_FORMAT=json_object or none"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := &testenv.FakeOpenAI{Like: tc.like}
			url := testenv.Serve(t, f)
			_, err := newModel(t, url, "", tc.format).Generate(context.Background(), tc.req)
			require.Error(t, err)
			assert.Equal(t, refactor.ModelUnavailable, refactor.KindOf(err))
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
			assert.Equal(t, 1, f.Total(), "a 400 is not retried")
		})
	}
}

// A 400 about something else names no setting it has nothing to do with;
// one about the context length says what to do.
func TestOtherRefusalsGetNoWrongHint(t *testing.T) {
	tools := agents.Request{Role: refactor.RoleReviewer, Messages: []agents.Message{agents.UserText("review")}, Tools: agents.ToolDecls()}
	cases := []struct {
		message string
		want    string
		not     string
	}{
		{"This model's maximum context length is 4096 tokens. However, you requested 9000 tokens.", "lower PROMPT_MAX_*_BYTES", "OPENAI_TOOLS"},
		{"model 'x' not found, try pulling it first", "", "OPENAI_TOOLS"},
	}
	for _, tc := range cases {
		_, url := testenv.StrictOpenAI(t, "", errReply(400, "invalid_request_error", tc.message, nil))
		_, err := newModel(t, url, "", FormatJSONSchema).Generate(context.Background(), tools)
		require.Error(t, err)
		assert.Contains(t, err.Error(), tc.message)
		assert.Contains(t, err.Error(), tc.want)
		assert.NotContains(t, err.Error(), tc.not)
	}
}

// Each server, configured around its difference, gives usable answers.
func TestServersConfiguredAroundTheirDifferences(t *testing.T) {
	cases := []struct {
		name      string
		like      testenv.OpenAIServer
		format    ResponseFormat
		maxTokens int64
		sentType  any // the response_format type sent; nil for none
	}{
		{"llama.cpp with json_object", testenv.LlamaCppWithoutJSONSchema, FormatJSONObject, 0, "json_object"},
		{"a reasoning model with no response format and room to think", testenv.ReasoningModel, FormatNone, 8192, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := &testenv.FakeOpenAI{Like: tc.like}
			f.ScriptAll(testenv.Answers{refactor.RoleWriter: {{Text: goodCandidate}}, refactor.RoleValidator: {testenv.Approved()}})
			url := testenv.Serve(t, f)
			m, err := New(Config{BaseURL: url + "/v1", Model: "qwen-test", Retry: testenv.FastRetry(), ResponseFormat: tc.format, MaxTokens: tc.maxTokens})
			require.NoError(t, err)
			roles := testenv.NewRoles(t, m, nil, 0)
			cand, _, err := roles.Write(context.Background(), testenv.SumInput(), review)
			require.NoError(t, err)
			assert.Equal(t, "sum: augend with: addend\n\t^ augend + addend", cand.Code)
			v, stats, err := roles.Validate(context.Background(), testenv.SumInput(), review, cand)
			require.NoError(t, err)
			assert.True(t, v.Approved())
			assert.Equal(t, 1, stats.Calls)
			for _, r := range f.Requests() {
				assert.Equal(t, tc.sentType, testenv.Dig(r.JSON(), "response_format", "type"))
			}
		})
	}
}

// A reasoning model whose answers are constrained by default, or cut by
// too small a max_tokens, is unusable — and says why.
func TestAReasoningModelNeedsItsSettings(t *testing.T) {
	cases := []struct {
		name      string
		format    ResponseFormat
		maxTokens int64
		want      string
	}{
		{"the default json_schema reads its fenced answer as the object alone", FormatJSONSchema, 0, "nothing else may surround the object"},
		{"max_tokens below its thinking cuts it", FormatNone, 256, "cut off at the length limit"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := &testenv.FakeOpenAI{Like: testenv.ReasoningModel}
			f.Script(refactor.RoleWriter, testenv.Reply{Text: goodCandidate})
			url := testenv.Serve(t, f)
			m, err := New(Config{BaseURL: url + "/v1", Model: "qwen-test", Retry: testenv.FastRetry(), ResponseFormat: tc.format, MaxTokens: tc.maxTokens})
			require.NoError(t, err)
			_, stats, err := testenv.NewRoles(t, m, nil, 0).Write(context.Background(), testenv.SumInput(), review)
			require.Error(t, err)
			assert.Equal(t, refactor.ModelBadOutput, refactor.KindOf(err))
			assert.Contains(t, err.Error(), tc.want)
			assert.Equal(t, 2, stats.Calls, "one corrective retry")
		})
	}
}

func TestProbeBaseURL(t *testing.T) {
	f := &testenv.FakeOpenAI{Models: []string{"qwen2.5-coder:14b", "llama3"}}
	url := testenv.Serve(t, f)
	down := testenv.Serve(t, http.NotFoundHandler())
	cases := []struct {
		name    string
		base    string
		want    string // the base URL to use
		warning string
		err     []string
	}{
		{name: "with /v1", base: url + "/v1", want: url + "/v1"},
		{name: "with /v1/", base: url + "/v1/", want: url + "/v1"},
		{name: "without /v1, which is added", base: url, want: url + "/v1"},
		{name: "a path that answers 404 either way", base: url + "/api", err: []string{"OPENAI_BASE_URL=" + url + "/api", "404", "/api/v1/models"}},
		{name: "a server answering 404 to everything", base: down + "/v1", err: []string{"OPENAI_BASE_URL=" + down + "/v1", "404"}},
		{name: "nothing listening is only a warning", base: "http://127.0.0.1:1/v1", want: "http://127.0.0.1:1/v1", warning: "127.0.0.1:1/v1/models"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ProbeBaseURL(context.Background(), Config{BaseURL: tc.base})
			if tc.err != nil {
				require.Error(t, err)
				for _, w := range tc.err {
					assert.Contains(t, err.Error(), w)
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, p.BaseURL)
			if tc.warning != "" {
				assert.Contains(t, p.Warning, tc.warning)
				return
			}
			assert.Empty(t, p.Warning)
			assert.Equal(t, []string{"qwen2.5-coder:14b", "llama3"}, p.Models)
		})
	}
	for _, r := range f.Requests() {
		assert.True(t, strings.HasSuffix(r.Path, "/models"), "only the listing was asked: %s", r.Path)
	}
}

// Settings reach the request: temperature, max_tokens and the format.
func TestSettingsReachTheRequest(t *testing.T) {
	f, url := testenv.StrictOpenAI(t, "", testenv.Reply{Text: goodCandidate})
	temp := 0.2
	m, err := New(Config{BaseURL: url + "/v1", Model: "qwen-test", Retry: testenv.FastRetry(), MaxTokens: 2048, Temperature: &temp})
	require.NoError(t, err)
	_, err = m.Generate(context.Background(), agents.Request{Role: refactor.RoleWriter, Messages: []agents.Message{agents.UserText("x")}, Schema: agents.CandidateSchema()})
	require.NoError(t, err)
	body := f.Requests()[0].JSON()
	assert.Equal(t, 0.2, body["temperature"])
	assert.Equal(t, float64(2048), body["max_tokens"])
	assert.Equal(t, "json_schema", testenv.Dig(body, "response_format", "type"))
}
