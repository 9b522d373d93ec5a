package main

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/internal/testenv"
)

// TestTheImagesFileSystemFullAtRelease: the image's file system fills up
// after the write-ahead record, before the compile. The compile fails, and
// so does every restore (a compile too) — but the image holds the original,
// and the read-back says so: the answer and the row say rolled_back, not
// restore_failed, and the file is the original byte for byte.
func TestTheImagesFileSystemFullAtRelease(t *testing.T) {
	disk := testenv.MountFullDisk(t, "4m")
	dir, env := imageEnv(t, approvesSum(answerTheSum, 0))
	image := filepath.Join(disk.Dir, "image")
	require.NoError(t, testenv.CopyTree(filepath.Join(dir, "image"), image))
	env = append(env, "PHARO_MCP_ARGS=serve --dir '"+image+"'", "REFACTORD_HOLD_AT=after_write_ahead:2s")
	s := start(t, dir, env...)
	file := calculatorFile(disk.Dir)
	before := mustRead(t, file)

	answered := make(chan map[string]any, 1)
	go func() {
		resp, out := s.send(http.MethodPost, "/api/v1/refactor", sumRequest, "", map[string]string{"Content-Type": "application/json"})
		out["status"] = float64(resp.StatusCode)
		answered <- out
	}()
	require.Eventually(t, func() bool { return strings.Contains(s.Log(), "holding the release") }, 20*time.Second, 10*time.Millisecond)
	disk.Fill()
	var out map[string]any
	select {
	case out = <-answered:
	case <-time.After(60 * time.Second):
		t.Fatal("no answer")
	}
	assert.Equal(t, "rolled_back", out["run_status"], "the read-back shows the original: %v", out)
	assert.Equal(t, "release_failed", out["code"], "%v", out)
	row := s.row(out["id"].(string))
	assert.Equal(t, "rolled_back", row["status"])
	assert.Equal(t, false, row["restore_failed"])
	assert.Equal(t, before, mustRead(t, file), "the original, byte for byte")
	assert.Contains(t, s.Log(), "the restore's compile failed, but the image holds the original")
}
