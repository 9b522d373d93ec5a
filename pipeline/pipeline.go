// Package pipeline runs one refactoring: gate, prefetch, review, write, the
// bounded validation loop, release, result (DESIGN.md, "One run"). It owns
// the error vocabulary (pipeline/kind) and defines the small interfaces it
// needs from the image and the models; main plugs the concrete types in.
package pipeline

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	refactor "pharo-refactor"
	"time"

	"go.uber.org/zap"

	"pharo-refactor/store"
)

// Image is what a run needs from the Pharo image.
type Image interface {
	Method(ctx context.Context, ref refactor.MethodRef) (refactor.Method, error)
	MethodSource(ctx context.Context, ref refactor.MethodRef) (string, error)
	ClassSource(ctx context.Context, class string) (string, error)
	ClassComment(ctx context.Context, class string) (string, error)
	ClassExists(ctx context.Context, class string) (bool, error)
	PackageClasses(ctx context.Context, pkg string) ([]string, error)
	DryCompile(ctx context.Context, ref refactor.MethodRef, source string) ([]refactor.CompileError, error)
	Install(ctx context.Context, ref refactor.MethodRef, source, protocol string) error
	RunTests(ctx context.Context, class string) (refactor.TestReport, error)
	References(ctx context.Context, selector string) ([]refactor.Location, error)
}

// Audit is the write-ahead trail of runs (package store).
type Audit interface {
	Create(ctx context.Context, r store.Run) error
	Update(ctx context.Context, r store.Run) error
	BeginRelease(ctx context.Context, id, originalSource, originalProtocol, finalSource string) error
	Get(ctx context.Context, id string) (store.Run, error)
	MarkReverted(ctx context.Context, id string, at time.Time) error
	Unsettled(ctx context.Context) ([]store.Run, error)
	Reconcile(ctx context.Context, id string, status store.Status, note string) error
}

// Agents are the four model roles.
type Agents interface {
	Review(ctx context.Context, in refactor.Input) (refactor.Review, refactor.CallStats, error)
	Write(ctx context.Context, in refactor.Input, review refactor.Review) (refactor.Candidate, refactor.CallStats, error)
	Validate(ctx context.Context, in refactor.Input, review refactor.Review, code string) (refactor.Verdict, refactor.CallStats, error)
	Refine(ctx context.Context, in refactor.Input, review refactor.Review, code, feedback string) (refactor.Candidate, refactor.CallStats, error)
}

// Options bound a run.
type Options struct {
	MaxIterations  int           // MAX_VALIDATION_ITERATIONS
	Timeout        time.Duration // PIPELINE_TIMEOUT, prefetch to the start of release
	ReleaseTimeout time.Duration // release is never cut by the client; this bounds it
	// Models names the model of each role, for the audit trail.
	Models map[string]string
	// Checkpoint, when set, is called at the release's crash-relevant
	// points ("after_write_ahead", "after_compile"): crash tests stop the
	// process there. Production leaves it nil.
	Checkpoint func(point string)
}

// Pipeline runs refactorings one at a time.
type Pipeline struct {
	image  Image
	agents Agents
	audit  Audit
	gate   *Gate
	opts   Options
	log    *zap.Logger
}

// New returns a pipeline. A nil agents means no model is configured: runs
// are refused with model_not_configured. Every run is recorded in audit.
func New(image Image, roles Agents, audit Audit, opts Options, log *zap.Logger) *Pipeline {
	if opts.MaxIterations <= 0 {
		opts.MaxIterations = 3
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 20 * time.Minute
	}
	if opts.ReleaseTimeout <= 0 {
		opts.ReleaseTimeout = 5 * time.Minute
	}
	if log == nil {
		log = zap.NewNop()
	}
	if opts.Checkpoint == nil {
		opts.Checkpoint = func(string) {}
	}
	return &Pipeline{image: image, agents: roles, audit: audit, gate: NewGate(), opts: opts, log: log}
}

// Gate is the pipeline's single run slot (for Retry-After and /health).
func (p *Pipeline) Gate() *Gate { return p.gate }

// ModelConfigured reports whether runs can reach a model.
func (p *Pipeline) ModelConfigured() bool { return p.agents != nil }

func newID() string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b[:])
}
