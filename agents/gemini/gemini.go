// Package gemini is an agents.Model on the Gemini API through
// google.golang.org/genai.
//
// The SDK's own retries are off (genai's backoff ignores Retry-After) and so
// is its automatic continuation (one Generate must stay one request, as the
// run's call budget counts it); agents.RetryPolicy's transport retries
// instead.
package gemini

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"google.golang.org/genai"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/agents"
)

// DefaultModel is the model used when Config.Model is empty.
const DefaultModel = "gemini-2.5-flash"

// Config configures a Model.
type Config struct {
	// APIKey is required for the Gemini API (GEMINI_API_KEY or
	// GOOGLE_API_KEY; see ConfigFromEnv). On Vertex AI without Project and
	// Location it selects express mode; with them Vertex AI uses
	// Application Default Credentials and ignores the key, as genai does.
	APIKey string
	// Vertex selects the Vertex AI backend (GOOGLE_GENAI_USE_VERTEXAI).
	Vertex bool
	// Project and Location are Vertex AI's (GOOGLE_CLOUD_PROJECT,
	// GOOGLE_CLOUD_LOCATION).
	Project, Location string
	// BaseURL overrides the endpoint (GOOGLE_GEMINI_BASE_URL, or
	// GOOGLE_VERTEX_BASE_URL on Vertex AI); empty means the SDK's default.
	BaseURL string
	// Model is the model ID (MODEL_ID or a role's own); default
	// DefaultModel.
	Model string
	Retry agents.RetryPolicy
	// MaxOutputTokens and Temperature are left to the model when zero/nil.
	MaxOutputTokens int32
	Temperature     *float32
	// ThinkingBudget, when set, caps the model's thinking tokens
	// (GEMINI_THINKING_BUDGET): 0 switches thinking off where the model
	// allows it, -1 lets the model decide.
	ThinkingBudget *int32
	// Transport is the HTTP transport under the retries; nil means
	// http.DefaultTransport.
	Transport http.RoundTripper
}

// ConfigFromEnv reads the genai SDK's own variables with its precedence:
// GOOGLE_API_KEY over GEMINI_API_KEY, and GOOGLE_GEMINI_BASE_URL.
func ConfigFromEnv(getenv func(string) string) Config {
	key := getenv("GOOGLE_API_KEY")
	if key == "" {
		key = getenv("GEMINI_API_KEY")
	}
	return Config{APIKey: key, BaseURL: getenv("GOOGLE_GEMINI_BASE_URL")}
}

// Model calls one Gemini model. It is safe for concurrent use.
type Model struct {
	client *genai.Client
	cfg    Config
}

var _ agents.Model = (*Model)(nil)

// New returns a Model for cfg.
func New(ctx context.Context, cfg Config) (*Model, error) {
	if cfg.Model == "" {
		cfg.Model = DefaultModel
	}
	cc, err := clientConfig(cfg)
	if err != nil {
		return nil, err
	}
	client, err := genai.NewClient(ctx, cc)
	if err != nil {
		// Not wrapped: genai's messages print the whole ClientConfig,
		// API key included.
		return nil, errors.New("gemini: the client could not be created (check the base URL, the key, or the Vertex AI project and location)")
	}
	return &Model{client: client, cfg: cfg}, nil
}

// clientConfig maps cfg to genai's own configuration. On Vertex AI without
// a key the requests are signed with Application Default Credentials
// (GOOGLE_APPLICATION_CREDENTIALS, gcloud's login, or the metadata
// server), added to this package's retrying HTTP client the SDK's way.
func clientConfig(cfg Config) (*genai.ClientConfig, error) {
	cc := &genai.ClientConfig{
		APIKey:      cfg.APIKey,
		Backend:     genai.BackendGeminiAPI,
		HTTPClient:  cfg.Retry.Client(cfg.Transport),
		HTTPOptions: genai.HTTPOptions{BaseURL: cfg.BaseURL},
	}
	if !cfg.Vertex {
		if cfg.APIKey == "" {
			return nil, errors.New("gemini: no API key (set GEMINI_API_KEY or GOOGLE_API_KEY, or GOOGLE_GENAI_USE_VERTEXAI=true for Vertex AI)")
		}
		return cc, nil
	}
	cc.Backend = genai.BackendVertexAI
	if cfg.Project == "" && cfg.Location == "" {
		if cfg.APIKey == "" && cfg.BaseURL == "" {
			return nil, errors.New("gemini: Vertex AI needs GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION, or an API key for express mode")
		}
		// Express mode (the key alone), or, as genai allows, a custom
		// endpoint without credentials: a proxy that signs the requests.
		return cc, nil
	}
	if cfg.Project == "" || cfg.Location == "" {
		return nil, errors.New("gemini: Vertex AI needs both GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION")
	}
	// As in genai, a project and location win over a key: the key is not
	// sent, the requests are signed with the credentials.
	cc.APIKey, cc.Project, cc.Location = "", cfg.Project, cfg.Location
	if err := cc.UseDefaultCredentials(); err != nil {
		return nil, fmt.Errorf("gemini: Vertex AI needs Application Default Credentials (GOOGLE_APPLICATION_CREDENTIALS, or gcloud auth application-default login): %w", err)
	}
	return cc, nil
}

// ID returns the model ID this Model calls.
func (m *Model) ID() string { return m.cfg.Model }

// Generate makes one generateContent call.
func (m *Model) Generate(ctx context.Context, req agents.Request) (agents.Response, error) {
	contents, err := toContents(req.Messages)
	if err != nil {
		return agents.Response{}, refactor.Wrap(refactor.Internal, err, "gemini: building the request")
	}
	resp, err := m.client.Models.GenerateContent(ctx, m.cfg.Model, contents, m.config(req))
	if err != nil {
		return agents.Response{}, classify(ctx, err)
	}
	out := fromResponse(resp)
	// responseSchema constrains the decoding: the text is the object.
	out.Constrained = req.Schema != nil
	return out, nil
}

func classify(ctx context.Context, err error) error {
	var apiErr genai.APIError
	if errors.As(err, &apiErr) {
		return agents.ClassifyError(ctx, "gemini", apiErr.Code, strings.TrimSpace(apiErr.Status+" "+apiErr.Message), err)
	}
	return agents.ClassifyError(ctx, "gemini", 0, "", err)
}

// config maps the request's role (agents.RoleHeader), instruction, schema
// and tools. Tools and a
// schema are never combined by the roles; were they, the API would refuse
// the call (400), which is not retried.
func (m *Model) config(req agents.Request) *genai.GenerateContentConfig {
	off := false
	cfg := &genai.GenerateContentConfig{
		AutomaticContinuation: &off,
		MaxOutputTokens:       m.cfg.MaxOutputTokens,
		Temperature:           m.cfg.Temperature,
	}
	if m.cfg.ThinkingBudget != nil {
		cfg.ThinkingConfig = &genai.ThinkingConfig{ThinkingBudget: m.cfg.ThinkingBudget}
	}
	if req.Role != "" {
		cfg.HTTPOptions = &genai.HTTPOptions{Headers: http.Header{agents.RoleHeader: {string(req.Role)}}}
	}
	if req.System != "" {
		cfg.SystemInstruction = &genai.Content{Parts: []*genai.Part{{Text: req.System}}}
	}
	if req.Schema != nil {
		cfg.ResponseMIMEType = "application/json"
		cfg.ResponseSchema = toSchema(req.Schema)
	}
	if len(req.Tools) > 0 {
		decls := make([]*genai.FunctionDeclaration, 0, len(req.Tools))
		for _, t := range req.Tools {
			decls = append(decls, &genai.FunctionDeclaration{Name: t.Name, Description: t.Description, Parameters: toSchema(t.Parameters)})
		}
		cfg.Tools = []*genai.Tool{{FunctionDeclarations: decls}}
	}
	return cfg
}

// toContents maps the conversation. Tool results travel as functionResponse
// parts of a user turn; model turns echo their function calls with their
// thought signatures.
func toContents(msgs []agents.Message) ([]*genai.Content, error) {
	out := make([]*genai.Content, 0, len(msgs))
	for i, msg := range msgs {
		var c *genai.Content
		switch msg.Speaker {
		case agents.SpeakerUser:
			c = userContent(msg)
		case agents.SpeakerModel:
			c = modelContent(msg)
		default:
			return nil, fmt.Errorf("message %d has no speaker", i)
		}
		if len(c.Parts) > 0 {
			out = append(out, c)
		}
	}
	return out, nil
}

func userContent(msg agents.Message) *genai.Content {
	c := &genai.Content{Role: genai.RoleUser}
	for _, r := range msg.ToolResults {
		c.Parts = append(c.Parts, &genai.Part{FunctionResponse: &genai.FunctionResponse{
			ID: r.CallID, Name: r.Name, Response: map[string]any{"output": r.Content},
		}})
	}
	if msg.Text != "" {
		c.Parts = append(c.Parts, &genai.Part{Text: msg.Text})
	}
	return c
}

func modelContent(msg agents.Message) *genai.Content {
	c := &genai.Content{Role: genai.RoleModel}
	if msg.Text != "" {
		c.Parts = append(c.Parts, &genai.Part{Text: msg.Text})
	}
	for _, tc := range msg.ToolCalls {
		c.Parts = append(c.Parts, &genai.Part{
			FunctionCall:     &genai.FunctionCall{ID: tc.ID, Name: tc.Name, Args: tc.Args},
			ThoughtSignature: tc.Signature,
		})
	}
	return c
}

var schemaTypes = map[string]genai.Type{
	"object":  genai.TypeObject,
	"array":   genai.TypeArray,
	"string":  genai.TypeString,
	"boolean": genai.TypeBoolean,
	"integer": genai.TypeInteger,
	"number":  genai.TypeNumber,
}

// toSchema maps agents.Schema to the API's OpenAPI-style schema, keeping
// property order.
func toSchema(s *agents.Schema) *genai.Schema {
	if s == nil {
		return nil
	}
	out := &genai.Schema{
		Type:        schemaTypes[s.Type],
		Description: s.Description,
		Enum:        s.Enum,
		Required:    s.Required,
		Items:       toSchema(s.Items),
	}
	if len(s.Properties) > 0 {
		out.Properties = make(map[string]*genai.Schema, len(s.Properties))
	}
	for _, p := range s.Properties {
		out.Properties[p.Name] = toSchema(p.Schema)
		out.PropertyOrdering = append(out.PropertyOrdering, p.Name)
	}
	return out
}

// fromResponse reads the first candidate: its text (thoughts skipped), its
// function calls, a normalized finish reason and the usage metadata.
func fromResponse(r *genai.GenerateContentResponse) agents.Response {
	out := agents.Response{Usage: usage(r.UsageMetadata)}
	if len(r.Candidates) == 0 {
		if r.PromptFeedback != nil && r.PromptFeedback.BlockReason != "" {
			out.FinishReason = agents.FinishSafety
			out.RawFinishReason = "prompt blocked: " + string(r.PromptFeedback.BlockReason)
			return out
		}
		out.FinishReason, out.RawFinishReason = agents.FinishOther, "no candidates"
		return out
	}
	c := r.Candidates[0]
	var text strings.Builder
	if c.Content != nil {
		for _, p := range c.Content.Parts {
			switch {
			case p.FunctionCall != nil:
				out.ToolCalls = append(out.ToolCalls, agents.ToolCall{
					ID: p.FunctionCall.ID, Name: p.FunctionCall.Name, Args: p.FunctionCall.Args, Signature: p.ThoughtSignature,
				})
			case p.Text != "" && !p.Thought:
				text.WriteString(p.Text)
			}
		}
	}
	out.Text = text.String()
	out.RawFinishReason = string(c.FinishReason)
	out.FinishReason = finishReason(c.FinishReason, len(out.ToolCalls) > 0)
	return out
}

func finishReason(fr genai.FinishReason, calls bool) agents.FinishReason {
	switch fr {
	case genai.FinishReasonRecitation:
		return agents.FinishRecitation
	case genai.FinishReasonSafety, genai.FinishReasonBlocklist,
		genai.FinishReasonProhibitedContent, genai.FinishReasonSPII, genai.FinishReasonImageSafety:
		return agents.FinishSafety
	case genai.FinishReasonMaxTokens:
		return agents.FinishLength
	}
	if calls {
		return agents.FinishToolCalls
	}
	if fr == genai.FinishReasonStop || fr == "" {
		return agents.FinishStop
	}
	return agents.FinishOther
}

func usage(u *genai.GenerateContentResponseUsageMetadata) agents.Usage {
	if u == nil {
		return agents.Usage{}
	}
	return agents.Usage{
		InputTokens:  int64(u.PromptTokenCount) + int64(u.ToolUsePromptTokenCount),
		OutputTokens: int64(u.CandidatesTokenCount) + int64(u.ThoughtsTokenCount),
	}
}
