package pipeline_test

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/agents"
	"github.com/pharo-refactor/refactord/agents/scripted"
	"github.com/pharo-refactor/refactord/internal/testenv"
	"github.com/pharo-refactor/refactord/mcpclient"
	"github.com/pharo-refactor/refactord/pharosim"
	"github.com/pharo-refactor/refactord/pipeline"
	"github.com/pharo-refactor/refactord/store"
)

// rig is a pipeline on its real dependencies, all in this process: the
// sample image served by pharosim through mcpclient's in-process transport,
// the roles on a scripted model, and an audit trail in a temporary SQLite
// file.
type rig struct {
	t     *testing.T
	dir   string // the image's Tonel tree
	sim   *pharosim.Server
	image *mcpclient.Client
	audit *store.Store
	model *countingModel
	pipe  *pipeline.Pipeline
}

type rigOpts struct {
	script map[refactor.Role][]scripted.Answer // the answers for every method
	// subjects are answers for one method ("Class>>selector"), before script.
	subjects      map[string]map[refactor.Role][]scripted.Answer
	maxIterations int
	timeout       time.Duration
	tree          string // a Tonel tree (repository-relative) instead of the sample image
	noModel       bool
	// prepare changes the copied tree before the image loads it.
	prepare func(dir string)
	// oracle, when set, replaces the tree's test-oracle.json.
	oracle string
	// callLimit is pharo-sim's per-call limit (the real server's 30 s when 0).
	callLimit time.Duration
	// testTimeout is the client's TEST_TIMEOUT (its default when 0).
	testTimeout time.Duration
	// maxTestClasses and testPackages are the pipeline's test-gate options.
	maxTestClasses int
	testPackages   []string
	checkpoint     func(point string) // called at the release's checkpoints (pipeline.Options)
	// tracing, when set, traces the image's calls, the model's, the
	// store's transactions and the pipeline's runs, as main wires them.
	tracing trace.TracerProvider
	// noEquivalence turns the comparison off (EQUIVALENCE=off).
	noEquivalence bool
}

// Tests of what guards a release besides the comparison turn it off: their
// candidates change behaviour on purpose, and the comparison would stop
// them before the guard under test (as it does on pharo-sim; a real image
// offers no comparison, so these guards stand alone there).
const (
	testGateOnly   = true // a candidate that breaks a test: the tests around the release must catch it
	capabilityOnly = true // rewrites judged by the capability policy alone
)

func newRig(t *testing.T, o rigOpts) *rig {
	t.Helper()
	if o.tree == "" {
		o.tree = "examples/sample-image"
	}
	dir := t.TempDir()
	require.NoError(t, testenv.CopyTree(o.tree, dir))
	if o.prepare != nil {
		o.prepare(dir)
	}
	if o.oracle != "" {
		require.NoError(t, os.WriteFile(filepath.Join(dir, pharosim.OracleFileName), []byte(o.oracle), 0o644))
	}
	sim, err := pharosim.New(pharosim.Options{Dir: dir, CallLimit: o.callLimit})
	require.NoError(t, err)
	t.Cleanup(func() { _ = sim.Close() })
	image, err := mcpclient.New(mcpclient.Config{InProcess: sim.MCPServer(), TestTimeout: o.testTimeout, Tracing: o.tracing})
	require.NoError(t, err)
	t.Cleanup(func() { _ = image.Close() })
	audit, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "refactord.db"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = audit.Close() })
	if o.tracing != nil {
		audit.Traced(o.tracing)
	}

	r := &rig{t: t, dir: dir, sim: sim, image: image, audit: audit}
	var roles refactor.Agents
	if !o.noModel {
		answers := map[string]map[refactor.Role][]scripted.Answer{"*": o.script}
		for subject, a := range o.subjects {
			answers[subject] = a
		}
		m, err := scripted.New(scripted.File{Repeat: true, Answers: answers})
		require.NoError(t, err)
		r.model = &countingModel{Model: m, calls: map[refactor.Role]int{}, requests: map[refactor.Role][]agents.Request{}}
		var model agents.Model = r.model
		if o.tracing != nil {
			model = agents.Traced(model, o.tracing, agents.ModelSpans{Provider: "scripted", Operation: "chat", Model: "scripted-model"})
		}
		roles, err = agents.New(agents.Config{Reviewer: model, Writer: model, Validator: model, Refiner: model})
		require.NoError(t, err)
	}
	r.pipe = pipeline.New(image, roles, audit, pipeline.Options{MaxIterations: o.maxIterations, Timeout: o.timeout,
		MaxTestClasses: o.maxTestClasses, TestPackages: o.testPackages, Checkpoint: o.checkpoint, Tracing: o.tracing,
		NoEquivalence: o.noEquivalence}, zap.NewNop())
	return r
}

// run reserves the slot and runs one refactoring.
func (r *rig) run(ref refactor.MethodRef, configure ...func(*refactor.Request)) (*refactor.Result, error) {
	r.t.Helper()
	return r.runCtx(context.Background(), ref, configure...)
}

func (r *rig) runCtx(ctx context.Context, ref refactor.MethodRef, configure ...func(*refactor.Request)) (*refactor.Result, error) {
	r.t.Helper()
	slot, err := r.pipe.Reserve()
	require.NoError(r.t, err)
	req := refactor.Request{Ref: ref, RunTests: true, RequestID: "test"}
	for _, c := range configure {
		c(&req)
	}
	return slot.Run(ctx, req)
}

// row is the audit row of a run.
func (r *rig) row(id string) refactor.Run {
	r.t.Helper()
	row, err := r.audit.Get(context.Background(), id)
	require.NoError(r.t, err)
	return row
}

// file is a class file of the sample image's package, as on disk.
func (r *rig) file(class string) string {
	r.t.Helper()
	data, err := os.ReadFile(filepath.Join(r.dir, "src", "Sample-Shop", class+".class.st"))
	require.NoError(r.t, err)
	return string(data)
}

// snapshot is every file of the image's tree, by path.
func (r *rig) snapshot() map[string]string {
	r.t.Helper()
	files := map[string]string{}
	require.NoError(r.t, filepath.WalkDir(r.dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		files[path] = string(data)
		return err
	}))
	return files
}

// source is a method's source as the image holds it now.
func (r *rig) source(ref refactor.MethodRef) string {
	r.t.Helper()
	src, err := r.image.MethodSource(context.Background(), ref)
	require.NoError(r.t, err)
	return src
}

// countingModel counts the calls that reach the scripted model per role
// and can act before answering one (to edit the image mid-run).
type countingModel struct {
	*scripted.Model
	mu       sync.Mutex
	calls    map[refactor.Role]int
	requests map[refactor.Role][]agents.Request
	before   func(role refactor.Role)
}

func (m *countingModel) Generate(ctx context.Context, req agents.Request) (agents.Response, error) {
	m.mu.Lock()
	m.calls[req.Role]++
	m.requests[req.Role] = append(m.requests[req.Role], req)
	before := m.before
	m.mu.Unlock()
	if before != nil {
		before(req.Role)
	}
	return m.Model.Generate(ctx, req)
}

// prompt is the first user message of the n-th request made for role.
func (m *countingModel) prompt(role refactor.Role, n int) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if n >= len(m.requests[role]) || len(m.requests[role][n].Messages) == 0 {
		return ""
	}
	return m.requests[role][n].Messages[0].Text
}

func (m *countingModel) count(role refactor.Role) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls[role]
}

// The scripted answers.
func reviewAnswer() scripted.Answer {
	return jsonAnswer(refactor.Review{Severity: refactor.SeverityMedium, Summary: "Poor names.",
		Issues: []refactor.Issue{{Principle: "Intention-revealing names", Problem: "a, b", Suggestion: "rename"}}})
}

func codeAnswer(code string) scripted.Answer {
	return jsonAnswer(refactor.Candidate{Code: code, Notes: "n"})
}

func approvedAnswer() scripted.Answer {
	return jsonAnswer(refactor.Verdict{Verdict: refactor.VerdictApproved, Feedback: "Good.", Issues: []refactor.Issue{}})
}

func needsWorkAnswer(feedback string) scripted.Answer {
	return jsonAnswer(refactor.Verdict{Verdict: refactor.VerdictNeedsImprovement, Feedback: feedback, Issues: []refactor.Issue{}})
}

func jsonAnswer(v any) scripted.Answer {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return scripted.Answer{JSON: b}
}

// script is the usual conversation: a review, the writer's candidate, then
// the validator's and the refiner's answers in turn.
func script(writer string, validator []scripted.Answer, refiner ...string) map[refactor.Role][]scripted.Answer {
	s := map[refactor.Role][]scripted.Answer{
		refactor.RoleReviewer:  {reviewAnswer()},
		refactor.RoleWriter:    {codeAnswer(writer)},
		refactor.RoleValidator: validator,
	}
	for _, c := range refiner {
		s[refactor.RoleRefiner] = append(s[refactor.RoleRefiner], codeAnswer(c))
	}
	return s
}

var (
	sumWith     = refactor.MethodRef{Class: "Calculator", Selector: "sum:with:"}
	divideBy    = refactor.MethodRef{Class: "Calculator", Selector: "divide:by:"}
	taxRateSide = refactor.MethodRef{Class: "ShoppingCart", Selector: "taxRate", ClassSide: true}
)

const (
	newSum = "sum: a with: b\n\t\"Answer the sum of a and b\"\n\n\t^ a + b"
	// subtractingSum is approved by the validator but changes the result:
	// CalculatorTest>>#testSum fails on it.
	subtractingSum = "sum: a with: b\n\t\"Answer the total\"\n\n\t^ a - b"
)
