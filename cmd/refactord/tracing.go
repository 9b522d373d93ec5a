package main

import (
	"context"
	"os"
	"time"

	"go.uber.org/zap"

	"github.com/pharo-refactor/refactord/telemetry"
)

// newTracing sets up OpenTelemetry traces as the OTEL_* variables say
// (read with the configuration: telemetry.FromEnv). The console exporter writes to stdout, apart from
// the logs on stderr.
func newTracing(ctx context.Context, settings telemetry.Settings, version string, log *zap.Logger) (*telemetry.Tracing, error) {
	tracing, err := telemetry.Setup(ctx, settings, version, os.Stdout)
	if err != nil {
		return nil, err
	}
	if settings.Exporter != telemetry.ExporterNone {
		log.Info("exporting traces (OTEL_TRACES_EXPORTER)", zap.String("exporter", settings.Exporter), zap.String("protocol", settings.Protocol))
	}
	return tracing, nil
}

// traceFlushWait bounds how long the spans still buffered at exit may take
// to reach the collector.
const traceFlushWait = 5 * time.Second

// flushTracing sends the spans still buffered and stops the exporter. It
// runs after the last run has ended, so every run's trace is complete.
func flushTracing(tracing *telemetry.Tracing, log *zap.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), traceFlushWait)
	defer cancel()
	if err := tracing.Shutdown(ctx); err != nil {
		log.Warn("flushing the traces at exit", zap.Error(err))
	}
}
