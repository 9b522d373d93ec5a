package main

import (
	"encoding/json"
	"fmt"
	"strings"
)

// The test gate's reports, as release events and runs carry them: a list
// of per-class reports, or the whole gate (before, after, regressions).
type (
	testRun struct {
		Class  string `json:"class"`
		Report struct {
			Ran      int `json:"ran"`
			Passed   int `json:"passed"`
			Failures int `json:"failures"`
			Errors   int `json:"errors"`
		} `json:"report"`
	}
	testGate struct {
		Before      []testRun `json:"before"`
		After       []testRun `json:"after"`
		Regressions []string  `json:"regressions"`
	}
)

// testsSummary is one line about the tests; "" when there is nothing to
// say or the shape is unknown (a newer service: the raw JSON is in --json).
func testsSummary(raw json.RawMessage) string {
	var runs []testRun
	if json.Unmarshal(raw, &runs) == nil {
		return runsSummary(runs)
	}
	var gate testGate
	if json.Unmarshal(raw, &gate) != nil {
		return ""
	}
	if len(gate.Regressions) > 0 {
		return "regressed: " + strings.Join(gate.Regressions, ", ")
	}
	if len(gate.After) > 0 {
		return runsSummary(gate.After)
	}
	return runsSummary(gate.Before)
}

func runsSummary(runs []testRun) string {
	parts := make([]string, 0, len(runs))
	for _, r := range runs {
		p := fmt.Sprintf("%s %d/%d passed", r.Class, r.Report.Passed, r.Report.Ran)
		if r.Report.Failures > 0 {
			p += ", " + plural(r.Report.Failures, "failure")
		}
		if r.Report.Errors > 0 {
			p += ", " + plural(r.Report.Errors, "error")
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "; ")
}

// stagesSummary reads a run's stages: "prefetch 0.0s, review 1.2s (1 call), …".
func stagesSummary(raw json.RawMessage) string {
	var stages []struct {
		Name       string `json:"name"`
		DurationMS int64  `json:"duration_ms"`
		ModelCalls int    `json:"model_calls"`
	}
	if json.Unmarshal(raw, &stages) != nil || len(stages) == 0 {
		return compact(raw)
	}
	parts := make([]string, 0, len(stages))
	for _, s := range stages {
		p := fmt.Sprintf("%s %.1fs", s.Name, float64(s.DurationMS)/1000)
		if s.ModelCalls > 0 {
			p += " (" + plural(s.ModelCalls, "call") + ")"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ", ")
}
