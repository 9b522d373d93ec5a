package mcpclient

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"

	refactor "github.com/pharo-refactor/refactord"
)

// Health returns the current snapshot without blocking on a start or a call:
// whether the server runs, whether the image answered the last call that
// ended, and the call in flight, if any. The real MCP server handles one
// call at a time, so anything that asked the image for readiness would wait
// behind a test run; this state answers instead.
func (c *Client) Health() refactor.ImageHealth {
	c.mu.Lock()
	h := c.health
	h.Up = c.sess != nil && c.sess.alive()
	h.PID = 0
	if h.Up {
		h.PID = c.sess.pid()
	}
	if a := c.abandoned; a != nil && a.sess == c.sess && h.Up {
		h.Abandoned = &refactor.InFlightCall{Tool: a.tool, Since: a.since, Seconds: time.Since(a.since).Seconds(), Calls: 1}
	}
	c.mu.Unlock()
	h.Answering = !h.LastSuccess.IsZero() && !h.LastSuccess.Before(h.LastErrorAt)
	h.InFlight = c.calls.oldest(time.Now())
	return h
}

// inflight tracks the tool calls waiting for their answers.
type inflight struct {
	mu    sync.Mutex
	next  uint64
	calls map[uint64]inflightCall
}

type inflightCall struct {
	tool  string
	since time.Time
}

// begin marks a call in flight; done unmarks it.
func (f *inflight) begin(tool string) (done func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.calls == nil {
		f.calls = map[uint64]inflightCall{}
	}
	f.next++
	id := f.next
	f.calls[id] = inflightCall{tool: tool, since: time.Now()}
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		delete(f.calls, id)
	}
}

// oldest describes the call that has waited longest, nil when none waits.
func (f *inflight) oldest(now time.Time) *refactor.InFlightCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out *refactor.InFlightCall
	for _, call := range f.calls {
		if out == nil || call.since.Before(out.Since) {
			out = &refactor.InFlightCall{Tool: call.tool, Since: call.since}
		}
	}
	if out != nil {
		out.Calls = len(f.calls)
		out.Seconds = now.Sub(out.Since).Seconds()
	}
	return out
}

func (f *inflight) busy() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.calls) > 0
}

// prober asks the image a cheap question in the background (see
// Config.ProbeInterval).
type prober struct {
	start sync.Once
	stopO sync.Once
	kick  chan struct{} // a server (re)started: probe now
	done  chan struct{}
}

func newProber() *prober {
	return &prober{kick: make(chan struct{}, 1), done: make(chan struct{})}
}

func (p *prober) stop() { p.stopO.Do(func() { close(p.done) }) }

// probeTimeout bounds one probe: it is a lookup the image answers at once.
const probeTimeout = 10 * time.Second

// startProbing probes now, in the background, and keeps probing while the
// client is idle, when ProbeInterval is set.
func (c *Client) startProbing() {
	if c.cfg.ProbeInterval <= 0 {
		return
	}
	c.probes.start.Do(func() { go c.probeLoop() })
	select {
	case c.probes.kick <- struct{}{}:
	default: // a probe is already asked for
	}
}

func (c *Client) probeLoop() {
	tick := time.NewTicker(max(c.cfg.ProbeInterval/2, 10*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-c.probes.done:
			return
		case <-c.probes.kick:
			c.probe()
		case <-tick.C:
			if c.idleFor() >= c.cfg.ProbeInterval {
				c.probe()
			}
		}
	}
}

// idleFor is the time since the last call ended (or the server started).
func (c *Client) idleFor() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	last := c.health.StartedAt
	for _, t := range []time.Time{c.health.LastSuccess, c.health.LastErrorAt} {
		if t.After(last) {
			last = t
		}
	}
	return time.Since(last)
}

// probe asks whether Object exists, unless a call is in flight (its answer
// will tell) or no server runs (the supervisor is restarting it, and probes
// once it is back). The outcome lands in Health through the call itself.
func (c *Client) probe() {
	if c.calls.busy() {
		return
	}
	if s, err := c.live(); s == nil || err != nil {
		return
	}
	limit := min(c.cfg.CallTimeout, probeTimeout)
	behind := c.Health().Abandoned != nil
	if behind {
		limit = c.cfg.CallTimeout // it waits for the abandoned call first
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	_, err := c.ClassExists(ctx, "Object")
	if refactor.IsKind(err, refactor.Timeout) && behind {
		return // still busy with the abandoned call, not down
	}
	if refactor.IsKind(err, refactor.Timeout) { // the probe's own deadline: the image did not answer
		err = refactor.Errorf(refactor.PharoUnavailable, "the Pharo image did not answer a probe within %s", limit)
		c.noteCallError(err)
	}
	if err != nil {
		c.log.Warn("the Pharo image did not answer a probe", zap.Error(err))
	}
}
