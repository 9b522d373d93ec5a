package api_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/internal/testenv"
	"github.com/pharo-refactor/refactord/mcpclient"
	"github.com/pharo-refactor/refactord/pipeline"
)

// compileCall is the tool call that compiles the candidate in a run of
// Calculator>>sum:with: without the test gate: after the readiness probe
// that follows the server's start, get_method_source, get_class_source
// (which holds the protocol and the comment), the dry compile, the re-read
// before release, then the compile.
const compileCall = 6

// The image connection dies right after the compile took effect and does
// not come back within the release budget: the run cannot confirm a
// rollback, so the answer and the audit row say restore_failed with both
// sources (the image holds the candidate). At the next start the image is
// back, and reconciliation finishes the rollback.
func TestRestoreFailedIsSaidAndSettledAtTheNextStart(t *testing.T) {
	t.Parallel()
	launcher, marker := stayDownLauncher(t)
	h := newHarness(t, harnessOpts{maxIterations: 1, releaseTimeout: 800 * time.Millisecond, simCommand: launcher, noEquivalence: true,
		simEnv: []string{"KILL_MARKER=" + marker, "PHARO_SIM=" + pharoSim(t),
			"PHARO_SIM_KILL_AT=" + strconv.Itoa(compileCall) + ":after", "PHARO_SIM_KILL_MARKER=" + marker}})
	before := h.classFile("Calculator")

	h.gem.ScriptAll(testenv.ApprovedInRoundOne(newSum))
	resp, out := h.refactor(`{"class_name": "Calculator", "method_name": "sum:with:", "run_tests": false}`)
	require.FileExists(t, marker, "the image died at the compile")
	h.saysRestoreFailed(resp, out)

	h.rolledBackAtNextStart(marker, out["id"].(string), before, "the original was restored")
}

// stayDownLauncher wraps pharo-sim: once the file marker exists (the sim
// creates it as it dies, or a test does), the image stays down. The
// launcher reads the marker's path from KILL_MARKER and the sim's from
// PHARO_SIM.
func stayDownLauncher(t *testing.T) (launcher, marker string) {
	t.Helper()
	tmp := t.TempDir()
	marker = filepath.Join(tmp, "killed")
	launcher = filepath.Join(tmp, "launcher.sh")
	require.NoError(t, os.WriteFile(launcher, []byte("#!/bin/sh\n"+
		"# Once the image has died, it stays down.\n"+
		"[ -e \"$KILL_MARKER\" ] && { echo 'the image stays down' >&2; exit 1; }\n"+
		"exec \"$PHARO_SIM\" \"$@\"\n"), 0o755))
	return launcher, marker
}

// rolledBackAtNextStart brings the image back up (marker removed) and
// checks that the next start settles run id as rolled_back, Calculator's
// file as before, its notes saying notes.
func (h *harness) rolledBackAtNextStart(marker, id string, before []byte, notes string) {
	t := h.t
	t.Helper()
	require.NoError(t, os.Remove(marker))
	settled := h.reconcileAtNextStart()
	assert.Equal(t, []pipeline.Reconciled{{ID: id, Status: refactor.StatusRolledBack}}, settled)
	assert.Equal(t, before, h.classFile("Calculator"), "the original is back, byte for byte")
	row := h.row(id)
	assert.Equal(t, "rolled_back", row["status"])
	assert.Contains(t, row["notes"], notes)
}

// reconcileAtNextStart settles the audit trail as the next start of
// refactord does, on a fresh image connection to the harness's tree.
func (h *harness) reconcileAtNextStart() []pipeline.Reconciled {
	h.t.Helper()
	image, err := mcpclient.New(mcpclient.Config{Command: pharoSim(h.t), Args: []string{"serve", "--dir", h.dir}, StopGrace: time.Second})
	require.NoError(h.t, err)
	h.t.Cleanup(func() { _ = image.Close() })
	settled, err := pipeline.New(image, nil, h.audit, pipeline.Options{}, zap.NewNop()).Reconcile(context.Background())
	require.NoError(h.t, err)
	return settled
}

// saysRestoreFailed checks the answer and the row of a run whose original
// could not be put back: 500 release_failed, restore_failed, both sources,
// the candidate (newSum) still in the image. It answers the row.
func (h *harness) saysRestoreFailed(resp *http.Response, out map[string]any) map[string]any {
	t := h.t
	t.Helper()
	require.Equal(t, http.StatusInternalServerError, answered(t, resp, out), "%v", out)
	assert.Equal(t, "release_failed", out["code"])
	assert.Equal(t, "restore_failed", out["run_status"])
	assert.Equal(t, newSum, out["refactored_code"], "both sources are in the answer")
	assert.NotEmpty(t, out["original_code"])
	assert.Contains(t, string(h.classFile("Calculator")), "Answer the sum of a and b", "the image holds the candidate")
	row := h.row(out["id"].(string))
	assert.Equal(t, "restore_failed", row["status"])
	assert.Equal(t, true, row["restore_failed"])
	assert.Equal(t, out["original_code"], row["original_source"])
	assert.Equal(t, newSum, row["final_source"])
	return row
}
