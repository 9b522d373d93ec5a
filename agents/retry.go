package agents

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Defaults of RetryPolicy's zero fields (except DefaultMaxRetries: a zero
// MaxRetries means no retries).
const (
	DefaultMaxRetries       = 4
	DefaultAttemptTimeout   = 120 * time.Second
	DefaultBaseDelay        = time.Second
	DefaultMaxDelay         = 30 * time.Second
	DefaultMaxRetryAfter    = 2 * time.Minute
	DefaultMaxResponseBytes = 4 << 20
)

// errResponseTooLarge is returned when a provider's HTTP response exceeds
// RetryPolicy.MaxResponseBytes.
var errResponseTooLarge = errors.New("the model's response is too large")

// errAttemptTimeout marks an attempt cut by RetryPolicy.AttemptTimeout.
var errAttemptTimeout = errors.New("attempt timed out")

// maxTimeoutRetries is how often a timed-out attempt is tried again: once.
// A model that did not answer within MODEL_TIMEOUT twice in a row is slow,
// not unlucky; more tries only multiply the wait (5 × 120 s on a slow local
// model) before the same failure.
const maxTimeoutRetries = 1

// RetryPolicy is the one retry implementation of the HTTP providers. Neither
// SDK's own retries fit: genai's backoff ignores Retry-After, openai-go's
// sleeps without watching the context; both are switched off and this
// transport retries instead.
//
// It retries transport errors, 408, 429 and 5xx (except 501), and a
// per-attempt timeout once, with exponential backoff and jitter, or exactly the wait a
// Retry-After header (or a Google RetryInfo) asks for. It never retries
// other statuses (auth, bad request) and never waits past the request
// context's deadline: then it returns the last response as is.
type RetryPolicy struct {
	// MaxRetries is the number of retries after the first attempt
	// (MODEL_MAX_RETRIES); zero or negative means none. The service's
	// default is DefaultMaxRetries, applied by its configuration.
	MaxRetries int
	// AttemptTimeout bounds each attempt (MODEL_TIMEOUT).
	AttemptTimeout time.Duration
	// BaseDelay is the first backoff; each retry doubles it, up to MaxDelay.
	BaseDelay time.Duration
	MaxDelay  time.Duration
	// MaxRetryAfter is the longest server-requested wait honoured; a longer
	// one ends the retries at once.
	MaxRetryAfter time.Duration
	// MaxResponseBytes bounds a response body.
	MaxResponseBytes int64
	// OnRetry, when set, hears about each retry before its wait (for logs).
	OnRetry func(attempt int, wait time.Duration, reason string)
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxRetries < 0 {
		p.MaxRetries = 0
	}
	if p.AttemptTimeout <= 0 {
		p.AttemptTimeout = DefaultAttemptTimeout
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = DefaultBaseDelay
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = DefaultMaxDelay
	}
	if p.MaxRetryAfter <= 0 {
		p.MaxRetryAfter = DefaultMaxRetryAfter
	}
	if p.MaxResponseBytes <= 0 {
		p.MaxResponseBytes = DefaultMaxResponseBytes
	}
	return p
}

// Client returns an HTTP client whose transport applies p over base (nil
// means http.DefaultTransport).
func (p RetryPolicy) Client(base http.RoundTripper) *http.Client {
	return p.clientWith(base, wallClock{})
}

// clientWith is Client with the clock the retries read and wait on.
func (p RetryPolicy) clientWith(base http.RoundTripper, clock retryClock) *http.Client {
	if base == nil {
		base = http.DefaultTransport
	}
	return &http.Client{Transport: &retryTransport{policy: p.withDefaults(), base: base, clock: clock}}
}

// retryClock is the time the retries see: when it is now (for a
// Retry-After date and the request's deadline) and the wait between two
// attempts. Tests put in a clock that records the waits instead of waiting.
type retryClock interface {
	Now() time.Time
	Sleep(ctx context.Context, d time.Duration) error
}

// wallClock is the real time.
type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }

func (wallClock) Sleep(ctx context.Context, d time.Duration) error { return Sleep(ctx, d) }

type retryTransport struct {
	policy RetryPolicy
	base   http.RoundTripper
	clock  retryClock
}

// RoundTrip sends req, retrying as the policy says.
func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	timeouts := 0
	for attempt := 0; ; attempt++ {
		resp, cancel, err := t.attempt(req, attempt)
		wait, reason, retry := t.shouldRetry(ctx, resp, err, attempt)
		if errors.Is(err, errAttemptTimeout) {
			timeouts++
			retry = retry && timeouts <= maxTimeoutRetries
		}
		if retry && !canReplay(req) {
			retry = false
		}
		if !retry {
			return t.finish(resp, err, cancel)
		}
		discard(resp)
		cancel()
		if t.policy.OnRetry != nil {
			t.policy.OnRetry(attempt+1, wait, reason)
		}
		if err := t.clock.Sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// attempt sends one try with its own timeout. The returned cancel must run
// once the response body is done with.
func (t *retryTransport) attempt(req *http.Request, n int) (*http.Response, context.CancelFunc, error) {
	actx, cancel := context.WithTimeout(req.Context(), t.policy.AttemptTimeout)
	r := req.Clone(actx)
	if n > 0 && req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return nil, cancel, fmt.Errorf("rewinding the request body: %w", err)
		}
		r.Body = body
	}
	resp, err := t.base.RoundTrip(r)
	if err != nil && actx.Err() != nil && req.Context().Err() == nil {
		err = fmt.Errorf("%w after %s: %w", errAttemptTimeout, t.policy.AttemptTimeout, err)
	}
	return resp, cancel, err
}

func canReplay(req *http.Request) bool {
	return req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
}

// shouldRetry decides whether to try again and how long to wait first.
func (t *retryTransport) shouldRetry(ctx context.Context, resp *http.Response, err error, attempt int) (time.Duration, string, bool) {
	if ctx.Err() != nil || attempt >= t.policy.MaxRetries {
		return 0, "", false
	}
	var reason string
	switch {
	case err != nil:
		reason = err.Error()
	case retryableStatus(resp.StatusCode):
		reason = resp.Status
	default:
		return 0, "", false
	}
	wait := t.backoff(attempt)
	if resp != nil {
		if after, ok := serverWait(resp, t.clock.Now()); ok {
			if after > t.policy.MaxRetryAfter {
				return 0, "", false
			}
			wait = after
		}
	}
	if deadline, ok := ctx.Deadline(); ok && t.clock.Now().Add(wait).After(deadline) {
		return 0, "", false
	}
	return wait, reason, true
}

func retryableStatus(code int) bool {
	switch {
	case code == http.StatusRequestTimeout, code == http.StatusTooManyRequests:
		return true
	case code == http.StatusNotImplemented:
		return false
	default:
		return code >= 500
	}
}

// backoff is BaseDelay·2^attempt capped at MaxDelay, with "equal jitter":
// half fixed, half random, so that concurrent clients spread out.
func (t *retryTransport) backoff(attempt int) time.Duration {
	d := t.policy.BaseDelay << min(attempt, 30)
	if d <= 0 || d > t.policy.MaxDelay {
		d = t.policy.MaxDelay
	}
	half := d / 2
	return half + time.Duration(rand.Int64N(int64(half)+1))
}

// serverWait reads how long the server asked us to wait: Retry-After
// (seconds or an HTTP date), else a google.rpc.RetryInfo in a 429 body (the
// Gemini API's way). It restores the body it peeks at; now dates a
// Retry-After given as an HTTP date.
func serverWait(resp *http.Response, now time.Time) (time.Duration, bool) {
	if v := strings.TrimSpace(resp.Header.Get("Retry-After")); v != "" {
		if secs, err := strconv.ParseFloat(v, 64); err == nil && secs >= 0 {
			return time.Duration(secs * float64(time.Second)), true
		}
		if at, err := http.ParseTime(v); err == nil {
			return max(at.Sub(now), 0), true
		}
	}
	if resp.StatusCode != http.StatusTooManyRequests || resp.Body == nil {
		return 0, false
	}
	return retryInfoDelay(resp)
}

func retryInfoDelay(resp *http.Response) (time.Duration, bool) {
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return 0, false
	}
	var e struct {
		Error struct {
			Details []struct {
				Type       string `json:"@type"`
				RetryDelay string `json:"retryDelay"`
			} `json:"details"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil {
		return 0, false
	}
	for _, d := range e.Error.Details {
		if !strings.HasSuffix(d.Type, "google.rpc.RetryInfo") {
			continue
		}
		if wait, err := time.ParseDuration(d.RetryDelay); err == nil && wait >= 0 {
			return wait, true
		}
	}
	return 0, false
}

// finish hands the last attempt to the SDK, tying the attempt's timeout to
// the body and bounding the body's size.
func (t *retryTransport) finish(resp *http.Response, err error, cancel context.CancelFunc) (*http.Response, error) {
	if err != nil {
		cancel()
		return nil, err
	}
	resp.Body = &boundedBody{rc: resp.Body, left: t.policy.MaxResponseBytes, cancel: cancel}
	return resp, nil
}

// discard drains a little of a response we will not use (so the
// connection can be reused) and closes it.
func discard(resp *http.Response) {
	if resp == nil || resp.Body == nil {
		return
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}

// Sleep waits d or until ctx is done, answering ctx's error then.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

// boundedBody fails reads past its limit and releases the attempt's
// context on Close.
type boundedBody struct {
	rc     io.ReadCloser
	left   int64
	cancel context.CancelFunc
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One more byte tells "exactly at the limit" from "over it".
		var one [1]byte
		n, err := b.rc.Read(one[:])
		if n > 0 {
			return 0, errResponseTooLarge
		}
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *boundedBody) Close() error {
	err := b.rc.Close()
	b.cancel()
	return err
}
