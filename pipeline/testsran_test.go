package pipeline_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/agents/scripted"
)

// TestNoTestsRanIsNoPass: an image that answers "No tests ran" for a test
// class defining test methods has judged nothing. The run ends
// tests_inconclusive before anything is compiled, whatever the candidate;
// the answer and the row say that none ran. An abstract TestCase (it
// answers isAbstract) running none is no such case.
func TestNoTestsRanIsNoPass(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		oracle    string
		candidate string
		wantErr   bool
		detail    []string
	}{
		{"the own test class runs none of its tests",
			`{"FooTest": {"tests": []}, "ReportTest": {"tests": ["testSummary"]}}`, sizeTotal, true,
			[]string{"FooTest defines 1 test methods (testEmpty)", "No tests ran", "nothing was compiled"}},
		{"a sender in the package runs none, even for a harmless candidate",
			`{"FooTest": {"tests": ["testEmpty"]}, "ReportTest": {"tests": []}}`, betterTotal, true,
			[]string{"ReportTest defines 1 test methods (testSummary)", "No tests ran"}},
		{"the abstract class running none is no obstacle",
			`{"FooTest": {"tests": ["testEmpty"]}, "ReportTest": {"tests": ["testSummary"]}}`, betterTotal, false, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, rigOpts{tree: gateTree, oracle: tc.oracle, script: script(tc.candidate, []scripted.Answer{approvedAnswer()}), noEquivalence: testGateOnly})
			image := r.snapshot()
			res, err := r.run(fooTotal)
			if !tc.wantErr {
				require.NoError(t, err)
				assert.Equal(t, refactor.OutcomeReleased, res.Outcome)
				abstract := res.Tests.Before[1]
				require.Equal(t, "AbstractFooTest", abstract.Class)
				assert.Equal(t, 0, abstract.Report.Ran)
				return
			}
			require.Error(t, err)
			assert.Equal(t, refactor.TestsInconclusive, refactor.KindOf(err), "%v", err)
			for _, d := range tc.detail {
				assert.Contains(t, err.Error(), d)
			}
			assert.Equal(t, image, r.snapshot(), "nothing stays released")
			assert.Empty(t, res.Tests.After, "nothing was compiled, so nothing ran after")
			last := res.Tests.Before[len(res.Tests.Before)-1]
			assert.Equal(t, 0, last.Report.Ran, "the answer says none ran")
			row := r.row(res.ID)
			assert.Equal(t, refactor.StatusFailed, row.Status)
			assert.Equal(t, string(refactor.TestsInconclusive), row.ErrorCode)
			var before []refactor.TestRun
			require.NoError(t, json.Unmarshal(row.TestsBefore, &before))
			require.NotEmpty(t, before)
			assert.Equal(t, 0, before[len(before)-1].Report.Ran, "the row says none ran")
		})
	}
}
