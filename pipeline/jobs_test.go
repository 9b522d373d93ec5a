package pipeline_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/agents/scripted"
)

// holdRole makes the model wait before answering role, until the test lets
// it go; entered is closed when the call arrived.
func holdRole(r *rig, role refactor.Role) (entered chan struct{}, release func()) {
	entered, gate := make(chan struct{}), make(chan struct{})
	r.model.before = func(got refactor.Role) {
		if got == role {
			close(entered)
			<-gate
		}
	}
	return entered, func() { close(gate) }
}

// TestStartedRunOutlivesItsCaller: a run started as a job has its row (and
// so its id) before any model call, goes on when whoever started it stops
// waiting, and is released and recorded.
func TestStartedRunOutlivesItsCaller(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOpts{script: script(newSum, []scripted.Answer{approvedAnswer()})})
	inReview, release := holdRole(r, refactor.RoleReviewer)
	job, err := r.pipe.Start(context.Background(), refactor.Request{Ref: sumWith, RunTests: true, RequestID: "detached"})
	require.NoError(t, err)
	row := r.row(job.ID())
	assert.Equal(t, refactor.StatusRunning, row.Status, "the row exists when Start returns")

	<-inReview
	assert.Zero(t, r.model.count(refactor.RoleWriter), "the run is held in review")
	assert.Equal(t, refactor.StageReview, r.row(job.ID()).Stage, "the row says where the run is")
	_, busy := r.pipe.Reserve()
	assert.Equal(t, refactor.Busy, refactor.KindOf(busy), "the job holds the slot")
	release() // nobody waits on the job: its caller is gone
	r.pipe.WaitIdle()

	row = r.row(job.ID())
	assert.Equal(t, refactor.StatusReleased, row.Status)
	assert.Equal(t, refactor.StageRelease, row.Stage, "the last stage reached stays")
	assert.Contains(t, r.source(sumWith), "Answer the sum of a and b", "the image holds the new method")
	res, err := job.Result()
	require.NoError(t, err)
	assert.Equal(t, refactor.OutcomeReleased, res.Outcome)
}

// slowRole is the usual conversation with role's answer delayed for a
// minute: a call the run's context cuts short.
func slowRole(role refactor.Role) map[refactor.Role][]scripted.Answer {
	s := script(newSum, []scripted.Answer{approvedAnswer()})
	s[role] = []scripted.Answer{{JSON: s[role][0].JSON, DelayMS: 60_000}}
	return s
}

// inCall waits until role's model call has begun.
func (r *rig) inCall(role refactor.Role) {
	r.t.Helper()
	require.Eventually(r.t, func() bool { return r.model.count(role) > 0 }, 30*time.Second, 5*time.Millisecond, "%s is called", role)
}

// TestCancel: a cancel before the release stops the run (nothing released,
// row canceled, the slot free); a second cancel answers the same; a cancel
// once the release began, or after the run ended, is refused and changes
// nothing; an unknown id is not found.
func TestCancel(t *testing.T) {
	t.Run("before release", func(t *testing.T) {
		r := newRig(t, rigOpts{script: slowRole(refactor.RoleReviewer)})
		before := r.file("Calculator")
		job, err := r.pipe.Start(context.Background(), refactor.Request{Ref: sumWith, RunTests: true})
		require.NoError(t, err)
		r.inCall(refactor.RoleReviewer)
		row, err := r.pipe.Cancel(context.Background(), job.ID())
		require.NoError(t, err)
		assert.Equal(t, refactor.StatusCanceled, row.Status, "the row is final when Cancel answers")
		assert.Equal(t, string(refactor.Canceled), row.ErrorCode)
		assert.Equal(t, refactor.StageReview, row.Stage, "where it stopped")
		assert.NotNil(t, row.FinishedAt)
		_, err = job.Result()
		assert.Equal(t, refactor.Canceled, refactor.KindOf(err))
		assert.False(t, r.pipe.Busy(), "the slot is free")
		assert.Equal(t, before, r.file("Calculator"), "nothing was released")
		assert.Zero(t, r.model.count(refactor.RoleWriter)+r.model.count(refactor.RoleValidator), "the run stopped")

		again, err := r.pipe.Cancel(context.Background(), job.ID())
		require.NoError(t, err, "cancelling a canceled run answers the same")
		assert.Equal(t, refactor.StatusCanceled, again.Status)
	})
	t.Run("after release began", func(t *testing.T) {
		atCompile, goOn := make(chan struct{}), make(chan struct{})
		r := newRig(t, rigOpts{
			script: script(newSum, []scripted.Answer{approvedAnswer()}),
			checkpoint: func(point string) {
				if point == "after_write_ahead" {
					close(atCompile)
					<-goOn
				}
			},
		})
		job, err := r.pipe.Start(context.Background(), refactor.Request{Ref: sumWith, RunTests: true})
		require.NoError(t, err)
		<-atCompile
		row, err := r.pipe.Cancel(context.Background(), job.ID())
		assert.Equal(t, refactor.NotCancelable, refactor.KindOf(err), "%v", err)
		assert.Equal(t, refactor.StatusReleasing, row.Status, "the answer says where the run stands")
		close(goOn)
		res, err := job.Result()
		require.NoError(t, err, "the release completed")
		assert.Equal(t, refactor.OutcomeReleased, res.Outcome)
		assert.Equal(t, refactor.StatusReleased, r.row(job.ID()).Status)
		assert.Contains(t, r.source(sumWith), "Answer the sum of a and b")
	})
	t.Run("after the run ended", func(t *testing.T) {
		r := newRig(t, rigOpts{script: script(newSum, []scripted.Answer{approvedAnswer()})})
		res, err := r.run(sumWith, func(q *refactor.Request) { q.DryRun = true })
		require.NoError(t, err)
		row, err := r.pipe.Cancel(context.Background(), res.ID)
		assert.Equal(t, refactor.NotCancelable, refactor.KindOf(err), "%v", err)
		assert.Equal(t, refactor.StatusProposed, row.Status)
		assert.Equal(t, refactor.StatusProposed, r.row(res.ID).Status, "unchanged")

		_, err = r.pipe.Cancel(context.Background(), "no-such-run")
		assert.Equal(t, refactor.NotFound, refactor.KindOf(err))
	})
}

// TestCancelReachesASynchronousRun: a run started with Reservation.Run (a
// caller that waits) is cancelable by its id as well.
func TestCancelReachesASynchronousRun(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOpts{script: slowRole(refactor.RoleWriter)})
	slot, err := r.pipe.Reserve()
	require.NoError(t, err)
	type outcome struct {
		res *refactor.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := slot.Run(context.Background(), refactor.Request{Ref: sumWith, RunTests: true})
		done <- outcome{res, err}
	}()
	r.inCall(refactor.RoleWriter)
	row, err := r.pipe.Cancel(context.Background(), slot.ID())
	require.NoError(t, err)
	assert.Equal(t, refactor.StatusCanceled, row.Status)
	o := <-done
	assert.Equal(t, refactor.Canceled, refactor.KindOf(o.err))
	assert.Equal(t, refactor.StatusCanceled, o.res.RunStatus)
}
