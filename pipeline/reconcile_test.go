package pipeline_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/agents/scripted"
)

// TestReconcileSettlesEveryUnsettledRow: rows a previous process left
// running, releasing or restore_failed are settled at start-up by what the
// image holds, and none is left unsettled.
func TestReconcileSettlesEveryUnsettledRow(t *testing.T) {
	t.Parallel()
	const other = "sum: a with: b\n\t\"a person's edit\"\n\t^ a + b"
	cases := []struct {
		name   string
		status refactor.Status // the row's status when the process stopped
		image  string          // what the image holds: "original", "final" or another source
		want   refactor.Status
		holds  string // what the image must hold afterwards
	}{
		{"running: nothing was compiled", refactor.StatusRunning, "original", refactor.StatusNotReleased, "original"},
		{"releasing, the compile took effect", refactor.StatusReleasing, "final", refactor.StatusReleased, "final"},
		{"releasing, the compile never happened", refactor.StatusReleasing, "original", refactor.StatusNotReleased, "original"},
		{"releasing, someone else's source", refactor.StatusReleasing, other, refactor.StatusConflict, other},
		{"restore_failed, the candidate is still in", refactor.StatusRestoreFailed, "final", refactor.StatusRolledBack, "original"},
		{"restore_failed, the restore had worked", refactor.StatusRestoreFailed, "original", refactor.StatusRolledBack, "original"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, rigOpts{})
			ctx := context.Background()
			original := r.source(sumWith)
			sources := map[string]string{"original": original, "final": newSum}
			id := r.unsettledRow(tc.status, original, newSum)
			if src, ok := sources[tc.image]; ok {
				tc.image = src
			}
			require.NoError(t, r.image.Install(ctx, sumWith, tc.image, "calculating"))

			settled, err := r.pipe.Reconcile(ctx)
			require.NoError(t, err)
			require.Len(t, settled, 1)
			assert.Equal(t, tc.want, settled[0].Status)
			assert.Equal(t, tc.want, r.row(id).Status)
			assert.NotEmpty(t, r.row(id).Notes, "the row says why")
			want, ok := sources[tc.holds]
			if !ok {
				want = tc.holds
			}
			assert.True(t, refactor.SameSource(want, r.source(sumWith)), "the image holds %q", tc.holds)
			left, err := r.audit.Unsettled(ctx)
			require.NoError(t, err)
			assert.Empty(t, left)
		})
	}
}

// unsettledRow writes the row a process would have left at status.
func (r *rig) unsettledRow(status refactor.Status, original, final string) string {
	r.t.Helper()
	ctx := context.Background()
	id := "unsettled-" + string(status)
	require.NoError(r.t, r.audit.Create(ctx, refactor.Run{ID: id, Kind: refactor.RunKindRefactor, ClassName: sumWith.Class,
		Selector: sumWith.Selector, Status: refactor.StatusRunning}))
	if status == refactor.StatusRunning {
		return id
	}
	require.NoError(r.t, r.audit.BeginRelease(ctx, id, original, "calculating", final, nil))
	if status == refactor.StatusRestoreFailed {
		row := r.row(id)
		row.Status, row.RestoreFailed = refactor.StatusRestoreFailed, true
		require.NoError(r.t, r.audit.Update(ctx, row))
	}
	return id
}

// TestRevert: a released run is reverted once, through the slot, as its own
// row; a second revert, a revert after a person's edit and a revert of a
// run that was never released are refused, and nothing changes.
func TestRevert(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOpts{script: script(newSum, []scripted.Answer{approvedAnswer()})})
	before := r.snapshot()
	res, err := r.run(sumWith)
	require.NoError(t, err)

	rev := r.revert(res.ID)
	require.NoError(t, rev.err)
	assert.Equal(t, refactor.RunKindRevert, rev.row.Kind)
	assert.Equal(t, res.ID, rev.row.RevertOf)
	assert.Equal(t, refactor.StatusReleased, rev.row.Status)
	assert.Equal(t, before, r.snapshot(), "the original is back, byte for byte")
	assert.Equal(t, refactor.StatusReverted, r.row(res.ID).Status)
	assert.NotNil(t, r.row(res.ID).RevertedAt)

	again := r.revert(res.ID)
	assert.Equal(t, refactor.MethodChanged, refactor.KindOf(again.err), "a second revert")
	assert.Equal(t, refactor.NotFound, refactor.KindOf(r.revert("no-such-run").err))
	assert.Equal(t, refactor.InvalidRequest, refactor.KindOf(r.revert(rev.row.ID).err), "a revert of a revert")
	assert.Equal(t, before, r.snapshot())
}

func TestRevertAfterAnEditIsRefused(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOpts{script: script(newSum, []scripted.Answer{approvedAnswer()})})
	res, err := r.run(sumWith)
	require.NoError(t, err)
	edited := "sum: a with: b\n\t\"edited later\"\n\t^ a + b"
	require.NoError(t, r.image.Install(context.Background(), sumWith, edited, "calculating"))
	assert.Equal(t, refactor.MethodChanged, refactor.KindOf(r.revert(res.ID).err))
	assert.Contains(t, r.source(sumWith), "edited later")
	assert.Equal(t, refactor.StatusReleased, r.row(res.ID).Status)
}

func TestRevertOfARunNeverReleasedIsRefused(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOpts{script: script(newSum, []scripted.Answer{approvedAnswer()})})
	res, err := r.run(sumWith, func(req *refactor.Request) { req.DryRun = true })
	require.NoError(t, err)
	assert.Equal(t, refactor.InvalidRequest, refactor.KindOf(r.revert(res.ID).err))
}

type revertResult struct {
	row refactor.Run
	err error
}

func (r *rig) revert(id string) revertResult {
	r.t.Helper()
	slot, err := r.pipe.Reserve()
	require.NoError(r.t, err)
	row, err := slot.Revert(context.Background(), id, "test")
	return revertResult{row, err}
}
