// Package openai is an agents.Model on any OpenAI-compatible chat
// completions endpoint (OpenAI, vLLM, Ollama, llama.cpp) through
// github.com/openai/openai-go.
//
// openai-go's own retries are off (they sleep without watching the context
// and are capped at a minute of Retry-After); agents.RetryPolicy's transport
// retries instead, the same way for every provider.
package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	oai "github.com/openai/openai-go"
	"github.com/openai/openai-go/option"
	"github.com/openai/openai-go/shared"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/agents"
)

// ResponseFormat says how a JSON answer is requested; servers differ.
type ResponseFormat string

// Response formats.
const (
	// FormatJSONSchema sends response_format json_schema (OpenAI, vLLM,
	// Ollama, llama.cpp server). Strict when every property is required.
	FormatJSONSchema ResponseFormat = "json_schema"
	// FormatJSONObject sends response_format json_object (older servers).
	FormatJSONObject ResponseFormat = "json_object"
	// FormatNone sends no response_format; the prompt and the tolerant
	// parser carry the shape.
	FormatNone ResponseFormat = "none"
)

// Config configures a Model.
type Config struct {
	// BaseURL is the API root, e.g. http://localhost:11434/v1 (OPENAI_BASE_URL).
	BaseURL string
	// APIKey is sent as a bearer token when set (OPENAI_API_KEY); local
	// servers often need none.
	APIKey string
	// Model is the model ID (MODEL_ID or a role's own); required.
	Model string
	// ResponseFormat defaults to FormatJSONSchema.
	ResponseFormat ResponseFormat
	Retry          agents.RetryPolicy
	// MaxTokens and Temperature are left to the server when zero/nil.
	MaxTokens   int64
	Temperature *float64
	// Transport is the HTTP transport under the retries; nil means
	// http.DefaultTransport.
	Transport http.RoundTripper
}

// Model calls one chat completions model. It is safe for concurrent use.
type Model struct {
	client oai.Client
	cfg    Config
}

var _ agents.Model = (*Model)(nil)

// New returns a Model for cfg.
func New(cfg Config) (*Model, error) {
	if cfg.BaseURL == "" {
		return nil, errors.New("openai: no base URL (set OPENAI_BASE_URL)")
	}
	if cfg.Model == "" {
		return nil, errors.New("openai: no model ID")
	}
	switch cfg.ResponseFormat {
	case "":
		cfg.ResponseFormat = FormatJSONSchema
	case FormatJSONSchema, FormatJSONObject, FormatNone:
	default:
		return nil, fmt.Errorf("openai: unknown response format %q", cfg.ResponseFormat)
	}
	opts := []option.RequestOption{
		option.WithBaseURL(cfg.BaseURL),
		option.WithHTTPClient(cfg.Retry.Client(cfg.Transport)),
		option.WithMaxRetries(0),
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	return &Model{client: oai.NewClient(opts...), cfg: cfg}, nil
}

// ID returns the model ID this Model calls.
func (m *Model) ID() string { return m.cfg.Model }

// Generate makes one chat completion call.
func (m *Model) Generate(ctx context.Context, req agents.Request) (agents.Response, error) {
	params, err := m.params(req)
	if err != nil {
		return agents.Response{}, refactor.Wrap(refactor.Internal, err, "openai: building the request")
	}
	var opts []option.RequestOption
	if req.Role != "" {
		opts = append(opts, option.WithHeader(agents.RoleHeader, string(req.Role)))
	}
	resp, err := m.client.Chat.Completions.New(ctx, params, opts...)
	if err != nil {
		return agents.Response{}, m.classify(ctx, req, err)
	}
	out := fromCompletion(resp)
	// json_schema (and json_object) constrain the decoding to one object;
	// FormatNone leaves the shape to the prompt and the tolerant reading.
	out.Constrained = req.Schema != nil && m.cfg.ResponseFormat != FormatNone
	return out, nil
}

// classify gives a failure its kind; a refusal of what the request asked
// for (tools, a JSON schema) names the setting that avoids it.
func (m *Model) classify(ctx context.Context, req agents.Request, err error) error {
	var apiErr *oai.Error
	if !errors.As(err, &apiErr) {
		return agents.ClassifyError(ctx, "openai", 0, "", err)
	}
	detail := errorDetail(apiErr)
	if hint := m.refusalHint(req, apiErr.StatusCode, detail); hint != "" {
		detail += " — " + hint
	}
	return agents.ClassifyError(ctx, "openai", apiErr.StatusCode, detail, err)
}

func (m *Model) params(req agents.Request) (oai.ChatCompletionNewParams, error) {
	msgs, err := toMessages(req)
	if err != nil {
		return oai.ChatCompletionNewParams{}, err
	}
	p := oai.ChatCompletionNewParams{Model: m.cfg.Model, Messages: msgs}
	if m.cfg.MaxTokens > 0 {
		p.MaxTokens = oai.Int(m.cfg.MaxTokens)
	}
	if m.cfg.Temperature != nil {
		p.Temperature = oai.Float(*m.cfg.Temperature)
	}
	if req.Schema != nil {
		p.ResponseFormat = m.responseFormat(req)
	}
	for _, t := range req.Tools {
		p.Tools = append(p.Tools, oai.ChatCompletionToolParam{Function: shared.FunctionDefinitionParam{
			Name:        t.Name,
			Description: oai.String(t.Description),
			Parameters:  shared.FunctionParameters(t.Parameters.JSONSchema(false)),
		}})
	}
	return p, nil
}

func (m *Model) responseFormat(req agents.Request) oai.ChatCompletionNewParamsResponseFormatUnion {
	switch m.cfg.ResponseFormat {
	case FormatJSONObject:
		return oai.ChatCompletionNewParamsResponseFormatUnion{OfJSONObject: &shared.ResponseFormatJSONObjectParam{}}
	case FormatNone:
		return oai.ChatCompletionNewParamsResponseFormatUnion{}
	}
	strict := req.Schema.AllRequired()
	return oai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
		JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{
			Name:   string(req.Role) + "_answer",
			Schema: req.Schema.JSONSchema(strict),
			Strict: oai.Bool(strict),
		},
	}}
}

// toMessages maps the conversation: the system instruction first, tool
// results as tool messages (then the turn's text as a user message), model
// turns as assistant messages with their tool calls.
func toMessages(req agents.Request) ([]oai.ChatCompletionMessageParamUnion, error) {
	var out []oai.ChatCompletionMessageParamUnion
	if req.System != "" {
		out = append(out, oai.SystemMessage(req.System))
	}
	for i, msg := range req.Messages {
		switch msg.Speaker {
		case agents.SpeakerUser:
			for _, r := range msg.ToolResults {
				out = append(out, oai.ToolMessage(r.Content, r.CallID))
			}
			if msg.Text != "" {
				out = append(out, oai.UserMessage(msg.Text))
			}
		case agents.SpeakerModel:
			a, err := assistant(msg)
			if err != nil {
				return nil, err
			}
			out = append(out, a)
		default:
			return nil, fmt.Errorf("message %d has no speaker", i)
		}
	}
	return out, nil
}

func assistant(msg agents.Message) (oai.ChatCompletionMessageParamUnion, error) {
	a := oai.ChatCompletionAssistantMessageParam{}
	if msg.Text != "" {
		a.Content.OfString = oai.String(msg.Text)
	}
	for _, tc := range msg.ToolCalls {
		args, err := json.Marshal(tc.Args)
		if err != nil {
			return oai.ChatCompletionMessageParamUnion{}, fmt.Errorf("tool call %s: %w", tc.Name, err)
		}
		a.ToolCalls = append(a.ToolCalls, oai.ChatCompletionMessageToolCallParam{
			ID:       tc.ID,
			Function: oai.ChatCompletionMessageToolCallFunctionParam{Name: tc.Name, Arguments: string(args)},
		})
	}
	return oai.ChatCompletionMessageParamUnion{OfAssistant: &a}, nil
}

// fromCompletion reads the first choice. A refusal counts as a blocked
// answer.
func fromCompletion(c *oai.ChatCompletion) agents.Response {
	out := agents.Response{Usage: agents.Usage{InputTokens: c.Usage.PromptTokens, OutputTokens: c.Usage.CompletionTokens}}
	if len(c.Choices) == 0 {
		out.FinishReason, out.RawFinishReason = agents.FinishOther, "no choices"
		return out
	}
	ch := c.Choices[0]
	out.Text = ch.Message.Content
	out.RawFinishReason = ch.FinishReason
	for _, tc := range ch.Message.ToolCalls {
		call := agents.ToolCall{ID: tc.ID, Name: tc.Function.Name}
		if err := json.Unmarshal([]byte(tc.Function.Arguments), &call.Args); err != nil {
			call.ArgsError = "not a JSON object"
		}
		out.ToolCalls = append(out.ToolCalls, call)
	}
	out.FinishReason = finishReason(ch.FinishReason, len(out.ToolCalls) > 0)
	if ch.Message.Refusal != "" {
		out.FinishReason, out.RawFinishReason = agents.FinishSafety, "refusal: "+ch.Message.Refusal
	}
	return out
}

func finishReason(fr string, calls bool) agents.FinishReason {
	switch fr {
	case "length":
		return agents.FinishLength
	case "content_filter":
		return agents.FinishSafety
	case "tool_calls", "function_call":
		return agents.FinishToolCalls
	}
	if calls {
		return agents.FinishToolCalls
	}
	if fr == "stop" || fr == "" {
		return agents.FinishStop
	}
	return agents.FinishOther
}
