package mcpclient

import (
	"fmt"
	refactor "pharo-refactor"
	"regexp"
	"strconv"
	"strings"
)

// TestReport is an SUnit result as run_class_test / run_package_test print it.
type TestReport struct {
	Ran              int      `json:"ran"`
	Passed           int      `json:"passed"`
	Skipped          int      `json:"skipped"`
	ExpectedFailures int      `json:"expected_failures"`
	Failures         int      `json:"failures"`
	Errors           int      `json:"errors"`
	PassedUnexpected int      `json:"passed_unexpected"`
	FailedTests      []string `json:"failed_tests"`  // `Class>>#selector`, as printed
	ErroredTests     []string `json:"errored_tests"` // likewise
	Summary          string   `json:"summary"`       // the first line, verbatim
}

// Green reports whether nothing failed or errored.
func (r TestReport) Green() bool { return r.Failures == 0 && r.Errors == 0 }

// summaryField matches one "<n> <noun>" part of TestResult>>printOn:.
var summaryField = regexp.MustCompile(`^(\d+) (ran|passed|skipped|expected failures?|failures?|errors?|passed unexpected)$`)

// ParseTestReport reads the summary text of pharo-interop.md ("Test summaries").
func ParseTestReport(text string) (TestReport, error) {
	lines := strings.Split(refactor.NormalizeSource(text), "\n")
	first := strings.TrimSpace(lines[0])
	rep := TestReport{Summary: first, FailedTests: []string{}, ErroredTests: []string{}}
	if first == "No tests ran" || first == "No tests ran." {
		return rep, nil
	}
	if err := rep.parseCounts(first); err != nil {
		return TestReport{}, err
	}
	rep.parseLists(lines[1:])
	if len(rep.FailedTests) > rep.Failures || len(rep.ErroredTests) > rep.Errors {
		return TestReport{}, fmt.Errorf("test summary lists more tests than it counts: %q", first)
	}
	return rep, nil
}

func (r *TestReport) parseCounts(line string) error {
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

func (r *TestReport) parseLists(lines []string) {
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

// TestSelector strips the class part of `Class>>#sel` or `Sub(Super)>>#sel`.
func TestSelector(printed string) string {
	i := strings.LastIndex(printed, ">>")
	if i < 0 {
		return printed
	}
	return strings.TrimPrefix(printed[i+2:], "#")
}
