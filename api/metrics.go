package api

import (
	"github.com/prometheus/client_golang/prometheus"

	refactor "github.com/pharo-refactor/refactord"
)

// metrics are the operators' view of runs (GET /metrics).
type metrics struct {
	runs       *prometheus.CounterVec
	duration   prometheus.Histogram
	modelCalls prometheus.Counter
	tokens     *prometheus.CounterVec
	busy       prometheus.Counter
	// Clients cut for sending their request too slowly, by what they
	// were sending (see edge.go and body.go).
	stalledHeaders prometheus.Counter
	stalledBodies  prometheus.Counter
	// rolledBack counts releases undone because the tests regressed (or
	// a rollback was needed for another reason); lastSuccess is when a
	// run last ended well, for the "no successful run for long" alert.
	rolledBack  prometheus.Counter
	lastSuccess prometheus.Gauge
}

func newMetrics(reg *prometheus.Registry, pipe refactor.Runner, image ImageStatus) *metrics {
	m := &metrics{
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "refactord_runs_total", Help: "Finished runs by outcome or error code.",
		}, []string{"result"}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "refactord_run_duration_seconds", Help: "Wall time of runs.",
			Buckets: []float64{0.1, 0.5, 1, 5, 10, 30, 60, 120, 300, 600, 1200},
		}),
		modelCalls: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "refactord_model_calls_total", Help: "Model calls made by runs.",
		}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "refactord_model_tokens_total", Help: "Model tokens by direction.",
		}, []string{"direction"}),
		busy: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "refactord_busy_rejections_total", Help: "Requests refused because a run was in flight.",
		}),
		rolledBack: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "refactord_runs_rolled_back_total", Help: "Runs whose release was compiled and then undone (the tests regressed, or the release failed).",
		}),
		lastSuccess: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "refactord_last_success_timestamp_seconds", Help: "Unix time at which a run last ended well (released, verified, proposed or unchanged); 0 before the first.",
		}),
	}
	stalled := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "refactord_http_stalled_clients_total",
		Help: "Connections cut because the client did not send its request headers (READ_HEADER_TIMEOUT) or its body (READ_BODY_TIMEOUT) in time.",
	}, []string{"phase"})
	m.stalledHeaders, m.stalledBodies = stalled.WithLabelValues("headers"), stalled.WithLabelValues("body")
	inFlight := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "refactord_run_in_flight", Help: "1 while a run holds the slot.",
	}, func() float64 {
		if pipe.Busy() {
			return 1
		}
		return 0
	})
	imageUp := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "refactord_image_up", Help: "1 while the Pharo MCP server runs and the image answered its last call; 0 otherwise.",
	}, func() float64 {
		if h := image.Health(); h.Up && h.Answering {
			return 1
		}
		return 0
	})
	reg.MustRegister(m.runs, m.duration, m.modelCalls, m.tokens, m.busy, stalled, inFlight, m.rolledBack, m.lastSuccess, imageUp)
	return m
}

func (m *metrics) observe(res *refactor.Result, err error) {
	label := "error:" + string(refactor.KindOf(err))
	if err == nil {
		label = string(res.Outcome)
	}
	m.runs.WithLabelValues(label).Inc()
	if err == nil {
		m.lastSuccess.SetToCurrentTime()
	}
	if res == nil {
		return
	}
	if res.RolledBack {
		m.rolledBack.Inc()
	}
	m.duration.Observe(res.Duration.Seconds())
	m.modelCalls.Add(float64(res.Usage.ModelCalls))
	m.tokens.WithLabelValues("input").Add(float64(res.Usage.InputTokens))
	m.tokens.WithLabelValues("output").Add(float64(res.Usage.OutputTokens))
}
