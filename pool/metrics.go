package pool

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// waitStats is the time runs waited in the queue before this worker took
// them.
type waitStats struct {
	hist prometheus.Histogram
}

func newWaitStats() *waitStats {
	return &waitStats{hist: prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "refactord_queue_wait_seconds",
		Help:    "Time a run waited in the pool's queue before a worker took it (runs this worker took).",
		Buckets: []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600},
	})}
}

func (w *waitStats) observe(d time.Duration) { w.hist.Observe(d.Seconds()) }

// Register adds the queue's metrics to reg: its depth and the live workers
// (the pool's, read from the database at each scrape), and the wait.
func (p *Pool) Register(reg prometheus.Registerer) error {
	scrape := func(pick func(queued, workers int) int) func() float64 {
		return func() float64 {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			queued, workers, err := p.depth(ctx)
			if err != nil {
				return -1 // the database does not answer: /ready says so
			}
			return float64(pick(queued, workers))
		}
	}
	for _, c := range []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "refactord_queue_depth",
			Help: "Runs waiting in the pool's queue (-1: the database does not answer)."},
			scrape(func(q, _ int) int { return q })),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "refactord_pool_workers",
			Help: "Live workers of the pool (heartbeat within POOL_LEASE, not stopping)."},
			scrape(func(_, w int) int { return w })),
		p.waits.hist,
	} {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}
