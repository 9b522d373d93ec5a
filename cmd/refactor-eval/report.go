package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// Report is the file EVAL_OUT: the settings it was made with, each
// method's candidates as they came, and the figures over them.
type Report struct {
	Mode     string         `json:"mode"` // gate (ModelReport: the model mode)
	Hash     string         `json:"hash"` // of the corpus and the settings: a resumed run must match it
	Settings Settings       `json:"settings"`
	Gate     Figures        `json:"gate"`
	Methods  []MethodResult `json:"methods"`
	// Seconds is the time spent on candidates, over every run that
	// wrote this report; PerCandidate its mean.
	Seconds      float64 `json:"seconds"`
	PerCandidate float64 `json:"seconds_per_candidate"`
}

// Settings are what a run was asked to do.
type Settings struct {
	Corpus      []string `json:"corpus"`
	Methods     []string `json:"methods,omitempty"`
	Equivalence bool     `json:"equivalence"`
	PerOperator int      `json:"mutants_per_operator"`
	Unreached   int      `json:"unreached_methods"`
}

// MethodResult is one method's candidates.
type MethodResult struct {
	Method     string            `json:"method"` // Class>>selector
	Package    string            `json:"package"`
	Reached    bool              `json:"reached_by_tests"`
	Candidates []CandidateResult `json:"candidates"`
}

// Figures are the gate's figures over every candidate.
type Figures struct {
	Mutants  MutantFigures   `json:"mutants"`
	Faithful FaithfulFigures `json:"faithful"`
	// ImageChanged counts candidates after which the image copy was not
	// byte for byte the corpus (0 unless a rollback failed).
	ImageChanged int `json:"image_changed"`
	// ByOperator: per mutation operator, its mutants and those released.
	ByOperator map[string]OperatorFigures `json:"by_operator"`
}

// MutantFigures count the mutants: each should be refused.
type MutantFigures struct {
	Total    int            `json:"total"`
	Released int            `json:"released"`
	ByGuard  map[string]int `json:"by_guard"`
	// ReleasedList lists each released mutant, for a person to tell an
	// equivalent mutant from a hole in the guards.
	ReleasedList []Listed `json:"released_list"`
}

// FaithfulFigures count the faithful rewrites: each should be released.
type FaithfulFigures struct {
	Total       int            `json:"total"`
	Refused     int            `json:"refused"`
	ByGuard     map[string]int `json:"by_guard"`
	RefusedList []Listed       `json:"refused_list"`
}

// OperatorFigures count one operator's mutants.
type OperatorFigures struct {
	Total    int `json:"total"`
	Released int `json:"released"`
}

// Listed is one candidate in a list of the report.
type Listed struct {
	Method   string `json:"method"`
	Operator string `json:"operator"`
	Where    string `json:"where"`
	Guard    string `json:"guard,omitempty"`
	Detail   string `json:"detail,omitempty"`
	Diff     string `json:"diff"`
}

// summarize computes the figures from the methods.
func (r *Report) summarize() {
	f := Figures{
		Mutants:    MutantFigures{ByGuard: map[string]int{}, ReleasedList: []Listed{}},
		Faithful:   FaithfulFigures{ByGuard: map[string]int{}, RefusedList: []Listed{}},
		ByOperator: map[string]OperatorFigures{},
	}
	seconds, n := 0.0, 0
	for _, m := range r.Methods {
		for _, c := range m.Candidates {
			seconds += c.Seconds
			n++
			if !c.ImageIntact {
				f.ImageChanged++
			}
			listed := Listed{Method: m.Method, Operator: c.Operator, Where: c.Where, Guard: c.Guard, Detail: c.Detail, Diff: c.Diff}
			switch c.Kind {
			case KindMutant:
				f.Mutants.Total++
				op := f.ByOperator[c.Operator]
				op.Total++
				if c.Outcome == Released {
					f.Mutants.Released++
					op.Released++
					f.Mutants.ReleasedList = append(f.Mutants.ReleasedList, listed)
				} else {
					f.Mutants.ByGuard[c.Guard]++
				}
				f.ByOperator[c.Operator] = op
			case KindFaithful:
				f.Faithful.Total++
				if c.Outcome == Refused {
					f.Faithful.Refused++
					f.Faithful.ByGuard[c.Guard]++
					f.Faithful.RefusedList = append(f.Faithful.RefusedList, listed)
				}
			}
		}
	}
	r.Gate = f
	r.Seconds = seconds
	r.PerCandidate = 0
	if n > 0 {
		r.PerCandidate = seconds / float64(n)
	}
}

// loadReport reads a report to resume: nil when there is none, or when it
// was made on another corpus or with other settings (hashOf answers the
// hash it was made with).
func loadReport[R any](path, hash string, hashOf func(*R) string) (*R, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var r R
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, nil // not a report of ours: started afresh
	}
	if hashOf(&r) != hash {
		return nil, nil
	}
	return &r, nil
}

// write writes the report atomically (an interrupted write leaves the
// previous one).
func (r *Report) write(path string) error {
	r.summarize()
	return writeJSON(path, r)
}

// writeJSON writes v to path atomically, indented, with Smalltalk's < and
// > as they are (the report's code and diffs are for a person to read).
func writeJSON(path string, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return tonel.WriteFileAtomic(path, buf.Bytes(), 0o644)
}

// printTable prints the figures for a person.
func (r *Report) printTable(w io.Writer) {
	f := r.Gate
	comparison := "on"
	if !r.Settings.Equivalence {
		comparison = "off"
	}
	fmt.Fprintf(w, "gate: %d methods, the comparison %s, %.3f s per candidate\n\n", len(r.Methods), comparison, r.PerCandidate)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	guards := []string{GuardLocal, GuardCapability, GuardDryCompile, GuardEquivalence, GuardTests, GuardOther}
	fmt.Fprintf(tw, "candidates\ttotal\treleased\trefused\t%s\t\n", strings.Join(guards, "\t"))
	row := func(name string, total, released int, by map[string]int) {
		cells := []string{name, fmt.Sprint(total), fmt.Sprint(released), fmt.Sprint(total - released)}
		for _, g := range guards {
			cells = append(cells, fmt.Sprint(by[g]))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	}
	row("mutants", f.Mutants.Total, f.Mutants.Released, f.Mutants.ByGuard)
	row("faithful", f.Faithful.Total, f.Faithful.Total-f.Faithful.Refused, f.Faithful.ByGuard)
	_ = tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "mutation operator\tmutants\treleased\t")
	ops := make([]string, 0, len(f.ByOperator))
	for op := range f.ByOperator {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	for _, op := range ops {
		fmt.Fprintf(tw, "%s\t%d\t%d\t\n", op, f.ByOperator[op].Total, f.ByOperator[op].Released)
	}
	_ = tw.Flush()
	if len(f.Mutants.ReleasedList) > 0 {
		fmt.Fprintf(w, "\nreleased mutants (an equivalent mutant, or a hole in the guards):\n")
		for _, l := range f.Mutants.ReleasedList {
			fmt.Fprintf(w, "  %s  %s  %s\n", l.Method, l.Operator, l.Where)
		}
	}
	if len(f.Faithful.RefusedList) > 0 {
		fmt.Fprintf(w, "\nrefused faithful rewrites (false alarms):\n")
		for _, l := range f.Faithful.RefusedList {
			fmt.Fprintf(w, "  %s  %s  %s  [%s] %s\n", l.Method, l.Operator, l.Where, l.Guard, oneLine(l.Detail))
		}
	}
	if f.ImageChanged > 0 {
		fmt.Fprintf(w, "\n%d candidates left the image copy changed\n", f.ImageChanged)
	}
}
