package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	refactor "github.com/pharo-refactor/refactord"
)

// modelsVersion changes whenever a model run records something else, so
// that an old report is not resumed.
const modelsVersion = "models-1"

// ModelReport is the file EVAL_OUT of the model mode: each method's run
// by each model as it came, and the figures per model.
type ModelReport struct {
	Mode     string        `json:"mode"` // models
	Hash     string        `json:"hash"` // of the corpus and the settings: a resumed run must match it
	Settings ModelSettings `json:"settings"`
	// Currency and PriceSource are the price table's; the costs are
	// worked out again from it each time the report is written.
	Currency    string         `json:"currency"`
	PriceSource string         `json:"price_source,omitempty"`
	Models      []ModelFigures `json:"models"`
	Methods     []ModelMethod  `json:"methods"`
}

// ModelSettings are what a model run was asked to do.
type ModelSettings struct {
	Corpus      []string `json:"corpus"`
	Methods     []string `json:"methods,omitempty"`
	Equivalence bool     `json:"equivalence"`
	Unreached   int      `json:"unreached_methods"`
	Models      []string `json:"models"`
	// MaxIterations and ToolRounds are the service's
	// MAX_VALIDATION_ITERATIONS and REVIEWER_MAX_TOOL_ROUNDS.
	MaxIterations int    `json:"max_validation_iterations"`
	ToolRounds    int    `json:"reviewer_max_tool_rounds"`
	Prices        string `json:"prices"`
}

// ModelMethod is one method and each model's run on it.
type ModelMethod struct {
	Method  string     `json:"method"` // Class>>selector
	Package string     `json:"package"`
	Reached bool       `json:"reached_by_tests"`
	Runs    []ModelRun `json:"runs"`
}

// ModelFigures are one model's figures over its runs.
type ModelFigures struct {
	Model   string `json:"model"`
	Methods int    `json:"methods"`
	// Outcomes counts the runs by how they ended (verified, unchanged,
	// not_approved, behaviour_changed, tests_regressed, …).
	Outcomes map[string]int `json:"outcomes"`
	// ApprovedInRound counts the runs whose candidate the validator
	// approved in round 1, 2, 3… (approved, whatever the tests said).
	ApprovedInRound map[string]int `json:"approved_in_round"`
	ModelCalls      int            `json:"model_calls"`
	InputTokens     int64          `json:"input_tokens"`
	OutputTokens    int64          `json:"output_tokens"`
	// Cost is in the price table's currency; absent (unknown) when the
	// table has no price for the model. Price is the one used.
	Cost  *float64 `json:"cost,omitempty"`
	Price *Price   `json:"price,omitempty"`
	// Seconds is the wall time of the model's runs.
	Seconds            float64 `json:"seconds"`
	CaughtByComparison int     `json:"caught_by_comparison"`
	CaughtByTests      int     `json:"caught_by_tests"`
	Helpers            int     `json:"helpers_added"`
	ImageChanged       int     `json:"image_changed"`
}

// modelsHash digests what changes the runs: the corpus, the methods and
// the settings of the pipeline. Neither the models (each model's runs are
// resumed on their own) nor the prices (the costs are worked out again).
func modelsHash(s ModelSettings) (string, error) {
	corpus, err := corpusHash(s.Corpus)
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(struct {
		Corpus                string
		Methods               []string
		Equivalence           bool
		Unreached, Max, Tools int
		Version               string
	}{corpus, s.Methods, s.Equivalence, s.Unreached, s.MaxIterations, s.ToolRounds, modelsVersion})
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// summarize works out each model's figures, and each run's cost, with
// prices.
func (r *ModelReport) summarize(prices PriceTable) {
	r.Currency, r.PriceSource = prices.Currency, prices.Source
	r.Models = make([]ModelFigures, 0, len(r.Settings.Models))
	for _, model := range r.Settings.Models {
		f := ModelFigures{Model: model, Outcomes: map[string]int{}, ApprovedInRound: map[string]int{}}
		for i := range r.Methods {
			for j := range r.Methods[i].Runs {
				run := &r.Methods[i].Runs[j]
				if run.Model != model {
					continue
				}
				run.CostUSD = prices.cost(model, run.InputTokens, run.OutputTokens)
				f.add(*run)
			}
		}
		f.Cost = prices.cost(model, f.InputTokens, f.OutputTokens)
		if p, ok := prices.Models[model]; ok {
			f.Price = &p
		}
		r.Models = append(r.Models, f)
	}
}

func (f *ModelFigures) add(run ModelRun) {
	f.Methods++
	f.Outcomes[run.Outcome]++
	if run.ApprovedRound > 0 {
		f.ApprovedInRound[strconv.Itoa(run.ApprovedRound)]++
	}
	f.ModelCalls += run.ModelCalls
	f.InputTokens += run.InputTokens
	f.OutputTokens += run.OutputTokens
	f.Seconds += run.Seconds
	f.CaughtByComparison += run.CaughtByComparison
	if run.CaughtByTests {
		f.CaughtByTests++
	}
	f.Helpers += run.Helpers
	if !run.ImageIntact {
		f.ImageChanged++
	}
}

// write writes the report atomically, its figures worked out first.
func (r *ModelReport) write(path string, prices PriceTable) error {
	r.summarize(prices)
	return writeJSON(path, r)
}

// printTable prints the models side by side, a row per figure.
func (r *ModelReport) printTable(w io.Writer) {
	comparison := "on"
	if !r.Settings.Equivalence {
		comparison = "off"
	}
	fmt.Fprintf(w, "models: %d methods, verify mode, the comparison %s; cost in %s (%s)\n\n", len(r.Methods), comparison, r.Currency, r.Settings.Prices)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	row := func(name string, cell func(f ModelFigures) string) {
		cells := []string{name}
		for _, f := range r.Models {
			cells = append(cells, cell(f))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	}
	row("", func(f ModelFigures) string { return f.Model })
	row("methods", func(f ModelFigures) string { return strconv.Itoa(f.Methods) })
	for _, outcome := range r.outcomes() {
		row(strings.ReplaceAll(outcome, "_", " "), func(f ModelFigures) string { return strconv.Itoa(f.Outcomes[outcome]) })
	}
	for round := 1; round <= r.lastRound(); round++ {
		key := strconv.Itoa(round)
		row("approved in round "+key, func(f ModelFigures) string { return strconv.Itoa(f.ApprovedInRound[key]) })
	}
	row("model calls", func(f ModelFigures) string { return strconv.Itoa(f.ModelCalls) })
	row("input tokens", func(f ModelFigures) string { return strconv.FormatInt(f.InputTokens, 10) })
	row("output tokens", func(f ModelFigures) string { return strconv.FormatInt(f.OutputTokens, 10) })
	row("cost", func(f ModelFigures) string { return formatCost(f.Cost) })
	row("wall time (s)", func(f ModelFigures) string { return strconv.FormatFloat(f.Seconds, 'f', 2, 64) })
	row("caught by the comparison", func(f ModelFigures) string { return strconv.Itoa(f.CaughtByComparison) })
	row("caught by the tests", func(f ModelFigures) string { return strconv.Itoa(f.CaughtByTests) })
	row("helper methods added", func(f ModelFigures) string { return strconv.Itoa(f.Helpers) })
	if r.imageChanged() {
		row("image copy changed", func(f ModelFigures) string { return strconv.Itoa(f.ImageChanged) })
	}
	_ = tw.Flush()
}

// formatCost prints a cost, or "unknown" when the price table has none.
func formatCost(c *float64) string {
	if c == nil {
		return "unknown"
	}
	return strconv.FormatFloat(*c, 'f', 6, 64)
}

// outcomes are the outcomes of every model's runs: verified and unchanged
// first, the failures after, by name.
func (r *ModelReport) outcomes() []string {
	seen := map[string]bool{string(refactor.OutcomeVerified): true, string(refactor.OutcomeUnchanged): true}
	var failures []string
	for _, f := range r.Models {
		for o := range f.Outcomes {
			if !seen[o] {
				seen[o] = true
				failures = append(failures, o)
			}
		}
	}
	sort.Strings(failures)
	return append([]string{string(refactor.OutcomeVerified), string(refactor.OutcomeUnchanged)}, failures...)
}

// lastRound is the last validation round a run could reach.
func (r *ModelReport) lastRound() int {
	last := r.Settings.MaxIterations
	for _, f := range r.Models {
		for k := range f.ApprovedInRound {
			if n, err := strconv.Atoi(k); err == nil && n > last {
				last = n
			}
		}
	}
	return last
}

func (r *ModelReport) imageChanged() bool {
	for _, f := range r.Models {
		if f.ImageChanged > 0 {
			return true
		}
	}
	return false
}
