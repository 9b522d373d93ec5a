package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"go.uber.org/zap"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/agents"
	"github.com/pharo-refactor/refactord/agents/scripted"
	"github.com/pharo-refactor/refactord/mcpclient"
	"github.com/pharo-refactor/refactord/pharosim"
	"github.com/pharo-refactor/refactord/pipeline"
	"github.com/pharo-refactor/refactord/store"
)

// The guards that can refuse a candidate, as the report names them.
const (
	GuardLocal       = "local"       // parse and the local checks (selector, undeclared, unreachable, …)
	GuardCapability  = "capability"  // a capability the original does not use
	GuardDryCompile  = "dry_compile" // the image's dry compile
	GuardEquivalence = "equivalence" // behaviour_changed: the comparison with the original
	GuardTests       = "tests"       // tests_regressed: the tests around the release
	GuardOther       = "other"       // anything else (its kind in detail)
)

// Outcomes of a candidate.
const (
	Released = "released"
	Refused  = "refused"
)

// CandidateResult is what the gate did with one candidate.
type CandidateResult struct {
	Candidate
	Diff    string  `json:"diff"`
	Outcome string  `json:"outcome"`          // released or refused
	Guard   string  `json:"guard,omitempty"`  // the guard that refused it
	Detail  string  `json:"detail,omitempty"` // the check's message, the witness or the error
	Seconds float64 `json:"seconds"`
	// ImageIntact: after the run (and, for a release, after the original
	// was written back) every file of the image copy is byte for byte what
	// it was before.
	ImageIntact bool `json:"image_intact"`
	RolledBack  bool `json:"rolled_back,omitempty"`
	// TestClasses are the test classes run around the release; Comparison
	// the comparison's outcome (same, changed, not_checked) with what it
	// compared, when a candidate got that far.
	TestClasses []string `json:"test_classes,omitempty"`
	Comparison  string   `json:"comparison,omitempty"`
}

// gate runs candidates through the real pipeline on a copy of the corpus.
type gate struct {
	dir         string // the image copy
	sim         *pharosim.Server
	image       *mcpclient.Client
	audit       *store.Store
	equivalence bool
	pristine    map[string][]byte
}

func openGate(ctx context.Context, dir, dbDir string, equivalence bool) (*gate, error) {
	pristine, err := snapshot(dir)
	if err != nil {
		return nil, err
	}
	sim, err := pharosim.New(pharosim.Options{Dir: dir})
	if err != nil {
		return nil, err
	}
	image, err := mcpclient.New(mcpclient.Config{InProcess: sim.MCPServer()})
	if err != nil {
		_ = sim.Close()
		return nil, err
	}
	audit, err := store.Open(ctx, filepath.Join(dbDir, "eval.db"))
	if err != nil {
		_ = image.Close()
		_ = sim.Close()
		return nil, err
	}
	return &gate{dir: dir, sim: sim, image: image, audit: audit, equivalence: equivalence, pristine: pristine}, nil
}

func (g *gate) Close() {
	_ = g.audit.Close()
	_ = g.image.Close()
	_ = g.sim.Close()
}

// run proposes one candidate for ref through a pipeline whose scripted
// model writes that candidate and approves it, in one validation round.
func (g *gate) run(ctx context.Context, ref refactor.MethodRef, original string, c Candidate) CandidateResult {
	start := time.Now()
	out := CandidateResult{Candidate: c, Diff: diff(original, c.Source)}
	res, err := g.propose(ctx, ref, c.Source)
	out.Seconds = time.Since(start).Seconds()
	if res != nil {
		out.RolledBack = res.RolledBack
		out.TestClasses = res.Tests.Classes
		if e := res.Equivalence; e != nil {
			out.Comparison = e.Outcome
			if e.Reason != "" {
				out.Comparison += " (" + e.Reason + ")"
			}
			out.Comparison += fmt.Sprintf("; %d activations, %d recorded, %d generated, %d compared", e.Activations, e.Recorded, e.Generated, e.Compared)
		}
	}
	if err == nil && res != nil && res.Outcome == refactor.OutcomeReleased {
		out.Outcome = Released
	} else {
		out.Outcome = Refused
		out.Guard, out.Detail = classify(res, err)
	}
	if out.Outcome == Released {
		if rerr := g.restore(ctx, ref, original); rerr != nil {
			out.Detail = "the original could not be written back: " + rerr.Error()
		}
	}
	out.ImageIntact = g.intact() == ""
	if !out.ImageIntact {
		out.Detail = strings.TrimSpace(out.Detail + "; the image copy changed: " + g.intact())
		// Put it back so that the next candidate starts from the corpus.
		_ = g.rewritePristine()
	}
	return out
}

func (g *gate) propose(ctx context.Context, ref refactor.MethodRef, code string) (*refactor.Result, error) {
	answers := map[refactor.Role][]scripted.Answer{
		refactor.RoleReviewer: {jsonAnswer(refactor.Review{Severity: refactor.SeverityMedium, Summary: "The evaluation's rewrite.",
			Issues: []refactor.Issue{{Principle: "Evaluation", Problem: "none", Suggestion: "take the candidate"}}})},
		refactor.RoleWriter:    {jsonAnswer(refactor.Candidate{Code: code, Notes: "the evaluation's candidate"})},
		refactor.RoleValidator: {jsonAnswer(refactor.Verdict{Verdict: refactor.VerdictApproved, Feedback: "Approved.", Issues: []refactor.Issue{}})},
		refactor.RoleRefiner:   {jsonAnswer(refactor.Candidate{Code: code, Notes: "the evaluation's candidate"})},
	}
	model, err := scripted.New(scripted.File{Repeat: true, Answers: map[string]map[refactor.Role][]scripted.Answer{scripted.Wildcard: answers}})
	if err != nil {
		return nil, err
	}
	roles, err := agents.New(agents.Config{Reviewer: model, Writer: model, Validator: model, Refiner: model})
	if err != nil {
		return nil, err
	}
	p := pipeline.New(g.image, roles, g.audit, pipeline.Options{MaxIterations: 1, NoEquivalence: !g.equivalence}, zap.NewNop())
	slot, err := p.Reserve()
	if err != nil {
		return nil, err
	}
	return slot.Run(ctx, refactor.Request{Ref: ref, RunTests: true, RequestID: "eval"})
}

func jsonAnswer(v any) scripted.Answer {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return scripted.Answer{JSON: b}
}

// classify names the guard that refused a run and what it said.
func classify(res *refactor.Result, err error) (string, string) {
	kind := refactor.KindOf(err)
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	switch kind {
	case refactor.TestsRegressed:
		return GuardTests, msg
	case refactor.BehaviourChanged:
		return GuardEquivalence, msg
	}
	if res != nil && len(res.Rounds) > 0 {
		last := res.Rounds[len(res.Rounds)-1]
		if len(last.CheckErrors) > 0 {
			ce := last.CheckErrors[0]
			detail := ce.Check + ": " + ce.String()
			switch ce.Check {
			case "behaviour_changed":
				return GuardEquivalence, detail
			case "capability":
				return GuardCapability, detail
			case "compile":
				return GuardDryCompile, detail
			default:
				return GuardLocal, detail
			}
		}
	}
	if err == nil && res != nil {
		return GuardOther, "outcome " + string(res.Outcome)
	}
	return GuardOther, string(kind) + ": " + msg
}

// restore writes the original back after a release: the corpus's bytes
// of every file, which the image takes in from disk, and then waits until
// the image answers the original's source.
func (g *gate) restore(ctx context.Context, ref refactor.MethodRef, original string) error {
	if err := g.rewritePristine(); err != nil {
		return err
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		src, err := g.image.MethodSource(ctx, ref)
		if err == nil && refactor.SameSource(src, original) {
			return nil
		}
		if time.Now().After(deadline) {
			if err != nil {
				return err
			}
			return fmt.Errorf("the image still holds another source of %s", ref)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// rewritePristine writes back every file that differs from the corpus's.
func (g *gate) rewritePristine() error {
	now, err := snapshot(g.dir)
	if err != nil {
		return err
	}
	for path, data := range g.pristine {
		if !bytes.Equal(now[path], data) {
			if err := os.WriteFile(path, data, 0o644); err != nil {
				return err
			}
		}
	}
	for path := range now {
		if _, ok := g.pristine[path]; !ok {
			if err := os.Remove(path); err != nil {
				return err
			}
		}
	}
	return nil
}

// intact answers "" when the image copy is byte for byte the corpus, else
// the files that differ.
func (g *gate) intact() string {
	now, err := snapshot(g.dir)
	if err != nil {
		return err.Error()
	}
	var changed []string
	for path, data := range g.pristine {
		if !bytes.Equal(now[path], data) {
			changed = append(changed, relTo(g.dir, path))
		}
	}
	for path := range now {
		if _, ok := g.pristine[path]; !ok {
			changed = append(changed, relTo(g.dir, path)+" (new)")
		}
	}
	sort.Strings(changed)
	return strings.Join(changed, ", ")
}

func relTo(dir, path string) string {
	if r, err := filepath.Rel(dir, path); err == nil {
		return r
	}
	return path
}

// snapshot is every file under dir, by path.
func snapshot(dir string) (map[string][]byte, error) {
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		files[path] = data
		return err
	})
	return files, err
}

// workspace is what a run of either mode works in: a temporary image made
// from the corpus (never the corpus itself), the methods chosen from it,
// and the gate around it.
type workspace struct {
	tmp     string
	corpus  *Corpus
	methods []Method
	gate    *gate
}

func openWorkspace(ctx context.Context, c config) (*workspace, error) {
	tmp, err := os.MkdirTemp("", "refactor-eval-")
	if err != nil {
		return nil, err
	}
	ws := &workspace{tmp: tmp}
	imageDir := filepath.Join(tmp, "image")
	if err := buildImage(c.Corpus, imageDir); err != nil {
		ws.Close()
		return nil, fmt.Errorf("EVAL_CORPUS: %w", err)
	}
	if ws.corpus, err = readCorpus(imageDir); err != nil {
		ws.Close()
		return nil, err
	}
	if ws.methods, err = selectMethods(ws.corpus, c.Methods, c.Unreached, c.PerOperator); err != nil {
		ws.Close()
		return nil, err
	}
	if ws.gate, err = openGate(ctx, imageDir, tmp, c.Equivalence); err != nil {
		ws.Close()
		return nil, err
	}
	return ws, nil
}

// Close stops the gate and removes the temporary image.
func (ws *workspace) Close() {
	if ws.gate != nil {
		ws.gate.Close()
	}
	_ = os.RemoveAll(ws.tmp) // a temporary directory: what is left the system cleans
}
