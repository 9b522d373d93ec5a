package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	refactor "pharo-refactor"
	"time"

	"go.uber.org/zap"

	"pharo-refactor/agents"
	"pharo-refactor/agents/gemini"
	"pharo-refactor/agents/openai"
	"pharo-refactor/agents/scripted"
	"pharo-refactor/config"
)

// newRoles builds the four roles on the configured provider; roles that
// share a model ID share one client. It answers nil roles (no model) when
// the defaulted demo model's file is missing: the service then starts, and
// /ready and every run say that no model is configured.
func newRoles(ctx context.Context, cfg config.Config, tools agents.ImageTools, log *zap.Logger) (refactor.Agents, error) {
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
	byID := map[string]agents.Model{}
	model := func(id string) (agents.Model, error) {
		if m, ok := byID[id]; ok {
			return m, nil
		}
		m, err := newModel(id)
		if err != nil {
			return nil, fmt.Errorf("model %s: %w", id, err)
		}
		byID[id] = m
		return m, nil
	}
	var roleCfg agents.Config
	for _, rm := range []struct {
		into *agents.Model
		id   string
	}{
		{&roleCfg.Reviewer, cfg.ReviewerModelID}, {&roleCfg.Writer, cfg.WriterModelID},
		{&roleCfg.Validator, cfg.ValidatorModelID}, {&roleCfg.Refiner, cfg.RefinerModelID},
	} {
		if *rm.into, err = model(rm.id); err != nil {
			return nil, err
		}
	}
	roleCfg.Tools, roleCfg.MaxToolRounds = tools, cfg.ReviewerMaxToolRounds
	roles, err := agents.New(roleCfg)
	if err != nil {
		return nil, err
	}
	return roles, nil
}

func modelFactory(ctx context.Context, cfg config.Config, log *zap.Logger) (func(id string) (agents.Model, error), error) {
	retry := agents.RetryPolicy{
		MaxRetries: cfg.ModelMaxRetries, AttemptTimeout: cfg.ModelTimeout,
		OnRetry: func(attempt int, wait time.Duration, reason string) {
			log.Warn("model call retry", zap.Int("attempt", attempt), zap.Duration("wait", wait), zap.String("reason", reason))
		},
	}
	switch cfg.ModelProvider {
	case "gemini":
		return func(id string) (agents.Model, error) {
			return gemini.New(ctx, gemini.Config{APIKey: cfg.GeminiAPIKey, BaseURL: cfg.GeminiBaseURL, Model: id, Retry: retry})
		}, nil
	case "openai":
		return func(id string) (agents.Model, error) {
			return openai.New(openai.Config{BaseURL: cfg.OpenAIBaseURL, APIKey: cfg.OpenAIAPIKey, Model: id, Retry: retry})
		}, nil
	default:
		m, err := scripted.Load(cfg.ScriptedModelFile)
		if err != nil {
			return nil, fmt.Errorf("the scripted model (SCRIPTED_MODEL_FILE=%s): %w", cfg.ScriptedModelFile, err)
		}
		log.Warn("NO MODEL KEY SET: using the offline scripted demo model; answers come from a file, not a model. Set GEMINI_API_KEY (or MODEL_PROVIDER=openai with OPENAI_BASE_URL) for real refactorings.",
			zap.String("file", cfg.ScriptedModelFile))
		return func(string) (agents.Model, error) { return m, nil }, nil
	}
}
