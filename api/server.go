// Package api is the HTTP face of the service: routes, request validation,
// API-key auth, problem+json errors, /health, /ready, /metrics and the
// embedded OpenAPI document. It is the only package that knows HTTP statuses.
package api

import (
	"context"
	"crypto/subtle"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"regexp"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-playground/validator/v10"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.uber.org/zap"

	refactor "github.com/pharo-refactor/refactord"
)

// ImageStatus is the image connection as /health and /ready see it: a
// snapshot, never a call (a call would wait behind a test run).
type ImageStatus interface {
	Health() refactor.ImageHealth
}

// Options configure the server.
type Options struct {
	AppName      string
	Version      string
	APIKeys      []string
	MaxBodyBytes int64
	OpenAPI      []byte // served at /openapi.yaml
	// KeepAlive is the interval of comment lines on an event stream, so
	// that proxies do not close it (default 15s).
	KeepAlive time.Duration

	// ReadHeaderTimeout cuts a client that has not sent its request
	// headers in time (READ_HEADER_TIMEOUT, default 10s).
	ReadHeaderTimeout time.Duration
	// ReadBodyTimeout cuts a client that has not sent its whole body in
	// time, counted from the end of its headers (READ_BODY_TIMEOUT,
	// default 10s). It ends when the body is read: it never cuts a run.
	ReadBodyTimeout time.Duration
	// IdleTimeout closes a keep-alive connection that sends no next
	// request (default 2m).
	IdleTimeout time.Duration
	// AllowOrigins are the browser origins (scheme://host[:port]) that may
	// call the API routes (CORS_ALLOW_ORIGINS). A request carrying any
	// other Origin is refused on the API routes.
	AllowOrigins []string
	// LoopbackHosts refuses requests whose Host is not a loopback name or
	// address: set when the listener is loopback (DNS rebinding).
	LoopbackHosts bool
	// AccessLog logs one line per request, never sampled (default: the
	// server's logger).
	AccessLog *zap.Logger
	// Database is a pool's PostgreSQL (DATABASE_URL), for /ready; nil
	// for one image (its SQLite file is not a service that goes away).
	Database Database
	// QueueUI is a pool's queue browser (River UI), served under
	// QueueUIPath behind the API keys; nil for one image.
	QueueUI http.Handler
	// Pool answers a pool's queue and workers (GET /api/v1/workers, only
	// in a pool); nil for one image.
	Pool PoolState
	// Store is the audit trail, for /ready: not ready while its storage
	// refuses writes (a full or read-only DATA_DIR). Nil: not asked.
	Store Writability
}

// Writability is what /ready asks of the audit trail: nil while it takes
// writes, else why not.
type Writability interface {
	Writable(ctx context.Context) error
}

// PoolState is what GET /api/v1/workers asks of a pool.
type PoolState interface {
	State(ctx context.Context) (refactor.PoolState, error)
}

// Database is what /ready asks of a pool's database.
type Database interface {
	Ping(ctx context.Context) error
}

// Server serves the API.
type Server struct {
	e        *echo.Echo
	pipe     refactor.Jobs
	mcp      ImageStatus
	history  refactor.History
	opts     Options
	log      *zap.Logger
	validate *validator.Validate
	metrics  *metrics
	stopping atomic.Bool
	inflight atomic.Int64
	bodies   *bodyRegistry
	// runsCtx is the context every run is started under (not its
	// request's: a run outlives the request that started it). CancelRuns
	// cancels it with cause shutting_down.
	runsCtx    context.Context
	cancelRuns context.CancelCauseFunc
	// busyRendered is the last busy problem encoded (busyBody): under
	// load every refused POST gets the same body but for its request id.
	busyRendered atomic.Pointer[renderedProblem]
	// openapiJSON is opts.OpenAPI converted to JSON on the first GET
	// /openapi.json (a YAML parse of the whole document: not worth its
	// memory at start-up for a page few ask); nil when the conversion
	// failed (logged, and /openapi.json answers 500).
	openapiJSON func() []byte
	// taps keep the events of this instance's runs for their followers
	// (GET /api/v1/refactorings/{id}/events, the console).
	taps *runTaps
}

// New builds the server and its routes.
func New(opts Options, pipe refactor.Jobs, mcp ImageStatus, history refactor.History, reg *prometheus.Registry, log *zap.Logger) *Server {
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = 64 << 10
	}
	if opts.KeepAlive <= 0 {
		opts.KeepAlive = 15 * time.Second
	}
	opts = withEdgeDefaults(opts)
	if opts.AccessLog == nil {
		opts.AccessLog = log
	}
	s := &Server{pipe: pipe, mcp: mcp, history: history, opts: opts, log: log, validate: newValidator(), metrics: newMetrics(reg, pipe, mcp), bodies: newBodyRegistry(), taps: newRunTaps()}
	s.runsCtx, s.cancelRuns = context.WithCancelCause(context.Background())
	s.openapiJSON = sync.OnceValue(s.convertOpenAPI)
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = s.handleError
	// Every route also answers with a trailing slash (/api/v1/refactor/),
	// as the original's did: the path is rewritten before routing.
	// The queue browser is left as it is: it redirects its own root to
	// the form with a slash.
	e.Pre(middleware.RemoveTrailingSlashWithConfig(middleware.TrailingSlashConfig{
		Skipper: func(c echo.Context) bool { return strings.HasPrefix(c.Request().URL.Path, QueueUIPath+"/") },
	}))
	// Outermost first: every request is logged; its body is read under a
	// deadline whoever reads it; a foreign Host or Origin is refused before
	// anything else looks at the request.
	e.Use(s.requestID, s.accessLog, s.recoverPanics, s.guardBody, s.checkHost, s.checkOrigin, s.uniqueQuery)
	if cors := s.cors(); cors != nil {
		e.Use(cors)
	}
	// Auth is decided before the body is read: an unauthenticated client
	// gets its 401 at once, however slowly it sends.
	e.POST("/api/v1/refactor", s.refactor, s.auth, s.requireJSON(jsonBody))
	// The history holds the image's source code: it needs a key too.
	e.GET("/api/v1/refactorings", s.listRefactorings, s.auth)
	e.GET("/api/v1/refactorings/:id", s.getRefactoring, s.auth)
	e.POST("/api/v1/refactorings/:id/revert", s.revertRefactoring, s.auth, s.requireJSON(noBodyOrJSON))
	e.POST("/api/v1/refactorings/:id/cancel", s.cancelRefactoring, s.auth, s.requireJSON(noBodyOrJSON))
	e.GET("/api/v1/refactorings/:id/events", s.followRun, s.auth)
	// The console's files hold no data: every figure and every source it
	// shows comes from the routes above, with the key the operator gives.
	e.GET("/console", s.consolePage)
	e.GET("/console/:file", s.consoleFile)
	if s.opts.QueueUI != nil {
		s.mountQueueUI(e)
	}
	if s.opts.Pool != nil {
		e.GET("/api/v1/workers", s.poolWorkers, s.auth)
	}
	e.GET("/", s.root)
	e.GET("/docs", s.docsPage)
	e.GET("/docs/:file", s.docsFile)
	e.GET("/redoc", s.redoc)
	e.GET("/health", s.health)
	e.GET("/ready", s.ready)
	e.GET("/openapi.yaml", s.openapi)
	e.GET("/openapi.json", s.openapiAsJSON)
	e.GET("/metrics", echo.WrapHandler(promhttp.HandlerFor(reg, promhttp.HandlerOpts{})))
	s.e = e
	return s
}

// BeginShutdown makes new runs answer 503 shutting_down; the in-flight run
// goes on. Bodies still being uploaded are cut at once (503 shutting_down):
// a stalled upload never holds a shutdown.
func (s *Server) BeginShutdown() {
	s.stopping.Store(true)
	s.bodies.cutAll(errShuttingDown)
}

// CancelRuns stops every run that has not begun release; it answers 503
// shutting_down, and its audit row says so. A release under way is never
// cut: Pipeline.WaitIdle waits for it.
func (s *Server) CancelRuns() {
	s.cancelRuns(refactor.Errorf(refactor.ShuttingDown, "the service shut down before the release began; nothing was released"))
}

// Inflight counts requests being served (a shutdown waits for them).
func (s *Server) Inflight() int64 { return s.inflight.Load() }

var safeRequestID = regexp.MustCompile(`^[A-Za-z0-9._:\-]{1,128}$`)

// requestID keeps a well-formed X-Request-ID from the client, else makes one,
// and echoes it on the response.
func (s *Server) requestID(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		id := c.Request().Header.Get(echo.HeaderXRequestID)
		if !safeRequestID.MatchString(id) {
			id = randomID()
		}
		c.Response().Header().Set(echo.HeaderXRequestID, id)
		return next(c)
	}
}

// requestID is the request's id, kept on its response's headers (echo's
// context store would cost a map per request).
func requestID(c echo.Context) string {
	return c.Response().Header().Get(echo.HeaderXRequestID)
}

// randomID is a new request id: 128 random bits in hex. An id tells
// requests apart in the logs and is no secret, so it comes from the
// runtime's per-thread ChaCha8 generator (seeded from the OS at start-up)
// rather than from crypto/rand, which costs more and buys nothing here.
func randomID() string {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], rand.Uint64())
	binary.LittleEndian.PutUint64(b[8:], rand.Uint64())
	return hex.EncodeToString(b[:])
}

func (s *Server) recoverPanics(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) (err error) {
		defer func() {
			if p := recover(); p != nil {
				// Logged once, with the request id, as the internal answer is made.
				err = refactor.Wrap(refactor.Internal, fmt.Errorf("panic: %v\n%s", p, debug.Stack()), "panic in handler")
			}
		}()
		return next(c)
	}
}

func (s *Server) accessLog(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		s.inflight.Add(1)
		defer s.inflight.Add(-1)
		start := time.Now()
		err := next(c)
		if err != nil {
			c.Error(err)
		}
		s.opts.AccessLog.Info("http",
			zap.String("request_id", requestID(c)),
			zap.String("method", c.Request().Method),
			zap.String("path", c.Path()),
			zap.Int("status", c.Response().Status),
			zap.Duration("duration", time.Since(start)))
		return nil
	}
}

// auth requires `Authorization: Bearer <key>` when keys are configured. Every
// key is compared in constant time, all of them, whatever matched.
func (s *Server) auth(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if len(s.opts.APIKeys) == 0 {
			return next(c)
		}
		given, ok := bearerToken(c.Request().Header.Get(echo.HeaderAuthorization))
		match := 0
		for _, k := range s.opts.APIKeys {
			match |= subtle.ConstantTimeCompare([]byte(given), []byte(k))
		}
		if !ok || match != 1 {
			c.Response().Header().Set(echo.HeaderWWWAuthenticate, `Bearer realm="refactord"`)
			return refactor.Errorf(refactor.Unauthorized, "a valid API key is required: Authorization: Bearer <key>")
		}
		return next(c)
	}
}

// bearerToken is the credential of an Authorization header of the Bearer
// scheme. The scheme's name is case-insensitive (RFC 9110 §11.1): some
// clients and proxies send "bearer".
func bearerToken(header string) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimLeft(header, " "), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(token), true
}

// handleError turns any error into problem+json.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	var pe *problemError
	if errors.As(err, &pe) {
		if werr := writeProblemError(c, pe); werr != nil {
			s.log.Warn("writing an error response failed", zap.Error(werr))
		}
		return
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		// Echo's own errors: an unknown route, a wrong method.
		err = refactor.Wrap(refactor.InvalidRequest, err, "%s %s: %s", c.Request().Method, c.Request().URL.Path, http.StatusText(he.Code))
	}
	p := s.problem(c, err)
	if he != nil {
		p.Title = http.StatusText(he.Code)
	}
	if werr := writeProblem(c, p); werr != nil {
		s.log.Warn("writing an error response failed", zap.Error(werr))
	}
}

func (s *Server) openapi(c echo.Context) error {
	return c.Blob(http.StatusOK, "application/yaml", s.opts.OpenAPI)
}
