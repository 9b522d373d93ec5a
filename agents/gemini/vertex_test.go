package gemini

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/agents"
	"github.com/pharo-refactor/refactord/internal/testenv"
)

// Vertex AI through genai's own configuration: a project and location
// with Application Default Credentials (a service account whose token
// endpoint is the fake's), or a key alone (express mode).
func TestVertexAI(t *testing.T) {
	const token = "ya29.test-token"
	cases := []struct {
		name   string
		cfg    func(url string) Config
		path   string
		bearer bool
	}{
		{"project, location and ADC", func(url string) Config {
			return Config{Vertex: true, Project: "my-project", Location: "europe-west4", BaseURL: url}
		}, "/v1beta1/projects/my-project/locations/europe-west4/publishers/google/models/gemini-test:generateContent", true},
		{"express mode with a key", func(url string) Config {
			return Config{Vertex: true, APIKey: testKey, BaseURL: url}
		}, "/v1beta1/publishers/google/models/gemini-test:generateContent", false},
		{"a proxy that signs the requests itself", func(url string) Config {
			return Config{Vertex: true, BaseURL: url}
		}, "/v1beta1/publishers/google/models/gemini-test:generateContent", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := &testenv.FakeGemini{}
			switch {
			case tc.bearer:
				f.Token = token
			case tc.cfg("").APIKey != "":
				f.Key = testKey
			}
			f.Script("", textReply(goodCandidate, "STOP"))
			url := testenv.Serve(t, f)
			t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", testenv.ServiceAccountFile(t, url))
			cfg := tc.cfg(url)
			cfg.Model, cfg.Retry = "gemini-test", testenv.FastRetry()
			m, err := New(context.Background(), cfg)
			require.NoError(t, err)
			cand, _, err := testenv.NewRoles(t, m, nil, 0).Write(context.Background(), testenv.SumInput(), review)
			require.NoError(t, err)
			assert.Equal(t, "sum: augend with: addend\n\t^ augend + addend", cand.Code)
			var generate []testenv.Request
			for _, r := range f.Requests() {
				if strings.HasSuffix(r.Path, ":generateContent") {
					generate = append(generate, r)
				}
			}
			require.Len(t, generate, 1)
			assert.Equal(t, tc.path, generate[0].Path)
			if tc.bearer {
				assert.Equal(t, "Bearer "+token, generate[0].Header.Get("Authorization"))
				assert.Empty(t, generate[0].Header.Get("x-goog-api-key"))
			} else {
				assert.Equal(t, f.Key, generate[0].Header.Get("x-goog-api-key"))
				assert.Empty(t, generate[0].Header.Get("Authorization"))
			}
			assert.Equal(t, string(refactor.RoleWriter), generate[0].Header.Get(agents.RoleHeader))
		})
	}
}

func TestVertexAINeedsProjectAndLocationOrAKey(t *testing.T) {
	_, err := New(context.Background(), Config{Vertex: true, Project: "p"})
	assert.ErrorContains(t, err, "GOOGLE_CLOUD_LOCATION")
	_, err = New(context.Background(), Config{})
	assert.ErrorContains(t, err, "GOOGLE_GENAI_USE_VERTEXAI")
}

// RECITATION (common on code) is not a failed run: the role asks again
// once, with a note of its own.
func TestRecitationIsRetriedOnceWithANote(t *testing.T) {
	f, url := testenv.StrictGemini(t, testKey, textReply("", "RECITATION"), textReply(goodCandidate, "STOP"))
	cand, stats, err := testenv.NewRoles(t, newModel(t, url), nil, 0).Write(context.Background(), testenv.SumInput(), review)
	require.NoError(t, err)
	assert.Equal(t, "sum: augend with: addend\n\t^ augend + addend", cand.Code)
	assert.Equal(t, 2, stats.Calls)
	reqs := f.Requests()
	require.Len(t, reqs, 2)
	note, _ := testenv.Dig(reqs[1].JSON(), "contents", 0, "parts", 0, "text").(string)
	assert.Contains(t, note, "recited existing text")

	_, url = testenv.StrictGemini(t, testKey, textReply("", "RECITATION"), textReply("", "RECITATION"))
	_, _, err = testenv.NewRoles(t, newModel(t, url), nil, 0).Write(context.Background(), testenv.SumInput(), review)
	require.Error(t, err)
	assert.Equal(t, refactor.ModelBadOutput, refactor.KindOf(err))
	assert.Contains(t, err.Error(), "RECITATION")
}

func TestThinkingBudgetAndSamplingReachTheRequest(t *testing.T) {
	f, url := testenv.StrictGemini(t, testKey, textReply(goodCandidate, "STOP"))
	budget, temp := int32(512), float32(0.3)
	m, err := New(context.Background(), Config{APIKey: testKey, BaseURL: url, Model: "gemini-test", Retry: testenv.FastRetry(),
		ThinkingBudget: &budget, Temperature: &temp, MaxOutputTokens: 4096})
	require.NoError(t, err)
	_, err = m.Generate(context.Background(), agents.Request{Role: refactor.RoleWriter, Messages: []agents.Message{agents.UserText("x")}, Schema: agents.CandidateSchema()})
	require.NoError(t, err)
	body := f.Requests()[0].JSON()
	assert.Equal(t, float64(512), testenv.Dig(body, "generationConfig", "thinkingConfig", "thinkingBudget"))
	assert.InDelta(t, 0.3, testenv.Dig(body, "generationConfig", "temperature"), 1e-6)
	assert.Equal(t, float64(4096), testenv.Dig(body, "generationConfig", "maxOutputTokens"))
}
