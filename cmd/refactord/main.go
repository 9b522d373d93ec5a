// Command refactord is the service: configuration → logger → MCP client →
// models → pipeline → API → serve. Wiring only; every behaviour lives in
// the packages it plugs together.
package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/agents/providers"
	"github.com/pharo-refactor/refactord/api"
	"github.com/pharo-refactor/refactord/config"
	"github.com/pharo-refactor/refactord/internal/version"
	"github.com/pharo-refactor/refactord/mcpclient"
	"github.com/pharo-refactor/refactord/pipeline"
	"github.com/pharo-refactor/refactord/pool"
	"github.com/pharo-refactor/refactord/store"
	"github.com/pharo-refactor/refactord/telemetry"
)

// readinessProbe: while idle this long, the MCP client asks the image a
// cheap question in the background, so that /ready (which never calls the
// image) knows whether it still answers.
const readinessProbe = 30 * time.Second

func main() {
	if versionRequested(os.Args[1:]) {
		fmt.Println("refactord " + version.Version)
		os.Exit(0)
	}
	if promptsRequested() {
		os.Exit(promptsCommand(os.Args[2:], os.Stdout, os.Stderr))
	}
	os.Exit(run())
}

func run() int {
	cfg, err := loadConfig()
	var traces telemetry.Settings
	if err == nil {
		traces, err = telemetry.FromEnv(os.LookupEnv)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "refactord: configuration:\n%v\n", err)
		return 2
	}
	log, access, flushAccess, err := newLoggers(cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "refactord: logger: %v\n", err)
		return 2
	}
	defer func() { _ = log.Sync() }()
	defer flushAccess()
	for _, w := range cfg.Warnings {
		log.Warn("CONFIGURATION WARNING: " + w)
	}
	if err := serve(cfg, traces, log, access); err != nil {
		log.Error("refactord stopped with an error", zap.Error(err))
		return 1
	}
	return 0
}

func loadConfig() (config.Config, error) {
	dotenv := map[string]string{}
	if data, err := os.ReadFile(".env"); err == nil {
		if dotenv, err = config.ParseDotenv(string(data)); err != nil {
			return config.Config{}, err
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return config.Config{}, fmt.Errorf("reading .env: %w", err)
	}
	return config.Load(os.LookupEnv, dotenv)
}

// accessFlushInterval bounds how long an access-log line waits in its
// buffer before it reaches stderr.
const accessFlushInterval = 100 * time.Millisecond

// newLoggers builds the service's logger and the access log. Both write to
// stderr; the access log is never sampled (every request is one line), the
// others keep zap's production sampling. The access log is buffered: one
// write per batch of lines rather than one per request (under load, a write
// per line was the largest cost of a refused request). Its lines reach
// stderr within accessFlushInterval, when the buffer fills, and on
// flushAccess (called at exit, after the server has shut down): a SIGKILL
// loses at most the last accessFlushInterval of them.
func newLoggers(cfg config.Config) (log, access *zap.Logger, flushAccess func(), err error) {
	level, err := zapcore.ParseLevel(cfg.LogLevel)
	if err != nil {
		return nil, nil, nil, err
	}
	zc := zap.NewProductionConfig()
	encoder := zapcore.NewJSONEncoder(zc.EncoderConfig)
	if cfg.LogFormat == "console" {
		zc = zap.NewDevelopmentConfig()
		encoder = zapcore.NewConsoleEncoder(zc.EncoderConfig)
	}
	zc.Level = zap.NewAtomicLevelAt(level)
	zc.OutputPaths, zc.ErrorOutputPaths = []string{"stderr"}, []string{"stderr"}
	sampling := zc.Sampling
	zc.Sampling = nil
	unsampled, err := zc.Build()
	if err != nil {
		return nil, nil, nil, err
	}
	log = unsampled
	if sampling != nil {
		log = unsampled.WithOptions(zap.WrapCore(func(core zapcore.Core) zapcore.Core {
			return zapcore.NewSamplerWithOptions(core, time.Second, sampling.Initial, sampling.Thereafter)
		}))
	}
	// os.File serialises its writes, so a batch of access lines never
	// splits another log's line. An access line's caller would always be
	// the same line of the access middleware: not worth a stack walk.
	buffered := &zapcore.BufferedWriteSyncer{WS: zapcore.AddSync(os.Stderr), FlushInterval: accessFlushInterval}
	access = zap.New(zapcore.NewCore(encoder, buffered, zc.Level), zap.ErrorOutput(zapcore.Lock(os.Stderr))).
		Named("api").Named("access")
	return log, access, func() { _ = buffered.Stop() }, nil
}

func serve(cfg config.Config, traces telemetry.Settings, log, access *zap.Logger) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	tracing, err := newTracing(ctx, traces, shownVersion(cfg), log)
	if err != nil {
		return err
	}
	defer flushTracing(tracing, log)

	image, err := mcpclient.New(mcpclient.Config{
		Command: cfg.PharoMCPCommand, Args: cfg.PharoMCPArgs, Dir: cfg.PharoMCPCwd, Env: cfg.PharoMCPEnv,
		CallTimeout: cfg.PharoMCPTimeout, StderrSink: &zapWriter{log: log.Named("pharo-mcp")}, Logger: log.Named("mcp"),
		TestTimeout: cfg.TestTimeout, ProbeInterval: readinessProbe, Tracing: tracing,
	})
	if err != nil {
		return err
	}
	defer closeImage(image, log)
	if err := image.Start(ctx); err != nil {
		// Not fatal: the client restarts the server on the next use, and
		// /ready tells operators in the meantime.
		log.Error("the Pharo MCP server is not up yet", zap.Error(err))
	}

	audit, err := openStore(ctx, cfg, log)
	if err != nil {
		return err
	}
	audit.Traced(tracing)
	defer closeAudit(audit, log)
	worker := workerID(cfg)

	roles, err := providers.NewRoles(ctx, cfg, image, tracing, log)
	if err != nil {
		return err
	}
	var trail refactor.Audit = audit
	runs := pool.NewRuns()
	if cfg.DatabaseURL != "" {
		// This worker reconciles its own runs only; a run's stages travel with its events.
		trail = pool.Trail{Audit: audit, Worker: worker, Runs: runs}
	}
	pipe := pipeline.New(image, roles, trail, pipeline.Options{
		MaxIterations: cfg.MaxValidationIterations, Timeout: cfg.PipelineTimeout,
		MaxTestClasses: cfg.TestMaxClasses, TestPackages: cfg.TestPackages,
		NoEquivalence: !cfg.Equivalence, EquivalenceMaxInputs: cfg.EquivalenceMaxInputs,
		Worker: worker, Image: imageName(cfg),
		Models: map[string]string{
			"provider": cfg.ModelProvider, "reviewer": cfg.ReviewerModelID, "writer": cfg.WriterModelID,
			"validator": cfg.ValidatorModelID, "refiner": cfg.RefinerModelID,
		},
		Checkpoint: checkpoints(crashAt(os.Getenv("REFACTORD_CRASH_AT"), log), holdAt(os.Getenv("REFACTORD_HOLD_AT"), log)),
		Tracing:    tracing,
	}, log.Named("pipeline"))
	if _, err := pipe.Reconcile(ctx); err != nil {
		// Rows that could not be settled stay in releasing for the next start.
		log.Error("reconciling interrupted releases", zap.Error(err))
	}

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	var jobs refactor.Jobs = pipe
	var database api.Database
	var workers *pool.Pool
	var queueUI http.Handler
	var poolState api.PoolState
	if cfg.DatabaseURL != "" {
		workers, err = pool.Open(ctx, cfg.DatabaseURL, audit, pipe, pool.Options{
			Worker: worker, Image: imageName(cfg), QueueMax: cfg.QueueMax, Lease: cfg.PoolLease, Tracing: tracing, Runs: runs,
		}, log.Named("pool"))
		if err != nil {
			return err
		}
		if err := workers.Register(reg); err != nil {
			return err
		}
		if err := workers.Work(ctx); err != nil {
			return err
		}
		jobs, database, poolState = workers, workers, workers
		if queueUI, err = workers.QueueUI(ctx, api.QueueUIPath); err != nil {
			return err
		}
		log.Info("a worker of the pool (DATABASE_URL)", zap.String("worker", worker), zap.String("image", imageName(cfg)))
	}
	server := api.New(api.Options{
		AppName: cfg.AppName, Version: shownVersion(cfg), APIKeys: cfg.APIKeys, MaxBodyBytes: cfg.MaxBodyBytes, OpenAPI: refactor.OpenAPI,
		ReadHeaderTimeout: cfg.ReadHeaderTimeout, ReadBodyTimeout: cfg.ReadBodyTimeout,
		AllowOrigins: cfg.CORSAllowOrigins, LoopbackHosts: cfg.ListensOnLoopback(), AccessLog: access,
		Database: database, QueueUI: queueUI, Pool: poolState, Store: audit,
	}, jobs, image, pipe.History(audit), reg, log.Named("api"))
	// The deferred closes of the store and the MCP connection run only
	// after listen returns, and listen returns only once no run is left.
	return listen(ctx, cfg, server, pipe, workers, log)
}

// openStore opens the audit trail: PostgreSQL with DATABASE_URL (waiting
// for it while it does not answer: workers may start before their
// database), else SQLite in DATA_DIR.
func openStore(ctx context.Context, cfg config.Config, log *zap.Logger) (*store.Store, error) {
	if cfg.DatabaseURL == "" {
		return store.Open(ctx, filepath.Join(cfg.DataDir, "refactord.db"))
	}
	for {
		s, err := store.OpenPostgres(ctx, cfg.DatabaseURL)
		if !errors.Is(err, store.ErrUnavailable) {
			return s, err
		}
		log.Warn("PostgreSQL (DATABASE_URL) does not answer yet; trying again", zap.Error(err))
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(2 * time.Second):
		}
	}
}

// workerID names this instance in a pool: WORKER_ID, else host and port.
func workerID(cfg config.Config) string {
	if cfg.WorkerID != "" {
		return cfg.WorkerID
	}
	host, err := os.Hostname()
	if err != nil {
		host = "localhost"
	}
	_, port, err := net.SplitHostPort(cfg.ListenAddr)
	if err != nil {
		port = cfg.ListenAddr
	}
	return host + ":" + port
}

// imageName names the image this instance drives: its MCP server's
// command and arguments (the image's directory, for pharo-sim).
func imageName(cfg config.Config) string {
	name := strings.Join(append([]string{cfg.PharoMCPCommand}, cfg.PharoMCPArgs...), " ")
	if len(name) > 512 {
		name = name[:512]
	}
	return name
}

// listen serves until a signal, then shuts down (see shutdown).
func listen(ctx context.Context, cfg config.Config, server *api.Server, pipe *pipeline.Pipeline, workers *pool.Pool, log *zap.Logger) error {
	ln, err := net.Listen("tcp", cfg.ListenAddr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", cfg.ListenAddr, err)
	}
	hs := server.HTTPServer()
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(server.Listener(ln)) }()
	// The start-up's garbage (configuration, migrations, prompts, the
	// image's handshake) would otherwise stay mapped while idle: one
	// collection now, on a heap of a few megabytes, hands it back.
	debug.FreeOSMemory()
	log.Info("refactord listening", zap.String("addr", ln.Addr().String()), zap.String("version", version.Version),
		zap.String("app_name", cfg.AppName), zap.String("app_version", shownVersion(cfg)),
		zap.String("model_provider", cfg.ModelProvider), zap.String("pharo_mcp_command", cfg.PharoMCPCommand))
	select {
	case err := <-errc:
		return fmt.Errorf("serving: %w", err)
	case <-ctx.Done():
	}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		if workers == nil {
			return
		}
		// A worker takes no new run from now on and finishes the one it
		// has; queued runs stay queued for the others.
		stopCtx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownGrace+answerWait)
		defer cancel()
		if err := workers.Stop(stopCtx); err != nil {
			log.Warn("stopping the pool's worker", zap.Error(err))
		}
	}()
	shutdown(cfg.ShutdownGrace, hs, server, pipe, log)
	<-stopped
	return nil
}

// shownVersion is the version /health and / show: APP_VERSION when set (the
// original's clients may check it), else the build's.
func shownVersion(cfg config.Config) string {
	if cfg.AppVersion != "" {
		return cfg.AppVersion
	}
	return version.Version
}

// versionRequested reports whether the command line asks only for the
// version (`refactord --version`, as a package manager or an image's
// label check calls it).
func versionRequested(args []string) bool {
	return len(args) == 1 && (args[0] == "--version" || args[0] == "-version" || args[0] == "version")
}

// answerWait bounds how long, after the last run ended, its handler may
// take to send the answer before the remaining connections are closed.
const answerWait = 5 * time.Second

// shutdown stops accepting, lets the runs finish for up to grace (runs are
// jobs: one may go on after its client left), then cancels the runs that
// have not begun release, always waits for a release under way (it
// completes or is rolled back, and is recorded), lets the answers go out,
// and closes what is left. Clients still sending a request are cut; none of
// them holds the shutdown.
func shutdown(grace time.Duration, hs *http.Server, server *api.Server, pipe *pipeline.Pipeline, log *zap.Logger) {
	log.Info("shutting down: no new runs; waiting for the in-flight run", zap.Duration("grace", grace))
	server.BeginShutdown()
	drained := make(chan error, 1)
	drainCtx, stopDraining := context.WithCancel(context.Background())
	defer stopDraining()
	go func() { drained <- hs.Shutdown(drainCtx) }() // closes the listener now, then waits for the requests
	idle := make(chan struct{})
	go func() { pipe.WaitIdle(); close(idle) }()
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-idle:
	case <-timer.C:
		log.Warn("the shutdown grace is over: cancelling runs that have not begun release; a release under way is finished first")
		server.CancelRuns()
		<-idle
	}
	select {
	case <-drained:
	case <-time.After(answerWait):
		stopDraining()
		<-drained
		log.Warn("closing connections that were still open")
	}
	if err := hs.Close(); err != nil {
		log.Warn("closing the listener", zap.Error(err))
	}
	log.Info("refactord stopped")
}

func closeAudit(audit *store.Store, log *zap.Logger) {
	if err := audit.Close(); err != nil {
		log.Warn("closing the audit store", zap.Error(err))
	}
}

// crashAt is fault injection for the crash tests: the process kills itself
// (SIGKILL, no cleanup) at the named release checkpoint. Empty: never.
func crashAt(point string, log *zap.Logger) func(string) {
	if point == "" {
		return nil
	}
	log.Warn("REFACTORD_CRASH_AT is set: this process will kill itself during a release (crash tests only)", zap.String("point", point))
	return func(p string) {
		if p == point {
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
	}
}

// holdAt is fault injection for the shutdown tests only: the release
// pauses at the named checkpoint for the given time, e.g.
// "after_compile:3s", so that a test can end the shutdown grace while a
// release is under way. Empty: never.
func holdAt(spec string, log *zap.Logger) func(string) {
	if spec == "" {
		return nil
	}
	point, hold, ok := strings.Cut(spec, ":")
	d, err := time.ParseDuration(hold)
	if !ok || err != nil || d <= 0 {
		log.Error("REFACTORD_HOLD_AT is not POINT:DURATION (e.g. after_compile:3s); ignored", zap.String("value", spec))
		return nil
	}
	log.Warn("REFACTORD_HOLD_AT is set: releases pause on purpose (shutdown tests only)", zap.String("point", point), zap.Duration("hold", d))
	return func(p string) {
		if p == point {
			log.Warn("holding the release (REFACTORD_HOLD_AT)", zap.String("point", p), zap.Duration("hold", d))
			time.Sleep(d)
		}
	}
}

// checkpoints calls every non-nil hook in turn.
func checkpoints(hooks ...func(string)) func(string) {
	return func(point string) {
		for _, h := range hooks {
			if h != nil {
				h(point)
			}
		}
	}
}

func closeImage(image *mcpclient.Client, log *zap.Logger) {
	if err := image.Close(); err != nil {
		log.Warn("closing the Pharo MCP server", zap.Error(err))
	}
}

// zapWriter turns the subprocess's stderr into log lines.
type zapWriter struct{ log *zap.Logger }

func (w *zapWriter) Write(p []byte) (int, error) {
	w.log.Info(string(trimNewline(p)))
	return len(p), nil
}

func trimNewline(p []byte) []byte {
	for len(p) > 0 && (p[len(p)-1] == '\n' || p[len(p)-1] == '\r') {
		p = p[:len(p)-1]
	}
	return p
}
