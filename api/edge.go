package api

import (
	"errors"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
)

// Defaults of the HTTP edge (config documents the variables).
const (
	defaultReadHeaderTimeout = 10 * time.Second
	defaultReadBodyTimeout   = 10 * time.Second
	defaultIdleTimeout       = 2 * time.Minute
)

func withEdgeDefaults(o Options) Options {
	if o.ReadHeaderTimeout <= 0 {
		o.ReadHeaderTimeout = defaultReadHeaderTimeout
	}
	if o.ReadBodyTimeout <= 0 {
		o.ReadBodyTimeout = defaultReadBodyTimeout
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = defaultIdleTimeout
	}
	return o
}

// HTTPServer is the http.Server to serve this API with, on a listener
// wrapped by Listener.
//
// There is deliberately no server-wide ReadTimeout: when it expires while a
// handler runs, net/http's background read fails and cancels the request's
// context — a long run would be stopped by a clock meant for slow uploads.
// Headers are bounded by ReadHeaderTimeout, bodies by guardBody, which
// disarms its deadline once the body is read.
func (s *Server) HTTPServer() *http.Server {
	return &http.Server{
		Handler:           s.e,
		ReadHeaderTimeout: s.opts.ReadHeaderTimeout,
		IdleTimeout:       s.opts.IdleTimeout,
		ConnState:         s.trackConn,
		ErrorLog:          zap.NewStdLog(s.log.Named("http")),
	}
}

// Listener wraps ln so that clients cut for sending their headers too
// slowly are counted (net/http closes them without a word).
func (s *Server) Listener(ln net.Listener) net.Listener {
	return &edgeListener{Listener: ln, stalled: s.metrics.stalledHeaders}
}

type edgeListener struct {
	net.Listener
	stalled interface{ Inc() }
}

func (l *edgeListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &edgeConn{Conn: c, stalled: l.stalled}, nil
}

// edgeConn counts a connection cut because its request headers did not
// arrive within ReadHeaderTimeout. Other read timeouts are not stalls of
// headers: a keep-alive connection idle too long, and deadlines set while a
// request is active (guardBody cutting a body — counted there — and
// net/http aborting its own background read).
type edgeConn struct {
	net.Conn
	stalled interface{ Inc() }
	state   atomic.Int32 // http.ConnState as net/http last reported it; StateNew at first
	started atomic.Bool  // a byte of the next request arrived while idle
	counted atomic.Bool
}

func (c *edgeConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	state := http.ConnState(c.state.Load())
	if n > 0 && state == http.StateIdle {
		c.started.Store(true)
	}
	readingHeaders := state == http.StateNew || (state == http.StateIdle && c.started.Load())
	if err != nil && readingHeaders && isTimeout(err) && c.counted.CompareAndSwap(false, true) {
		c.stalled.Inc()
	}
	return n, err
}

// CloseWrite keeps net/http's graceful close (a half-close before the
// connection is dropped) working through the wrapper.
func (c *edgeConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// trackConn follows net/http's view of each connection (http.Server.ConnState).
func (s *Server) trackConn(c net.Conn, state http.ConnState) {
	ec, ok := c.(*edgeConn)
	if !ok {
		return
	}
	if state == http.StateIdle {
		ec.started.Store(false)
	}
	ec.state.Store(int32(state))
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
