package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	oai "github.com/openai/openai-go"
	"github.com/openai/openai-go/option"

	"github.com/pharo-refactor/refactord/agents"
)

// What real OpenAI-compatible servers do differently from OpenAI, and how
// this package meets it:
//   - vLLM answers 400 to any request with tools unless it was started with
//     --enable-auto-tool-choice and --tool-call-parser; llama.cpp's server
//     needs --jinja. OPENAI_TOOLS=off stops offering tools (the reviewer
//     then works without lookups), and the 400 names that setting.
//   - Older llama.cpp servers accept response_format json_object but refuse
//     json_schema; a reasoning model whose server constrains the whole
//     answer to the schema cannot think. OPENAI_RESPONSE_FORMAT=json_object
//     or none, per role if need be; the 400 names that setting.
//   - vLLM's errors may come as a top-level {"message": …} rather than
//     OpenAI's {"error": {"message": …}}: errorDetail reads both.
//   - A base URL without its /v1 answers 404 to everything: ProbeBaseURL
//     adds it when the server answers there, and refuses a URL that answers
//     404 either way.
//   - Ollama's OpenAI-compatible API cannot set the context window
//     (num_ctx): it is a server setting (OLLAMA_CONTEXT_LENGTH, or
//     PARAMETER num_ctx in a Modelfile), see docs/operators.md.

// maxErrorBody bounds what is read of an error body for its message.
const maxErrorBody = 8 << 10

// errorDetail is the server's message for a failed call: OpenAI's
// error.message, else a top-level message (vLLM), else the body itself.
func errorDetail(e *oai.Error) string {
	if e.Message != "" {
		return e.Message
	}
	if e.Response == nil || e.Response.Body == nil {
		return ""
	}
	body, _ := io.ReadAll(io.LimitReader(e.Response.Body, maxErrorBody))
	var shapes struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  string          `json:"detail"`
	}
	if json.Unmarshal(body, &shapes) == nil {
		var nested struct {
			Message string `json:"message"`
		}
		var flat string
		switch {
		case json.Unmarshal(shapes.Error, &nested) == nil && nested.Message != "":
			return nested.Message
		case json.Unmarshal(shapes.Error, &flat) == nil && flat != "":
			return flat
		case shapes.Message != "":
			return shapes.Message
		case shapes.Detail != "":
			return shapes.Detail
		}
	}
	return strings.TrimSpace(string(body))
}

// refusalHint names the setting that avoids a refusal of req, or "".
func (m *Model) refusalHint(req agents.Request, status int, detail string) string {
	if status < 400 || status == http.StatusUnauthorized || status == http.StatusForbidden ||
		status == http.StatusNotFound || status == http.StatusTooManyRequests {
		return ""
	}
	lower := strings.ToLower(detail)
	switch {
	case strings.Contains(lower, "context length") || strings.Contains(lower, "context window") || strings.Contains(lower, "too many tokens"):
		return "the prompt does not fit the server's context: give the server a longer one (vLLM --max-model-len, llama.cpp -c, Ollama OLLAMA_CONTEXT_LENGTH) or lower PROMPT_MAX_*_BYTES"
	case len(req.Tools) > 0 && strings.Contains(lower, "tool"):
		return "the server refused tool calling: set OPENAI_TOOLS=off (or start vLLM with --enable-auto-tool-choice --tool-call-parser …, llama.cpp with --jinja)"
	case req.Schema != nil && m.cfg.ResponseFormat == FormatJSONSchema &&
		(strings.Contains(lower, "json_schema") || strings.Contains(lower, "response_format") || strings.Contains(lower, "schema") || strings.Contains(lower, "grammar")):
		return "the server refused response_format json_schema: set OPENAI_RESPONSE_FORMAT=json_object or none"
	}
	return ""
}

// ProbeTimeout bounds the start-up check of a base URL.
const ProbeTimeout = 10 * time.Second

// Probe is what the start-up check of a base URL found.
type Probe struct {
	// BaseURL is the URL to use: the configured one, or it with /v1 added.
	BaseURL string
	// Models are the model IDs the server lists (GET /models).
	Models []string
	// Warning, when set, says what could not be checked (the server is
	// down, or refused the listing); the service starts anyway.
	Warning string
}

// ProbeBaseURL checks cfg.BaseURL with GET /models, once and without
// retries. A URL that answers 404 is retried with /v1 added, and used so
// when that answers; a 404 either way is an error naming the URL. Any
// other failure is only a warning: the server may come up later.
func ProbeBaseURL(ctx context.Context, cfg Config) (Probe, error) {
	base := strings.TrimRight(cfg.BaseURL, "/")
	ids, status, err := listModels(ctx, cfg, base)
	if status == http.StatusNotFound && !strings.HasSuffix(base, "/v1") {
		if ids2, status2, err2 := listModels(ctx, cfg, base+"/v1"); err2 == nil {
			return Probe{BaseURL: base + "/v1", Models: ids2}, nil
		} else if status2 != http.StatusNotFound {
			return Probe{BaseURL: base + "/v1", Warning: fmt.Sprintf("%s/v1/models: %v", base, err2)}, nil
		}
		return Probe{}, fmt.Errorf("OPENAI_BASE_URL=%s: GET %s/models and GET %s/v1/models answered 404 Not Found: this is not the root of an OpenAI-compatible API (it usually ends in /v1, e.g. http://127.0.0.1:11434/v1)", cfg.BaseURL, base, base)
	}
	if status == http.StatusNotFound {
		return Probe{}, fmt.Errorf("OPENAI_BASE_URL=%s: GET %s/models answered 404 Not Found: this is not the root of an OpenAI-compatible API (e.g. http://127.0.0.1:11434/v1, http://127.0.0.1:8000/v1)", cfg.BaseURL, base)
	}
	if err != nil {
		return Probe{BaseURL: base, Warning: fmt.Sprintf("%s/models: %v", base, err)}, nil
	}
	return Probe{BaseURL: base, Models: ids}, nil
}

// listModels lists the model IDs at base; status is the HTTP status of a
// refusal (0 when there was no answer).
func listModels(ctx context.Context, cfg Config, base string) ([]string, int, error) {
	ctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	opts := []option.RequestOption{option.WithBaseURL(base), option.WithMaxRetries(0), option.WithHTTPClient(&http.Client{Transport: transport(cfg)})}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	client := oai.NewClient(opts...)
	page, err := client.Models.List(ctx)
	var apiErr *oai.Error
	if errors.As(err, &apiErr) {
		return nil, apiErr.StatusCode, fmt.Errorf("HTTP %d: %s", apiErr.StatusCode, errorDetail(apiErr))
	}
	if err != nil {
		return nil, 0, err
	}
	ids := make([]string, 0, len(page.Data))
	for _, m := range page.Data {
		ids = append(ids, m.ID)
	}
	return ids, 0, nil
}

func transport(cfg Config) http.RoundTripper {
	if cfg.Transport != nil {
		return cfg.Transport
	}
	return http.DefaultTransport
}
