package testenv

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// OpenAIServer names a real OpenAI-compatible server whose differences
// from OpenAI a FakeOpenAI imitates.
type OpenAIServer string

// The servers imitated.
const (
	// VLLMWithoutToolParser is vLLM started without
	// --enable-auto-tool-choice and --tool-call-parser: any request
	// offering tools gets its 400.
	VLLMWithoutToolParser OpenAIServer = "vllm-no-tool-parser"
	// LlamaCppWithoutJSONSchema is a llama.cpp server that accepts
	// response_format json_object but refuses json_schema with a 400.
	LlamaCppWithoutJSONSchema OpenAIServer = "llama.cpp-no-json-schema"
	// ReasoningModel is a reasoning model (DeepSeek-R1, QwQ) behind a
	// server without a reasoning parser: every answer starts with its
	// <think>…</think> block, which counts against max_tokens
	// (ReasoningTokens of it), and it ignores the response format, writing
	// its JSON in a ```json fence after the thinking.
	ReasoningModel OpenAIServer = "reasoning-model"
)

// ReasoningTokens is how many tokens a ReasoningModel thinks before each
// answer.
const ReasoningTokens = 1500

// refuse answers what the imitated server refuses before any model runs.
func (s OpenAIServer) refuse(body []byte) *Reply {
	var req map[string]any
	if json.Unmarshal(body, &req) != nil {
		return &Reply{Status: http.StatusBadRequest, Text: "Invalid JSON body"}
	}
	switch {
	case s == VLLMWithoutToolParser && req["tools"] != nil:
		// vLLM's own error shape: a top-level message, no "error" object.
		return &Reply{Status: http.StatusBadRequest, Body: map[string]any{
			"object": "error", "type": "BadRequestError", "param": nil, "code": 400,
			"message": `"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set`,
		}}
	case s == LlamaCppWithoutJSONSchema && Dig(req, "response_format", "type") == "json_schema":
		return &Reply{Status: http.StatusBadRequest, Body: map[string]any{"error": map[string]any{
			"code": 400, "type": "invalid_request_error",
			"message": `response_format type must be one of "text" or "json_object", but got: json_schema`,
		}}}
	}
	return nil
}

// shape turns a scripted text answer into what a ReasoningModel sends: its
// thinking, then the answer in a ```json fence — cut at max_tokens (or
// max_completion_tokens) with finish_reason length when those are fewer
// than it needs.
func (f *FakeOpenAI) shape(reply Reply, body []byte) Reply {
	if f.Like != ReasoningModel || reply.Body != nil || reply.Call != nil || (reply.Status != 0 && reply.Status != http.StatusOK) {
		return reply
	}
	thinking := strings.Repeat("Let me compare the two methods step by step. ", ReasoningTokens*4/45)
	full := "<think>\n" + thinking + "\n</think>\n\n```json\n" + reply.Text + "\n```"
	var req map[string]any
	_ = json.Unmarshal(body, &req)
	limit := 0
	for _, key := range []string{"max_completion_tokens", "max_tokens"} {
		if n, ok := req[key].(float64); ok && n > 0 {
			limit = int(n)
		}
	}
	if limit > 0 && limit*4 < len(full) {
		reply.Text, reply.FinishReason = full[:limit*4], "length"
		return reply
	}
	reply.Text = full
	return reply
}

// serveModels answers GET /v1/models.
func (f *FakeOpenAI) serveModels(w http.ResponseWriter, r *http.Request) {
	if f.Key != "" && r.Header.Get("Authorization") != "Bearer "+f.Key {
		write(w, f, Reply{Status: http.StatusUnauthorized, Text: "Incorrect API key provided"})
		return
	}
	ids := f.Models
	if len(ids) == 0 {
		ids = []string{"fake"}
	}
	data := make([]any, 0, len(ids))
	for _, id := range ids {
		data = append(data, map[string]any{"id": id, "object": "model", "created": 1700000000, "owned_by": "fake"})
	}
	write(w, f, Reply{Body: map[string]any{"object": "list", "data": data}})
}

// geminiPath reports whether path is a generateContent path of the Gemini
// API or of Vertex AI (with a project and location, or in express mode).
func geminiPath(path string) bool {
	if !strings.HasSuffix(path, ":generateContent") {
		return false
	}
	if strings.HasPrefix(path, "/v1beta/models/") || strings.HasPrefix(path, "/v1beta1/publishers/google/models/") {
		return true
	}
	parts := strings.Split(strings.TrimPrefix(path, "/v1beta1/"), "/")
	return len(parts) == 8 && parts[0] == "projects" && parts[1] != "" && parts[2] == "locations" && parts[3] != "" &&
		parts[4] == "publishers" && parts[5] == "google" && parts[6] == "models"
}

// tokenPath is where a FakeGemini with a Token hands it out.
const tokenPath = "/token"

// serveToken is an OAuth 2.0 token endpoint for a service account's
// JWT-bearer grant (RFC 7523), as Google's is: it hands out Token.
func (f *FakeGemini) serveToken(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if r.Method != http.MethodPost || r.ParseForm() != nil ||
		r.PostForm.Get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" || strings.Count(r.PostForm.Get("assertion"), ".") != 2 {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error": "invalid_grant"}`))
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"access_token": f.Token, "token_type": "Bearer", "expires_in": 3600})
}

// ServiceAccountFile writes a Google service account key file whose token
// endpoint is gemini's (a FakeGemini with a Token, served at geminiURL) and
// returns its path: GOOGLE_APPLICATION_CREDENTIALS pointing there gives
// Application Default Credentials that work on loopback only.
func ServiceAccountFile(t testing.TB, geminiURL string) string {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(map[string]string{
		"type": "service_account", "project_id": "test-project", "private_key_id": "k1",
		"private_key":  string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"client_email": "refactord@test-project.iam.gserviceaccount.com", "client_id": "1",
		"token_uri": geminiURL + tokenPath,
	})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "service-account.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(fmt.Errorf("writing the service account file: %w", err))
	}
	return path
}
