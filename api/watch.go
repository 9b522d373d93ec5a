package api

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/wire"
)

// Following a run that someone else started: every run started through
// this instance is tapped (its events kept while it runs, and for the last
// few runs after it ended), so that GET /api/v1/refactorings/{id}/events
// replays what happened so far and follows the rest live — the same
// events, and the same closing `result` or `error`, as the stream of the
// POST that started it. The rounds of a run (its candidates, checks and
// verdicts) live only in these events and in the result; the audit row
// keeps the last of them.

// Bounds of what is kept: events per run (a run with the most rounds and
// tool calls sends well under a hundred), and finished runs kept for
// replay.
const (
	maxTappedEvents  = 512
	keptFinishedRuns = 32
)

// runTaps holds the taps of this instance's runs.
type runTaps struct {
	mu       sync.Mutex
	live     map[string]*runTap
	finished []*runTap // oldest first, at most keptFinishedRuns
}

func newRunTaps() *runTaps { return &runTaps{live: map[string]*runTap{}} }

// runTap records one run's events and passes them on to its followers.
type runTap struct {
	mu        sync.Mutex
	id        string
	job       refactor.Job
	events    []refactor.Event
	dropped   int
	followers map[*eventQueue]struct{}
}

// newRunTap makes a tap; its followers' set is made for the first one
// (most runs have none, and a refused run never gets that far).
func newRunTap() *runTap { return &runTap{} }

// observe is the run's observer (it never blocks the run).
func (t *runTap) observe(e refactor.Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.events) < maxTappedEvents {
		t.events = append(t.events, e)
	} else {
		t.dropped++
	}
	for q := range t.followers {
		q.push(e)
	}
}

// follow answers the events so far and registers q for the next ones.
func (t *runTap) follow(q *eventQueue) []refactor.Event {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.followers == nil {
		t.followers = map[*eventQueue]struct{}{}
	}
	t.followers[q] = struct{}{}
	return append([]refactor.Event(nil), t.events...)
}

func (t *runTap) unfollow(q *eventQueue) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.followers, q)
}

// add makes the started job's tap findable by its id until it ends, and
// among the recent runs after.
func (r *runTaps) add(t *runTap, job refactor.Job) {
	t.mu.Lock()
	t.id, t.job = job.ID(), job
	t.mu.Unlock()
	r.mu.Lock()
	r.live[t.id] = t
	r.mu.Unlock()
	go func() {
		<-job.Done()
		r.mu.Lock()
		defer r.mu.Unlock()
		delete(r.live, t.id)
		r.finished = append(r.finished, t)
		if len(r.finished) > keptFinishedRuns {
			r.finished = r.finished[len(r.finished)-keptFinishedRuns:]
		}
	}()
}

// find is the tap of run id, nil when this instance holds none.
func (r *runTaps) find(id string) *runTap {
	r.mu.Lock()
	defer r.mu.Unlock()
	if t, ok := r.live[id]; ok {
		return t
	}
	for _, t := range r.finished {
		if t.id == id {
			return t
		}
	}
	return nil
}

// tee is an observer that calls each of the given ones (nil ones skipped).
func tee(observers ...func(refactor.Event)) func(refactor.Event) {
	return func(e refactor.Event) {
		for _, o := range observers {
			if o != nil {
				o(e)
			}
		}
	}
}

// followRun answers GET /api/v1/refactorings/{id}/events as Server-Sent
// Events. A run started through this instance (in flight, or among its
// last runs): `accepted`, its events from the first, then `result` or
// `error` when it ends. Any other run of the history (it ran before this
// instance started, or on another worker of a pool): one `run` event with
// its row as it stands, then the stream ends; the client polls the row.
func (s *Server) followRun(c echo.Context) error {
	id := c.Param("id")
	tap := s.taps.find(id)
	if tap == nil {
		row, err := s.history.Get(c.Request().Context(), id)
		if err != nil {
			return err
		}
		startEventStream(c)
		w := &sseWriter{c: c}
		return ignoreGone(w.event("run", row))
	}
	queue := newEventQueue()
	defer queue.close()
	defer tap.unfollow(queue)
	past := tap.follow(queue)
	startEventStream(c)
	w := &sseWriter{c: c}
	if err := w.event("accepted", wire.AcceptedEvent{ID: id, RequestID: requestID(c)}); err != nil {
		return nil
	}
	for _, e := range past {
		if err := w.event(e.Type, e.Data); err != nil {
			return nil
		}
	}
	return s.followLive(c, w, tap.job, queue, func() {}) // the run is not a follower's to stop
}

// followLive writes a run's events as they come, a keep-alive comment
// between them, then its end; left is called when the client goes.
func (s *Server) followLive(c echo.Context, w *sseWriter, job refactor.Job, queue *eventQueue, left func()) error {
	keepAlive := time.NewTicker(s.opts.KeepAlive)
	defer keepAlive.Stop()
	gone := c.Request().Context().Done()
	for {
		var err error
		select {
		case <-queue.wake:
			err = s.flushEvents(w, queue)
		case <-keepAlive.C:
			err = w.comment("keep-alive")
		case <-gone:
			err = context.Canceled
		case <-job.Done():
			if err = s.flushEvents(w, queue); err == nil {
				res, runErr := job.Result()
				return s.finishStream(c, w, res, runErr)
			}
		}
		if err != nil {
			left()
			return nil
		}
	}
}

// startEventStream writes the headers of an event stream.
func startEventStream(c echo.Context) {
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	c.Response().WriteHeader(http.StatusOK)
}
