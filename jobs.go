package refactor

import "context"

// Jobs runs refactorings as jobs that outlive the request that asked for
// them (docs/design.md, "Runs are jobs"): a client that disconnects or times out
// does not stop its run; the run completes, is recorded, and anyone holding
// its id follows it in the audit trail (History.Get) or cancels it before
// its release. The pipeline implements it in process, one run at a time; a
// durable queue can implement it across processes.
type Jobs interface {
	Runner
	// Start takes the run slot and starts req in the background. When Start
	// returns, the run's id is known and its row is in the audit trail
	// (status running), before any model call. ctx bounds the run, not the
	// request that asked for it: cancelling ctx stops the run before its
	// release, with ctx's cause as the run's error (e.g. shutting_down).
	// Refused at once: Busy (with Runner.RetryAfter), ModelNotConfigured.
	Start(ctx context.Context, req Request) (Job, error)
	// Cancel stops the run id before its release and answers its row once
	// the run has stopped (status canceled); cancelling a canceled run
	// answers the same. NotFound for an unknown id; NotCancelable when the
	// run's release has begun (it completes or is rolled back, never cut)
	// or the run has ended, with the row as it stands.
	Cancel(ctx context.Context, id string) (Run, error)
}

// Job is a started run.
type Job interface {
	// ID names the run in the audit trail.
	ID() string
	// Done is closed when the run has ended and its row is final.
	Done() <-chan struct{}
	// Result is what Reservation.Run answers, once Done is closed.
	Result() (*Result, error)
}

// StartJob runs fn on its own goroutine as the run id and answers the Job
// that ends with it: Done is closed once fn has returned, and Result gives
// what fn returned.
func StartJob(id string, fn func() (*Result, error)) Job {
	j := &job{id: id, done: make(chan struct{})}
	go func() {
		defer close(j.done)
		j.res, j.err = fn()
	}()
	return j
}

type job struct {
	id   string
	done chan struct{}
	res  *Result
	err  error
}

func (j *job) ID() string               { return j.id }
func (j *job) Done() <-chan struct{}    { return j.done }
func (j *job) Result() (*Result, error) { <-j.done; return j.res, j.err }
