package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/pharo-refactor/refactord/bench/internal/measure"
)

// floorHTTP is the echo floor server (floor http).
type floorHTTP struct {
	*child
	url string
}

// startFloorHTTP starts the echo floor with the bodies its flags name.
func startFloorHTTP(e env, args ...string) (*floorHTTP, error) {
	c, err := startChild(e.ctx, e.floor, append([]string{"http"}, args...)...)
	if err != nil {
		return nil, err
	}
	line, err := c.line(10 * time.Second)
	addr, ok := strings.CutPrefix(line, "listening ")
	if err != nil || !ok {
		c.stop()
		return nil, fmt.Errorf("the echo floor did not start (%q): %v", line, err)
	}
	return &floorHTTP{child: c, url: "http://" + addr}, nil
}

// result POSTs body to the floor's run route and reads the 200 answer.
func (f *floorHTTP) result(ctx context.Context, client *http.Client, body []byte) error {
	resp, _, err := post(ctx, client, f.url+"/floor/result", body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("the echo floor answered %d", resp.StatusCode)
	}
	return err
}

// startBusyFloor captures refactord's busy answer and its /health while
// the run is held, and starts the echo floor answering both.
func startBusyFloor(e env, svc *service) (*floorHTTP, error) {
	client := &http.Client{Timeout: 10 * time.Second}
	resp, busy, err := post(e.ctx, client, svc.URL+"/api/v1/refactor", refactorBody(benchMethod.Class, benchMethod.Selector))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusServiceUnavailable {
		return nil, fmt.Errorf("a POST during the held run answered %d, not 503: %s", resp.StatusCode, clip(busy, 400))
	}
	health, err := get(e.ctx, client, svc.URL+"/health")
	if err != nil {
		return nil, err
	}
	busyFile, err := writeTemp(e, "busy-answer.json", busy)
	if err != nil {
		return nil, err
	}
	healthFile, err := writeTemp(e, "health-answer.json", health)
	if err != nil {
		return nil, err
	}
	return startFloorHTTP(e, "-busy", busyFile, "-health", healthFile, "-retry-after", resp.Header.Get("Retry-After"))
}

func get(ctx context.Context, client *http.Client, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s answered %d", url, resp.StatusCode)
	}
	return data, err
}

// writeTemp writes data into the bench's scratch directory.
func writeTemp(e env, name string, data []byte) (string, error) {
	file := filepath.Join(e.tmp, name)
	return file, os.WriteFile(file, data, 0o644)
}

// loadTarget is a server the load generator loads.
type loadTarget struct {
	url string
	pid int
}

// runLoad runs the load generator once against t.
func runLoad(e env, t loadTarget, bodyFile string) (measure.LoadResult, error) {
	ctx, cancel := context.WithTimeout(e.ctx, busyDuration+time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.loadgen, "-url", t.url+"/api/v1/refactor", "-body", bodyFile,
		"-conns", strconv.Itoa(busyConns), "-duration", busyDuration.String(),
		"-health", t.url+"/health", "-health-every", healthEvery.String(), "-server-pid", strconv.Itoa(t.pid))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return measure.LoadResult{}, fmt.Errorf("the load generator: %w", err)
	}
	var res measure.LoadResult
	if err := json.Unmarshal(out, &res); err != nil {
		return res, fmt.Errorf("the load generator printed %.200q: %w", out, err)
	}
	switch {
	case res.Answered == 0 || res.Health.N == 0:
		return res, errors.New("the load generator measured no answer")
	case res.HealthError != "":
		return res, fmt.Errorf("/health during the load: %s", res.HealthError)
	case res.HealthNotBusy > 0:
		return res, fmt.Errorf("/health said not busy %d times during the load", res.HealthNotBusy)
	case res.Errors > res.Answered:
		return res, fmt.Errorf("the load got %d transport errors and only %d answers; first error: %s", res.Errors, res.Answered, res.FirstError)
	}
	return res, nil
}

// busyRounds is every round of the load, the service's and the floor's.
type busyRounds struct {
	non503, noRetryAfter, errors, answered               int
	p50, p99, floorP50, floorP99                         []float64 // ms
	serverCores, loadgenCores, floorCores, floorGenCores []float64
	floorNon503                                          int
}

// add records one round; the floor must refuse every POST properly.
func (b *busyRounds) add(svc, floor measure.LoadResult) error {
	if bad := floor.Non503 + floor.NoRetryAfter + floor.Errors; bad > 0 {
		return fmt.Errorf("the echo floor answered %d POSTs otherwise than 503 with Retry-After (first error: %s)", bad, floor.FirstError)
	}
	b.non503 += svc.Non503
	b.noRetryAfter += svc.NoRetryAfter
	b.errors += svc.Errors
	b.answered += svc.Answered
	b.p50, b.p99 = append(b.p50, msOfMicros(svc.Latency.P50)), append(b.p99, msOfMicros(svc.Latency.P99))
	b.floorP50, b.floorP99 = append(b.floorP50, msOfMicros(floor.Latency.P50)), append(b.floorP99, msOfMicros(floor.Latency.P99))
	b.serverCores, b.loadgenCores = append(b.serverCores, svc.CPU.ServerCores), append(b.loadgenCores, svc.CPU.LoadgenCores)
	b.floorCores, b.floorGenCores = append(b.floorCores, floor.CPU.ServerCores), append(b.floorGenCores, floor.CPU.LoadgenCores)
	return nil
}

// msOfMicros turns the load generator's microseconds into milliseconds.
func msOfMicros(us float64) float64 { return measure.Round(us/1000, 2) }

// improper counts the POSTs not refused as the goal asks: another status,
// a 503 without Retry-After, or no answer at all.
func (b *busyRounds) improper() int { return b.non503 + b.noRetryAfter + b.errors }

func (b *busyRounds) into(busy, health *comparison) {
	busy.note("non_503", b.improper())
	busy.note("non_503_detail", fmt.Sprintf("over %d answers: %d other status, %d without Retry-After, %d transport errors",
		b.answered, b.non503, b.noRetryAfter, b.errors))
	busy.detail("p50_ms", b.p50)
	busy.detail("p99_ms", b.p99)
	busy.detail("floor_p50_ms", b.floorP50)
	busy.detail("floor_p99_ms", b.floorP99)
	busy.detail("refactord_cores", b.serverCores)
	busy.detail("loadgen_cores_on_refactord", b.loadgenCores)
	busy.detail("floor_cores", b.floorCores)
	busy.detail("loadgen_cores_on_floor", b.floorGenCores)
	health.note("probe_every_ms", measure.Millis(healthEvery))
}
