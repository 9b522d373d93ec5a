package config

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// roleNames are the model roles, as they prefix a role's own settings
// (REVIEWER_MODEL_TEMPERATURE, …).
var roleNames = []string{"reviewer", "writer", "validator", "refiner"}

// ModelSettings are the settings real model servers need beyond a model ID.
// Every Tuning variable can be set for all roles and overridden per role by
// prefixing the role: MODEL_TEMPERATURE=0.2 with VALIDATOR_MODEL_TEMPERATURE=0,
// GEMINI_THINKING_BUDGET with WRITER_GEMINI_THINKING_BUDGET, and so on.
type ModelSettings struct {
	// Vertex selects Vertex AI for MODEL_PROVIDER=gemini
	// (GOOGLE_GENAI_USE_VERTEXAI: "1" or "true", as genai reads it).
	Vertex bool `env:"GOOGLE_GENAI_USE_VERTEXAI"`
	// VertexProject and VertexLocation are genai's GOOGLE_CLOUD_PROJECT and
	// GOOGLE_CLOUD_LOCATION (or GOOGLE_CLOUD_REGION).
	VertexProject  string `env:"GOOGLE_CLOUD_PROJECT"`
	VertexLocation string `env:"GOOGLE_CLOUD_LOCATION"`
	// VertexBaseURL is genai's GOOGLE_VERTEX_BASE_URL.
	VertexBaseURL string `env:"GOOGLE_VERTEX_BASE_URL" validate:"omitempty,http_url"`
	// OpenAITools offers the reviewer's tools to an OpenAI-compatible
	// server (OPENAI_TOOLS=on|off): off for vLLM without a tool parser or
	// llama.cpp without --jinja.
	OpenAITools bool `env:"OPENAI_TOOLS"`
	// Tuning is each role's tuning, by role name (reviewer, writer,
	// validator, refiner).
	Tuning map[string]ModelTuning `env:"-"`
	// Budget caps what the prompts show of each input, in bytes.
	Budget PromptBudget `env:"-"`
}

// ModelTuning is how one role's model is asked. Unset fields are left to
// the model or the server.
type ModelTuning struct {
	// Temperature (MODEL_TEMPERATURE, 0–2).
	Temperature *float64
	// MaxOutputTokens (MODEL_MAX_OUTPUT_TOKENS); 0: the model's default.
	MaxOutputTokens int
	// ThinkingBudget (GEMINI_THINKING_BUDGET): thinking tokens for Gemini
	// 2.5 models; 0 off, -1 the model decides.
	ThinkingBudget *int
	// ResponseFormat (OPENAI_RESPONSE_FORMAT): json_schema (the default),
	// json_object or none.
	ResponseFormat string
}

// PromptBudget is agents.Budget as configured (PROMPT_MAX_*_BYTES).
type PromptBudget struct {
	MethodSource, ClassComment, ClassSummary, RelatedMethods, ToolResults int
}

// Response formats OPENAI_RESPONSE_FORMAT accepts.
var responseFormats = []string{"json_schema", "json_object", "none"}

// maxBudgetBytes bounds every PROMPT_MAX_*_BYTES.
const maxBudgetBytes = 4 << 20

// readModelSettings reads ModelSettings, reporting each mistake with its
// variable.
func (r *reader) readModelSettings() ModelSettings {
	s := ModelSettings{
		Vertex:        isGenaiTrue(r.str("GOOGLE_GENAI_USE_VERTEXAI", "")),
		VertexProject: r.str("GOOGLE_CLOUD_PROJECT", ""),
		VertexBaseURL: r.str("GOOGLE_VERTEX_BASE_URL", ""),
		OpenAITools:   r.onOff("OPENAI_TOOLS", true),
		Tuning:        map[string]ModelTuning{},
	}
	s.VertexLocation = r.str("GOOGLE_CLOUD_LOCATION", r.str("GOOGLE_CLOUD_REGION", ""))
	all := r.tuning("")
	for _, role := range roleNames {
		s.Tuning[role] = r.tuningOver(strings.ToUpper(role)+"_", all)
	}
	s.Budget = PromptBudget{
		MethodSource:   r.bytes("PROMPT_MAX_METHOD_BYTES"),
		ClassComment:   r.bytes("PROMPT_MAX_COMMENT_BYTES"),
		ClassSummary:   r.bytes("PROMPT_MAX_CLASS_BYTES"),
		RelatedMethods: r.bytes("PROMPT_MAX_RELATED_BYTES"),
		ToolResults:    r.bytes("PROMPT_MAX_TOOL_BYTES"),
	}
	return s
}

// isGenaiTrue reads a boolean the way genai reads GOOGLE_GENAI_USE_VERTEXAI.
func isGenaiTrue(v string) bool {
	v = strings.ToLower(v)
	return v == "1" || v == "true"
}

// tuning reads the tuning variables with prefix ("" or "VALIDATOR_").
func (r *reader) tuning(prefix string) ModelTuning {
	return r.tuningOver(prefix, ModelTuning{ResponseFormat: "json_schema"})
}

// tuningOver reads the variables with prefix over base: what is not set
// keeps base's value.
func (r *reader) tuningOver(prefix string, base ModelTuning) ModelTuning {
	t := base
	if v := r.str(prefix+"MODEL_TEMPERATURE", ""); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 0 || f > 2 {
			r.errs = append(r.errs, fmt.Errorf("%sMODEL_TEMPERATURE=%s: must be a number from 0 to 2", prefix, v))
		} else {
			t.Temperature = &f
		}
	}
	if v := r.str(prefix+"MODEL_MAX_OUTPUT_TOKENS", ""); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1_000_000 {
			r.errs = append(r.errs, fmt.Errorf("%sMODEL_MAX_OUTPUT_TOKENS=%s: must be a whole number from 1 to 1000000", prefix, v))
		} else {
			t.MaxOutputTokens = n
		}
	}
	if v := r.str(prefix+"GEMINI_THINKING_BUDGET", ""); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < -1 || n > 1_000_000 {
			r.errs = append(r.errs, fmt.Errorf("%sGEMINI_THINKING_BUDGET=%s: must be -1 (the model decides), 0 (off) or a number of tokens", prefix, v))
		} else {
			t.ThinkingBudget = &n
		}
	}
	if v := strings.ToLower(r.str(prefix+"OPENAI_RESPONSE_FORMAT", "")); v != "" {
		if !slices.Contains(responseFormats, v) {
			r.errs = append(r.errs, fmt.Errorf("%sOPENAI_RESPONSE_FORMAT=%s: must be one of %s", prefix, v, strings.Join(responseFormats, ", ")))
		} else {
			t.ResponseFormat = v
		}
	}
	return t
}

// onOff reads on/off (or true/false, 1/0).
func (r *reader) onOff(key string, def bool) bool {
	switch v := strings.ToLower(r.str(key, "")); v {
	case "":
		return def
	case "on", "true", "1", "yes":
		return true
	case "off", "false", "0", "no":
		return false
	default:
		r.errs = append(r.errs, fmt.Errorf("%s=%s: must be on or off", key, v))
		return def
	}
}

// bytes reads a budget in bytes; 0 when unset (the default budget).
func (r *reader) bytes(key string) int {
	n := r.integer(key, 0)
	if n < 0 || n > maxBudgetBytes || (n > 0 && n < 256) {
		r.errs = append(r.errs, fmt.Errorf("%s=%d: must be from 256 to %d bytes", key, n, maxBudgetBytes))
		return 0
	}
	return n
}
