// Package measure is what the bench and its helper programs (the load
// generator) compute figures with: latency samples and their percentiles,
// the spread of a figure over rounds, and a process's CPU time and memory
// as /proc reports them.
package measure

import (
	"math"
	"slices"
	"time"
)

// Samples are latencies of one measurement; every figure is computed from
// all of them (no sampling, no histogram buckets).
type Samples []time.Duration

// Percentile is the nearest-rank percentile (0 < p ≤ 100) of s: the
// smallest sample such that at least p% of the samples are ≤ it. It sorts
// a copy; an empty set answers 0 and false.
func (s Samples) Percentile(p float64) (time.Duration, bool) {
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

// Summary is what the table and results.json report of one sample set.
type Summary struct {
	N   int
	P50 time.Duration
	P99 time.Duration
	Max time.Duration
}

// Summarize answers the summary of s; false when s is empty.
func Summarize(s Samples) (Summary, bool) {
	if len(s) == 0 {
		return Summary{}, false
	}
	sorted := slices.Clone(s)
	slices.Sort(sorted)
	return Summary{
		N:   len(sorted),
		P50: sorted[rank(50, len(sorted))],
		P99: sorted[rank(99, len(sorted))],
		Max: sorted[len(sorted)-1],
	}, true
}

// Micros and Millis turn a duration into the unit of a figure, rounded to
// a tenth of a microsecond and a hundredth of a millisecond.
func Micros(d time.Duration) float64 { return Round(float64(d)/float64(time.Microsecond), 1) }

// Millis: see Micros.
func Millis(d time.Duration) float64 { return Round(float64(d)/float64(time.Millisecond), 2) }

// Round rounds x to digits decimals.
func Round(x float64, digits int) float64 {
	f := math.Pow10(digits)
	return math.Round(x*f) / f
}

// Spread is a figure over the rounds of a measurement: its smallest,
// median and largest value.
type Spread struct {
	Min    float64 `json:"min"`
	Median float64 `json:"median"`
	Max    float64 `json:"max"`
}

// SpreadOf answers the spread of xs (the lower middle for an even count,
// as Percentile does); false when xs is empty.
func SpreadOf(xs []float64) (Spread, bool) {
	if len(xs) == 0 {
		return Spread{}, false
	}
	sorted := slices.Clone(xs)
	slices.Sort(sorted)
	return Spread{Min: sorted[0], Median: sorted[rank(50, len(sorted))], Max: sorted[len(sorted)-1]}, true
}
