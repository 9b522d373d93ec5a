package main

import (
	"math"
	"slices"
	"time"
)

// samples are latencies of one measurement; every figure is computed from
// all of them (no sampling, no histogram buckets).
type samples []time.Duration

// percentile is the nearest-rank percentile (0 < p ≤ 100) of s: the
// smallest sample such that at least p% of the samples are ≤ it. It sorts
// a copy; an empty set answers 0 and false.
func (s samples) percentile(p float64) (time.Duration, bool) {
	if len(s) == 0 || p <= 0 || p > 100 || math.IsNaN(p) {
		return 0, false
	}
	sorted := slices.Clone(s)
	slices.Sort(sorted)
	return sorted[rank(p, len(sorted))], true
}

// rank is the 0-based index of the nearest-rank p-th percentile in n sorted
// samples: ceil(p/100 · n) − 1, clamped to [0, n−1].
func rank(p float64, n int) int {
	// The epsilon keeps 50% of 200 at rank 100, not 101, when p/100·n
	// comes out as 100.00000000000001.
	i := int(math.Ceil(p/100*float64(n)-1e-9)) - 1
	return min(max(i, 0), n-1)
}

// summary is what the table and results.json report of one sample set.
type summary struct {
	N   int
	P50 time.Duration
	P99 time.Duration
	Max time.Duration
}

func summarize(s samples) (summary, bool) {
	if len(s) == 0 {
		return summary{}, false
	}
	sorted := slices.Clone(s)
	slices.Sort(sorted)
	return summary{
		N:   len(sorted),
		P50: sorted[rank(50, len(sorted))],
		P99: sorted[rank(99, len(sorted))],
		Max: sorted[len(sorted)-1],
	}, true
}

// micros and millis turn a duration into the unit of a figure, rounded to
// a tenth of a microsecond and a hundredth of a millisecond.
func micros(d time.Duration) float64 { return round(float64(d)/float64(time.Microsecond), 1) }

func millis(d time.Duration) float64 { return round(float64(d)/float64(time.Millisecond), 2) }

func round(x float64, digits int) float64 {
	f := math.Pow10(digits)
	return math.Round(x*f) / f
}
