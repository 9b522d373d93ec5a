// Package pipeline runs one refactoring: the run slot, prefetch, review,
// write, the bounded validation loop, release, result (docs/design.md, "One
// run"). It works on the domain's interfaces (refactor.Image,
// refactor.Agents, refactor.Audit) and never on their adapters; main plugs
// the concrete types in.
package pipeline

import (
	"crypto/rand"
	"encoding/hex"
	refactor "github.com/pharo-refactor/refactord"
	"time"

	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
	"go.uber.org/zap"
)

// Options bound a run.
type Options struct {
	MaxIterations  int           // MAX_VALIDATION_ITERATIONS
	Timeout        time.Duration // PIPELINE_TIMEOUT, prefetch to the start of release
	ReleaseTimeout time.Duration // release is never cut by the client; this bounds it
	// SettleInterval is how often a final row the audit trail refused is
	// tried again (default 1s).
	SettleInterval time.Duration
	// MaxTestClasses bounds the test classes around a release
	// (TEST_MAX_CLASSES, default 10); TestPackages are packages besides the
	// method's own whose TestCases that send the selector also run
	// (TEST_PACKAGES: names, or prefixes ending in `*`). See findTests.
	MaxTestClasses int
	TestPackages   []string
	// Worker names this instance (WORKER_ID) and Image the image it runs
	// on, in every row and result.
	Worker string
	Image  string
	// Models names the model of each role, for the audit trail.
	Models map[string]string
	// Checkpoint, when set, is called at the release's crash-relevant
	// points ("after_write_ahead", "after_compile", and for a verify run
	// "before_put_back", after its tests): crash tests stop the
	// process there. Production leaves it nil.
	Checkpoint func(point string)
	// Tracing makes the spans of a run: one per run (the trace), one per
	// stage. Nil traces nothing.
	Tracing trace.TracerProvider
	// NoEquivalence turns the comparison of the original and each
	// candidate off (EQUIVALENCE=off): the outcome is then not_checked.
	// EquivalenceMaxInputs bounds the inputs of one comparison
	// (EQUIVALENCE_MAX_INPUTS; the image's default when 0).
	NoEquivalence        bool
	EquivalenceMaxInputs int
}

// Pipeline runs refactorings one at a time.
type Pipeline struct {
	image  refactor.Image
	agents refactor.Agents
	audit  refactor.Audit
	slot   *runSlot
	live   *liveRuns
	// unrecorded: final rows the audit trail refused, written later.
	unrecorded *unrecorded
	opts       Options
	log        *zap.Logger
	tracer     trace.Tracer
}

// New returns a pipeline. A nil agents means no model is configured: runs
// are refused with model_not_configured. Every run is recorded in audit.
func New(image refactor.Image, roles refactor.Agents, audit refactor.Audit, opts Options, log *zap.Logger) *Pipeline {
	if opts.MaxIterations <= 0 {
		opts.MaxIterations = 3
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 20 * time.Minute
	}
	if opts.MaxTestClasses <= 0 {
		opts.MaxTestClasses = defaultMaxTestClasses
	}
	if opts.ReleaseTimeout <= 0 {
		opts.ReleaseTimeout = 5 * time.Minute
	}
	if log == nil {
		log = zap.NewNop()
	}
	if opts.SettleInterval <= 0 {
		opts.SettleInterval = time.Second
	}
	if opts.Checkpoint == nil {
		opts.Checkpoint = func(string) {}
	}
	if opts.Tracing == nil {
		opts.Tracing = noop.NewTracerProvider()
	}
	return &Pipeline{image: image, agents: roles, audit: audit, slot: newRunSlot(), live: newLiveRuns(), unrecorded: newUnrecorded(), opts: opts, log: log,
		tracer: opts.Tracing.Tracer("github.com/pharo-refactor/refactord/pipeline")}
}

// Busy reports whether a run holds the slot.
func (p *Pipeline) Busy() bool { return p.slot.isBusy() }

// RetryAfter is the expected remaining seconds of the run holding the
// slot, at least 1.
func (p *Pipeline) RetryAfter() int { return p.slot.retryAfter() }

// errBusy is what Refuses answers: under load most requests end there,
// and the HTTP layer renders its busy answer once per Retry-After value.
var errBusy = &refactor.Error{Kind: refactor.Busy, Message: "another refactoring is running; retry later"}

// Refuses answers a Busy error while a run holds the slot, so that the
// HTTP layer refuses a request before it sets up what a run needs; Start
// still takes the slot or refuses. (A pool queues instead: it has no
// such method.)
func (p *Pipeline) Refuses() error {
	if p.slot.isBusy() {
		return errBusy
	}
	return nil
}

// ModelConfigured reports whether runs can reach a model.
func (p *Pipeline) ModelConfigured() bool { return p.agents != nil }

func newID() string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b[:])
}
