package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	refactor "pharo-refactor"
	wire "pharo-refactor/wire"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
)

// wantsStream reports whether the client asked for Server-Sent Events.
func wantsStream(c echo.Context) bool {
	return strings.Contains(c.Request().Header.Get(echo.HeaderAccept), "text/event-stream")
}

// eventQueue collects a run's events without ever blocking the run: the
// run must finish (and free the run slot) even when nobody reads.
type eventQueue struct {
	mu      sync.Mutex
	pending []refactor.Event
	wake    chan struct{}
}

func newEventQueue() *eventQueue { return &eventQueue{wake: make(chan struct{}, 1)} }

func (q *eventQueue) push(e refactor.Event) {
	q.mu.Lock()
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

// stream runs a reserved slot and reports it as Server-Sent Events. The run
// goes on its own goroutine with the run's context (the request's, see
// runContext), so a client that drops the stream stops the run exactly as
// on the JSON route.
func (s *Server) stream(ctx context.Context, c echo.Context, slot refactor.Reservation, req refactor.Request) error {
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	c.Response().WriteHeader(http.StatusOK)
	w := &sseWriter{c: c}
	if err := w.event("accepted", wire.AcceptedEvent{ID: slot.ID(), RequestID: requestID(c)}); err != nil {
		slot.Free()
		return nil // the client is gone before the run began
	}
	queue := newEventQueue()
	req.Observe = queue.push
	type outcome struct {
		res *refactor.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := slot.Run(ctx, req)
		done <- outcome{res, err}
	}()
	keepAlive := time.NewTicker(s.opts.KeepAlive)
	defer keepAlive.Stop()
	writeErr := error(nil)
	for {
		select {
		case <-queue.wake:
			writeErr = s.flushEvents(w, queue, writeErr)
		case <-keepAlive.C:
			if writeErr == nil {
				writeErr = w.comment("keep-alive")
			}
		case o := <-done:
			writeErr = s.flushEvents(w, queue, writeErr)
			s.metrics.observe(o.res, o.err)
			if writeErr != nil {
				return nil
			}
			return s.finishStream(c, w, o.res, o.err)
		}
	}
}

// flushEvents writes queued events; after a write error it only drains, so
// the run never waits on a gone client.
func (s *Server) flushEvents(w *sseWriter, q *eventQueue, prior error) error {
	for _, e := range q.drain() {
		if prior != nil {
			continue
		}
		prior = w.event(e.Type, e.Data)
	}
	return prior
}

// finishStream ends the stream with `result` (the non-streamed 200 body) or
// `error` (the problem body).
func (s *Server) finishStream(c echo.Context, w *sseWriter, res *refactor.Result, err error) error {
	if err == nil {
		return ignoreGone(w.event("result", newRefactorBody(res)))
	}
	if p := s.failureProblem(c, res, err); p != nil {
		return ignoreGone(w.event("error", p))
	}
	return nil
}

func ignoreGone(error) error { return nil }
