package api

import (
	"errors"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"go.uber.org/zap"
)

// Why a body read was cut.
var (
	errBodyTimeout  = errors.New("the body did not arrive within the read deadline")
	errShuttingDown = errors.New("the service is shutting down")
)

// aLongTimeAgo is a read deadline that has passed: a read blocked on the
// connection fails at once.
var aLongTimeAgo = time.Unix(1, 0)

// unreadLinger is how long net/http may go on reading (and discarding) a
// body the handler did not read, after the response went out: what arrives
// meanwhile is drained, so closing does not reset the connection under the
// client before it has read its answer.
const unreadLinger = 500 * time.Millisecond

// A body the service answered without reading it whole (413, 401, 415, …)
// is drained after the answer went out, as nginx's lingering_close does:
// closing a connection with unread data resets it, and a client still
// sending (curl, Python's requests) then loses the answer it has not read
// yet. The drain reads and throws away at most lingerBytes, for at most
// lingerTime, and gives up when the client sends nothing for lingerIdle;
// the body's own read deadline (READ_BODY_TIMEOUT) still cuts it.
const (
	lingerBytes = 64 << 20
	lingerTime  = 30 * time.Second
	lingerIdle  = 5 * time.Second
)

// A body cut by a shutdown is drained too, after its 503, but within
// tighter bounds: a client still sending reads its answer instead of a
// reset, and a stalled upload holds the shutdown back by at most
// stopLingerIdle.
const (
	stopLingerTime = 3 * time.Second
	stopLingerIdle = 1 * time.Second
)

// guardBody bounds the reading of a request body by ReadBodyTimeout,
// whoever reads it: the handler, or net/http discarding what a handler
// refused without reading (a 401 must not wait for a stalled upload).
//
// The deadline is a timer, not a conn deadline left armed: once the body has
// been read, nothing can cut the connection any more, so a long run is never
// cancelled by it. A response written while the body is unread goes out at
// once and closes the connection; the unread rest is waited for only
// unreadLinger after the handler returned.
func (s *Server) guardBody(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if req.Body == nil || req.Body == http.NoBody || req.ContentLength == 0 {
			return next(c)
		}
		b := &guardedBody{ReadCloser: req.Body, rc: http.NewResponseController(c.Response()), log: s.log}
		s.bodies.add(b) // before looking at stopping: BeginShutdown cuts what it finds
		if s.stopping.Load() {
			b.cut(errShuttingDown)
		}
		timer := time.AfterFunc(s.opts.ReadBodyTimeout, func() {
			if b.cut(errBodyTimeout) {
				s.metrics.stalledBodies.Inc()
			}
		})
		defer func() {
			timer.Stop()
			s.bodies.remove(b)
			b.finish()
		}()
		c.Response().Before(func() {
			if !b.readToEnd() {
				c.Response().Header().Set(echo.HeaderConnection, "close")
			}
		})
		req.Body = b
		err := next(c)
		if b.readToEnd() {
			return err
		}
		switch b.cutBy() {
		case nil:
			err = answerFirst(c, err)
			b.drain(c.Response(), lingerTime, lingerIdle)
		case errShuttingDown:
			err = answerFirst(c, err)
			b.drain(c.Response(), stopLingerTime, stopLingerIdle)
		}
		return err
	}
}

// answerFirst sends the handler's error answer now, so that the rest of
// the body is drained after it.
func answerFirst(c echo.Context, err error) error {
	if err != nil {
		c.Error(err)
	}
	return nil
}

// drain reads what the client still sends of a body that was answered
// without being read, for at most linger and until it sends nothing for
// idle, after flushing the answer. It reads the connection's body itself:
// a cut body's reads fail by design.
func (b *guardedBody) drain(w *echo.Response, linger, idle time.Duration) {
	w.Flush()
	buf := make([]byte, 32<<10)
	deadline := time.Now().Add(linger)
	for total := 0; total < lingerBytes && time.Now().Before(deadline); {
		next := time.Now().Add(idle)
		if next.After(deadline) {
			next = deadline
		}
		if err := b.rc.SetReadDeadline(next); err != nil {
			return
		}
		n, err := b.ReadCloser.Read(buf)
		total += n
		if err != nil {
			return
		}
	}
}

// guardedBody is a request body whose reads can be cut.
type guardedBody struct {
	io.ReadCloser
	rc  *http.ResponseController
	log *zap.Logger

	mu       sync.Mutex
	eof      bool  // read to the end: net/http now reads the connection itself
	finished bool  // the handler returned
	reason   error // set when the reads were cut
}

// Read passes the body through; once cut, it fails with the reason. A read
// that reached the end just as the cut came counts as cut: the cut may have
// hit net/http's own read of the connection, which cancels the request.
func (b *guardedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == nil {
		return n, nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.reason != nil {
		return n, b.reason
	}
	if errors.Is(err, io.EOF) {
		b.eof = true
	}
	return n, err
}

// cut makes a pending or future read fail with reason, unless the body was
// read to the end or the handler is done. It reports whether it cut.
func (b *guardedBody) cut(reason error) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.eof || b.finished || b.reason != nil {
		return false
	}
	b.reason = reason
	if err := b.rc.SetReadDeadline(aLongTimeAgo); err != nil {
		b.log.Warn("cannot cut a request body: the connection has no read deadline", zap.Error(err))
	}
	return true
}

// cutBy is why the body's reads were cut, or nil.
func (b *guardedBody) cutBy() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.reason
}

func (b *guardedBody) readToEnd() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.eof
}

// finish ends the guard when the handler returns. An unread rest is waited
// for only briefly: net/http's discard of it stops after unreadLinger and
// the connection closes (the response said so).
func (b *guardedBody) finish() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.finished = true
	if !b.eof && b.reason == nil {
		_ = b.rc.SetReadDeadline(time.Now().Add(unreadLinger))
	}
}

// bodyRegistry holds the bodies being read, for a shutdown to cut them.
type bodyRegistry struct {
	mu     sync.Mutex
	bodies map[*guardedBody]struct{}
}

func newBodyRegistry() *bodyRegistry {
	return &bodyRegistry{bodies: map[*guardedBody]struct{}{}}
}

func (r *bodyRegistry) add(b *guardedBody) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bodies[b] = struct{}{}
}

func (r *bodyRegistry) remove(b *guardedBody) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.bodies, b)
}

func (r *bodyRegistry) cutAll(reason error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for b := range r.bodies {
		b.cut(reason)
	}
}
