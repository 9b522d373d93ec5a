package telemetry

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFromEnv(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		want    Settings
		wantErr string
	}{
		{"nothing set: no exporter", nil, Settings{Exporter: ExporterNone, Protocol: ProtocolHTTP}, ""},
		{"otlp defaults to http/protobuf", map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, Settings{Exporter: ExporterOTLP, Protocol: ProtocolHTTP}, ""},
		{"otlp over grpc", map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, Settings{Exporter: ExporterOTLP, Protocol: ProtocolGRPC}, ""},
		{"the traces' own protocol wins", map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf"}, Settings{Exporter: ExporterOTLP, Protocol: ProtocolHTTP}, ""},
		{"console", map[string]string{"OTEL_TRACES_EXPORTER": " Console "}, Settings{Exporter: ExporterConsole, Protocol: ProtocolHTTP}, ""},
		{"an unknown exporter is named", map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, Settings{}, "OTEL_TRACES_EXPORTER=zipkin"},
		{"two exporters are refused", map[string]string{"OTEL_TRACES_EXPORTER": "otlp,console"}, Settings{}, "OTEL_TRACES_EXPORTER=otlp,console"},
		{"http/json is not offered", map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, Settings{}, "OTEL_EXPORTER_OTLP_PROTOCOL=http/json"},
		{"the traces' protocol variable is named", map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "udp"}, Settings{}, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=udp"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := FromEnv(func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok })
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// The console exporter writes each span as JSON, with the service's
// resource.
func TestConsoleExporterWritesSpans(t *testing.T) {
	var out bytes.Buffer
	tracing, err := Setup(context.Background(), Settings{Exporter: ExporterConsole}, "9.9.9", &out)
	require.NoError(t, err)
	_, span := tracing.Tracer("test").Start(context.Background(), "refactor run")
	span.End()
	require.NoError(t, tracing.Shutdown(context.Background()))

	var got struct {
		Name        string
		SpanContext struct{ TraceID string }
		Resource    []struct {
			Key   string
			Value struct{ Value any }
		}
	}
	require.NoError(t, json.NewDecoder(&out).Decode(&got), "output: %s", out.String())
	assert.Equal(t, "refactor run", got.Name)
	assert.Len(t, got.SpanContext.TraceID, 32)
	resource := map[string]any{}
	for _, kv := range got.Resource {
		resource[kv.Key] = kv.Value.Value
	}
	assert.Equal(t, "refactord", resource["service.name"])
	assert.Equal(t, "9.9.9", resource["service.version"])
}

// With no exporter spans still get ids (a run's trace id is in its
// answer), and OTLP exporters start without a collector listening.
func TestEveryExporterStarts(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close()) // nothing listens there: exporting fails later, never at start
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://"+addr)
	for _, s := range []Settings{{Exporter: ExporterNone}, {Exporter: ExporterOTLP, Protocol: ProtocolHTTP}, {Exporter: ExporterOTLP, Protocol: ProtocolGRPC}} {
		t.Run(s.Exporter+" "+s.Protocol, func(t *testing.T) {
			tracing, err := Setup(context.Background(), s, "1", &bytes.Buffer{})
			require.NoError(t, err)
			_, span := tracing.Tracer("test").Start(context.Background(), "x")
			assert.True(t, span.SpanContext().HasTraceID())
			span.End()
			ctx, cancel := context.WithCancel(context.Background())
			cancel() // do not wait for an export that cannot succeed
			_ = tracing.Shutdown(ctx)
		})
	}
}
