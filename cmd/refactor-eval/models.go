package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"go.opentelemetry.io/otel/trace/noop"
	"go.uber.org/zap"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/agents"
	"github.com/pharo-refactor/refactord/agents/providers"
	svcconfig "github.com/pharo-refactor/refactord/config"
	"github.com/pharo-refactor/refactord/pipeline"
)

// The providers EVAL_MODELS can name.
const (
	ProviderGemini = "gemini"
	ProviderOpenAI = "openai"
)

// ModelSpec is one entry of EVAL_MODELS: provider:model.
type ModelSpec struct {
	Provider string
	ID       string
}

func (m ModelSpec) String() string { return m.Provider + ":" + m.ID }

// parseModels reads EVAL_MODELS: provider:model, comma-separated, each
// once.
func parseModels(v string) ([]ModelSpec, error) {
	var out []ModelSpec
	seen := map[string]bool{}
	for _, entry := range splitList(v) {
		provider, id, ok := strings.Cut(entry, ":")
		provider, id = strings.ToLower(strings.TrimSpace(provider)), strings.TrimSpace(id)
		if !ok || id == "" {
			return nil, fmt.Errorf("EVAL_MODELS: %q is not provider:model (e.g. gemini:gemini-2.5-flash, openai:llama3)", entry)
		}
		if provider != ProviderGemini && provider != ProviderOpenAI {
			return nil, fmt.Errorf("EVAL_MODELS: %q: the provider is gemini or openai", entry)
		}
		spec := ModelSpec{Provider: provider, ID: id}
		if seen[spec.String()] {
			return nil, fmt.Errorf("EVAL_MODELS: %s is named twice", spec)
		}
		seen[spec.String()] = true
		out = append(out, spec)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("EVAL_MODELS: %q names no model", v)
	}
	return out, nil
}

// serviceConfig reads the service's own configuration from the
// environment (keys, base URLs, retries, tunings, the validation rounds,
// the tests around a release), as refactord reads it at start-up; the
// model mode uses everything in it but the provider and model IDs, which
// EVAL_MODELS names.
func serviceConfig(getenv func(string) string) (svcconfig.Config, error) {
	lookup := func(k string) (string, bool) {
		v := getenv(k)
		return v, v != ""
	}
	cfg, err := svcconfig.Load(lookup, nil)
	if err != nil {
		return cfg, fmt.Errorf("the service's configuration: %w", err)
	}
	return cfg, nil
}

// newModelRoles builds the four roles of spec through the service's own
// path (agents/providers, as refactord builds them at start-up): the
// service's configuration with every role on spec's provider and model.
func newModelRoles(ctx context.Context, cfg svcconfig.Config, spec ModelSpec, tools agents.ImageTools, log *zap.Logger) (refactor.Agents, error) {
	if spec.Provider == ProviderOpenAI && cfg.OpenAIBaseURL == "" {
		return nil, fmt.Errorf("%s: OPENAI_BASE_URL is not set (the server's API root, e.g. http://127.0.0.1:11434/v1)", spec)
	}
	cfg.ModelProvider, cfg.ModelProviderDefaulted = spec.Provider, false
	cfg.ModelID, cfg.ReviewerModelID, cfg.WriterModelID, cfg.ValidatorModelID, cfg.RefinerModelID = spec.ID, spec.ID, spec.ID, spec.ID, spec.ID
	roles, err := providers.NewRoles(ctx, cfg, tools, noop.NewTracerProvider(), log.With(zap.String("model", spec.String())))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", spec, err)
	}
	return roles, nil
}

// ModelRun is what one model did with one method, in verify mode.
type ModelRun struct {
	Model string `json:"model"`
	// Outcome is verified, unchanged, or the error kind the run ended with
	// (not_approved, behaviour_changed, tests_regressed, model_bad_output,
	// tests_inconclusive, …).
	Outcome string `json:"outcome"`
	Detail  string `json:"detail,omitempty"`
	// ApprovedRound is the validation round whose candidate the validator
	// approved (1, 2, 3…); 0 when none was.
	ApprovedRound int `json:"approved_round"`
	Rounds        int `json:"rounds"`
	// ModelCalls and the tokens are the providers' own usage figures,
	// summed over the run's calls.
	ModelCalls   int      `json:"model_calls"`
	InputTokens  int64    `json:"input_tokens"`
	OutputTokens int64    `json:"output_tokens"`
	CostUSD      *float64 `json:"cost,omitempty"` // in the price table's currency; absent when unknown
	Seconds      float64  `json:"seconds"`
	// CaughtByComparison counts the candidates the comparison with the
	// original refused (behaviour_changed); CaughtByTests says the
	// approved candidate made the tests regress (rolled back).
	CaughtByComparison int  `json:"caught_by_comparison"`
	CaughtByTests      bool `json:"caught_by_tests"`
	// Refusals say why each round's candidate was not taken: the first
	// check error, or the validator's feedback.
	Refusals []string `json:"refusals,omitempty"`
	// Helpers counts the helper methods the last candidate added;
	// HelperCode is their source.
	Helpers    int      `json:"helpers"`
	HelperCode []string `json:"helper_code,omitempty"`
	Severity   string   `json:"review_severity,omitempty"`
	Code       string   `json:"code,omitempty"` // the last candidate
	Diff       string   `json:"diff,omitempty"`
	// TestClasses are the test classes run around the candidate's
	// compile; RolledBack: they regressed and the original was put back.
	TestClasses []string `json:"test_classes,omitempty"`
	RolledBack  bool     `json:"rolled_back,omitempty"`
	// ImageIntact: after the run every file of the image copy is byte for
	// byte the corpus (a verify run always puts the original back).
	ImageIntact bool   `json:"image_intact"`
	RunID       string `json:"run_id,omitempty"`
}

// modelBench runs methods through each model's pipeline on the image copy.
type modelBench struct {
	g      *gate
	pipes  map[string]*pipeline.Pipeline
	prices PriceTable
}

// openModelBench builds one pipeline per model on the gate's image and
// audit trail, with the service's pipeline options.
// Warnings (a model the OpenAI-compatible server does not list) go to log.
func openModelBench(ctx context.Context, g *gate, cfg svcconfig.Config, specs []ModelSpec, equivalence bool, prices PriceTable, log *zap.Logger) (*modelBench, error) {
	b := &modelBench{g: g, pipes: map[string]*pipeline.Pipeline{}, prices: prices}
	for _, spec := range specs {
		roles, err := newModelRoles(ctx, cfg, spec, g.image, log)
		if err != nil {
			return nil, err
		}
		b.pipes[spec.String()] = pipeline.New(g.image, roles, g.audit, pipeline.Options{
			MaxIterations: cfg.MaxValidationIterations, Timeout: cfg.PipelineTimeout,
			MaxTestClasses: cfg.TestMaxClasses, TestPackages: cfg.TestPackages,
			NoEquivalence: !equivalence, EquivalenceMaxInputs: cfg.EquivalenceMaxInputs,
			Worker: "refactor-eval", Image: "eval",
			Models: map[string]string{"provider": spec.Provider, "reviewer": spec.ID, "writer": spec.ID, "validator": spec.ID, "refiner": spec.ID},
		}, zap.NewNop())
	}
	return b, nil
}

// run has model refactor one method in verify mode: the whole release
// path with the tests before and after, then the original put back.
func (b *modelBench) run(ctx context.Context, model string, m Method) (ModelRun, error) {
	start := time.Now()
	slot, err := b.pipes[model].Reserve()
	if err != nil {
		return ModelRun{}, err
	}
	res, err := slot.Run(ctx, refactor.Request{Ref: m.Ref, Verify: true, RequestID: "eval"})
	out := ModelRun{Model: model, Seconds: time.Since(start).Seconds()}
	if stop := stopsTheEvaluation(ctx, err); stop != nil {
		return out, stop
	}
	out.Outcome, out.Detail = runOutcome(res, err)
	if res != nil {
		b.fill(&out, m.Source, res)
	}
	out.ImageIntact = b.g.intact() == ""
	if !out.ImageIntact {
		out.Detail = strings.TrimSpace(out.Detail + "; the image copy changed: " + b.g.intact())
		if err := b.g.rewritePristine(); err != nil {
			return out, fmt.Errorf("writing the corpus back into the image copy: %w", err)
		}
	}
	return out, nil
}

// stopsTheEvaluation answers the error that ends the whole evaluation
// rather than being one run's outcome: an interruption, or a model that
// cannot be reached (after the retries), which the next run would meet
// too; such a run is not recorded and is run again on resume.
func stopsTheEvaluation(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	switch refactor.KindOf(err) {
	case refactor.ModelUnavailable, refactor.ModelNotConfigured, refactor.PharoUnavailable, refactor.StoreUnavailable:
		return err
	}
	return nil
}

// runOutcome names how a run ended.
func runOutcome(res *refactor.Result, err error) (string, string) {
	if err != nil {
		return string(refactor.KindOf(err)), err.Error()
	}
	if res == nil {
		return string(refactor.Internal), "no result"
	}
	return string(res.Outcome), ""
}

// fill copies a run's figures into out.
func (b *modelBench) fill(out *ModelRun, original string, res *refactor.Result) {
	out.RunID = res.ID
	out.Rounds = len(res.Rounds)
	out.ModelCalls, out.InputTokens, out.OutputTokens = res.Usage.ModelCalls, res.Usage.InputTokens, res.Usage.OutputTokens
	out.CostUSD = b.prices.cost(out.Model, out.InputTokens, out.OutputTokens)
	out.CaughtByTests = out.Outcome == string(refactor.TestsRegressed)
	out.TestClasses, out.RolledBack = res.Tests.Classes, res.RolledBack
	for _, r := range res.Rounds {
		for _, ce := range r.CheckErrors {
			if ce.Check == "behaviour_changed" {
				out.CaughtByComparison++
				break
			}
		}
		approved := r.Verdict != nil && r.Verdict.Approved() && len(r.CheckErrors) == 0
		switch {
		case approved && out.ApprovedRound == 0:
			out.ApprovedRound = r.Iteration
		case len(r.CheckErrors) > 0:
			out.Refusals = append(out.Refusals, fmt.Sprintf("round %d: %s", r.Iteration, oneLine(r.CheckErrors[0].String())))
		case r.Verdict != nil && !approved:
			out.Refusals = append(out.Refusals, fmt.Sprintf("round %d: %s: %s", r.Iteration, r.Verdict.Verdict, oneLine(r.Verdict.Feedback)))
		}
	}
	if res.Review != nil {
		out.Severity = string(res.Review.Severity)
	}
	if res.RefactoredCode != "" {
		out.Code = res.RefactoredCode
		out.Diff = diff(original, res.RefactoredCode)
		out.Helpers = len(res.Helpers)
		for _, h := range res.Helpers {
			out.HelperCode = append(out.HelperCode, h.Source)
		}
	}
}
