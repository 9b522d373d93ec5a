// Package telemetry sets up OpenTelemetry tracing from the standard OTEL_*
// variables: which exporter (OTEL_TRACES_EXPORTER: none, otlp, console),
// which OTLP protocol (OTEL_EXPORTER_OTLP_TRACES_PROTOCOL or
// OTEL_EXPORTER_OTLP_PROTOCOL: http/protobuf, grpc), and, read by the SDK
// and the exporters themselves, the endpoint, headers, sampler and
// resource (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_SERVICE_NAME,
// OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_SAMPLER…).
//
// The provider is returned, never installed as the global one: the
// service hands it to each package that starts spans.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Exporters OTEL_TRACES_EXPORTER names.
const (
	ExporterNone    = "none"
	ExporterOTLP    = "otlp"
	ExporterConsole = "console"
)

// OTLP protocols.
const (
	ProtocolHTTP = "http/protobuf"
	ProtocolGRPC = "grpc"
)

// Settings are what Setup reads of the environment itself.
type Settings struct {
	Exporter string // none (default), otlp, console
	Protocol string // for otlp: http/protobuf (default) or grpc
}

// FromEnv reads the exporter and protocol variables; unknown values are
// refused with the variable's name.
func FromEnv(lookup func(string) (string, bool)) (Settings, error) {
	get := func(name string) string {
		v, _ := lookup(name)
		return strings.ToLower(strings.TrimSpace(v))
	}
	s := Settings{Exporter: get("OTEL_TRACES_EXPORTER"), Protocol: get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")}
	if s.Exporter == "" {
		s.Exporter = ExporterNone
	}
	protocolVar := "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
	if s.Protocol == "" {
		s.Protocol, protocolVar = get("OTEL_EXPORTER_OTLP_PROTOCOL"), "OTEL_EXPORTER_OTLP_PROTOCOL"
	}
	if s.Protocol == "" {
		s.Protocol = ProtocolHTTP
	}
	switch s.Exporter {
	case ExporterNone, ExporterOTLP, ExporterConsole:
	default:
		return Settings{}, fmt.Errorf("OTEL_TRACES_EXPORTER=%s: must be one of none, otlp, console (one exporter)", s.Exporter)
	}
	if s.Exporter == ExporterOTLP && s.Protocol != ProtocolHTTP && s.Protocol != ProtocolGRPC {
		return Settings{}, fmt.Errorf("%s=%s: must be http/protobuf or grpc", protocolVar, s.Protocol)
	}
	return s, nil
}

// Tracing is the service's tracer provider and how to flush it at exit.
type Tracing struct {
	*sdktrace.TracerProvider
	Settings Settings
	// idOnly: no exporter and the default sampler, so no span is ever
	// read; Tracer then gives spans that carry their ids only (idTracer).
	idOnly bool
}

// Tracer is the SDK's tracer, or, when no span is exported and the
// sampler is the default, one that makes the same span contexts without
// recording the spans (idTracer).
func (t *Tracing) Tracer(name string, opts ...trace.TracerOption) trace.Tracer {
	if t.idOnly {
		return idTracer{}
	}
	return t.TracerProvider.Tracer(name, opts...)
}

// Setup builds the tracer provider for s. With the exporter none, spans
// are still made (each run gets a trace id, an incoming traceparent is
// continued) but go nowhere. console writes them, one JSON document per
// span, to console.
func Setup(ctx context.Context, s Settings, serviceVersion string, console io.Writer) (*Tracing, error) {
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", "refactord"), attribute.String("service.version", serviceVersion)),
		resource.WithFromEnv(), // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win
		resource.WithTelemetrySDK(),
	)
	if err != nil && !errors.Is(err, resource.ErrPartialResource) {
		return nil, fmt.Errorf("OTEL_RESOURCE_ATTRIBUTES: %w", err)
	}
	opts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res)}
	exporter, err := newExporter(ctx, s, console)
	if err != nil {
		return nil, err
	}
	if exporter != nil {
		opts = append(opts, sdktrace.WithBatcher(exporter))
	}
	// The SDK reads OTEL_TRACES_SAMPLER itself; any sampler but its
	// default keeps the SDK's own spans.
	idOnly := exporter == nil && os.Getenv("OTEL_TRACES_SAMPLER") == ""
	return &Tracing{TracerProvider: sdktrace.NewTracerProvider(opts...), Settings: s, idOnly: idOnly}, nil
}

func newExporter(ctx context.Context, s Settings, console io.Writer) (sdktrace.SpanExporter, error) {
	switch {
	case s.Exporter == ExporterConsole:
		return stdouttrace.New(stdouttrace.WithWriter(console))
	case s.Exporter == ExporterOTLP && s.Protocol == ProtocolGRPC:
		e, err := otlptracegrpc.New(ctx)
		if err != nil {
			return nil, fmt.Errorf("OTLP/gRPC trace exporter: %w", err)
		}
		return e, nil
	case s.Exporter == ExporterOTLP:
		e, err := otlptracehttp.New(ctx)
		if err != nil {
			return nil, fmt.Errorf("OTLP/HTTP trace exporter: %w", err)
		}
		return e, nil
	}
	return nil, nil
}
