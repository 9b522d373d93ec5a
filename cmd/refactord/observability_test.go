package main

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/pharo-refactor/refactord/internal/testenv"
)

// promtool answers the path of Prometheus's promtool, or skips the test
// loudly; in CI (CI=true) a missing promtool fails the test instead.
func promtool(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("promtool")
	if err == nil {
		return path
	}
	const msg = "promtool is not installed (apt-get install prometheus): the alert rules and /metrics are not checked"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip("*** " + msg + " ***")
	return ""
}

func deployFile(t *testing.T, parts ...string) string {
	t.Helper()
	root, err := testenv.Root()
	require.NoError(t, err)
	return filepath.Join(append([]string{root, "deploy"}, parts...)...)
}

// TestAlertRulesPassPromtool checks the rules and runs their unit tests
// (deploy/prometheus/refactord-rules.test.yml) with promtool.
func TestAlertRulesPassPromtool(t *testing.T) {
	bin := promtool(t)
	for _, args := range [][]string{
		{"check", "rules", deployFile(t, "prometheus", "refactord-rules.yml")},
		{"test", "rules", deployFile(t, "prometheus", "refactord-rules.test.yml")},
	} {
		out, err := exec.Command(bin, args...).CombinedOutput()
		assert.NoError(t, err, "promtool %s:\n%s", strings.Join(args, " "), out)
		assert.Contains(t, string(out), "SUCCESS", "promtool %s", strings.Join(args, " "))
	}
}

// metricNames are the metric families an exposition declares (# TYPE),
// with a histogram's _bucket, _sum and _count series.
func metricNames(t *testing.T, exposition []byte) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(exposition))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 4 || fields[0] != "#" || fields[1] != "TYPE" {
			continue
		}
		names[fields[2]] = true
		if fields[3] == "histogram" || fields[3] == "summary" {
			for _, suffix := range []string{"_bucket", "_sum", "_count"} {
				names[fields[2]+suffix] = true
			}
		}
	}
	require.NoError(t, sc.Err())
	return names
}

// servicesMetric finds the names of the service's own metrics (and the Go
// and process collectors') in a PromQL expression; recorded series
// (refactord:…) and Prometheus's own (up) are not the service's.
var servicesMetric = regexp.MustCompile(`\b(?:refactord|process|go)_[a-z0-9_]+\b`)

// dashboardQueries answers every PromQL expression of a Grafana dashboard:
// the panels' targets and the templating queries.
func dashboardQueries(t *testing.T, file string) []string {
	t.Helper()
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
		Templating struct {
			List []struct {
				Type  string `json:"type"`
				Query any    `json:"query"`
			} `json:"list"`
		} `json:"templating"`
	}
	require.NoError(t, json.Unmarshal(data, &dash))
	var exprs []string
	for _, p := range dash.Panels {
		require.NotEmpty(t, p.Targets, "panel %q has no query", p.Title)
		for _, target := range p.Targets {
			require.NotEmpty(t, target.Expr, "panel %q has an empty query", p.Title)
			exprs = append(exprs, target.Expr)
		}
	}
	for _, v := range dash.Templating.List {
		if q, ok := v.Query.(string); ok && v.Type == "query" {
			exprs = append(exprs, q)
		}
	}
	return exprs
}

// TestMetricsPassPromtoolAndFeedTheDashboard scrapes /metrics of a real
// worker of a pool (so the queue's metrics are there too) after a run:
// promtool check metrics finds nothing to say, and every metric the
// Grafana dashboard and the alert rules query is one the service
// exports.
func TestMetricsPassPromtoolAndFeedTheDashboard(t *testing.T) {
	bin := promtool(t)
	pool := startPool(t, 1, approvesSum(answerTheSum, 0))
	s := pool.workers[0]
	resp, body, err := s.post("/api/v1/refactor", dryRunSum)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "body: %v", body)

	resp, err = http.Get(s.URL + "/metrics")
	require.NoError(t, err)
	exposition, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	require.NoError(t, err)

	check := exec.Command(bin, "check", "metrics")
	check.Stdin = bytes.NewReader(exposition)
	out, err := check.CombinedOutput()
	assert.NoError(t, err, "promtool check metrics:\n%s", out)
	assert.Empty(t, strings.TrimSpace(string(out)), "promtool check metrics has remarks")

	exported := metricNames(t, exposition)
	for _, name := range []string{"refactord_runs_total", "refactord_image_up", "refactord_queue_depth",
		"refactord_pool_workers", "refactord_last_success_timestamp_seconds", "refactord_runs_rolled_back_total"} {
		require.True(t, exported[name], "the service exports %s", name)
	}

	queries := dashboardQueries(t, deployFile(t, "grafana", "refactord-dashboard.json"))
	require.NotEmpty(t, queries)
	rules, err := os.ReadFile(deployFile(t, "prometheus", "refactord-rules.yml"))
	require.NoError(t, err)
	for source, exprs := range map[string][]string{"the dashboard": queries, "the rules": {string(rules)}} {
		used := 0
		for _, expr := range exprs {
			for _, name := range servicesMetric.FindAllString(expr, -1) {
				used++
				assert.True(t, exported[name], "%s queries %s, which the service does not export (in %q)", source, name, expr)
			}
		}
		assert.Positive(t, used, "%s queries the service's metrics", source)
	}
}

// TestPoolCarriesTheTraceAcrossTheQueue: a run posted with a traceparent
// to one worker of a pool of two is queued in one span and run by
// whichever worker takes it, in the same trace: the run's span is the
// child of the queue's, itself the child of the caller's.
func TestPoolCarriesTheTraceAcrossTheQueue(t *testing.T) {
	col := &collector{}
	endpoint := testenv.Serve(t, col)
	pool := startPool(t, 2, approvesSum(answerTheSum, 0),
		"OTEL_TRACES_EXPORTER=otlp", "OTEL_EXPORTER_OTLP_ENDPOINT="+endpoint, "OTEL_BSP_SCHEDULE_DELAY=50")

	const callerTrace, callerSpan = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
	body := refactorWithTrace(t, pool.workers[0], "00-"+callerTrace+"-"+callerSpan+"-01")
	require.Equal(t, "released", body["outcome"])
	assert.Equal(t, callerTrace, body["trace_id"])
	row := waitStatus(t, pool.workers[1], body["id"].(string), 10*time.Second, "released")
	assert.Equal(t, callerTrace, row["trace_id"], "the row, read from the other worker")

	var enqueue, run *tracepb.Span
	require.Eventually(t, func() bool {
		spans := col.trace(callerTrace)
		i := slices.IndexFunc(spans, func(s *tracepb.Span) bool { return s.Name == "enqueue runs" })
		j := slices.IndexFunc(spans, func(s *tracepb.Span) bool { return s.Name == "refactor run" })
		if i < 0 || j < 0 {
			return false
		}
		enqueue, run = spans[i], spans[j]
		return true
	}, 20*time.Second, 50*time.Millisecond, "the queue's and the run's spans reach the collector")
	assert.Equal(t, callerSpan, hex.EncodeToString(enqueue.ParentSpanId), "the queue's span is the caller's child")
	assert.Equal(t, tracepb.Span_SPAN_KIND_PRODUCER, enqueue.Kind)
	assert.Equal(t, hex.EncodeToString(enqueue.SpanId), hex.EncodeToString(run.ParentSpanId), "the run continues the queue's span")
	assert.Equal(t, body["worker"], attrs(run)["refactor.worker"], "the run's span comes from the worker that ran it")
	assert.True(t, slices.ContainsFunc(col.trace(callerTrace), func(s *tracepb.Span) bool {
		return s.Name == "update runs" && attrs(s)["db.system.name"] == "postgresql"
	}), "the audit trail's writes on PostgreSQL are in the trace")
}
