package pipeline

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// clock is a settable time source for the run slot.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestRunSlotSingleSlot(t *testing.T) {
	t.Parallel()
	g := newRunSlot()
	free, ok := g.take()
	require.True(t, ok)
	assert.True(t, g.isBusy())
	_, ok = g.take()
	assert.False(t, ok, "second acquire must fail at once")
	free()
	free() // idempotent
	assert.False(t, g.isBusy())
	_, ok = g.take()
	assert.True(t, ok)
}

func TestRunSlotConcurrentAcquireHasOneWinner(t *testing.T) {
	t.Parallel()
	g := newRunSlot()
	var wg sync.WaitGroup
	wins := make(chan struct{}, 64)
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, ok := g.take(); ok {
				wins <- struct{}{}
			}
		}()
	}
	wg.Wait()
	assert.Len(t, wins, 1)
}

func TestRunSlotRetryAfter(t *testing.T) {
	t.Parallel()
	c := &clock{t: time.Unix(1000, 0)}
	g := newRunSlot()
	g.now = c.now
	cases := []struct {
		name     string
		runs     []time.Duration // completed before
		elapsed  time.Duration
		expected int
	}{
		{"no history uses the first guess", nil, 10 * time.Second, 20},
		{"average of recent runs minus elapsed", []time.Duration{10 * time.Second, 20 * time.Second}, 5 * time.Second, 10},
		{"rounds up", []time.Duration{10 * time.Second}, 8500 * time.Millisecond, 2},
		{"at least one when overdue", []time.Duration{10 * time.Second}, time.Minute, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g.recent = nil
			for _, d := range tc.runs {
				free, ok := g.take()
				require.True(t, ok)
				c.t = c.t.Add(d)
				free()
			}
			_, ok := g.take()
			require.True(t, ok)
			c.t = c.t.Add(tc.elapsed)
			assert.Equal(t, tc.expected, g.retryAfter())
			g.busy = false
		})
	}
}

func TestRunSlotKeepsRecentRunsOnly(t *testing.T) {
	t.Parallel()
	c := &clock{t: time.Unix(0, 0)}
	g := newRunSlot()
	g.now = c.now
	for i := range 20 {
		free, _ := g.take()
		c.t = c.t.Add(time.Duration(i+1) * time.Second)
		free()
	}
	assert.Len(t, g.recent, keepRuns)
	assert.Equal(t, 15500*time.Millisecond, g.expected(), "mean of runs 11..20 s")
}
