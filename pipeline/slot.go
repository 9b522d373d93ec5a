package pipeline

import (
	"math"
	"sync"
	"time"
)

// runSlot is the single run slot. It is taken without waiting: the image is
// reached over one stdio connection, so a second run is refused, not queued.
type runSlot struct {
	mu      sync.Mutex
	busy    bool
	freed   chan struct{} // closed when the current holder frees the slot
	started time.Time
	recent  []time.Duration // newest last, at most keepRuns
	now     func() time.Time
}

const (
	keepRuns = 10
	// firstGuess is the expected duration before any run finished: a run
	// with a real model takes 20–60 s.
	firstGuess = 30 * time.Second
)

// newRunSlot returns a free slot.
func newRunSlot() *runSlot { return &runSlot{now: time.Now} }

// take takes the slot if it is free. The returned free must be called
// (more calls are no-ops); it records the run's duration for Retry-After.
func (g *runSlot) take() (free func(), ok bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.busy {
		return nil, false
	}
	g.busy = true
	g.freed = make(chan struct{})
	g.started = g.now()
	var once sync.Once
	return func() { once.Do(g.free) }, true
}

func (g *runSlot) free() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.recent = append(g.recent, g.now().Sub(g.started))
	if len(g.recent) > keepRuns {
		g.recent = g.recent[1:]
	}
	g.busy = false
	close(g.freed)
}

// busy reports whether a run holds the slot.
func (g *runSlot) isBusy() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.busy
}

// retryAfter is the expected remaining seconds of the running pipeline: the
// moving average of recent runs minus the elapsed time, at least 1.
func (g *runSlot) retryAfter() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.busy {
		return 1
	}
	remaining := g.expected() - g.now().Sub(g.started)
	return max(1, int(math.Ceil(remaining.Seconds())))
}

// expected is the moving average of recent run durations.
func (g *runSlot) expected() time.Duration {
	if len(g.recent) == 0 {
		return firstGuess
	}
	var sum time.Duration
	for _, d := range g.recent {
		sum += d
	}
	return sum / time.Duration(len(g.recent))
}
