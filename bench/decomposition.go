package main

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"time"

	"github.com/pharo-refactor/refactord/bench/internal/measure"
)

// The overhead of a run is set beside the sum of its parts' floors:
//
//	HTTP     1 request                  × the echo server's p50 for a body and an answer of the run's sizes
//	SQLite   S synced + U other commits × the p50 of a synced and of an unsynced commit of a row that size
//	image    the run's K tool calls made again, directly, on a pharo-sim subprocess of the same binary
//	         serving its own copy of the image, through mcp-go's own client, one after another
//	         (replay.go): the image's own work (test runs, comparisons, compiles, searches) and the
//	         MCP transport's, so MCP round trips are not counted a second time
//
// The calls, S and U are taken from the same pipeline run in this process
// (inprocess.go), each run's calls replayed right after it, so that the
// replay's image goes through the same changes: the tool calls as
// pharo-sim logs them, the commits as the store is asked for them. The
// model is scripted and answers at once, so it has no part. What the sum
// leaves out is the service's own work: routing, checks, prompts,
// parsing, logging, its side of each MCP call, and the scheduling of its
// goroutines and of the processes on the shared cores.

// parts are the floors' programs, running through the overhead rounds.
type parts struct {
	inProcess *inProcess
	replay    *imageReplay
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
	image, err := copyImage(e, "parts-image")
	if err != nil {
		return p, err
	}
	replayImage, err := copyImage(e, "replay-image")
	if err != nil {
		return p, err
	}
	if p.replay, err = startImageReplay(e.ctx, e.pharoSim, replayImage); err != nil {
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
	if p.replay != nil {
		_ = p.replay.close()
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
	p99, refactordCPU, simCPU                  []float64 // ms per run
	httpFloor, syncedFloor, plainFloor, replay []float64 // ms
	imageInProcess                             []float64 // ms: the image's own time on the calls, in process
	roundTrips, commits, synced, reads         []float64 // per run
	partHTTP, partSQLite, partImage            []float64 // ms
	tools                                      string
	inProcessRun                               []float64 // ms
}

// measure counts a run's parts, replays its image calls and times the
// other parts' floors; it answers the sum of the floors.
func (p *parts) measure(ctx context.Context, d *decomposition) (time.Duration, error) {
	var trips, commits, synced, reads []float64
	var replays, inProcess measure.Samples
	for range countedRuns {
		c, err := p.inProcess.run(ctx, benchMethod)
		if err != nil {
			return 0, err
		}
		took, err := p.replay.replay(ctx, c.calls)
		if err != nil {
			return 0, fmt.Errorf("the image's floor: %w", err)
		}
		replays, inProcess = append(replays, took), append(inProcess, c.imageTime)
		trips = append(trips, float64(c.roundTrip))
		commits, synced, reads = append(commits, float64(c.commits)), append(synced, float64(c.synced)), append(reads, float64(c.reads))
		d.inProcessRun = append(d.inProcessRun, measure.Millis(c.took))
		d.tools = toolList(c.tools)
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
	replayed, _ := measure.Summarize(replays)
	own, _ := measure.Summarize(inProcess)
	s, u := median(synced), median(commits)-median(synced)
	partSQLite := time.Duration(s*float64(syncedFloor) + u*float64(plainFloor))
	sum := httpFloor + partSQLite + replayed.P50

	d.httpFloor, d.replay, d.imageInProcess = append(d.httpFloor, measure.Millis(httpFloor)), append(d.replay, measure.Millis(replayed.P50)), append(d.imageInProcess, measure.Millis(own.P50))
	d.syncedFloor, d.plainFloor = append(d.syncedFloor, measure.Millis(syncedFloor)), append(d.plainFloor, measure.Millis(plainFloor))
	d.roundTrips = append(d.roundTrips, median(trips))
	d.commits, d.synced, d.reads = append(d.commits, median(commits)), append(d.synced, s), append(d.reads, median(reads))
	d.partHTTP, d.partSQLite, d.partImage = append(d.partHTTP, measure.Millis(httpFloor)), append(d.partSQLite, measure.Millis(partSQLite)), append(d.partImage, measure.Millis(replayed.P50))
	return sum, nil
}

// into writes the decomposition into the comparison's details.
func (d *decomposition) into(c *comparison) {
	c.detail("p99_ms", d.p99)
	c.detail("refactord_cpu_ms_per_run", d.refactordCPU)
	c.detail("pharo_sim_cpu_ms_per_run", d.simCPU)
	c.detail("part_http_ms", d.partHTTP)
	c.detail("part_sqlite_ms", d.partSQLite)
	c.detail("part_image_calls_ms", d.partImage)
	c.detail("floor_http_request_ms", d.httpFloor)
	c.detail("floor_synced_commit_ms", d.syncedFloor)
	c.detail("floor_commit_ms", d.plainFloor)
	c.detail("image_calls_replayed_ms", d.replay)
	c.detail("image_own_time_in_process_ms", d.imageInProcess)
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
