package api

import (
	"encoding/json"
	"fmt"
	refactor "github.com/pharo-refactor/refactord"
	wire "github.com/pharo-refactor/refactord/wire"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"
)

// wantsStream reports whether the client asked for Server-Sent Events.
func wantsStream(c echo.Context) bool {
	return strings.Contains(c.Request().Header.Get(echo.HeaderAccept), "text/event-stream")
}

// eventQueue collects a run's events without ever blocking the run: the
// run must finish (and free the run slot) even when nobody reads. Once
// closed (the stream is over) it drops what comes.
type eventQueue struct {
	mu      sync.Mutex
	pending []refactor.Event
	closed  bool
	wake    chan struct{}
}

func newEventQueue() *eventQueue { return &eventQueue{wake: make(chan struct{}, 1)} }

func (q *eventQueue) push(e refactor.Event) {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return
	}
	q.pending = append(q.pending, e)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *eventQueue) drain() []refactor.Event {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := q.pending
	q.pending = nil
	return out
}

func (q *eventQueue) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed, q.pending = true, nil
}

// sseWriter numbers and writes events.
type sseWriter struct {
	c    echo.Context
	next int
}

func (w *sseWriter) event(name string, data any) error {
	body, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("encoding %s event: %w", name, err)
	}
	w.next++
	if _, err := fmt.Fprintf(w.c.Response(), "id: %d\nevent: %s\ndata: %s\n\n", w.next, name, body); err != nil {
		return err
	}
	w.c.Response().Flush()
	return nil
}

func (w *sseWriter) comment(text string) error {
	if _, err := fmt.Fprintf(w.c.Response(), ": %s\n\n", text); err != nil {
		return err
	}
	w.c.Response().Flush()
	return nil
}

// stream reports a started run as Server-Sent Events: `accepted` first
// (the run's id), then its events as they happen, then `result` or `error`.
// A client that drops the stream does not stop the run.
func (s *Server) stream(c echo.Context, job refactor.Job, queue *eventQueue) error {
	defer queue.close()
	startEventStream(c)
	w := &sseWriter{c: c}
	left := func() { s.clientLeft(c, job) }
	if err := w.event("accepted", wire.AcceptedEvent{ID: job.ID(), RequestID: requestID(c)}); err != nil {
		left()
		return nil
	}
	return s.followLive(c, w, job, queue, left)
}

// flushEvents writes the queued events.
func (s *Server) flushEvents(w *sseWriter, q *eventQueue) error {
	for _, e := range q.drain() {
		if err := w.event(e.Type, e.Data); err != nil {
			return err
		}
	}
	return nil
}

// finishStream ends the stream with `result` (the non-streamed 200 body) or
// `error` (the problem body).
func (s *Server) finishStream(c echo.Context, w *sseWriter, res *refactor.Result, err error) error {
	if err == nil {
		return ignoreGone(w.event("result", newRefactorBody(res)))
	}
	return ignoreGone(w.event("error", s.failureProblem(c, res, err)))
}

func ignoreGone(error) error { return nil }
