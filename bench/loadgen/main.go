// Command loadgen is make bench's load generator, run as a process of its
// own so that the load it makes is told apart from the server's work: it
// POSTs a body to a URL from many keep-alive connections for a while,
// probes a health URL on one more connection meanwhile, and prints one JSON
// object with what it measured, its own CPU time and the server's (from
// /proc/PID/stat) over the same window. It dials loopback only.
//
//	loadgen -url URL -body FILE [-conns 64] [-duration 2s] [-health URL] [-health-every 10ms] [-server-pid PID]
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pharo-refactor/refactord/bench/internal/measure"
)

// maxBody bounds a body read from a file or a health answer.
const maxBody = 1 << 20

type options struct {
	url         string
	body        []byte
	conns       int
	duration    time.Duration
	maxRequests int64
	health      string
	healthEvery time.Duration
	serverPID   int
}

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	o, err := parse(args)
	if err != nil {
		return err
	}
	res, err := load(context.Background(), o)
	if err != nil {
		return err
	}
	return json.NewEncoder(stdout).Encode(res)
}

func parse(args []string) (options, error) {
	fs := flag.NewFlagSet("loadgen", flag.ContinueOnError)
	var o options
	var bodyFile string
	fs.StringVar(&o.url, "url", "", "where to POST")
	fs.StringVar(&bodyFile, "body", "", "file holding the JSON body to POST")
	fs.IntVar(&o.conns, "conns", 64, "keep-alive connections, one worker each")
	fs.DurationVar(&o.duration, "duration", 2*time.Second, "how long to load")
	fs.Int64Var(&o.maxRequests, "max-requests", 1_000_000, "at most this many POSTs in all")
	fs.StringVar(&o.health, "health", "", "a URL to GET on one more connection during the load (empty: none)")
	fs.DurationVar(&o.healthEvery, "health-every", 10*time.Millisecond, "how often to GET the health URL")
	fs.IntVar(&o.serverPID, "server-pid", 0, "the server's process, whose CPU time is reported (0: none)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if o.url == "" || bodyFile == "" || o.conns < 1 || o.duration <= 0 || o.healthEvery <= 0 {
		return o, errors.New("-url and -body are required; -conns, -duration and -health-every must be positive")
	}
	data, err := os.ReadFile(bodyFile)
	if err != nil {
		return o, err
	}
	if len(data) > maxBody {
		return o, fmt.Errorf("%s is over %d bytes", bodyFile, maxBody)
	}
	o.body = data
	return o, nil
}

// load runs the POST workers and the health probe for o.duration and
// measures the CPU both processes used meanwhile.
func load(ctx context.Context, o options) (measure.LoadResult, error) {
	selfBefore, err := measure.CPUTime(os.Getpid())
	if err != nil {
		return measure.LoadResult{}, fmt.Errorf("reading its own CPU time: %w", err)
	}
	var serverBefore time.Duration
	if o.serverPID > 0 {
		if serverBefore, err = measure.CPUTime(o.serverPID); err != nil {
			return measure.LoadResult{}, fmt.Errorf("reading the server's CPU time: %w", err)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, o.duration)
	defer cancel()
	probe := make(chan healthProbe, 1)
	go func() { probe <- probeHealth(ctx, o) }()
	start := time.Now()
	w := post(ctx, o)
	elapsed := time.Since(start)
	cancel() // the workers may have stopped at maxRequests: the probe stops with them
	hp := <-probe
	selfAfter, err := measure.CPUTime(os.Getpid())
	if err != nil {
		return measure.LoadResult{}, err
	}
	res := measure.LoadResult{
		Answered: w.answered, Non503: w.non503, NoRetryAfter: w.noRetryAfter, Errors: w.errors,
		Seconds: elapsed.Seconds(), RPS: float64(w.answered) / elapsed.Seconds(), // answers only: a transport error served nobody
		Latency: latency(w.lat), Health: latency(hp.lat), HealthNotBusy: hp.notBusy,
		Conns: o.conns, HealthEveryMS: measure.Millis(o.healthEvery),
	}
	if w.firstErr != nil {
		res.FirstError = w.firstErr.Error()
	}
	if hp.err != nil {
		res.HealthError = hp.err.Error()
	}
	res.CPU.LoadgenSeconds = (selfAfter - selfBefore).Seconds()
	res.CPU.LoadgenCores = measure.Round(res.CPU.LoadgenSeconds/elapsed.Seconds(), 2)
	if o.serverPID > 0 {
		serverAfter, err := measure.CPUTime(o.serverPID)
		if err != nil {
			return measure.LoadResult{}, fmt.Errorf("reading the server's CPU time: %w", err)
		}
		res.CPU.ServerSeconds = (serverAfter - serverBefore).Seconds()
		res.CPU.ServerCores = measure.Round(res.CPU.ServerSeconds/elapsed.Seconds(), 2)
	}
	return res, nil
}

func latency(s measure.Samples) measure.Latency {
	sum, ok := measure.Summarize(s)
	if !ok {
		return measure.Latency{}
	}
	return measure.Latency{N: sum.N, P50: measure.Micros(sum.P50), P99: measure.Micros(sum.P99), Max: measure.Micros(sum.Max)}
}

// workers is what the POST workers counted together.
type workers struct {
	answered, non503, noRetryAfter, errors int
	lat                                    measure.Samples
	firstErr                               error
}

// post runs o.conns workers, each on its own keep-alive connection (a
// transport of its own, one connection at most), back to back, until ctx
// ends or o.maxRequests were sent. An answer counts as refused properly
// when it is 503 with a positive integer Retry-After.
func post(ctx context.Context, o options) workers {
	var (
		tickets atomic.Int64
		mu      sync.Mutex
		total   workers
		wg      sync.WaitGroup
	)
	for range o.conns {
		wg.Go(func() {
			w := worker(ctx, o, &tickets)
			mu.Lock()
			defer mu.Unlock()
			total.answered += w.answered
			total.non503 += w.non503
			total.noRetryAfter += w.noRetryAfter
			total.errors += w.errors
			total.lat = append(total.lat, w.lat...)
			if total.firstErr == nil {
				total.firstErr = w.firstErr
			}
		})
	}
	wg.Wait()
	return total
}

func worker(ctx context.Context, o options, tickets *atomic.Int64) workers {
	w := workers{lat: make(measure.Samples, 0, 4096)}
	client := loopbackClient()
	defer client.CloseIdleConnections()
	for ctx.Err() == nil && tickets.Add(1) <= o.maxRequests {
		t0 := time.Now()
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.url, bytes.NewReader(o.body))
		if err != nil {
			w.errors++
			w.firstErr = err
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
			w.errors++
			if w.firstErr == nil {
				w.firstErr = err
			}
			continue
		}
		w.answered++
		w.lat = append(w.lat, d)
		switch {
		case resp.StatusCode != http.StatusServiceUnavailable:
			w.non503++
		case !validRetryAfter(resp.Header.Get("Retry-After")):
			w.noRetryAfter++
		}
	}
	return w
}

func validRetryAfter(v string) bool {
	n, err := strconv.Atoi(v)
	return err == nil && n >= 1
}

type healthProbe struct {
	lat     measure.Samples
	notBusy int
	err     error
}

// probeHealth GETs o.health every o.healthEvery on its own connection
// until ctx ends.
func probeHealth(ctx context.Context, o options) healthProbe {
	var p healthProbe
	if o.health == "" {
		return p
	}
	client := loopbackClient()
	defer client.CloseIdleConnections()
	tick := time.NewTicker(o.healthEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return p
		case <-tick.C:
		}
		start := time.Now()
		busy, err := getHealth(ctx, client, o.health)
		if err != nil {
			if ctx.Err() == nil {
				p.err = err
			}
			return p
		}
		p.lat = append(p.lat, time.Since(start))
		if !busy {
			p.notBusy++
		}
	}
}

// getHealth answers whether the health body says busy.
func getHealth(ctx context.Context, client *http.Client, url string) (bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return false, err
	}
	if resp.StatusCode != http.StatusOK {
		return false, fmt.Errorf("health answered %d", resp.StatusCode)
	}
	var h struct {
		Busy bool `json:"busy"`
	}
	if err := json.Unmarshal(body, &h); err != nil {
		return false, fmt.Errorf("health answered %.100q: %w", body, err)
	}
	return h.Busy, nil
}

// loopbackClient is a client with a transport of its own, one keep-alive
// connection at most, that dials loopback only.
func loopbackClient() *http.Client {
	tr := &http.Transport{
		DialContext:         loopbackDialer,
		MaxConnsPerHost:     1,
		MaxIdleConnsPerHost: 1,
		DisableCompression:  true,
	}
	return &http.Client{Transport: tr, Timeout: 30 * time.Second}
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
