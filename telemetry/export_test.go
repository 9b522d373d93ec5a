package telemetry

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

// receiver keeps the names of the spans a fake collector received.
type receiver struct {
	collectortrace.UnimplementedTraceServiceServer
	mu    sync.Mutex
	names []string
}

func (r *receiver) keep(req *collectortrace.ExportTraceServiceRequest) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				r.names = append(r.names, s.Name)
			}
		}
	}
}

func (r *receiver) received() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.names...)
}

// Export is the OTLP/gRPC trace service.
func (r *receiver) Export(_ context.Context, req *collectortrace.ExportTraceServiceRequest) (*collectortrace.ExportTraceServiceResponse, error) {
	r.keep(req)
	return &collectortrace.ExportTraceServiceResponse{}, nil
}

// ServeHTTP is the OTLP/HTTP trace endpoint (protobuf).
func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	var export collectortrace.ExportTraceServiceRequest
	if err == nil && req.URL.Path == "/v1/traces" {
		err = proto.Unmarshal(body, &export)
	}
	if err != nil || req.URL.Path != "/v1/traces" {
		http.Error(w, "not an OTLP trace export", http.StatusBadRequest)
		return
	}
	r.keep(&export)
	out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// TestOTLPExportersReachACollector: the settings FromEnv reads pick the
// transport, and the exporters' own variables (the endpoint, insecure)
// reach them: a span ends up at a fake collector on loopback, over
// OTLP/HTTP and over OTLP/gRPC.
func TestOTLPExportersReachACollector(t *testing.T) {
	cases := []struct {
		protocol string
		serve    func(t *testing.T, r *receiver) string // answers the endpoint
	}{
		{ProtocolHTTP, func(t *testing.T, r *receiver) string {
			srv := httptest.NewServer(r)
			t.Cleanup(srv.Close)
			return srv.URL
		}},
		{ProtocolGRPC, func(t *testing.T, r *receiver) string {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			srv := grpc.NewServer()
			collectortrace.RegisterTraceServiceServer(srv, r)
			go func() { _ = srv.Serve(ln) }()
			t.Cleanup(srv.Stop)
			return "http://" + ln.Addr().String()
		}},
	}
	for _, tc := range cases {
		t.Run(tc.protocol, func(t *testing.T) {
			r := &receiver{}
			env := map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": tc.protocol}
			settings, err := FromEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
			require.NoError(t, err)
			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", tc.serve(t, r))
			t.Setenv("OTEL_EXPORTER_OTLP_INSECURE", "true")
			tracing, err := Setup(context.Background(), settings, "1", &bytes.Buffer{})
			require.NoError(t, err)
			_, span := tracing.Tracer("test").Start(context.Background(), "refactor run")
			span.End()
			require.NoError(t, tracing.Shutdown(context.Background()), "flushing to the collector")
			assert.Equal(t, []string{"refactor run"}, r.received())
		})
	}
}
