package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// loadOptions bound a load: so many connections, for so long, at most so
// many requests in all.
type loadOptions struct {
	conns       int
	duration    time.Duration
	maxRequests int64
}

type loadResult struct {
	busyResult
	firstErr error
}

// generateLoad POSTs body to url from opts.conns workers, each on its own
// keep-alive connection (a transport of its own, one connection at most),
// back to back, until opts.duration has passed or opts.maxRequests were
// sent. It only ever dials loopback. An answer counts as refused properly
// when it is 503 with a positive integer Retry-After.
func generateLoad(ctx context.Context, url string, body []byte, opts loadOptions) loadResult {
	ctx, cancel := context.WithTimeout(ctx, opts.duration)
	defer cancel()
	var (
		tickets atomic.Int64
		mu      sync.Mutex
		total   loadResult
		wg      sync.WaitGroup
	)
	start := time.Now()
	for range opts.conns {
		wg.Go(func() {
			var local loadResult
			local.lat = make(samples, 0, 4096)
			tr := &http.Transport{
				DialContext:         loopbackDialer,
				MaxConnsPerHost:     1,
				MaxIdleConnsPerHost: 1,
				DisableCompression:  true,
			}
			client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
			defer tr.CloseIdleConnections()
			for ctx.Err() == nil && tickets.Add(1) <= opts.maxRequests {
				t0 := time.Now()
				req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
				if err != nil {
					local.errors++
					local.firstErr = err
					break
				}
				req.Header.Set("Content-Type", "application/json")
				resp, err := client.Do(req)
				if err == nil {
					_, err = io.Copy(io.Discard, resp.Body)
					_ = resp.Body.Close()
				}
				d := time.Since(t0)
				if err != nil {
					if ctx.Err() != nil {
						break // cut off by the end of the load, not refused
					}
					local.errors++
					if local.firstErr == nil {
						local.firstErr = err
					}
					continue
				}
				local.answered++
				local.lat = append(local.lat, d)
				switch {
				case resp.StatusCode != http.StatusServiceUnavailable:
					local.non503++
				case !validRetryAfter(resp.Header.Get("Retry-After")):
					local.noRetryAfter++
				}
			}
			mu.Lock()
			defer mu.Unlock()
			total.answered += local.answered
			total.non503 += local.non503
			total.noRetryAfter += local.noRetryAfter
			total.errors += local.errors
			total.lat = append(total.lat, local.lat...)
			if total.firstErr == nil {
				total.firstErr = local.firstErr
			}
		})
	}
	wg.Wait()
	total.elapsed = time.Since(start)
	return total
}

func validRetryAfter(v string) bool {
	n, err := strconv.Atoi(v)
	return err == nil && n >= 1
}

// loopbackDialer refuses anything but a loopback address: the load never
// leaves the machine.
func loopbackDialer(ctx context.Context, network, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return nil, &net.AddrError{Err: "the load generator dials loopback only", Addr: addr}
	}
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}
