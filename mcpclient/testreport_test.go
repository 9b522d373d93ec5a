package mcpclient

import (
	refactor "pharo-refactor"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseTestReport(t *testing.T) {
	cases := []struct {
		name    string
		text    string
		want    refactor.TestReport
		wantErr string
	}{
		{
			name: "all green, plural nouns",
			text: "3 ran, 3 passed, 0 skipped, 0 expected failures, 0 failures, 0 errors, 0 passed unexpected",
			want: refactor.TestReport{Ran: 3, Passed: 3},
		},
		{
			name: "singular nouns and lists with CR endings",
			text: "3 ran, 1 passed, 0 skipped, 1 expected failure, 1 failure, 1 error, 1 passed unexpected\rFailures:\rCalculatorTest>>#testSum\rErrors:\rSub(CalculatorTest)>>#testDivide\r",
			want: refactor.TestReport{Ran: 3, Passed: 1, ExpectedFailures: 1, Failures: 1, Errors: 1, PassedUnexpected: 1,
				FailedTests: []string{"CalculatorTest>>#testSum"}, ErroredTests: []string{"Sub(CalculatorTest)>>#testDivide"}},
		},
		{
			name: "no tests",
			text: "No tests ran",
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
			wantErr: "lists more tests",
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
			if tc.want.FailedTests == nil {
				tc.want.FailedTests = []string{}
			}
			if tc.want.ErroredTests == nil {
				tc.want.ErroredTests = []string{}
			}
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
