package pharosim

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// KillAt makes the simulator SIGKILL itself at one tool call, the way a
// real MCP server dies (OOM killer, kill -9): nothing is flushed and no
// answer is sent. Release-integrity trials use it to kill the image
// connection at each call of a run.
type KillAt struct {
	// Call is the 1-based tool call to die at; 0 turns the fault off.
	Call int
	// After handles the call first (a compile is then on disk) and dies
	// before answering; otherwise the process dies as the call arrives.
	After bool
	// Marker, when set, makes the fault fire once across restarts: it fires
	// only while the file does not exist, and creates it before dying.
	Marker string
}

// Environment variables of KillAt (the serve flags --fault-kill-at and
// --fault-kill-marker override them).
const (
	EnvKillAt     = "PHARO_SIM_KILL_AT"     // N, N:before or N:after
	EnvKillMarker = "PHARO_SIM_KILL_MARKER" // a file path
)

// ParseKillAt reads "N", "N:before" or "N:after" into k.
func (k *KillAt) ParseKillAt(spec string) error {
	n, phase, _ := strings.Cut(strings.TrimSpace(spec), ":")
	call, err := strconv.Atoi(n)
	if err != nil || call < 0 {
		return fmt.Errorf("kill-at %q: want N, N:before or N:after with N ≥ 0", spec)
	}
	switch phase {
	case "", "before":
		k.After = false
	case "after":
		k.After = true
	default:
		return fmt.Errorf("kill-at %q: the phase is before or after", spec)
	}
	k.Call = call
	return nil
}

// KillAtFromEnv reads KillAt from the environment through getenv.
func KillAtFromEnv(getenv func(string) string) (KillAt, error) {
	k := KillAt{Marker: getenv(EnvKillMarker)}
	if v := getenv(EnvKillAt); strings.TrimSpace(v) != "" {
		if err := k.ParseKillAt(v); err != nil {
			return KillAt{}, fmt.Errorf("%s: %w", EnvKillAt, err)
		}
	}
	return k, nil
}

// killMiddleware counts tool calls and kills the process at k.Call.
func killMiddleware(k KillAt, log *slog.Logger) server.ToolHandlerMiddleware {
	var calls atomic.Int64
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if calls.Add(1) != int64(k.Call) {
				return next(ctx, req)
			}
			if !k.After {
				k.die(log, req.Params.Name)
			}
			res, err := next(ctx, req)
			k.die(log, req.Params.Name)
			return res, err
		}
	}
}

// die sends SIGKILL to this process, unless the marker says the fault has
// fired already.
func (k KillAt) die(log *slog.Logger, tool string) {
	if k.Marker != "" {
		f, err := os.OpenFile(k.Marker, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if errors.Is(err, os.ErrExist) {
			return
		}
		if err != nil {
			log.Error("fault injection: cannot create the kill marker; not killing", "marker", k.Marker, "error", err)
			return
		}
		_ = f.Close()
	}
	log.Warn("fault injection: SIGKILL", "tool", tool, "call", k.Call, "after", k.After)
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {} // never answer
}

// CrashTests makes a test run (run_class_test, run_package_test) SIGKILL
// the process when the code its tests reach holds Text: the way a real
// image dies when a candidate's tests exhaust it (its memory, a crash of
// the VM). Smalltalk cannot kill pharo-sim — its interpreter ends runaway
// code as a test error — so this fault stands in for what can kill Pharo.
// It fires on every such run, across restarts: a service that ran the
// same tests again would die again.
type CrashTests struct {
	Text string
}

// EnvCrashTests is the environment variable of CrashTests (the serve flag
// --fault-crash-tests-on overrides it).
const EnvCrashTests = "PHARO_SIM_CRASH_TESTS_ON"

// crashIfReached kills the process when the tests of classes reach a
// method whose source holds c.Text.
func (c CrashTests) crashIfReached(img *Image, log *slog.Logger, classes []string) {
	if c.Text == "" || !img.TestsReach(classes, c.Text) {
		return
	}
	log.Warn("fault injection: SIGKILL, the tests reach code holding the crash text", "classes", classes, "text", c.Text)
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {} // never answer
}
