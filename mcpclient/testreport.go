package mcpclient

import (
	"fmt"
	refactor "github.com/pharo-refactor/refactord"
	"regexp"
	"strconv"
	"strings"
)

// summaryField matches one "<n> <noun>" part of TestResult>>printOn:.
var summaryField = regexp.MustCompile(`^(\d+) (ran|passed|skipped|expected failures?|failures?|errors?|passed unexpected)$`)

// maxListedTests bounds the tests read from one report's lists.
const maxListedTests = 10000

// parseTestReport reads the text run_class_test answers: SUnit's
// TestResult>>fileOutOn: (docs/pharo-interop.md, "Test summaries" and
// "Measured on the real server"). The first line counts; then `Failures:` lists the
// unexpected failures followed by the unexpected passes (SUnit's
// TestResult>>failures is `unexpectedFailures, unexpectedPasses`), and
// `Errors:` the unexpected errors. Expected failures are counted, never
// listed. Inherited tests print as `Sub(Super)>>#selector`.
func parseTestReport(text string) (refactor.TestReport, error) {
	lines := strings.Split(refactor.NormalizeSource(text), "\n")
	first := strings.TrimSpace(lines[0])
	rep := refactor.TestReport{Summary: first, FailedTests: []string{}, ErroredTests: []string{}, PassedUnexpectedTests: []string{}}
	if strings.TrimSuffix(first, ".") == "No tests ran" {
		return rep, nil
	}
	if err := parseCounts(&rep, first); err != nil {
		return refactor.TestReport{}, err
	}
	failures, errors, err := parseLists(lines[1:])
	if err != nil {
		return refactor.TestReport{}, err
	}
	if err := splitFailures(&rep, failures); err != nil {
		return refactor.TestReport{}, err
	}
	if len(errors) != rep.Errors {
		return refactor.TestReport{}, fmt.Errorf("test summary lists %d tests under Errors: but counts %d errors: %q", len(errors), rep.Errors, first)
	}
	rep.ErroredTests = errors
	return rep, nil
}

// splitFailures tells the failures from the unexpected passes in the
// `Failures:` list. The real report lists both, failures first; a report
// that lists only the failures (older SUnit) is read too. Every failure
// must be named: a failing test that cannot be named could not be told
// from one that failed before, so such a report is refused rather than
// read as a pass.
func splitFailures(r *refactor.TestReport, listed []string) error {
	switch n := len(listed); {
	case n == r.Failures+r.PassedUnexpected:
		r.FailedTests = listed[:r.Failures]
		r.PassedUnexpectedTests = listed[r.Failures:]
	case n == r.Failures:
		r.FailedTests = listed
	default:
		return fmt.Errorf("test summary lists %d tests under Failures: but counts %d failures and %d unexpected passes: %q",
			n, r.Failures, r.PassedUnexpected, r.Summary)
	}
	return nil
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

// parseLists reads the `Failures:` and `Errors:` lists, one printed test
// per line.
func parseLists(lines []string) (failures, errors []string, err error) {
	failures, errors = []string{}, []string{}
	var into *[]string
	for _, l := range lines {
		l = strings.TrimSpace(l)
		switch {
		case l == "":
		case l == "Failures:":
			into = &failures
		case l == "Errors:":
			into = &errors
		case into == nil:
			// Text before the lists is not part of SUnit's report; the
			// counts still have to match what the lists name.
		case len(failures)+len(errors) >= maxListedTests:
			return nil, nil, fmt.Errorf("test report lists more than %d tests", maxListedTests)
		default:
			*into = append(*into, l)
		}
	}
	return failures, errors, nil
}
