package main

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/internal/testenv"
)

// modelEnv is a fresh copy of the sample image and the env that runs
// refactord on it with the given model settings.
func modelEnv(t *testing.T, settings ...string) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	image := filepath.Join(dir, "image")
	require.NoError(t, testenv.CopyTree("examples/sample-image", image))
	return dir, append(testenv.ServiceEnv(bins.pharoSim(t), image, filepath.Join(dir, "data")), settings...)
}

// Real OpenAI-compatible servers differ from OpenAI; each, configured
// around its difference with the settings, releases an approved run — and
// without them fails with a message naming the setting.
func TestOpenAICompatibleServersConfiguredAround(t *testing.T) {
	cases := []struct {
		name     string
		like     testenv.OpenAIServer
		settings []string
		check    func(t *testing.T, body map[string]any)
		without  string // what the failure says without the settings
	}{
		{
			name: "vLLM without a tool parser", like: testenv.VLLMWithoutToolParser,
			settings: []string{"OPENAI_TOOLS=off"},
			check: func(t *testing.T, body map[string]any) {
				assert.Nil(t, body["tools"], "no tools are offered")
			},
			without: "OPENAI_TOOLS=off",
		},
		{
			name: "llama.cpp refusing json_schema", like: testenv.LlamaCppWithoutJSONSchema,
			settings: []string{"OPENAI_RESPONSE_FORMAT=json_object"},
			check: func(t *testing.T, body map[string]any) {
				if body["tools"] == nil {
					assert.Equal(t, "json_object", testenv.Dig(body, "response_format", "type"))
				}
			},
			without: "OPENAI_RESPONSE_FORMAT=json_object or none",
		},
		{
			name: "a reasoning model", like: testenv.ReasoningModel,
			settings: []string{"OPENAI_RESPONSE_FORMAT=none", "MODEL_MAX_OUTPUT_TOKENS=8192", "MODEL_TEMPERATURE=0.6"},
			check: func(t *testing.T, body map[string]any) {
				assert.Nil(t, body["response_format"])
				assert.Equal(t, float64(8192), body["max_tokens"])
				assert.Equal(t, 0.6, body["temperature"])
			},
			without: "nothing else may surround the object",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := &testenv.FakeOpenAI{Like: tc.like, Models: []string{"coder"}}
			url := testenv.Serve(t, f)
			base := []string{"MODEL_PROVIDER=openai", "OPENAI_BASE_URL=" + url + "/v1", "MODEL_ID=coder"}

			f.ScriptAll(testenv.ApprovedInRoundOne(answerTheSum))
			dir, env := modelEnv(t, append(base, tc.settings...)...)
			s := start(t, dir, env...)
			resp, body, err := s.post("/api/v1/refactor", sumRequest)
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, resp.StatusCode, "%v\n%s", body, s.Log())
			assert.Equal(t, "released", body["outcome"])
			assert.Equal(t, float64(3), body["usage"].(map[string]any)["model_calls"])
			requests := chatRequests(f)
			require.Len(t, requests, 3)
			for _, r := range requests {
				tc.check(t, r.JSON())
			}

			f.Reset()
			f.ScriptAll(testenv.ApprovedInRoundOne(answerTheSum))
			dir, env = modelEnv(t, base...)
			s = start(t, dir, env...)
			resp, body, err = s.post("/api/v1/refactor", sumRequest)
			require.NoError(t, err)
			assert.Equal(t, http.StatusBadGateway, resp.StatusCode, "%v", body)
			assert.Contains(t, body["detail"], tc.without)
		})
	}
}

// chatRequests are the chat completions a fake received (not the start-up
// listing of models).
func chatRequests(f *testenv.FakeOpenAI) []testenv.Request {
	var out []testenv.Request
	for _, r := range f.Requests() {
		if strings.HasSuffix(r.Path, "/chat/completions") {
			out = append(out, r)
		}
	}
	return out
}

// A base URL without /v1 is used with it when the server answers there; a
// URL that answers 404 either way stops start-up with a line naming it.
func TestOpenAIBaseURLIsNormalizedOrRefused(t *testing.T) {
	f := &testenv.FakeOpenAI{Models: []string{"coder"}}
	f.ScriptAll(testenv.ApprovedInRoundOne(answerTheSum))
	url := testenv.Serve(t, f)
	dir, env := modelEnv(t, "MODEL_PROVIDER=openai", "OPENAI_BASE_URL="+url, "MODEL_ID=coder")
	s := start(t, dir, env...)
	resp, body, err := s.post("/api/v1/refactor", sumRequest)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%v", body)
	for _, r := range chatRequests(f) {
		assert.Equal(t, "/v1/chat/completions", r.Path)
	}
	assert.Contains(t, s.Log(), "lacks /v1")

	dir, env = modelEnv(t, "MODEL_PROVIDER=openai", "OPENAI_BASE_URL="+url+"/api", "MODEL_ID=coder")
	bad := launch(t, dir, env...)
	require.Error(t, bad.WaitExit(t, 30*time.Second), "refactord refuses to start")
	assert.Contains(t, bad.Log(), "OPENAI_BASE_URL="+url+"/api")
	assert.Contains(t, bad.Log(), "404")
}

// RECITATION, common on code, is retried once with a note: the run is
// approved with one model call more than usual.
func TestRecitationOnceThenAnAnswerIsApproved(t *testing.T) {
	gem := &testenv.FakeGemini{Key: "test-key"}
	answers := testenv.ApprovedInRoundOne(answerTheSum)
	answers[refactor.RoleWriter] = []testenv.Reply{{FinishReason: "RECITATION"}, testenv.Code(answerTheSum)}
	gem.ScriptAll(answers)
	dir, env := modelEnv(t, "MODEL_PROVIDER=gemini", "GEMINI_API_KEY=test-key", "GOOGLE_GEMINI_BASE_URL="+testenv.Serve(t, gem), "MODEL_ID=gemini-test")
	s := start(t, dir, env...)
	resp, body, err := s.post("/api/v1/refactor", sumRequest)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%v", body)
	assert.Equal(t, "released", body["outcome"])
	assert.Equal(t, float64(4), body["usage"].(map[string]any)["model_calls"])
	assert.Equal(t, 2, gem.Count(refactor.RoleWriter))
	assert.Equal(t, 4, gem.Total())
}

// Vertex AI through genai's own variables: a project, a location and
// Application Default Credentials (a service account whose token endpoint
// is the fake's), against the fake at GOOGLE_VERTEX_BASE_URL.
func TestVertexAIWithApplicationDefaultCredentials(t *testing.T) {
	gem := &testenv.FakeGemini{Token: "ya29.vertex"}
	gem.ScriptAll(testenv.ApprovedInRoundOne(answerTheSum))
	url := testenv.Serve(t, gem)
	dir, env := modelEnv(t, "GOOGLE_GENAI_USE_VERTEXAI=true", "GOOGLE_CLOUD_PROJECT=my-project", "GOOGLE_CLOUD_LOCATION=us-central1",
		"GOOGLE_VERTEX_BASE_URL="+url, "GOOGLE_APPLICATION_CREDENTIALS="+testenv.ServiceAccountFile(t, url), "MODEL_ID=gemini-test")
	s := start(t, dir, env...)
	resp, body, err := s.post("/api/v1/refactor", sumRequest)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%v\n%s", body, s.Log())
	assert.Equal(t, "released", body["outcome"])
	assert.Equal(t, 3, gem.Total())
	for _, r := range gem.Requests() {
		assert.Equal(t, "/v1beta1/projects/my-project/locations/us-central1/publishers/google/models/gemini-test:generateContent", r.Path)
		assert.Equal(t, "Bearer ya29.vertex", r.Header.Get("Authorization"))
	}
}
