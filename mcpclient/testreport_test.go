package mcpclient

import (
	refactor "github.com/pharo-refactor/refactord"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParseTestReport reads reports as SUnit prints them on the real
// server (TestResult>>fileOutOn:): CR line endings, singular nouns at 1,
// unexpected passes listed under Failures after the failures, expected
// failures counted and never listed, inherited tests as Sub(Super)>>#sel.
func TestParseTestReport(t *testing.T) {
	cases := []struct {
		name    string
		text    string
		want    refactor.TestReport
		wantErr string
	}{
		{
			name: "all green, plural nouns",
			text: "3 ran, 3 passed, 0 skipped, 0 expected failures, 0 failures, 0 errors, 0 passed unexpected\rFailures:\r\rErrors:\r",
			want: refactor.TestReport{Ran: 3, Passed: 3},
		},
		{
			name: "singular nouns, a failure and an inherited error",
			text: "3 ran, 1 passed, 0 skipped, 1 expected failure, 1 failure, 1 error, 0 passed unexpected\rFailures:\rCalculatorTest>>#testSum\r\rErrors:\rSub(CalculatorTest)>>#testDivide\r",
			want: refactor.TestReport{Ran: 3, Passed: 1, ExpectedFailures: 1, Failures: 1, Errors: 1,
				FailedTests: []string{"CalculatorTest>>#testSum"}, ErroredTests: []string{"Sub(CalculatorTest)>>#testDivide"}},
		},
		{
			name: "an unexpected pass is listed under Failures but is no failure",
			text: "4 ran, 2 passed, 0 skipped, 1 expected failure, 0 failures, 0 errors, 1 passed unexpected\rFailures:\rFooTest>>#testKnownBug\r\rErrors:\r",
			want: refactor.TestReport{Ran: 4, Passed: 2, ExpectedFailures: 1, PassedUnexpected: 1,
				PassedUnexpectedTests: []string{"FooTest>>#testKnownBug"}},
		},
		{
			name: "failures first, then the unexpected passes, inherited ones included",
			text: "9 ran, 3 passed, 1 skipped, 2 expected failures, 2 failures, 0 errors, 2 passed unexpected\r" +
				"Failures:\rFooTest>>#testA\rFooSubTest(FooTest)>>#testB\rFooTest>>#testX\rFooSubTest(FooTest)>>#testY\r\rErrors:\r",
			want: refactor.TestReport{Ran: 9, Passed: 3, Skipped: 1, ExpectedFailures: 2, Failures: 2, PassedUnexpected: 2,
				FailedTests:           []string{"FooTest>>#testA", "FooSubTest(FooTest)>>#testB"},
				PassedUnexpectedTests: []string{"FooTest>>#testX", "FooSubTest(FooTest)>>#testY"}},
		},
		{
			name: "older SUnit: only the failures listed",
			text: "2 ran, 0 passed, 0 skipped, 0 expected failures, 1 failure, 0 errors, 1 passed unexpected\nFailures:\nFooTest>>#testA\nErrors:\n",
			want: refactor.TestReport{Ran: 2, Failures: 1, PassedUnexpected: 1, FailedTests: []string{"FooTest>>#testA"}},
		},
		{
			name: "no tests",
			text: "No tests ran\rFailures:\r\rErrors:\r",
			want: refactor.TestReport{},
		},
		{
			name:    "not a summary",
			text:    "Error: class not found",
			wantErr: "unrecognised test summary",
		},
		{
			name:    "no run count",
			text:    "1 passed",
			wantErr: "without a run count",
		},
		{
			name:    "more listed than counted",
			text:    "1 ran, 1 passed, 0 skipped, 0 expected failures, 0 failures, 0 errors, 0 passed unexpected\rFailures:\rA>>#testA",
			wantErr: "lists 1 tests under Failures: but counts 0 failures",
		},
		{
			name:    "a failure counted but not named cannot be judged",
			text:    "2 ran, 1 passed, 0 skipped, 0 expected failures, 1 failure, 0 errors, 0 passed unexpected\rFailures:\r\rErrors:\r",
			wantErr: "lists 0 tests under Failures: but counts 1 failures",
		},
		{
			name:    "an error counted but not named",
			text:    "1 ran, 0 passed, 0 skipped, 0 expected failures, 0 failures, 1 error, 0 passed unexpected\rFailures:\r\rErrors:\r",
			wantErr: "lists 0 tests under Errors: but counts 1 errors",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseTestReport(tc.text)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			for _, l := range []*[]string{&tc.want.FailedTests, &tc.want.ErroredTests, &tc.want.PassedUnexpectedTests} {
				if *l == nil {
					*l = []string{}
				}
			}
			assert.Equal(t, strings.SplitN(strings.ReplaceAll(tc.text, "\r", "\n"), "\n", 2)[0], got.Summary, "the first line, verbatim")
			got.Summary = ""
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestParseDryCompile(t *testing.T) {
	cases := []struct {
		answer  string
		want    []refactor.CompileError
		wantErr bool
	}{
		{"OK", nil, false},
		{"ERR|12|Variable or expression expected", []refactor.CompileError{{Position: 12, Message: "Variable or expression expected"}}, false},
		{"ERR|?|Undeclared variable", []refactor.CompileError{{Position: 0, Message: "Undeclared variable"}}, false},
		{"ERR|3|a|b", []refactor.CompileError{{Position: 3, Message: "a|b"}}, false},
		{"nonsense", nil, true},
	}
	for _, tc := range cases {
		got, err := parseDryCompile(tc.answer)
		if tc.wantErr {
			assert.Error(t, err, tc.answer)
			continue
		}
		require.NoError(t, err, tc.answer)
		assert.Equal(t, tc.want, got, tc.answer)
	}
}

func TestSameSource(t *testing.T) {
	assert.True(t, refactor.SameSource("foo\r\t^ 1  \r", "foo\n\t^ 1\n\n"))
	assert.True(t, refactor.SameSource("foo\r\n\t^ 1", "foo\n\t^ 1"))
	assert.False(t, refactor.SameSource("foo\n\t^ 1", "foo\n\t^ 2"))
	assert.False(t, refactor.SameSource("foo\n\t^ 1", "foo\n^ 1"), "leading blanks are significant")
	assert.Equal(t, "a\nb\nc", refactor.NormalizeSource("a\r\nb\rc"))
}
