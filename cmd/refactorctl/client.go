package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/pharo-refactor/refactord/wire"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// client talks to the service: authentication, request ids, retries after
// network errors and waiting while the service is busy.
type client struct {
	base    string // no trailing slash
	apiKey  string
	http    *http.Client
	deps    deps
	retries int
	waitMax time.Duration
	timeout time.Duration
	notify  func(msg string) // "busy: waiting …" and "retrying …" lines
}

func (c *cli) newClient(o options, notify func(string)) *client {
	transport := c.deps.transport
	if transport == nil {
		// A fresh transport, not http.DefaultTransport: no state shared
		// between in-process invocations, and bounded dials.
		transport = &http.Transport{
			Proxy:               http.ProxyFromEnvironment,
			DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 15 * time.Second}).DialContext,
			TLSHandshakeTimeout: 10 * time.Second,
			IdleConnTimeout:     30 * time.Second,
		}
	}
	if notify == nil {
		notify = func(string) {}
	}
	return &client{
		base: strings.TrimRight(o.url, "/"), apiKey: o.apiKey,
		http: &http.Client{Transport: transport}, deps: c.deps,
		retries: o.retries, waitMax: o.waitMax, timeout: o.timeout, notify: notify,
	}
}

// call is one logical request, possibly sent several times.
type call struct {
	method    string
	path      string // with the query
	body      []byte // JSON; nil for none
	accept    string
	requestID string
	// idempotent: any transport error may be retried. A run or a revert is
	// retried only when the connection was never made, so it cannot start
	// twice.
	idempotent bool
	// waitBusy: 503 busy / shutting_down is waited out up to --wait-max.
	waitBusy bool
	// timeout bounds one attempt, reading the body included (0: none; a
	// run is bounded by the service's own deadline and the idle watchdog).
	timeout time.Duration
}

// retryState is what one logical request has been through so far.
type retryState struct {
	start       time.Time
	netFailures int
	busyRounds  int
}

// send returns the first response that is not a busy refusal to wait out.
// The caller closes its body.
func (cl *client) send(ctx context.Context, rq call) (*http.Response, error) {
	st := &retryState{start: cl.deps.now()}
	for {
		resp, err := cl.attempt(ctx, rq)
		var wait time.Duration
		switch {
		case err != nil:
			wait, err = cl.afterNetworkError(ctx, rq, st, err)
		case rq.waitBusy && isBusy(resp):
			wait, err = cl.afterBusy(resp, rq, st)
		default:
			return resp, nil
		}
		if err != nil {
			return nil, err
		}
		if err := cl.deps.sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// afterNetworkError decides whether to try again, and after how long.
func (cl *client) afterNetworkError(ctx context.Context, rq call, st *retryState, err error) (time.Duration, error) {
	if ctx.Err() != nil {
		return 0, ctx.Err()
	}
	ambiguous := !isDialError(err) && !rq.idempotent
	if ambiguous || st.netFailures >= cl.retries {
		return 0, &unreachableError{attempts: st.netFailures + 1, err: err, maybeSent: ambiguous}
	}
	st.netFailures++
	wait := networkBackoff(st.netFailures)
	cl.notify(fmt.Sprintf("network error: %v; retry %d of %d in %s", err, st.netFailures, cl.retries, wait))
	return wait, nil
}

// afterBusy waits as Retry-After says, but never past --wait-max: the last
// wait is cut short, since the service's estimate may be pessimistic.
func (cl *client) afterBusy(resp *http.Response, rq call, st *retryState) (time.Duration, error) {
	busy := readProblem(resp, rq.requestID)
	waited := cl.deps.now().Sub(st.start)
	remaining := cl.waitMax - waited
	if remaining <= 0 {
		return 0, &busyError{waited: waited, last: busy}
	}
	wait := min(cl.busyDelay(resp.Header.Get("Retry-After"), st.busyRounds), remaining)
	st.busyRounds++
	cl.notify(fmt.Sprintf("service busy (%s); waiting %s (waited %s of --wait-max %s)",
		busy.Problem.Code, wait.Round(100*time.Millisecond), waited.Round(time.Second), cl.waitMax))
	return wait, nil
}

func (cl *client) attempt(ctx context.Context, rq call) (*http.Response, error) {
	var body io.Reader
	if rq.body != nil {
		body = bytes.NewReader(rq.body)
	}
	cancel := context.CancelFunc(func() {})
	if rq.timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, rq.timeout)
	}
	req, err := http.NewRequestWithContext(ctx, rq.method, cl.base+rq.path, body)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("building the request: %w", err)
	}
	if rq.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if rq.accept != "" {
		req.Header.Set("Accept", rq.accept)
	}
	if cl.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+cl.apiKey)
	}
	req.Header.Set("X-Request-ID", rq.requestID)
	req.Header.Set("User-Agent", "refactorctl")
	resp, err := cl.http.Do(req)
	if err != nil {
		cancel()
		return nil, err
	}
	resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

// cancelOnClose ends an attempt's timeout when its body is closed.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelOnClose) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// busyDelay follows Retry-After (seconds or an HTTP date) plus 0–25 %
// jitter, so that waiting clients do not all come back at once; without
// the header it backs off 1 s, 2 s, 4 s … up to 30 s.
func (cl *client) busyDelay(retryAfter string, round int) time.Duration {
	d, ok := parseRetryAfter(retryAfter, cl.deps.now())
	if !ok {
		d = min(time.Second<<min(round, 5), 30*time.Second)
	}
	return d + cl.deps.jitter(d/4)
}

func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.Atoi(v); err == nil && secs >= 0 {
		return time.Duration(secs) * time.Second, true
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(at.Sub(now), 0), true
	}
	return 0, false
}

// networkBackoff: 0.5 s, 1 s, 2 s … up to 8 s.
func networkBackoff(failures int) time.Duration {
	return min(500*time.Millisecond<<min(failures-1, 4), 8*time.Second)
}

// isDialError: the connection was never made (refused, DNS, dial timeout),
// so the service cannot have seen the request.
func isDialError(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var dns *net.DNSError
	return errors.As(err, &dns)
}

func isBusy(resp *http.Response) bool {
	if resp.StatusCode != http.StatusServiceUnavailable {
		return false
	}
	if !strings.Contains(resp.Header.Get("Content-Type"), "json") {
		return false
	}
	// Peek at the code without consuming the body for the caller.
	orig := resp.Body
	data, err := io.ReadAll(io.LimitReader(orig, 1<<20))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{bytes.NewReader(data), orig}
	if err != nil {
		return false
	}
	var p wire.Problem
	if json.Unmarshal(data, &p) != nil {
		return false
	}
	return p.Code == "busy" || p.Code == "shutting_down"
}

// readProblem reads a failed response into an apiError and closes it.
func readProblem(resp *http.Response, requestID string) *apiError {
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	e := &apiError{Status: resp.StatusCode, Raw: data, RequestID: requestID}
	if json.Unmarshal(data, &e.Problem) != nil || e.Problem.Status == 0 {
		e.Problem = wire.Problem{Status: resp.StatusCode, Detail: strings.TrimSpace(string(data))}
	}
	if e.Problem.RequestID != "" {
		e.RequestID = e.Problem.RequestID
	}
	return e
}

// getJSON sends a GET (retried after network errors, never waiting on
// busy) and returns the status and body; a problem body of a status ≥ 400
// becomes an apiError unless okStatus accepts the status.
func (cl *client) getJSON(ctx context.Context, path string, okStatus func(int) bool) (int, []byte, error) {
	rq := call{method: http.MethodGet, path: path, accept: "application/json", requestID: cl.deps.requestID(),
		idempotent: true, timeout: cl.timeout}
	return cl.exchange(ctx, rq, okStatus)
}

// exchange sends rq and reads the whole answer.
func (cl *client) exchange(ctx context.Context, rq call, okStatus func(int) bool) (int, []byte, error) {
	resp, err := cl.send(ctx, rq)
	if err != nil {
		return 0, nil, err
	}
	if okStatus == nil {
		okStatus = func(s int) bool { return s < 300 }
	}
	if !okStatus(resp.StatusCode) {
		return resp.StatusCode, nil, readProblem(resp, rq.requestID)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, nil, &unreachableError{attempts: 1, err: fmt.Errorf("reading the response: %w", err)}
	}
	return resp.StatusCode, data, nil
}
