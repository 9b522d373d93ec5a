package main

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/pharo-refactor/refactord/bench/internal/measure"
)

// The overhead of a run is set beside the sum of its parts' floors:
//
//	HTTP     1 request                × the echo server's p50 for a body and an answer of the run's sizes
//	MCP      K tool calls             × mcp-go's floor p50 (its client to its stdio server answering at once)
//	SQLite   S synced + U other commits × the p50 of a synced and of an unsynced commit of a row that size
//	image    the simulated image's own time answering those K calls (pharo-sim's compile writes and
//	         fsyncs a file, a test run runs the oracle, a search walks its index)
//
// K, S, U and the image's time are counted on the same pipeline in this
// process (inprocess.go): the tool calls as pharo-sim logs them, the
// commits as the store is asked for them. The model is scripted and
// answers at once, so it has no part. What the sum leaves out is the
// service's own work: routing, checks, prompts, parsing, logging, and the
// scheduling of its goroutines and of the processes on the shared cores.

// parts are the floors' programs, running through the overhead rounds.
type parts struct {
	inProcess *inProcess
	mcpFloor  *client.Client
	http      *floorHTTP
	httpBody  []byte
	client    *http.Client
	synced    *commitFloor
	plain     *commitFloor
}

// startParts starts every floor; result is the 200 body of a run, which the
// echo server answers.
func startParts(e env, result []byte) (p *parts, err error) {
	p = &parts{httpBody: refactorBody(benchMethod.Class, benchMethod.Selector), client: &http.Client{Timeout: time.Minute}}
	defer func() {
		if err != nil {
			p.close()
		}
	}()
	image, ex, err := imageWithExchange(e, "parts-image")
	if err != nil {
		return p, err
	}
	if p.mcpFloor, err = startMCPFloor(e, ex.result); err != nil {
		return p, err
	}
	script, err := scriptFile(filepath.Join(e.tmp, "parts"))
	if err != nil {
		return p, err
	}
	if p.inProcess, err = newInProcess(e.ctx, image, filepath.Join(e.tmp, "parts", "refactord.db"), script); err != nil {
		return p, err
	}
	resultFile, err := writeTemp(e, "result-body.json", result)
	if err != nil {
		return p, err
	}
	if p.http, err = startFloorHTTP(e, "-result", resultFile); err != nil {
		return p, err
	}
	if p.synced, err = openCommitFloor(e.ctx, e.tmp, "FULL"); err != nil {
		return p, err
	}
	p.plain, err = openCommitFloor(e.ctx, e.tmp, "NORMAL")
	return p, err
}

func (p *parts) close() {
	if p.inProcess != nil {
		p.inProcess.close()
	}
	if p.mcpFloor != nil {
		_ = p.mcpFloor.Close()
	}
	if p.http != nil {
		p.http.stop()
	}
	for _, f := range []*commitFloor{p.synced, p.plain} {
		if f != nil {
			_ = f.close()
		}
	}
}

// decomposition is every part of every round.
type decomposition struct {
	p99, refactordCPU, simCPU                           []float64 // ms per run
	httpFloor, mcpFloor, syncedFloor, plainFloor, image []float64 // ms
	roundTrips, commits, synced, reads                  []float64 // per run
	partHTTP, partMCP, partSQLite, partImage            []float64 // ms
	tools                                               string
	inProcessRun                                        []float64 // ms
}

// measure counts a run's parts and times their floors; it answers the sum
// of the floors.
func (p *parts) measure(ctx context.Context, d *decomposition) (time.Duration, error) {
	var trips, commits, synced, reads []float64
	var image measure.Samples
	for range countedRuns {
		c, err := p.inProcess.run(ctx, benchMethod)
		if err != nil {
			return 0, err
		}
		trips, commits, synced, reads = append(trips, float64(c.roundTrip)), append(commits, float64(c.commits)), append(synced, float64(c.synced)), append(reads, float64(c.reads))
		image = append(image, c.imageTime)
		d.inProcessRun = append(d.inProcessRun, measure.Millis(c.took))
		d.tools = toolList(c.tools)
	}
	mcpFloor, err := p50(ctx, floorCalls, func(ctx context.Context) error { return floorCall(ctx, p.mcpFloor) })
	if err != nil {
		return 0, fmt.Errorf("mcp-go floor: %w", err)
	}
	httpFloor, err := p50(ctx, floorCalls, func(ctx context.Context) error { return p.http.result(ctx, p.client, p.httpBody) })
	if err != nil {
		return 0, fmt.Errorf("HTTP floor: %w", err)
	}
	syncedFloor, err := p.synced.p50(ctx, syncedCommits)
	if err != nil {
		return 0, err
	}
	plainFloor, err := p.plain.p50(ctx, plainCommits)
	if err != nil {
		return 0, err
	}
	imageTime, _ := measure.Summarize(image)
	k, s, u := median(trips), median(synced), median(commits)-median(synced)
	partMCP := time.Duration(k * float64(mcpFloor))
	partSQLite := time.Duration(s*float64(syncedFloor) + u*float64(plainFloor))
	sum := httpFloor + partMCP + partSQLite + imageTime.P50

	d.httpFloor, d.mcpFloor = append(d.httpFloor, measure.Millis(httpFloor)), append(d.mcpFloor, measure.Millis(mcpFloor))
	d.syncedFloor, d.plainFloor = append(d.syncedFloor, measure.Millis(syncedFloor)), append(d.plainFloor, measure.Millis(plainFloor))
	d.image = append(d.image, measure.Millis(imageTime.P50))
	d.roundTrips, d.commits, d.synced, d.reads = append(d.roundTrips, k), append(d.commits, median(commits)), append(d.synced, s), append(d.reads, median(reads))
	d.partHTTP, d.partMCP = append(d.partHTTP, measure.Millis(httpFloor)), append(d.partMCP, measure.Millis(partMCP))
	d.partSQLite, d.partImage = append(d.partSQLite, measure.Millis(partSQLite)), append(d.partImage, measure.Millis(imageTime.P50))
	return sum, nil
}

// into writes the decomposition into the comparison's details.
func (d *decomposition) into(c *comparison) {
	c.detail("p99_ms", d.p99)
	c.detail("refactord_cpu_ms_per_run", d.refactordCPU)
	c.detail("pharo_sim_cpu_ms_per_run", d.simCPU)
	c.detail("part_http_ms", d.partHTTP)
	c.detail("part_mcp_ms", d.partMCP)
	c.detail("part_sqlite_ms", d.partSQLite)
	c.detail("part_image_ms", d.partImage)
	c.detail("floor_http_request_ms", d.httpFloor)
	c.detail("floor_mcp_round_trip_ms", d.mcpFloor)
	c.detail("floor_synced_commit_ms", d.syncedFloor)
	c.detail("floor_commit_ms", d.plainFloor)
	c.detail("mcp_round_trips", d.roundTrips)
	c.detail("sqlite_commits", d.commits)
	c.detail("sqlite_synced_commits", d.synced)
	c.detail("sqlite_reads", d.reads)
	c.detail("in_process_run_ms", d.inProcessRun)
	c.note("mcp_calls_by_tool", d.tools)
}

// p50 times n calls and answers their median.
func p50(ctx context.Context, n int, call func(context.Context) error) (time.Duration, error) {
	lat, err := timeN(ctx, n, call)
	if err != nil {
		return 0, err
	}
	s, _ := measure.Summarize(lat)
	return s.P50, nil
}

// median is the lower middle of xs.
func median(xs []float64) float64 {
	s, _ := measure.SpreadOf(xs)
	return s.Median
}
