package config

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The key precedence is genai's own: GOOGLE_API_KEY over GEMINI_API_KEY.
func TestGeminiKeyPrecedenceIsTheSDKs(t *testing.T) {
	t.Parallel()
	cases := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"GEMINI_API_KEY": "gemini", "GOOGLE_API_KEY": "google"}, "google"},
		{map[string]string{"GEMINI_API_KEY": "gemini"}, "gemini"},
		{map[string]string{"GOOGLE_API_KEY": "google"}, "google"},
		{map[string]string{"GEMINI_API_KEY": "gemini", "GOOGLE_API_KEY": " "}, "gemini"},
	}
	for _, tc := range cases {
		cfg, err := Load(env(tc.env), nil)
		require.NoError(t, err)
		assert.Equal(t, tc.want, cfg.GeminiAPIKey, "%v", tc.env)
		assert.Equal(t, "gemini", cfg.ModelProvider)
	}
}

func TestVertexAISettings(t *testing.T) {
	t.Parallel()
	cfg, err := Load(env(map[string]string{
		"GOOGLE_GENAI_USE_VERTEXAI": "True", "GOOGLE_CLOUD_PROJECT": "p", "GOOGLE_CLOUD_REGION": "europe-west4",
		"GOOGLE_VERTEX_BASE_URL": "http://127.0.0.1:9/",
	}), nil)
	require.NoError(t, err)
	assert.Equal(t, "gemini", cfg.ModelProvider, "Vertex AI selects gemini without a key")
	assert.True(t, cfg.Vertex)
	assert.Equal(t, "p", cfg.VertexProject)
	assert.Equal(t, "europe-west4", cfg.VertexLocation, "GOOGLE_CLOUD_REGION as genai reads it")
	assert.Equal(t, "http://127.0.0.1:9/", cfg.VertexBaseURL)

	express, err := Load(env(map[string]string{"GOOGLE_GENAI_USE_VERTEXAI": "1", "GOOGLE_API_KEY": "k"}), nil)
	require.NoError(t, err)
	assert.True(t, express.Vertex)

	proxy, err := Load(env(map[string]string{"GOOGLE_GENAI_USE_VERTEXAI": "true", "GOOGLE_VERTEX_BASE_URL": "http://127.0.0.1:9/"}), nil)
	require.NoError(t, err, "a custom endpoint needs no credentials, as in genai")
	assert.True(t, proxy.Vertex)

	notVertex, err := Load(env(map[string]string{"GOOGLE_GENAI_USE_VERTEXAI": "yes"}), nil)
	require.NoError(t, err)
	assert.False(t, notVertex.Vertex, "genai reads only 1 and true")
	assert.Equal(t, "scripted", notVertex.ModelProvider)

	for _, bad := range []map[string]string{
		{"GOOGLE_GENAI_USE_VERTEXAI": "true"},
		{"GOOGLE_GENAI_USE_VERTEXAI": "true", "GOOGLE_CLOUD_PROJECT": "p"},
	} {
		_, err := Load(env(bad), nil)
		assert.ErrorContains(t, err, "GOOGLE_GENAI_USE_VERTEXAI=true needs", "%v", bad)
	}
}

// Each tuning variable applies to every role unless the role has its own.
func TestTuningPerRole(t *testing.T) {
	t.Parallel()
	cfg, err := Load(env(map[string]string{
		"MODEL_PROVIDER": "openai", "OPENAI_BASE_URL": "http://127.0.0.1:8000/v1",
		"MODEL_TEMPERATURE": "0.2", "VALIDATOR_MODEL_TEMPERATURE": "0",
		"MODEL_MAX_OUTPUT_TOKENS": "2048", "VALIDATOR_MODEL_MAX_OUTPUT_TOKENS": "16384",
		"OPENAI_RESPONSE_FORMAT": "json_object", "VALIDATOR_OPENAI_RESPONSE_FORMAT": "None",
		"WRITER_GEMINI_THINKING_BUDGET": "0", "OPENAI_TOOLS": "off",
		"PROMPT_MAX_METHOD_BYTES": "65536",
	}), nil)
	require.NoError(t, err)
	require.Len(t, cfg.Tuning, 4)
	for _, role := range []string{"reviewer", "writer", "refiner"} {
		tu := cfg.Tuning[role]
		require.NotNil(t, tu.Temperature, role)
		assert.Equal(t, 0.2, *tu.Temperature, role)
		assert.Equal(t, 2048, tu.MaxOutputTokens, role)
		assert.Equal(t, "json_object", tu.ResponseFormat, role)
	}
	v := cfg.Tuning["validator"]
	require.NotNil(t, v.Temperature)
	assert.Equal(t, 0.0, *v.Temperature)
	assert.Equal(t, 16384, v.MaxOutputTokens)
	assert.Equal(t, "none", v.ResponseFormat)
	require.NotNil(t, cfg.Tuning["writer"].ThinkingBudget)
	assert.Equal(t, 0, *cfg.Tuning["writer"].ThinkingBudget)
	assert.Nil(t, cfg.Tuning["reviewer"].ThinkingBudget)
	assert.False(t, cfg.OpenAITools)
	assert.Equal(t, 65536, cfg.Budget.MethodSource)

	def, err := Load(env(nil), nil)
	require.NoError(t, err)
	assert.True(t, def.OpenAITools)
	assert.Equal(t, "json_schema", def.Tuning["writer"].ResponseFormat)
	assert.Nil(t, def.Tuning["writer"].Temperature, "left to the model")
	assert.Zero(t, def.Tuning["writer"].MaxOutputTokens)
}

func TestTuningMistakesNameTheirVariable(t *testing.T) {
	t.Parallel()
	_, err := Load(env(map[string]string{
		"MODEL_TEMPERATURE": "hot", "REFINER_MODEL_TEMPERATURE": "3", "MODEL_MAX_OUTPUT_TOKENS": "0",
		"GEMINI_THINKING_BUDGET": "-2", "WRITER_OPENAI_RESPONSE_FORMAT": "xml", "OPENAI_TOOLS": "maybe",
		"PROMPT_MAX_TOOL_BYTES": "10",
	}), nil)
	require.Error(t, err)
	for _, want := range []string{
		"MODEL_TEMPERATURE=hot: must be a number from 0 to 2",
		"REFINER_MODEL_TEMPERATURE=3: must be a number from 0 to 2",
		"MODEL_MAX_OUTPUT_TOKENS=0: must be a whole number from 1 to 1000000",
		"GEMINI_THINKING_BUDGET=-2: must be -1 (the model decides), 0 (off) or a number of tokens",
		"WRITER_OPENAI_RESPONSE_FORMAT=xml: must be one of json_schema, json_object, none",
		"OPENAI_TOOLS=maybe: must be on or off",
		"PROMPT_MAX_TOOL_BYTES=10: must be from 256 to 4194304 bytes",
	} {
		assert.Contains(t, strings.Split(err.Error(), "\n"), want)
	}
	assert.Len(t, strings.Split(err.Error(), "\n"), 7, "each mistake once")
}
