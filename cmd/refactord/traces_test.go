package main

import (
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/pharo-refactor/refactord/internal/testenv"
)

// collector is a fake OpenTelemetry collector on loopback: it takes
// OTLP/HTTP protobuf exports, as Jaeger and Tempo do on /v1/traces, and
// keeps their spans.
type collector struct {
	mu    sync.Mutex
	spans []*tracepb.Span
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "not an OTLP/HTTP protobuf trace export", http.StatusNotFound)
		return
	}
	body, err := io.ReadAll(r.Body)
	var req collectortrace.ExportTraceServiceRequest
	if err == nil {
		err = proto.Unmarshal(body, &req)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			c.spans = append(c.spans, ss.Spans...)
		}
	}
	c.mu.Unlock()
	out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// trace answers the spans received of trace id (hex).
func (c *collector) trace(id string) []*tracepb.Span {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*tracepb.Span
	for _, s := range c.spans {
		if hex.EncodeToString(s.TraceId) == id {
			out = append(out, s)
		}
	}
	return out
}

func (c *collector) all() []*tracepb.Span {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.spans)
}

func attrs(s *tracepb.Span) map[string]any {
	out := map[string]any{}
	for _, kv := range s.Attributes {
		out[kv.Key] = value(kv.Value)
	}
	return out
}

func value(v *commonpb.AnyValue) any {
	switch x := v.Value.(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return x.IntValue
	case *commonpb.AnyValue_BoolValue:
		return x.BoolValue
	case *commonpb.AnyValue_DoubleValue:
		return x.DoubleValue
	case *commonpb.AnyValue_ArrayValue:
		var out []any
		for _, e := range x.ArrayValue.Values {
			out = append(out, value(e))
		}
		return out
	}
	return nil
}

// refactorWithTrace posts a run of Calculator>>sum:with:, with a
// traceparent header unless it is empty, and answers the JSON body.
func refactorWithTrace(t *testing.T, s *service, traceparent string) map[string]any {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.URL+"/api/v1/refactor",
		strings.NewReader(`{"class_name": "Calculator", "method_name": "sum:with:"}`))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	if traceparent != "" {
		req.Header.Set("traceparent", traceparent)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var body map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	require.Equal(t, http.StatusOK, resp.StatusCode, "body: %v", body)
	return body
}

// TestARunIsOneTraceAtTheCollector runs the real binary with
// OTEL_TRACES_EXPORTER=otlp against a fake collector and reads the trace
// of a released run: the run's span continues the caller's traceparent,
// has a span per stage, and under them the model calls (GenAI
// attributes), the MCP tool calls (tool names, no source) and the audit
// trail's transactions; the answer and the row carry the trace id.
func TestARunIsOneTraceAtTheCollector(t *testing.T) {
	col := &collector{}
	endpoint := testenv.Serve(t, col)
	dir, env := imageEnv(t, approvesSum(answerTheSum, 0))
	s := start(t, dir, append(env, "OTEL_TRACES_EXPORTER=otlp", "OTEL_EXPORTER_OTLP_ENDPOINT="+endpoint,
		"OTEL_BSP_SCHEDULE_DELAY=50", "MODEL_ID=traced-model", "OTEL_SERVICE_NAME=refactord-under-test")...)

	const callerTrace, callerSpan = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	body := refactorWithTrace(t, s, "00-"+callerTrace+"-"+callerSpan+"-01")
	require.Equal(t, "released", body["outcome"])
	assert.Equal(t, callerTrace, body["trace_id"], "the answer names the caller's trace")

	var row map[string]any
	resp, err := http.Get(s.URL + "/api/v1/refactorings/" + body["id"].(string))
	require.NoError(t, err)
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&row))
	_ = resp.Body.Close()
	assert.Equal(t, callerTrace, row["trace_id"], "the row names the trace")

	var spans []*tracepb.Span
	require.Eventually(t, func() bool {
		spans = col.trace(callerTrace)
		return slices.ContainsFunc(spans, func(s *tracepb.Span) bool { return s.Name == "refactor run" })
	}, 20*time.Second, 50*time.Millisecond, "the run's span reaches the collector")

	byID := map[string]*tracepb.Span{}
	for _, s := range spans {
		byID[hex.EncodeToString(s.SpanId)] = s
	}
	parentName := func(s *tracepb.Span) string {
		if p := byID[hex.EncodeToString(s.ParentSpanId)]; p != nil {
			return p.Name
		}
		return hex.EncodeToString(s.ParentSpanId)
	}
	var run *tracepb.Span
	stages, models, tools, txs := map[string]*tracepb.Span{}, []*tracepb.Span{}, map[string][]string{}, map[string]string{}
	for _, s := range spans {
		switch {
		case s.Name == "refactor run":
			run = s
		case strings.HasPrefix(s.Name, "stage "):
			stages[strings.TrimPrefix(s.Name, "stage ")] = s
		case strings.HasPrefix(s.Name, "chat "):
			models = append(models, s)
		case strings.HasPrefix(s.Name, "tools/call "):
			tool := strings.TrimPrefix(s.Name, "tools/call ")
			tools[tool] = append(tools[tool], parentName(s))
			assert.Equal(t, tool, attrs(s)["gen_ai.tool.name"])
			assert.Equal(t, "tools/call", attrs(s)["mcp.method.name"])
		case strings.HasSuffix(s.Name, " runs"):
			txs[strings.TrimSuffix(s.Name, " runs")] = parentName(s)
		}
	}
	require.NotNil(t, run)
	assert.Equal(t, callerSpan, hex.EncodeToString(run.ParentSpanId), "the run continues the caller's span")
	ra := attrs(run)
	assert.Equal(t, body["id"], ra["refactor.run.id"])
	assert.Equal(t, "Calculator", ra["refactor.class"])
	assert.Equal(t, "sum:with:", ra["refactor.selector"])
	assert.Equal(t, "released", ra["refactor.outcome"])

	for _, stage := range []string{"prefetch", "review", "write", "validate", "release"} {
		require.Contains(t, stages, stage, "a span for the stage %s", stage)
		assert.Equal(t, "refactor run", parentName(stages[stage]), "stage %s is the run's child", stage)
	}

	require.Len(t, models, 3, "review, write, validate: three model calls")
	var roles []string
	for _, m := range models {
		a := attrs(m)
		roles = append(roles, a["refactor.role"].(string))
		assert.Equal(t, "chat traced-model", m.Name)
		assert.Equal(t, "chat", a["gen_ai.operation.name"])
		assert.Equal(t, "traced-model", a["gen_ai.request.model"])
		assert.Equal(t, "scripted", a["gen_ai.provider.name"])
		assert.Positive(t, a["gen_ai.usage.input_tokens"])
		assert.Positive(t, a["gen_ai.usage.output_tokens"])
		assert.Equal(t, []any{"stop"}, a["gen_ai.response.finish_reasons"])
		assert.Equal(t, tracepb.Span_SPAN_KIND_CLIENT, m.Kind)
	}
	assert.ElementsMatch(t, []string{"reviewer", "writer", "validator"}, roles)
	for _, m := range models {
		assert.Equal(t, "stage "+map[any]string{"reviewer": "review", "writer": "write", "validator": "validate"}[attrs(m)["refactor.role"]],
			parentName(m), "a model call is its stage's child")
	}

	assert.Contains(t, tools["get_method_source"], "stage prefetch", "tool calls: %v", tools)
	assert.Contains(t, tools["get_method_source"], "stage release", "the read back; tool calls: %v", tools)
	assert.Contains(t, tools["run_class_test"], "stage release", "tool calls: %v", tools)
	for tool, parents := range tools {
		for _, parent := range parents {
			assert.True(t, strings.HasPrefix(parent, "stage "), "tool call %s under a stage, not %s", tool, parent)
		}
	}

	assert.Equal(t, "refactor run", txs["create"], "transactions: %v", txs)
	assert.Equal(t, "refactor run", txs["update"], "transactions: %v", txs)
	assert.Equal(t, "stage release", txs["begin_release"], "transactions: %v", txs)
	for _, s := range spans {
		if strings.HasSuffix(s.Name, " runs") {
			assert.Equal(t, "sqlite", attrs(s)["db.system.name"])
		}
	}

	// No span carries source code: neither the original nor the candidate.
	original, refactored := body["original_code"].(string), body["refactored_code"].(string)
	require.NotEmpty(t, original)
	for _, s := range col.all() {
		for k, v := range attrs(s) {
			text, ok := v.(string)
			if ok && len(text) > 8 {
				assert.NotContains(t, original, text, "span %s, attribute %s", s.Name, k)
				assert.NotContains(t, text, "^ a + b", "span %s, attribute %s", s.Name, k)
				assert.NotContains(t, text, refactored, "span %s, attribute %s", s.Name, k)
			}
		}
	}

	// A revert continues its caller's trace too, and its row says so.
	const revertTrace, revertCaller = "5bf92f3577b34da6a3ce929d0e0e4737", "10f067aa0ba902b8"
	req, err := http.NewRequest(http.MethodPost, s.URL+"/api/v1/refactorings/"+body["id"].(string)+"/revert", strings.NewReader("{}"))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("traceparent", "00-"+revertTrace+"-"+revertCaller+"-01")
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	var revertRow map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&revertRow))
	_ = resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "revert: %v", revertRow)
	assert.Equal(t, revertTrace, revertRow["trace_id"])
	require.Eventually(t, func() bool {
		return slices.ContainsFunc(col.trace(revertTrace), func(s *tracepb.Span) bool {
			return s.Name == "revert run" && hex.EncodeToString(s.ParentSpanId) == revertCaller
		})
	}, 20*time.Second, 50*time.Millisecond, "the revert's span continues its caller's")
	assert.True(t, slices.ContainsFunc(col.trace(revertTrace), func(s *tracepb.Span) bool { return s.Name == "begin_release runs" }),
		"the revert's write-ahead transaction is in its trace")

	// Without a traceparent a run starts a trace of its own.
	own := refactorWithTrace(t, s, "")
	ownTrace, _ := own["trace_id"].(string)
	require.Len(t, ownTrace, 32)
	assert.NotEqual(t, callerTrace, ownTrace)
	require.Eventually(t, func() bool {
		return slices.ContainsFunc(col.trace(ownTrace), func(s *tracepb.Span) bool { return s.Name == "refactor run" })
	}, 20*time.Second, 50*time.Millisecond)
	for _, s := range col.trace(ownTrace) {
		if s.Name == "refactor run" {
			assert.Empty(t, s.ParentSpanId, "the run's span is its trace's root")
		}
	}
}
