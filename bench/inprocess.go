package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"sync"
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

// inProcess is the pipeline refactord runs, on the same dependencies, all in
// this process: pharo-sim's image behind mcpclient's in-process transport,
// the bench's scripted model, and an audit trail in a SQLite file. It counts
// what a run asks of its parts — the MCP tool calls (and how long the
// simulated image took to answer each), the audit commits — which the
// decomposition of the pipeline overhead multiplies by the parts' floors.
type inProcess struct {
	sim   *pharosim.Server
	image *mcpclient.Client
	audit *countingAudit
	calls *toolLog
	pipe  *pipeline.Pipeline
}

// newInProcess loads the Tonel tree at image (which its runs change) and
// opens the audit trail at db; script is the scripted model's file.
func newInProcess(ctx context.Context, image, db, script string) (*inProcess, error) {
	calls := &toolLog{}
	sim, err := pharosim.New(pharosim.Options{Dir: image, Log: slog.New(calls)})
	if err != nil {
		return nil, fmt.Errorf("loading the image in process: %w", err)
	}
	p := &inProcess{sim: sim, calls: calls}
	if p.image, err = mcpclient.New(mcpclient.Config{InProcess: sim.MCPServer()}); err != nil {
		p.close()
		return nil, err
	}
	st, err := store.Open(ctx, db)
	if err != nil {
		p.close()
		return nil, err
	}
	p.audit = &countingAudit{Audit: st, store: st}
	model, err := scripted.Load(script)
	if err != nil {
		p.close()
		return nil, err
	}
	roles, err := agents.New(agents.Config{Reviewer: model, Writer: model, Validator: model, Refiner: model, Tools: p.image, MaxToolRounds: 2})
	if err != nil {
		p.close()
		return nil, err
	}
	p.pipe = pipeline.New(p.image, roles, p.audit, pipeline.Options{MaxIterations: 3, Timeout: time.Minute}, zap.NewNop())
	return p, nil
}

func (p *inProcess) close() {
	if p.image != nil {
		_ = p.image.Close()
	}
	if p.audit != nil {
		_ = p.audit.store.Close()
	}
	_ = p.sim.Close()
}

// runCounts is what one run asked of its parts.
type runCounts struct {
	took      time.Duration
	tools     map[string]int // MCP tool calls by tool
	roundTrip int            // every MCP tool call
	imageTime time.Duration  // the simulated image's time answering them, in this process
	calls     []imageCall    // the calls, with their arguments, to make again (replay.go)
	commits   int            // audit transactions committed
	synced    int            // of which synced to stable storage on commit
	reads     int            // audit rows read back
}

// run refactors ref once; anything but released is an error.
func (p *inProcess) run(ctx context.Context, ref refactor.MethodRef) (runCounts, error) {
	p.calls.reset()
	p.audit.reset()
	slot, err := p.pipe.Reserve()
	if err != nil {
		return runCounts{}, err
	}
	start := time.Now()
	res, err := slot.Run(ctx, refactor.Request{Ref: ref, RunTests: true, RequestID: "bench"})
	took := time.Since(start)
	if err != nil {
		return runCounts{}, fmt.Errorf("in-process run: %w", err)
	}
	if res.Outcome != refactor.OutcomeReleased {
		return runCounts{}, fmt.Errorf("in-process run ended %s, not released", res.Outcome)
	}
	c := runCounts{took: took, tools: map[string]int{}}
	for _, call := range p.calls.take() {
		c.tools[call.tool]++
		c.roundTrip++
		c.imageTime += call.end.Sub(call.start)
		c.calls = append(c.calls, call)
	}
	c.commits, c.synced, c.reads = p.audit.counts()
	return c, nil
}

// toolLog is a slog handler that keeps pharo-sim's "tool call" records
// (pharosim logs every call at debug level, with its arguments and its
// duration, when it answers) and drops the rest.
type toolLog struct {
	mu    sync.Mutex
	calls []imageCall
}

func (l *toolLog) Enabled(context.Context, slog.Level) bool { return true }

func (l *toolLog) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "tool call" {
		return nil
	}
	c := imageCall{end: r.Time}
	var took time.Duration
	r.Attrs(func(a slog.Attr) bool {
		switch a.Key {
		case "tool":
			c.tool = a.Value.String()
		case "arguments":
			c.arguments = a.Value.Any()
		case "duration":
			took = a.Value.Duration()
		}
		return true
	})
	c.start = c.end.Add(-took)
	l.mu.Lock()
	l.calls = append(l.calls, c)
	l.mu.Unlock()
	return nil
}

func (l *toolLog) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *toolLog) WithGroup(string) slog.Handler      { return l }

func (l *toolLog) reset() { l.take() }

func (l *toolLog) take() []imageCall {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.calls
	l.calls = nil
	return out
}

// countingAudit counts the transactions a run commits through the store.
// BeginRelease (the write-ahead row) and MarkReverted are the commits
// synced to stable storage (store/writeahead.go); every other write
// commits without a sync.
type countingAudit struct {
	refactor.Audit
	store *store.Store

	mu                     sync.Mutex
	commits, synced, reads int
}

func (a *countingAudit) count(synced bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.commits++
	if synced {
		a.synced++
	}
}

func (a *countingAudit) Create(ctx context.Context, r refactor.Run) error {
	a.count(false)
	return a.Audit.Create(ctx, r)
}

func (a *countingAudit) Update(ctx context.Context, r refactor.Run) error {
	a.count(false)
	return a.Audit.Update(ctx, r)
}

func (a *countingAudit) BeginRelease(ctx context.Context, id, original, protocol, final string, helpers []refactor.Helper) error {
	a.count(true)
	return a.Audit.BeginRelease(ctx, id, original, protocol, final, helpers)
}

func (a *countingAudit) SetStage(ctx context.Context, id, stage string) error {
	a.count(false)
	return a.Audit.SetStage(ctx, id, stage)
}

func (a *countingAudit) MarkReverted(ctx context.Context, id string, at time.Time) error {
	a.count(true)
	return a.Audit.MarkReverted(ctx, id, at)
}

func (a *countingAudit) Reconcile(ctx context.Context, id string, status refactor.Status, note string) error {
	a.count(false)
	return a.Audit.Reconcile(ctx, id, status, note)
}

func (a *countingAudit) Get(ctx context.Context, id string) (refactor.Run, error) {
	a.mu.Lock()
	a.reads++
	a.mu.Unlock()
	return a.Audit.Get(ctx, id)
}

func (a *countingAudit) reset() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.commits, a.synced, a.reads = 0, 0, 0
}

func (a *countingAudit) counts() (commits, synced, reads int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.commits, a.synced, a.reads
}

// toolList renders tool counts as "eval 6, get_method_source 3, …".
func toolList(tools map[string]int) string {
	names := make([]string, 0, len(tools))
	for t := range tools {
		names = append(names, t)
	}
	sort.Strings(names)
	out := ""
	for i, t := range names {
		if i > 0 {
			out += ", "
		}
		out += fmt.Sprintf("%s %d", t, tools[t])
	}
	return out
}

// scriptFile writes the bench's scripted model into dir and answers its path.
func scriptFile(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if _, err := benchScript().Env(dir, true); err != nil {
		return "", err
	}
	return filepath.Join(dir, "model.json"), nil
}
