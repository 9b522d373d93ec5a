// Command refactor-eval measures how often a release is right, per guard
// (docs/eval.md). Its gate mode, the default, runs offline: for each
// method of a corpus it makes mutants that change behaviour and faithful
// rewrites that keep it, proposes each to the real pipeline on a copy of
// the corpus through a scripted model that approves it, and records which
// were released and which guard refused the others. Its model mode
// (EVAL_MODELS) has each real model refactor each method in verify mode,
// and sets the models side by side: outcomes, rounds, calls, tokens, cost.
//
//	EVAL_CORPUS       Tonel trees, comma-separated (default: the sample image and eval/corpus)
//	EVAL_METHODS      Class>>selector,… (default: every method the tests reach and a few they do not)
//	EVAL_EQUIVALENCE  on (default) or off: the comparison with the original
//	EVAL_OUT          the report (default eval/results.json; eval/models.json in the model mode), resumed when its hash matches
//	EVAL_PER_OPERATOR at most this many mutants per operator and method (default 3; 0: all)
//	EVAL_UNREACHED    how many methods no test reaches to add (default 3)
//	EVAL_MODELS       provider:model,… (gemini or openai): the model mode; keys and base URLs are the service's variables
//	EVAL_PRICES       the model mode's price table (default eval/prices.json)
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	svcconfig "github.com/pharo-refactor/refactord/config"
)

// operatorsVersion changes whenever the operators or transformations
// change what they make, so that an old report is not resumed.
const operatorsVersion = "3"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "refactor-eval:", err)
		os.Exit(1)
	}
}

// config is the run's settings from the environment.
type config struct {
	Settings
	Out string
	// Models, when set, selects the model mode; Service is then the
	// service's configuration (keys, base URLs, retries, rounds) and
	// Prices the price table's path.
	Models  []ModelSpec
	Service svcconfig.Config
	Prices  string
}

func readConfig(getenv func(string) string) (config, error) {
	c := config{Out: "eval/results.json", Prices: "eval/prices.json", Settings: Settings{
		Corpus: []string{"examples/sample-image", "eval/corpus"}, Equivalence: true, PerOperator: 3, Unreached: 3}}
	if v := getenv("EVAL_MODELS"); v != "" {
		models, err := parseModels(v)
		if err != nil {
			return c, err
		}
		if c.Service, err = serviceConfig(getenv); err != nil {
			return c, err
		}
		c.Models, c.Out = models, "eval/models.json"
	}
	if v := getenv("EVAL_PRICES"); v != "" {
		c.Prices = v
	}
	if v := getenv("EVAL_CORPUS"); v != "" {
		c.Corpus = splitList(v)
	}
	if v := getenv("EVAL_METHODS"); v != "" {
		c.Methods = splitList(v)
	}
	switch v := strings.ToLower(getenv("EVAL_EQUIVALENCE")); v {
	case "", "on", "true", "1":
	case "off", "false", "0":
		c.Equivalence = false
	default:
		return c, fmt.Errorf("EVAL_EQUIVALENCE: %q is neither on nor off", v)
	}
	if v := getenv("EVAL_OUT"); v != "" {
		c.Out = v
	}
	for _, n := range []struct {
		name string
		to   *int
	}{{"EVAL_PER_OPERATOR", &c.PerOperator}, {"EVAL_UNREACHED", &c.Unreached}} {
		if v := getenv(n.name); v != "" {
			i, err := strconv.Atoi(v)
			if err != nil || i < 0 {
				return c, fmt.Errorf("%s: %q is not a count", n.name, v)
			}
			*n.to = i
		}
	}
	return c, nil
}

func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// hash digests the corpus and the settings that change the candidates
// and their outcomes.
func (c config) hash() (string, error) {
	corpus, err := corpusHash(c.Corpus)
	if err != nil {
		return "", err
	}
	s, _ := json.Marshal(struct {
		Corpus      string
		Methods     []string
		Equivalence bool
		PerOperator int
		Unreached   int
		Version     string
	}{corpus, c.Methods, c.Equivalence, c.PerOperator, c.Unreached, operatorsVersion})
	sum := sha256.Sum256(s)
	return hex.EncodeToString(sum[:]), nil
}

func run(ctx context.Context, getenv func(string) string, stdout, stderr io.Writer) error {
	c, err := readConfig(getenv)
	if err != nil {
		return err
	}
	if len(c.Models) > 0 {
		report, err := modelsRun(ctx, c, newProgress(stderr))
		if report != nil {
			report.printTable(stdout)
			fmt.Fprintf(stdout, "\nreport: %s\n", c.Out)
		}
		return err
	}
	report, err := gateRun(ctx, c, newProgress(stderr))
	if report != nil {
		report.printTable(stdout)
		fmt.Fprintf(stdout, "\nreport: %s\n", c.Out)
	}
	return err
}

// gateRun runs the gate over the corpus, writing the report after each
// method, and answers it.
func gateRun(ctx context.Context, c config, progress *progress) (*Report, error) {
	hash, err := c.hash()
	if err != nil {
		return nil, fmt.Errorf("EVAL_CORPUS: %w", err)
	}
	report, err := loadReport(c.Out, hash, func(r *Report) string { return r.Hash })
	if err != nil {
		return nil, err
	}
	done := map[string]bool{}
	if report != nil {
		for _, m := range report.Methods {
			done[m.Method] = true
		}
		progress.note(fmt.Sprintf("resuming %s: %d methods already measured", c.Out, len(done)))
	} else {
		report = &Report{Mode: "gate", Hash: hash, Settings: c.Settings, Methods: []MethodResult{}}
	}

	ws, err := openWorkspace(ctx, c)
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	corpus, methods, g := ws.corpus, ws.methods, ws.gate

	total := 0
	for _, m := range methods {
		if !done[label(m.Ref)] {
			total += len(candidatesOf(corpus, m, c.PerOperator))
		}
	}
	progress.start(total)
	for _, m := range methods {
		name := label(m.Ref)
		if done[name] {
			continue
		}
		mr := MethodResult{Method: name, Package: m.Package, Reached: m.Reached, Candidates: []CandidateResult{}}
		for _, cand := range candidatesOf(corpus, m, c.PerOperator) {
			if err := ctx.Err(); err != nil {
				// The method is not finished: it is measured again on resume.
				return report, err
			}
			res := g.run(ctx, m.Ref, m.Source, cand)
			mr.Candidates = append(mr.Candidates, res)
			progress.step(name, res)
		}
		report.Methods = append(report.Methods, mr)
		if err := report.write(c.Out); err != nil {
			return report, err
		}
	}
	progress.finish()
	report.summarize()
	return report, report.write(c.Out)
}

// candidatesOf are a method's mutants, then its faithful rewrites.
func candidatesOf(c *Corpus, m Method, perOperator int) []Candidate {
	return append(Mutants(m.Source, perOperator), Faithful(m.Source, c.taken(m.Ref.Class))...)
}

// progress says how far a run is: one line redrawn on a terminal, plain
// lines (one per method) otherwise.
type progress struct {
	w      io.Writer
	tty    bool
	total  int
	n      int
	method string
	start0 time.Time
	counts map[string]int
}

func newProgress(w io.Writer) *progress {
	p := &progress{w: w}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.tty = true
		}
	}
	return p
}

func (p *progress) note(s string) {
	if p == nil || p.w == nil {
		return
	}
	fmt.Fprintln(p.w, s)
}

func (p *progress) start(total int) {
	if p == nil {
		return
	}
	p.total, p.start0 = total, time.Now()
}

func (p *progress) step(method string, r CandidateResult) {
	if p == nil || p.w == nil {
		return
	}
	if method != p.method && p.method != "" && !p.tty {
		p.line()
	}
	if method != p.method {
		p.method, p.counts = method, map[string]int{}
	}
	p.n++
	key := r.Kind + " " + r.Outcome
	p.counts[key]++
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K[%d/%d %s] %s", p.n, p.total, time.Since(p.start0).Round(time.Second), method)
	}
}

func (p *progress) line() {
	fmt.Fprintf(p.w, "[%d/%d %s] %s: mutants %d released of %d; faithful %d refused of %d\n", p.n, p.total,
		time.Since(p.start0).Round(time.Second), p.method,
		p.counts["mutant released"], p.counts["mutant released"]+p.counts["mutant refused"],
		p.counts["faithful refused"], p.counts["faithful released"]+p.counts["faithful refused"])
}

func (p *progress) finish() {
	if p == nil || p.w == nil {
		return
	}
	if p.tty {
		fmt.Fprintln(p.w)
	} else if p.method != "" {
		p.line()
	}
}
