package pipeline_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/agents/scripted"
)

// The test-gate tree (testdata/test-gate): Foo>>total is guarded by FooTest
// (its own test class, whose tests come from AbstractFooTest), and sent by
// AbstractFooTest and ReportTest (TestCases of its package), BarTest (not a
// TestCase, whatever its name), Report (plain class) and OtherTest (a
// TestCase of another package).
const gateTree = "testdata/test-gate"

var fooTotal = refactor.MethodRef{Class: "Foo", Selector: "total"}

const (
	// betterTotal keeps every test green.
	betterTotal = "total\n\t\"Answer the sum of my items\"\n\n\t^ items inject: 0 into: [ :sum :each | sum + each ]"
	// sizeTotal is approved by the validator but breaks testTotal and
	// ReportTest>>#testSummary.
	sizeTotal = "total\n\t\"Answer the total\"\n\n\t^ items size"
	// loopingTotal passes every check, and makes testTotal loop forever.
	loopingTotal = "total\n\t| sum |\n\tsum := 0.\n\t[ sum < 0 ] whileTrue: [ sum := sum - 1 ].\n\titems do: [ :each | sum := sum + each ].\n\t^ sum"
)

type chosenTest struct {
	Class  string
	Reason refactor.TestReason
}

func chosen(runs []refactor.TestRun) []chosenTest {
	out := []chosenTest{}
	for _, r := range runs {
		out = append(out, chosenTest{r.Class, r.Reason})
	}
	return out
}

// TestTheTestsADeveloperWouldRun: the class's own TestCase first, then the
// TestCases of its package that send the selector, by name; a global named
// like a test that is no TestCase never runs (run_class_test would raise
// MessageNotUnderstood); another package's TestCase only when configured;
// at most the configured number. Each class runs once before and once after,
// and the result and the audit row say why it ran.
func TestTheTestsADeveloperWouldRun(t *testing.T) {
	t.Parallel()
	own := chosenTest{"FooTest", refactor.TestOwnClass}
	abstract := chosenTest{"AbstractFooTest", refactor.TestSenderInPackage}
	report := chosenTest{"ReportTest", refactor.TestSenderInPackage}
	other := chosenTest{"OtherTest", refactor.TestSenderConfigured}
	cases := []struct {
		name     string
		max      int
		packages []string
		want     []chosenTest
	}{
		{"own test class, then the package's TestCases that send the selector", 0, nil, []chosenTest{own, abstract, report}},
		{"another package only when configured", 0, []string{"Gate-Oth*"}, []chosenTest{own, abstract, report, other}},
		{"bounded", 2, []string{"Gate-Other"}, []chosenTest{own, abstract}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, rigOpts{tree: gateTree, maxTestClasses: tc.max, testPackages: tc.packages,
				script: script(betterTotal, []scripted.Answer{approvedAnswer()})})
			res, err := r.run(fooTotal)
			require.NoError(t, err)
			assert.Equal(t, refactor.OutcomeReleased, res.Outcome)
			assert.Equal(t, tc.want, chosen(res.Tests.Before))
			assert.Equal(t, tc.want, chosen(res.Tests.After), "each class once before and once after")
			var names []string
			for _, c := range tc.want {
				names = append(names, c.Class)
			}
			assert.Equal(t, names, res.Tests.Classes)
			assert.NotContains(t, res.Tests.Classes, "BarTest")

			var row []refactor.TestRun
			require.NoError(t, json.Unmarshal(r.row(res.ID).TestsBefore, &row))
			assert.Equal(t, tc.want, chosen(row), "the audit row says which classes ran and why")
		})
	}
}

// TestRealReportsAroundARelease: FooTest's report holds an expected failure,
// an unexpected pass (listed under Failures:) and inherited tests; it parses
// to the right counts, the unexpected pass is no regression, and a real
// regression among them still rolls the release back.
func TestRealReportsAroundARelease(t *testing.T) {
	t.Parallel()
	t.Run("green: the unexpected pass does not block", func(t *testing.T) {
		r := newRig(t, rigOpts{tree: gateTree, script: script(betterTotal, []scripted.Answer{approvedAnswer()})})
		res, err := r.run(fooTotal)
		require.NoError(t, err)
		require.NotEmpty(t, res.Tests.Before)
		before := res.Tests.Before[0].Report
		assert.Equal(t, 4, before.Ran)
		assert.Equal(t, 2, before.Passed)
		assert.Equal(t, 1, before.ExpectedFailures)
		assert.Equal(t, 1, before.PassedUnexpected)
		assert.Empty(t, before.FailedTests)
		assert.Equal(t, []string{"FooTest(AbstractFooTest)>>#testKnownBug"}, before.PassedUnexpectedTests)
		assert.Empty(t, res.Tests.Regressions)
		assert.Contains(t, r.source(fooTotal), "inject:")
	})
	t.Run("a regression among them rolls back", func(t *testing.T) {
		r := newRig(t, rigOpts{tree: gateTree, script: script(sizeTotal, []scripted.Answer{approvedAnswer()}), noEquivalence: testGateOnly})
		image := r.snapshot()
		res, err := r.run(fooTotal)
		require.Error(t, err)
		assert.Equal(t, refactor.TestsRegressed, refactor.KindOf(err), "%v", err)
		assert.Equal(t, []string{"FooTest(AbstractFooTest)>>#testTotal", "ReportTest>>#testSummary"}, res.Tests.Regressions)
		after := res.Tests.After[0].Report
		assert.Equal(t, 1, after.Failures)
		assert.Equal(t, []string{"FooTest(AbstractFooTest)>>#testTotal"}, after.FailedTests)
		assert.Equal(t, []string{"FooTest(AbstractFooTest)>>#testKnownBug"}, after.PassedUnexpectedTests)
		assert.True(t, res.RolledBack)
		assert.Equal(t, image, r.snapshot(), "the original is back, byte for byte")
		assert.Equal(t, refactor.StatusRolledBack, r.row(res.ID).Status)
	})
}

// TestTestsOverTheLimitAreInconclusive: a test run that does not finish in
// time — the MCP server's per-call limit answering "Connection error: timed
// out", or TEST_TIMEOUT — is tests_inconclusive, not pharo_unavailable;
// before the compile nothing is compiled, after it the original is put
// back; the detail names the real server's 30 s limit and how to raise it.
func TestTestsOverTheLimitAreInconclusive(t *testing.T) {
	slowFoo := `{"FooTest": {"tests": ["testEmpty"], "duration": "1h"}}`
	cases := []struct {
		name      string
		opts      rigOpts
		candidate string
		status    refactor.Status
		detail    []string
	}{
		{"the run before the compile hits the server's limit",
			rigOpts{oracle: slowFoo, callLimit: 300 * time.Millisecond}, betterTotal, refactor.StatusFailed,
			[]string{"nothing was compiled", "Connection error: timed out", "30 s", "PHARO_MCP_ENV", "TEST_TIMEOUT"}},
		{"the run after the compile never ends",
			rigOpts{callLimit: 300 * time.Millisecond}, loopingTotal, refactor.StatusRolledBack,
			[]string{"the original was put back", "Connection error: timed out", "30 s", "PHARO_MCP_ENV"}},
		{"TEST_TIMEOUT ends the run first",
			rigOpts{oracle: slowFoo, testTimeout: 300 * time.Millisecond}, betterTotal, refactor.StatusFailed,
			[]string{"nothing was compiled", "TEST_TIMEOUT (300ms)", "30 s", "PHARO_MCP_ENV"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.tree = gateTree
			tc.opts.script = script(tc.candidate, []scripted.Answer{approvedAnswer()})
			r := newRig(t, tc.opts)
			image := r.snapshot()
			res, err := r.run(fooTotal)
			require.Error(t, err)
			assert.Equal(t, refactor.TestsInconclusive, refactor.KindOf(err), "%v", err)
			for _, d := range tc.detail {
				assert.Contains(t, err.Error(), d)
			}
			assert.Equal(t, image, r.snapshot(), "the image holds the original, byte for byte")
			row := r.row(res.ID)
			assert.Equal(t, tc.status, row.Status)
			assert.Equal(t, tc.status, res.RunStatus)
			assert.Equal(t, string(refactor.TestsInconclusive), row.ErrorCode)
			assert.Equal(t, err.Error(), row.ErrorMessage)
			assert.True(t, row.RunTests)
		})
	}
}
