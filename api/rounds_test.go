package api_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/internal/testenv"
)

// The audit row keeps a run's rounds — every candidate with its helper
// methods, the checks' errors and the verdicts, a failed run's too — so
// that GET /api/v1/refactorings/{id} shows them whenever and wherever the
// run was started; a page of the history leaves them out.
func TestTheRowKeepsTheRounds(t *testing.T) {
	for _, tc := range []struct {
		name        string
		body        string
		answers     testenv.Answers
		wantStatus  string
		wantRounds  int
		wantVerdict []refactor.VerdictKind
		wantHelpers []int
	}{
		{
			name:        "approved in round two",
			body:        sumBody,
			answers:     testenv.ApprovedInRoundTwo(answerTheSumBadly, "Keep the comment.", newSum),
			wantStatus:  "released",
			wantRounds:  2,
			wantVerdict: []refactor.VerdictKind{refactor.VerdictNeedsImprovement, refactor.VerdictApproved},
			wantHelpers: []int{0, 0},
		},
		{
			name: "never approved",
			body: sumBody,
			answers: testenv.Answers{
				refactor.RoleReviewer:  {testenv.Review()},
				refactor.RoleWriter:    {testenv.Code("sum: a with: b\n\t^ b + a")},
				refactor.RoleValidator: {testenv.NeedsWork("Still unclear."), testenv.NeedsWork("Still unclear.")},
				refactor.RoleRefiner:   {testenv.Code("sum: a with: b\n\t^ a + b + 0")},
			},
			wantStatus:  "failed",
			wantRounds:  2,
			wantVerdict: []refactor.VerdictKind{refactor.VerdictNeedsImprovement, refactor.VerdictNeedsImprovement},
			wantHelpers: []int{0, 0},
		},
		{
			name: "composed method",
			body: totalBody,
			answers: testenv.Answers{
				refactor.RoleReviewer:  {testenv.Review()},
				refactor.RoleWriter:    {testenv.ComposedCode(testenv.ComposedTotal, testenv.SubtotalHelper, testenv.DiscountHelper)},
				refactor.RoleValidator: {testenv.Approved()},
			},
			wantStatus:  "released",
			wantRounds:  1,
			wantVerdict: []refactor.VerdictKind{refactor.VerdictApproved},
			wantHelpers: []int{2},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, harnessOpts{maxIterations: 2})
			h.gem.ScriptAll(tc.answers)
			_, out := h.refactor(tc.body)
			id, _ := out["id"].(string)
			require.NotEmpty(t, id, "%v", out)

			row := h.row(id)
			assert.Equal(t, tc.wantStatus, row["status"])
			var rounds []refactor.Round
			raw, err := json.Marshal(row["rounds"])
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(raw, &rounds))
			require.Len(t, rounds, tc.wantRounds, "%s", raw)
			for i, r := range rounds {
				assert.Equal(t, i+1, r.Iteration)
				assert.NotEmpty(t, r.Code, "round %d keeps its candidate", i+1)
				require.NotNil(t, r.Verdict, "round %d keeps its verdict", i+1)
				assert.Equal(t, tc.wantVerdict[i], r.Verdict.Verdict, "round %d", i+1)
				assert.Len(t, r.Helpers, tc.wantHelpers[i], "round %d keeps its helper methods", i+1)
			}
			if answerRounds, ok := out["rounds"]; ok {
				assert.Equal(t, answerRounds, row["rounds"], "the row's rounds are the answer's")
			}
			if tc.wantStatus == "failed" {
				assert.Equal(t, "Still unclear.", rounds[1].Verdict.Feedback, "a failed run's last feedback is in its row")
			}

			resp, data := h.do(http.MethodGet, "/api/v1/refactorings?limit=5", "", nil)
			require.Equal(t, http.StatusOK, resp.StatusCode, "%s", data)
			var page struct{ Runs []map[string]any }
			require.NoError(t, json.Unmarshal(data, &page))
			require.Len(t, page.Runs, 1)
			assert.Contains(t, page.Runs[0], "rounds", "every key of a run is present")
			assert.Nil(t, page.Runs[0]["rounds"], "a page of the history leaves the rounds out")
		})
	}
}
