//go:build unix

package store_test

import (
	"context"
	"errors"
	refactor "github.com/pharo-refactor/refactord"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/store"
)

const helperEnv = "STORE_TEST_HELPER_DB"

// TestHelperProcess is not a test: run by TestBeginReleaseSurvivesSIGKILL in
// a child process, it writes the write-ahead row and kills itself at once,
// without closing the store, as a crash right before the compile would.
func TestHelperProcess(t *testing.T) {
	path := os.Getenv(helperEnv)
	if path == "" {
		t.Skip("helper process for TestBeginReleaseSurvivesSIGKILL")
	}
	ctx := context.Background()
	s, err := store.Open(ctx, path)
	require.NoError(t, err)
	require.NoError(t, s.Create(ctx, newRun("crashed")))
	require.NoError(t, s.BeginRelease(ctx, "crashed", "m ^1", "accessing", "m ^2", nil))
	require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGKILL))
	select {} // never reached: SIGKILL cannot be caught
}

func TestBeginReleaseSurvivesSIGKILL(t *testing.T) {
	path := filepath.Join(t.TempDir(), "refactord.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"="+path)
	out, err := cmd.CombinedOutput()

	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "child must die, got %v; output:\n%s", err, out)
	ws, ok := exit.Sys().(syscall.WaitStatus)
	require.True(t, ok)
	require.True(t, ws.Signaled() && ws.Signal() == syscall.SIGKILL,
		"child must be killed by SIGKILL after BeginRelease returned, got %v; output:\n%s", ws, out)

	s, err := store.Open(context.Background(), path)
	require.NoError(t, err)
	defer func() { assert.NoError(t, s.Close()) }()
	got, err := s.Unsettled(context.Background())
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, "crashed", got[0].ID)
	assert.Equal(t, refactor.StatusReleasing, got[0].Status)
	assert.Equal(t, "m ^1", got[0].OriginalSource)
	assert.Equal(t, "accessing", got[0].OriginalProtocol)
	assert.Equal(t, "m ^2", got[0].FinalSource)
}
