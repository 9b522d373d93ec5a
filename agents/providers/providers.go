// Package providers builds the four roles on the configured model
// provider — Gemini, an OpenAI-compatible server or the scripted model —
// from the service's configuration: refactord's start-up and make eval's
// model mode take the one path.
package providers

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/agents"
	"github.com/pharo-refactor/refactord/agents/gemini"
	"github.com/pharo-refactor/refactord/agents/openai"
	"github.com/pharo-refactor/refactord/agents/scripted"
	"github.com/pharo-refactor/refactord/config"
)

// NewRoles builds the four roles on the configured provider; roles that
// share a model ID and its tuning share one client. It answers nil roles (no model) when
// the defaulted demo model's file is missing: the service then starts, and
// /ready and every run say that no model is configured.
func NewRoles(ctx context.Context, cfg config.Config, tools agents.ImageTools, tracing trace.TracerProvider, log *zap.Logger) (refactor.Agents, error) {
	if cfg.ModelProviderDefaulted {
		if _, err := os.Stat(cfg.ScriptedModelFile); errors.Is(err, os.ErrNotExist) {
			log.Error("NO MODEL CONFIGURED: no key is set and the demo model file is missing; runs answer 503 model_not_configured. Set GEMINI_API_KEY, or MODEL_PROVIDER with its settings.",
				zap.String("scripted_model_file", cfg.ScriptedModelFile))
			return nil, nil
		}
	}
	newModel, err := modelFactory(ctx, cfg, log)
	if err != nil {
		return nil, err
	}
	byKey := map[string]agents.Model{}
	model := func(role, id string) (agents.Model, error) {
		tuning := cfg.Tuning[role]
		key := fmt.Sprintf("%s %+v", id, tuningKey(tuning))
		if m, ok := byKey[key]; ok {
			return m, nil
		}
		m, err := newModel(id, tuning)
		if err != nil {
			return nil, fmt.Errorf("model %s: %w", id, err)
		}
		m = agents.Traced(m, tracing, modelSpans(cfg, id, tuning))
		byKey[key] = m
		return m, nil
	}
	var roleCfg agents.Config
	for _, rm := range []struct {
		into *agents.Model
		role string
		id   string
	}{
		{&roleCfg.Reviewer, "reviewer", cfg.ReviewerModelID}, {&roleCfg.Writer, "writer", cfg.WriterModelID},
		{&roleCfg.Validator, "validator", cfg.ValidatorModelID}, {&roleCfg.Refiner, "refiner", cfg.RefinerModelID},
	} {
		if *rm.into, err = model(rm.role, rm.id); err != nil {
			return nil, err
		}
	}
	roleCfg.Tools, roleCfg.MaxToolRounds = tools, cfg.ReviewerMaxToolRounds
	if cfg.ModelProvider == "openai" && !cfg.OpenAITools && roleCfg.MaxToolRounds > 0 {
		log.Info("OPENAI_TOOLS=off: the reviewer works without image lookups")
		roleCfg.MaxToolRounds = 0
	}
	roleCfg.Budget = agents.Budget(cfg.Budget)
	roles, err := agents.New(roleCfg)
	if err != nil {
		return nil, err
	}
	return roles, nil
}

// modelSpans names a model in its spans after the GenAI conventions.
func modelSpans(cfg config.Config, id string, t config.ModelTuning) agents.ModelSpans {
	s := agents.ModelSpans{Provider: cfg.ModelProvider, Operation: "chat", Model: id, Temperature: t.Temperature, MaxTokens: t.MaxOutputTokens}
	switch {
	case cfg.ModelProvider == "gemini" && cfg.Vertex:
		s.Provider, s.Operation = "gcp.vertex_ai", "generate_content"
	case cfg.ModelProvider == "gemini":
		s.Provider, s.Operation = "gcp.gemini", "generate_content"
	case cfg.ModelProvider == "openai":
		s.Provider = "openai"
	}
	return s
}

// tuningKey is a tuning by value, so that roles asking alike share a client.
func tuningKey(t config.ModelTuning) [4]string {
	return [4]string{deref(t.Temperature), strconv.Itoa(t.MaxOutputTokens), deref(t.ThinkingBudget), t.ResponseFormat}
}

func deref[T any](p *T) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprint(*p)
}

// modelFactory answers a constructor of the configured provider's models.
func modelFactory(ctx context.Context, cfg config.Config, log *zap.Logger) (func(id string, t config.ModelTuning) (agents.Model, error), error) {
	retry := agents.RetryPolicy{
		MaxRetries: cfg.ModelMaxRetries, AttemptTimeout: cfg.ModelTimeout,
		OnRetry: func(attempt int, wait time.Duration, reason string) {
			log.Warn("model call retry", zap.Int("attempt", attempt), zap.Duration("wait", wait), zap.String("reason", reason))
		},
	}
	switch cfg.ModelProvider {
	case "gemini":
		baseURL := cfg.GeminiBaseURL
		if cfg.Vertex {
			baseURL = cfg.VertexBaseURL
		}
		return func(id string, t config.ModelTuning) (agents.Model, error) {
			return gemini.New(ctx, gemini.Config{
				APIKey: cfg.GeminiAPIKey, Vertex: cfg.Vertex, Project: cfg.VertexProject, Location: cfg.VertexLocation,
				BaseURL: baseURL, Model: id, Retry: retry,
				MaxOutputTokens: int32(t.MaxOutputTokens), Temperature: float32Of(t.Temperature), ThinkingBudget: int32Of(t.ThinkingBudget),
			})
		}, nil
	case "openai":
		baseURL, err := probeOpenAI(ctx, cfg, log)
		if err != nil {
			return nil, err
		}
		return func(id string, t config.ModelTuning) (agents.Model, error) {
			return openai.New(openai.Config{
				BaseURL: baseURL, APIKey: cfg.OpenAIAPIKey, Model: id, Retry: retry,
				ResponseFormat: openai.ResponseFormat(t.ResponseFormat), MaxTokens: int64(t.MaxOutputTokens), Temperature: t.Temperature,
			})
		}, nil
	default:
		m, err := scripted.Load(cfg.ScriptedModelFile)
		if err != nil {
			return nil, fmt.Errorf("the scripted model (SCRIPTED_MODEL_FILE=%s): %w", cfg.ScriptedModelFile, err)
		}
		log.Warn("NO MODEL KEY SET: using the offline scripted demo model; answers come from a file, not a model. Set GEMINI_API_KEY (or MODEL_PROVIDER=openai with OPENAI_BASE_URL) for real refactorings.",
			zap.String("file", cfg.ScriptedModelFile))
		return func(string, config.ModelTuning) (agents.Model, error) { return m, nil }, nil
	}
}

// probeOpenAI checks OPENAI_BASE_URL at start-up (ProbeBaseURL): it answers
// the URL to use, with /v1 added when the server wants it, and refuses a
// URL that answers 404. A server that cannot be asked now is only logged.
func probeOpenAI(ctx context.Context, cfg config.Config, log *zap.Logger) (string, error) {
	p, err := openai.ProbeBaseURL(ctx, openai.Config{BaseURL: cfg.OpenAIBaseURL, APIKey: cfg.OpenAIAPIKey})
	if err != nil {
		return "", err
	}
	switch {
	case p.Warning != "":
		log.Warn("the OpenAI-compatible server could not be checked at start-up", zap.String("url", p.BaseURL), zap.String("reason", p.Warning))
	case p.BaseURL != strings.TrimRight(cfg.OpenAIBaseURL, "/"):
		log.Warn("OPENAI_BASE_URL lacks /v1; using it with /v1, where the server answers", zap.String("configured", cfg.OpenAIBaseURL), zap.String("using", p.BaseURL))
	}
	if len(p.Models) > 0 {
		for _, id := range []string{cfg.ReviewerModelID, cfg.WriterModelID, cfg.ValidatorModelID, cfg.RefinerModelID} {
			if !slices.Contains(p.Models, id) {
				log.Warn("the server does not list this model; calls to it may fail", zap.String("model", id), zap.Strings("listed", p.Models))
			}
		}
	}
	return p.BaseURL, nil
}

func float32Of(p *float64) *float32 {
	if p == nil {
		return nil
	}
	f := float32(*p)
	return &f
}

func int32Of(p *int) *int32 {
	if p == nil {
		return nil
	}
	n := int32(*p)
	return &n
}
