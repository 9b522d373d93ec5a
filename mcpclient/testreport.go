package mcpclient

import (
	"fmt"
	refactor "pharo-refactor"
	"regexp"
	"strconv"
	"strings"
)

// summaryField matches one "<n> <noun>" part of TestResult>>printOn:.
var summaryField = regexp.MustCompile(`^(\d+) (ran|passed|skipped|expected failures?|failures?|errors?|passed unexpected)$`)

// parseTestReport reads the summary text of pharo-interop.md ("Test summaries").
func parseTestReport(text string) (refactor.TestReport, error) {
	lines := strings.Split(refactor.NormalizeSource(text), "\n")
	first := strings.TrimSpace(lines[0])
	rep := refactor.TestReport{Summary: first, FailedTests: []string{}, ErroredTests: []string{}}
	if first == "No tests ran" || first == "No tests ran." {
		return rep, nil
	}
	if err := parseCounts(&rep, first); err != nil {
		return refactor.TestReport{}, err
	}
	parseLists(&rep, lines[1:])
	if len(rep.FailedTests) > rep.Failures || len(rep.ErroredTests) > rep.Errors {
		return refactor.TestReport{}, fmt.Errorf("test summary lists more tests than it counts: %q", first)
	}
	return rep, nil
}

func parseCounts(r *refactor.TestReport, line string) error {
	ranSeen := false
	for _, part := range strings.Split(line, ",") {
		m := summaryField.FindStringSubmatch(strings.TrimSpace(part))
		if m == nil {
			return fmt.Errorf("unrecognised test summary %q", line)
		}
		n, err := strconv.Atoi(m[1])
		if err != nil {
			return fmt.Errorf("test summary count %q: %w", m[1], err)
		}
		switch m[2] {
		case "ran":
			r.Ran, ranSeen = n, true
		case "passed":
			r.Passed = n
		case "skipped":
			r.Skipped = n
		case "expected failure", "expected failures":
			r.ExpectedFailures = n
		case "failure", "failures":
			r.Failures = n
		case "error", "errors":
			r.Errors = n
		case "passed unexpected":
			r.PassedUnexpected = n
		}
	}
	if !ranSeen {
		return fmt.Errorf("test summary without a run count: %q", line)
	}
	return nil
}

func parseLists(r *refactor.TestReport, lines []string) {
	var into *[]string
	for _, l := range lines {
		l = strings.TrimSpace(l)
		switch {
		case l == "":
		case l == "Failures:":
			into = &r.FailedTests
		case l == "Errors:":
			into = &r.ErroredTests
		case into != nil:
			*into = append(*into, l)
		}
	}
}
