package measure

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func ms(xs ...int) Samples {
	out := make(Samples, len(xs))
	for i, x := range xs {
		out[i] = time.Duration(x) * time.Millisecond
	}
	return out
}

func TestPercentileNearestRank(t *testing.T) {
	hundred := make(Samples, 100)
	for i := range hundred {
		hundred[i] = time.Duration(100-i) * time.Millisecond // 100 … 1, unsorted
	}
	twoHundred := make(Samples, 200)
	for i := range twoHundred {
		twoHundred[i] = time.Duration(i+1) * time.Millisecond
	}
	tests := []struct {
		name string
		s    Samples
		p    float64
		want time.Duration
		ok   bool
	}{
		{"empty", nil, 50, 0, false},
		{"p zero", ms(1, 2), 0, 0, false},
		{"p over 100", ms(1, 2), 101, 0, false},
		{"p NaN", ms(1, 2), math.NaN(), 0, false},
		{"one sample p50", ms(7), 50, 7 * time.Millisecond, true},
		{"one sample p99", ms(7), 99, 7 * time.Millisecond, true},
		{"even count p50 is the lower middle", ms(4, 1, 3, 2), 50, 2 * time.Millisecond, true},
		{"odd count p50 is the middle", ms(5, 1, 3), 50, 3 * time.Millisecond, true},
		{"p100 is the maximum", ms(5, 9, 1), 100, 9 * time.Millisecond, true},
		{"tiny p is the minimum", ms(5, 9, 1), 0.001, 1 * time.Millisecond, true},
		{"p99 of 100", hundred, 99, 99 * time.Millisecond, true},
		{"p50 of 100", hundred, 50, 50 * time.Millisecond, true},
		{"p99 of 200", twoHundred, 99, 198 * time.Millisecond, true},
		{"p50 of 200 (no float drift)", twoHundred, 50, 100 * time.Millisecond, true},
		{"p99 of 3 is the maximum", ms(1, 2, 3), 99, 3 * time.Millisecond, true},
		{"duplicates", ms(2, 2, 2, 9), 50, 2 * time.Millisecond, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := tt.s.Percentile(tt.p)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestPercentileLeavesSamplesUnsorted(t *testing.T) {
	s := ms(3, 1, 2)
	_, ok := s.Percentile(50)
	require.True(t, ok)
	assert.Equal(t, ms(3, 1, 2), s)
}

func TestSummarize(t *testing.T) {
	tests := []struct {
		name string
		s    Samples
		want Summary
		ok   bool
	}{
		{"empty", nil, Summary{}, false},
		{"one", ms(4), Summary{N: 1, P50: 4 * time.Millisecond, P99: 4 * time.Millisecond, Max: 4 * time.Millisecond}, true},
		{"outlier shows in p99 and max only", ms(1, 1, 1, 1, 1, 1, 1, 1, 1, 50), Summary{N: 10, P50: time.Millisecond, P99: 50 * time.Millisecond, Max: 50 * time.Millisecond}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Summarize(tt.s)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestUnits(t *testing.T) {
	tests := []struct {
		name string
		got  float64
		want float64
	}{
		{"micros rounds to a tenth", Micros(12345 * time.Nanosecond), 12.3},
		{"micros rounds half up", Micros(12350 * time.Nanosecond), 12.4},
		{"millis rounds to a hundredth", Millis(1234567 * time.Nanosecond), 1.23},
		{"millis of zero", Millis(0), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.InDelta(t, tt.want, tt.got, 1e-9)
		})
	}
}

func TestRSSLine(t *testing.T) {
	status := "Name:\trefactord\nVmPeak:\t  900000 kB\nVmRSS:\t   30720 kB\nThreads:\t9\n"
	kb, err := ParseVmRSS(status)
	require.NoError(t, err)
	assert.Equal(t, int64(30720), kb)
	_, err = ParseVmRSS("Name:\tx\n")
	assert.Error(t, err)
	_, err = ParseVmRSS("VmRSS:\tlots kB\n")
	assert.Error(t, err)
}

func TestSpreadOf(t *testing.T) {
	tests := []struct {
		name string
		xs   []float64
		want Spread
		ok   bool
	}{
		{"empty", nil, Spread{}, false},
		{"one", []float64{3}, Spread{3, 3, 3}, true},
		{"odd, unsorted", []float64{5, 1, 3}, Spread{1, 3, 5}, true},
		{"even: the lower middle", []float64{4, 1, 3, 2}, Spread{1, 2, 4}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := SpreadOf(tt.xs)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestStatCPU(t *testing.T) {
	tests := []struct {
		name string
		line string
		want time.Duration
		err  bool
	}{
		{"plain", "1234 (refactord) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 30 0 0 20 0 9 0 100 0 0", 2800 * time.Millisecond, false},
		{"a name with spaces and parentheses", "77 (a (b) c) R 1 77 77 0 -1 0 0 0 0 0 7 3 0 0 20 0", 100 * time.Millisecond, false},
		{"no name", "1234 refactord S 1", 0, true},
		{"too short", "1 (x) S 1 2 3", 0, true},
		{"not a number", "1 (x) S 1 1 1 0 -1 0 0 0 0 0 a 3 0 0", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseStatCPU(tt.line)
			if tt.err {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
