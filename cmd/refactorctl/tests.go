package main

import (
	"encoding/json"
	"fmt"
	refactor "github.com/pharo-refactor/refactord"
	"strings"
)

// testsSummary is one line about the tests; "" when there is nothing to
// say or the shape is unknown (a newer service: the raw JSON is in --json).
func testsSummary(raw json.RawMessage) string {
	var runs []refactor.TestRun
	if json.Unmarshal(raw, &runs) == nil {
		return runsSummary(runs)
	}
	var tests refactor.Tests
	if json.Unmarshal(raw, &tests) != nil {
		return ""
	}
	if len(tests.Regressions) > 0 {
		return "regressed: " + strings.Join(tests.Regressions, ", ")
	}
	if len(tests.After) > 0 {
		return runsSummary(tests.After)
	}
	return runsSummary(tests.Before)
}

func runsSummary(runs []refactor.TestRun) string {
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
	var stages []refactor.StageStat
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
