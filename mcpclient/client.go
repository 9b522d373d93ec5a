// Package mcpclient gives the service typed, supervised access to a Pharo
// image over one MCP stdio connection (pharo-smalltalk-interop-mcp-server, or
// pharo-sim). Every Smalltalk expression it sends is built here from
// validated names and quoted literals; every failure is classified into the
// pipeline's error kinds.
package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
	"go.uber.org/zap"

	refactor "github.com/pharo-refactor/refactord"
)

// Version is sent as the MCP client version.
const Version = "1.0.0"

// Config says which MCP server to start and how patiently to talk to it.
type Config struct {
	Command string
	Args    []string
	Dir     string   // working directory; empty = the service's
	Env     []string // extra KEY=VALUE for the subprocess
	// InProcess, when set, is the MCP server to talk to in this process
	// instead of a subprocess (the pipeline's tests, benchmarks): Command
	// and its settings are then unused.
	InProcess *server.MCPServer

	CallTimeout  time.Duration // per tool call, on top of the caller's context (default 60s)
	StartTimeout time.Duration // spawn + initialize + tools/list (default 30s)
	StopGrace    time.Duration // per shutdown step: stdin close, SIGTERM, SIGKILL (default 3s)
	BackoffMin   time.Duration // first delay after consecutive failures (default 500ms)
	BackoffMax   time.Duration // cap (default 30s)

	// TestTimeout replaces CallTimeout for test runs (TEST_TIMEOUT, default
	// 60s); a run over it is tests_inconclusive, not pharo_unavailable.
	TestTimeout time.Duration
	// ProbeInterval > 0 makes the client ask the image a cheap question
	// (does Object exist) after each start of the server, and whenever no
	// call has ended for this long and none is in flight, so that Health
	// says whether the image answers without /ready ever making a call.
	// 0 (the default) never probes.
	ProbeInterval time.Duration

	// RequiredTools must be listed by the server; default defaultRequiredTools().
	RequiredTools []string
	// StderrSink also receives the subprocess's stderr (e.g. the service log).
	StderrSink io.Writer
	Logger     *zap.Logger
	// Tracing makes a span for each tool call made within a trace (a
	// run's); nil traces nothing.
	Tracing trace.TracerProvider
}

// defaultRequiredTools are the tools the service cannot work without.
func defaultRequiredTools() []string {
	return []string{
		"eval", "get_method_source", "get_class_source", "get_class_comment",
		"search_implementors", "search_references", "search_references_to_class",
		"search_classes_like", "run_class_test", "list_classes",
	}
}

func (c *Config) withDefaults() {
	if c.Tracing == nil {
		c.Tracing = noop.NewTracerProvider()
	}
	if c.CallTimeout <= 0 {
		c.CallTimeout = 60 * time.Second
	}
	if c.TestTimeout <= 0 {
		c.TestTimeout = 60 * time.Second
	}
	if c.StartTimeout <= 0 {
		c.StartTimeout = 30 * time.Second
	}
	if c.StopGrace <= 0 {
		c.StopGrace = 3 * time.Second
	}
	if c.BackoffMin <= 0 {
		c.BackoffMin = 500 * time.Millisecond
	}
	if c.BackoffMax <= 0 {
		c.BackoffMax = 30 * time.Second
	}
	if c.RequiredTools == nil {
		c.RequiredTools = defaultRequiredTools()
	}
	if c.Logger == nil {
		c.Logger = zap.NewNop()
	}
}

// Client is the one connection to the image. It is safe for concurrent use;
// it starts the subprocess on first use and restarts it after a crash.
type Client struct {
	cfg    Config
	log    *zap.Logger
	tracer trace.Tracer

	startMu sync.Mutex // serializes starts; never held by Health

	mu       sync.Mutex
	sess     *session
	closed   bool
	started  int // sessions started so far
	failures int // consecutive failed starts or deaths without a success
	failedAt time.Time
	health   refactor.ImageHealth
	timer    *time.Timer // background restart

	calls  inflight
	probes *prober
	// abandoned: the last call given up on while the server worked on
	// it, until a later call is answered (guarded by mu).
	abandoned *abandonedCall
}

// New returns a client; nothing is started until Start or the first call.
func New(cfg Config) (*Client, error) {
	if cfg.Command == "" && cfg.InProcess == nil {
		return nil, errors.New("mcpclient: no MCP server command configured")
	}
	cfg.withDefaults()
	return &Client{cfg: cfg, log: cfg.Logger, probes: newProber(), tracer: cfg.Tracing.Tracer("github.com/pharo-refactor/refactord/mcpclient")}, nil
}

// Start starts the subprocess now, so that configuration mistakes (a wrong
// command, a missing tool) surface at start-up rather than on first use.
func (c *Client) Start(ctx context.Context) error {
	_, err := c.current(ctx)
	return err
}

// Close stops the subprocess cleanly (stdin closed, then SIGTERM, then SIGKILL).
func (c *Client) Close() error {
	c.probes.stop()
	c.mu.Lock()
	c.closed = true
	s := c.sess
	c.sess = nil
	if c.timer != nil {
		c.timer.Stop()
	}
	c.mu.Unlock()
	if s == nil {
		return nil
	}
	if err := s.stop(c.cfg.StopGrace); err != nil {
		return fmt.Errorf("stopping the MCP server: %w", err)
	}
	return nil
}

// live returns the current session if its process still runs.
func (c *Client) live() (*session, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, refactor.Errorf(refactor.ShuttingDown, "the Pharo connection is closed")
	}
	if c.sess != nil && c.sess.alive() {
		return c.sess, nil
	}
	return nil, nil
}

// current returns a running session, starting one if there is none and the
// restart backoff allows it. A crash-looping server is not restarted on every
// request: calls inside the backoff window fail fast with pharo_unavailable.
func (c *Client) current(ctx context.Context) (*session, error) {
	if s, err := c.live(); s != nil || err != nil {
		return s, err
	}
	c.startMu.Lock()
	defer c.startMu.Unlock()
	if s, err := c.live(); s != nil || err != nil {
		return s, err
	}
	c.retireBroken()
	if wait := c.untilNextStart(); wait > 0 {
		return nil, refactor.Errorf(refactor.PharoUnavailable, "the Pharo MCP server is down; next restart attempt in %s", wait.Round(time.Millisecond))
	}
	s, err := c.startSession(ctx)
	if err == nil {
		c.startProbing()
	}
	return s, err
}

// retireBroken stops the current session when a call found it dead but its
// process has not been reaped yet, so that a new server never runs beside
// a dying one (two writers on one image). Its exit is then noted as usual
// by onExit.
func (c *Client) retireBroken() {
	c.mu.Lock()
	s := c.sess
	c.mu.Unlock()
	if s == nil || !s.broken.Load() {
		return
	}
	if err := s.stop(c.cfg.StopGrace); err != nil {
		c.log.Error("stopping a dead Pharo MCP server", zap.Error(err))
	}
}

func (c *Client) untilNextStart() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Until(c.failedAt.Add(c.backoff(c.failures)))
}

// backoff is the wait before the next start after n consecutive failures:
// none after the first, then BackoffMin doubling up to BackoffMax.
func (c *Client) backoff(failures int) time.Duration {
	if failures <= 1 {
		return 0
	}
	d := c.cfg.BackoffMin
	for i := 2; i < failures && d < c.cfg.BackoffMax; i++ {
		d *= 2
	}
	return min(d, c.cfg.BackoffMax)
}

func (c *Client) startSession(ctx context.Context) (*session, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.StartTimeout)
	defer cancel()
	s, err := c.open()
	if err == nil {
		err = s.initialize(ctx, c.cfg.RequiredTools)
		if err != nil {
			_ = s.stop(c.cfg.StopGrace)
			err = fmt.Errorf("%w (stderr: %s)", err, lastLines(s.stderr.String(), 5))
		}
	}
	if err != nil {
		c.noteFailure(err)
		c.log.Error("starting the Pharo MCP server failed", zap.String("command", c.cfg.Command), zap.Error(err))
		return nil, refactor.Wrap(refactor.PharoUnavailable, err, "cannot start the Pharo MCP server")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		go func() { _ = s.stop(c.cfg.StopGrace) }()
		return nil, refactor.Errorf(refactor.ShuttingDown, "the Pharo connection is closed")
	}
	if c.started > 0 {
		c.health.Restarts++
	}
	c.started++
	c.sess = s
	c.health.StartedAt = s.startedAt
	c.log.Info("Pharo MCP server started", zap.Int("pid", s.pid()), zap.Int("restarts", c.health.Restarts))
	return s, nil
}

// open starts a session: the configured subprocess, or the in-process
// server.
func (c *Client) open() (*session, error) {
	if c.cfg.InProcess != nil {
		return inProcess(c.cfg.InProcess), nil
	}
	return spawn(c.cfg, c.onExit)
}

// onExit runs on the watcher goroutine when a subprocess exits.
func (c *Client) onExit(s *session) {
	c.mu.Lock()
	current := c.sess == s
	closed := c.closed
	c.mu.Unlock()
	if !current || closed {
		return // a failed start or a deliberate stop: already handled
	}
	err := fmt.Errorf("the Pharo MCP server exited (%v)", s.exitErr)
	c.log.Error("Pharo MCP server exited",
		zap.Int("pid", s.pid()), zap.Error(s.exitErr),
		zap.String("stderr_tail", lastLines(s.stderr.String(), 20)))
	c.noteFailure(err)
	c.scheduleRestart()
}

// noteFailure counts a failed start or a death. A success in between
// resets the count (noteSuccess), so a server that worked is restarted at once.
func (c *Client) noteFailure(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	c.health.LastError, c.health.LastErrorAt = err.Error(), now
	c.failures++
	c.failedAt = now
}

// scheduleRestart brings the server back in the background, so /ready
// recovers without waiting for traffic.
func (c *Client) scheduleRestart() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	if c.timer != nil {
		c.timer.Stop()
	}
	wait := max(time.Until(c.failedAt.Add(c.backoff(c.failures))), 0)
	c.timer = time.AfterFunc(wait, func() {
		if _, err := c.current(context.Background()); err != nil && !refactor.IsKind(err, refactor.ShuttingDown) {
			c.scheduleRestart()
		}
	})
}

func (c *Client) noteSuccess() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.health.LastSuccess = time.Now()
	c.failures = 0
}

func (c *Client) noteCallError(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.health.LastError, c.health.LastErrorAt = err.Error(), time.Now()
}
