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
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	pharorefactor "pharo-refactor"
	"pharo-refactor/api"
	"pharo-refactor/config"
	"pharo-refactor/mcpclient"
	"pharo-refactor/pipeline"
	"pharo-refactor/store"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "1.0.0"

const appName = "refactord"

func main() {
	os.Exit(run())
}

func run() int {
	cfg, err := loadConfig()
	if err != nil {
		fmt.Fprintf(os.Stderr, "refactord: configuration:\n%v\n", err)
		return 2
	}
	log, err := newLogger(cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "refactord: logger: %v\n", err)
		return 2
	}
	defer func() { _ = log.Sync() }()
	for _, w := range cfg.Warnings {
		log.Warn("CONFIGURATION WARNING: " + w)
	}
	if err := serve(cfg, log); err != nil {
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

func newLogger(cfg config.Config) (*zap.Logger, error) {
	level, err := zapcore.ParseLevel(cfg.LogLevel)
	if err != nil {
		return nil, err
	}
	zc := zap.NewProductionConfig()
	if cfg.LogFormat == "console" {
		zc = zap.NewDevelopmentConfig()
	}
	zc.Level = zap.NewAtomicLevelAt(level)
	zc.OutputPaths, zc.ErrorOutputPaths = []string{"stderr"}, []string{"stderr"}
	return zc.Build()
}

func serve(cfg config.Config, log *zap.Logger) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	image, err := mcpclient.New(mcpclient.Config{
		Command: cfg.PharoMCPCommand, Args: cfg.PharoMCPArgs, Dir: cfg.PharoMCPCwd, Env: cfg.PharoMCPEnv,
		CallTimeout: cfg.PharoMCPTimeout, StderrSink: &zapWriter{log: log.Named("pharo-mcp")}, Logger: log.Named("mcp"),
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

	audit, err := store.Open(ctx, filepath.Join(cfg.DataDir, "refactord.db"))
	if err != nil {
		return err
	}
	defer closeAudit(audit, log)

	roles, err := newRoles(ctx, cfg, image, log)
	if err != nil {
		return err
	}
	pipe := pipeline.New(image, roles, audit, pipeline.Options{
		MaxIterations: cfg.MaxValidationIterations, Timeout: cfg.PipelineTimeout,
		Models: map[string]string{
			"provider": cfg.ModelProvider, "reviewer": cfg.ReviewerModelID, "writer": cfg.WriterModelID,
			"validator": cfg.ValidatorModelID, "refiner": cfg.RefinerModelID,
		},
		Checkpoint: crashAt(os.Getenv("REFACTORD_CRASH_AT"), log),
	}, log.Named("pipeline"))
	if _, err := pipe.Reconcile(ctx); err != nil {
		// Rows that could not be settled stay in releasing for the next start.
		log.Error("reconciling interrupted releases", zap.Error(err))
	}

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	server := api.New(api.Options{
		AppName: appName, Version: version, APIKeys: cfg.APIKeys, MaxBodyBytes: cfg.MaxBodyBytes, OpenAPI: pharorefactor.OpenAPI,
	}, pipe, image, audit, reg, log.Named("api"))
	return listen(ctx, cfg, server, log)
}

// listen serves until a signal, then stops accepting, lets the in-flight
// run finish (up to SHUTDOWN_GRACE) and returns.
func listen(ctx context.Context, cfg config.Config, server *api.Server, log *zap.Logger) error {
	ln, err := net.Listen("tcp", cfg.ListenAddr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", cfg.ListenAddr, err)
	}
	hs := &http.Server{Handler: server.Handler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	log.Info("refactord listening", zap.String("addr", ln.Addr().String()), zap.String("version", version),
		zap.String("model_provider", cfg.ModelProvider), zap.String("pharo_mcp_command", cfg.PharoMCPCommand))
	select {
	case err := <-errc:
		return fmt.Errorf("serving: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down: no new runs; waiting for the in-flight run", zap.Duration("grace", cfg.ShutdownGrace))
	server.BeginShutdown()
	sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownGrace)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	log.Info("refactord stopped")
	return nil
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
