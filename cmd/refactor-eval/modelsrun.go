package main

import (
	"context"
	"fmt"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// modelsRun has each model refactor each method of the corpus in verify
// mode on a copy of it, writing the report after each run, and answers
// the report. A run already in the report (same corpus and settings) is
// not made again.
func modelsRun(ctx context.Context, c config, progress *progress) (*ModelReport, error) {
	prices, err := loadPrices(c.Prices)
	if err != nil {
		return nil, err
	}
	settings := ModelSettings{Corpus: c.Corpus, Methods: c.Methods, Equivalence: c.Equivalence, Unreached: c.Unreached,
		MaxIterations: c.Service.MaxValidationIterations, ToolRounds: c.Service.ReviewerMaxToolRounds, Prices: c.Prices}
	for _, m := range c.Models {
		settings.Models = append(settings.Models, m.String())
	}
	hash, err := modelsHash(settings)
	if err != nil {
		return nil, fmt.Errorf("EVAL_CORPUS: %w", err)
	}
	report, err := loadReport(c.Out, hash, func(r *ModelReport) string { return r.Hash })
	if err != nil {
		return nil, err
	}
	if report != nil {
		progress.note(fmt.Sprintf("resuming %s: %d runs already made", c.Out, runsIn(report)))
		report.Settings = settings // the models of this run; the others' runs are kept
	} else {
		report = &ModelReport{Mode: "models", Hash: hash, Settings: settings, Methods: []ModelMethod{}}
	}

	ws, err := openWorkspace(ctx, c)
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	methods, g := ws.methods, ws.gate
	bench, err := openModelBench(ctx, g, c.Service, c.Models, c.Equivalence, prices, progress.warnings())
	if err != nil {
		return nil, err
	}

	todo := 0
	for _, m := range methods {
		for _, model := range settings.Models {
			if report.run(label(m.Ref), model) == nil {
				todo++
			}
		}
	}
	progress.start(todo)
	for _, m := range methods {
		entry := report.method(m)
		for _, model := range settings.Models {
			if report.run(entry.Method, model) != nil {
				continue
			}
			run, err := bench.run(ctx, model, m)
			if err != nil {
				// Not recorded: the run is made again on resume.
				report.summarize(prices)
				return report, fmt.Errorf("%s by %s: %w", entry.Method, model, err)
			}
			entry.Runs = append(entry.Runs, run)
			progress.modelStep(entry.Method, run)
			if err := report.write(c.Out, prices); err != nil {
				return report, err
			}
		}
	}
	progress.finish()
	return report, report.write(c.Out, prices)
}

// method answers the report's entry for m, added when it has none.
func (r *ModelReport) method(m Method) *ModelMethod {
	name := label(m.Ref)
	for i := range r.Methods {
		if r.Methods[i].Method == name {
			return &r.Methods[i]
		}
	}
	r.Methods = append(r.Methods, ModelMethod{Method: name, Package: m.Package, Reached: m.Reached, Runs: []ModelRun{}})
	return &r.Methods[len(r.Methods)-1]
}

// run answers model's run on method; nil when there is none yet.
func (r *ModelReport) run(method, model string) *ModelRun {
	for i := range r.Methods {
		if r.Methods[i].Method != method {
			continue
		}
		for j := range r.Methods[i].Runs {
			if r.Methods[i].Runs[j].Model == model {
				return &r.Methods[i].Runs[j]
			}
		}
	}
	return nil
}

func runsIn(r *ModelReport) int {
	n := 0
	for _, m := range r.Methods {
		n += len(m.Runs)
	}
	return n
}

// warnings logs warnings where the progress goes.
func (p *progress) warnings() *zap.Logger {
	if p == nil || p.w == nil {
		return zap.NewNop()
	}
	enc := zap.NewDevelopmentEncoderConfig()
	enc.TimeKey = ""
	return zap.New(zapcore.NewCore(zapcore.NewConsoleEncoder(enc), zapcore.AddSync(p.w), zap.WarnLevel))
}

// modelStep reports one model run: a line redrawn on a terminal, a plain
// line per run otherwise (a run takes seconds to minutes).
func (p *progress) modelStep(method string, r ModelRun) {
	if p == nil || p.w == nil {
		return
	}
	p.n++
	p.method = "" // finish prints no gate line
	approved := "not approved"
	if r.ApprovedRound > 0 {
		approved = fmt.Sprintf("approved in round %d", r.ApprovedRound)
	}
	line := fmt.Sprintf("[%d/%d %s] %s %s: %s, %s, %d calls, %d+%d tokens, cost %s", p.n, p.total,
		time.Since(p.start0).Round(time.Second), method, r.Model, r.Outcome, approved, r.ModelCalls, r.InputTokens, r.OutputTokens, formatCost(r.CostUSD))
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%s", line)
		return
	}
	fmt.Fprintln(p.w, line)
}
