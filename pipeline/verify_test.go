package pipeline_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/agents/scripted"
)

func verify(req *refactor.Request) { req.Verify = true }

// TestVerifiedRunLeavesTheImageAsItWas: a verify run compiles the approved
// candidate, runs the tests before and after, puts the original back and
// reads it back. Every file of the image is byte for byte what it was; the
// result and the row carry both test reports and the proven candidate.
func TestVerifiedRunLeavesTheImageAsItWas(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		ref       refactor.MethodRef
		candidate string
		configure []func(*refactor.Request)
	}{
		{"instance side", sumWith, newSum, nil},
		{"class side", taxRateSide, "taxRate\n\t\"The tax rate in percent, 20 unless set\"\n\n\t^ TaxRate ifNil: [ TaxRate := 20 ]", nil},
		{"run_tests false still tests", sumWith, newSum, []func(*refactor.Request){func(r *refactor.Request) { r.RunTests = false }}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, rigOpts{script: script(tc.candidate, []scripted.Answer{approvedAnswer()})})
			before := r.snapshot()
			original := r.source(tc.ref)
			var events []string
			observe := func(req *refactor.Request) {
				req.Observe = func(e refactor.Event) {
					if e.Type == refactor.EventRelease {
						events = append(events, e.Data.(refactor.ReleaseEvent).Status)
					}
				}
			}
			res, err := r.run(tc.ref, append(append([]func(*refactor.Request){}, tc.configure...), verify, observe)...)
			require.NoError(t, err)
			assert.Equal(t, refactor.OutcomeVerified, res.Outcome)
			assert.Equal(t, refactor.StatusVerified, res.RunStatus)
			assert.Equal(t, tc.candidate, res.RefactoredCode)
			assert.False(t, res.RolledBack)
			assert.False(t, res.RestoreFailed)
			require.True(t, res.Tests.Ran, "a verify run is its tests")
			require.NotEmpty(t, res.Tests.Before, "the tests before")
			assert.Len(t, res.Tests.After, len(res.Tests.Before), "and after")
			assert.Empty(t, res.Tests.Regressions)
			assert.Positive(t, res.Tests.After[0].Report.Passed, "the candidate was tested in the image")
			assert.Equal(t, []string{"started", "tests_before", "putting_back", "verified"}, events)

			assert.Equal(t, before, r.snapshot(), "every file of the image is as it was")
			assert.Equal(t, original, r.source(tc.ref))
			row := r.row(res.ID)
			assert.Equal(t, refactor.StatusVerified, row.Status)
			assert.True(t, row.Verify)
			assert.True(t, row.RunTests)
			assert.Nil(t, row.ReleasedAt, "nothing stayed released")
			assert.Equal(t, tc.candidate, row.FinalSource)
			assert.NotEmpty(t, row.TestsBefore)
			assert.NotEmpty(t, row.TestsAfter)

			page, err := r.audit.List(context.Background(), refactor.ListQuery{Status: refactor.StatusVerified})
			require.NoError(t, err)
			require.Len(t, page.Runs, 1)
			assert.Equal(t, res.ID, page.Runs[0].ID)

			_, err = revertOf(r, res.ID)
			assert.True(t, refactor.IsKind(err, refactor.InvalidRequest), "a verified run released nothing to revert: %v", err)
		})
	}
}

func revertOf(r *rig, id string) (refactor.Run, error) {
	slot, err := r.pipe.Reserve()
	require.NoError(r.t, err)
	return slot.Revert(context.Background(), id, "test")
}

// TestVerifyWithARegression: a candidate that breaks a test ends
// tests_regressed with both reports, the original back, rolled_back.
func TestVerifyWithARegression(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOpts{script: script(subtractingSum, []scripted.Answer{approvedAnswer()}), noEquivalence: testGateOnly})
	before := r.snapshot()
	res, err := r.run(sumWith, verify)
	require.Error(t, err)
	assert.True(t, refactor.IsKind(err, refactor.TestsRegressed), "%v", err)
	assert.True(t, res.RolledBack)
	assert.Equal(t, []string{"CalculatorTest>>#testSum"}, res.Tests.Regressions)
	assert.NotEmpty(t, res.Tests.Before)
	assert.NotEmpty(t, res.Tests.After)
	assert.Equal(t, before, r.snapshot())
	row := r.row(res.ID)
	assert.Equal(t, refactor.StatusRolledBack, row.Status)
	assert.True(t, row.Verify)
	assert.Equal(t, string(refactor.TestsRegressed), row.ErrorCode)
}

// TestVerifyAndDryRunExcludeEachOther: the pipeline refuses the pair
// itself, whoever calls it, before anything is recorded.
func TestVerifyAndDryRunExcludeEachOther(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOpts{script: script(newSum, []scripted.Answer{approvedAnswer()})})
	_, err := r.run(sumWith, verify, func(req *refactor.Request) { req.DryRun = true })
	require.Error(t, err)
	assert.True(t, refactor.IsKind(err, refactor.InvalidRequest), "%v", err)
	page, err := r.audit.List(context.Background(), refactor.ListQuery{})
	require.NoError(t, err)
	assert.Empty(t, page.Runs)
	assert.Zero(t, r.model.count(refactor.RoleReviewer))
}

// TestVerifyInterruptedIsPutBack: a verify run's row left in releasing is
// never settled as released: its final source found in the image is put
// back; the original found there settles it not_released. A verify run
// that could not put the original back (restore_failed) is finished the
// same way.
func TestVerifyInterruptedIsPutBack(t *testing.T) {
	t.Parallel()
	cases := []struct {
		holds  string
		status refactor.Status
		want   refactor.Status
	}{
		{"final", refactor.StatusReleasing, refactor.StatusRolledBack},
		{"original", refactor.StatusReleasing, refactor.StatusNotReleased},
		{"final", refactor.StatusRestoreFailed, refactor.StatusRolledBack},
	}
	for _, tc := range cases {
		holds := tc.holds
		t.Run(string(tc.status)+", image holds the "+holds, func(t *testing.T) {
			r := newRig(t, rigOpts{})
			ctx := context.Background()
			before := r.snapshot()
			original := r.source(sumWith)
			id := "verify-releasing"
			require.NoError(t, r.audit.Create(ctx, refactor.Run{ID: id, Kind: refactor.RunKindRefactor, ClassName: sumWith.Class,
				Selector: sumWith.Selector, Verify: true, RunTests: true, Status: refactor.StatusRunning}))
			require.NoError(t, r.audit.BeginRelease(ctx, id, original, "calculating", newSum, nil))
			if tc.status == refactor.StatusRestoreFailed {
				row := r.row(id)
				row.Status, row.RestoreFailed = refactor.StatusRestoreFailed, true
				require.NoError(t, r.audit.Update(ctx, row))
			}
			want := tc.want
			if holds == "final" {
				require.NoError(t, r.image.Install(ctx, sumWith, newSum, "calculating"))
			}
			settled, err := r.pipe.Reconcile(ctx)
			require.NoError(t, err)
			require.Len(t, settled, 1)
			assert.Equal(t, want, settled[0].Status)
			row := r.row(id)
			assert.Equal(t, want, row.Status)
			assert.Contains(t, row.Notes, "verify run")
			assert.Equal(t, before, r.snapshot(), "the image holds the original, byte for byte")
		})
	}
}

// A verify run of a Composed Method set compiles the helpers and the
// method, tests them, and removes the helpers as it puts the original
// back: every file of the image is as it was; the result and the row keep
// the whole set, the proven proposal.
func TestVerifiedComposedMethodLeavesTheImageAsItWas(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOpts{script: composedScript(composedAnswer(composedTotal, subtotalHelper, discountHelper), []scripted.Answer{approvedAnswer()})})
	before := r.snapshot()
	res, err := r.run(total, verify)
	require.NoError(t, err)
	assert.Equal(t, refactor.OutcomeVerified, res.Outcome)
	require.Len(t, res.Helpers, 2)
	require.NotEmpty(t, res.Tests.After, "the set was tested in the image")
	assert.Empty(t, res.Tests.Regressions)
	assert.Equal(t, before, r.snapshot(), "the method is back and the helpers are gone")
	row := r.row(res.ID)
	assert.Equal(t, refactor.StatusVerified, row.Status)
	assert.Equal(t, res.Helpers, row.Helpers, "the row keeps the whole set")
}

// A verify run of a set that breaks a test ends tests_regressed, the
// original set back.
func TestVerifyOfAComposedMethodWithARegression(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOpts{script: composedScript(composedAnswer(taxlessTotal, subtotalHelper, discountHelper), []scripted.Answer{approvedAnswer()}),
		noEquivalence: testGateOnly})
	before := r.snapshot()
	res, err := r.run(total, verify)
	require.Error(t, err)
	assert.Equal(t, refactor.TestsRegressed, refactor.KindOf(err), "%v", err)
	assert.Contains(t, res.Tests.Regressions, "ShoppingCartTest>>#testTotal")
	assert.Equal(t, before, r.snapshot())
	assert.Equal(t, refactor.StatusRolledBack, r.row(res.ID).Status)
}

// A verify run of a set interrupted with the whole new set in the image is
// settled at the next start to the whole original set.
func TestVerifyOfAComposedMethodInterruptedIsPutBack(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOpts{})
	ctx := context.Background()
	before := r.snapshot()
	original := r.source(total)
	helpers := []refactor.Helper{
		{Selector: "subtotal", Protocol: "private", Source: subtotalHelper},
		{Selector: "loyaltyDiscountOn:", Protocol: "private", Source: discountHelper},
	}
	id := "verify-set"
	require.NoError(t, r.audit.Create(ctx, refactor.Run{ID: id, Kind: refactor.RunKindRefactor, ClassName: total.Class,
		Selector: total.Selector, Verify: true, RunTests: true, Status: refactor.StatusRunning}))
	require.NoError(t, r.audit.BeginRelease(ctx, id, original, "pricing", composedTotal, helpers))
	for _, h := range helpers {
		require.NoError(t, r.image.Install(ctx, h.Ref(total.Class), h.Source, h.Protocol))
	}
	require.NoError(t, r.image.Install(ctx, total, composedTotal, "pricing"))

	settled, err := r.pipe.Reconcile(ctx)
	require.NoError(t, err)
	require.Len(t, settled, 1)
	assert.Equal(t, refactor.StatusRolledBack, settled[0].Status)
	row := r.row(id)
	assert.Contains(t, row.Notes, "verify run")
	assert.Contains(t, row.Notes, "none of the 2 helper methods is in the image")
	assert.Equal(t, before, r.snapshot(), "the original set, byte for byte")
}
