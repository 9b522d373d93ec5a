package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/internal/testenv"
)

// BenchmarkPipelineInProcess is one full run of the bench's method on the
// in-process pipeline, for profiling where a run's overhead goes:
//
//	go test -run '^$' -bench PipelineInProcess -cpuprofile cpu.out ./bench
func BenchmarkPipelineInProcess(b *testing.B) {
	dir := b.TempDir()
	image := filepath.Join(dir, "image")
	require.NoError(b, testenv.CopyTree(filepath.Join("examples", "sample-image"), image))
	script, err := scriptFile(dir)
	require.NoError(b, err)
	p, err := newInProcess(context.Background(), image, filepath.Join(dir, "refactord.db"), script)
	require.NoError(b, err)
	defer p.close()
	var last runCounts
	for b.Loop() {
		last, err = p.run(context.Background(), benchMethod)
		require.NoError(b, err)
	}
	b.ReportMetric(float64(last.roundTrip), "mcp_calls/op")
	b.ReportMetric(float64(last.commits), "commits/op")
	b.ReportMetric(float64(last.imageTime.Microseconds()), "image_µs/op")
	b.Logf("tools: %s; commits %d (synced %d), reads %d", toolList(last.tools), last.commits, last.synced, last.reads)
}
