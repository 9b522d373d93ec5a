package pharosim

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Faults configures fault injection for reliability tests. The zero value
// injects nothing.
type Faults struct {
	// ExitAfter > 0 makes the process exit (status ExitStatus) when tool
	// call number ExitAfter+1 arrives, before it is handled or answered:
	// the first ExitAfter calls are answered normally.
	ExitAfter int
	// Delay holds every tool call this long before it is handled.
	Delay time.Duration
	// Fail maps a tool name to the description of the image-side error the
	// tool answers instead of its result, e.g.
	// "eval" → "ZeroDivide". Text of the form `Class: message` keeps both parts.
	Fail map[string]string
	// Unreachable answers every tool call with the Python server's
	// {"success": false, "error": "Connection error: …"}, as if the image
	// were down.
	Unreachable bool
}

// ExitStatus is the exit status of a process stopped by Faults.ExitAfter.
const ExitStatus = 3

// unreachableText is what httpx says when nothing listens on the image port.
const unreachableText = "All connection attempts failed"

// Environment variables that configure Faults (flags of `pharo-sim serve`
// override them).
const (
	EnvExitAfter   = "PHARO_SIM_EXIT_AFTER"  // integer N
	EnvDelay       = "PHARO_SIM_DELAY"       // Go duration, e.g. 250ms
	EnvFail        = "PHARO_SIM_FAIL"        // TOOL=TEXT, several separated by ';'
	EnvUnreachable = "PHARO_SIM_UNREACHABLE" // true/false/1/0
)

// FaultsFromEnv reads Faults from the environment through getenv.
func FaultsFromEnv(getenv func(string) string) (Faults, error) {
	var f Faults
	var err error
	if v := strings.TrimSpace(getenv(EnvExitAfter)); v != "" {
		if f.ExitAfter, err = strconv.Atoi(v); err != nil || f.ExitAfter < 0 {
			return Faults{}, fmt.Errorf("%s=%q: want a non-negative integer", EnvExitAfter, v)
		}
	}
	if v := strings.TrimSpace(getenv(EnvDelay)); v != "" {
		if f.Delay, err = time.ParseDuration(v); err != nil || f.Delay < 0 {
			return Faults{}, fmt.Errorf("%s=%q: want a duration such as 250ms", EnvDelay, v)
		}
	}
	if v := getenv(EnvFail); strings.TrimSpace(v) != "" {
		for _, spec := range strings.Split(v, ";") {
			if strings.TrimSpace(spec) == "" {
				continue
			}
			if err := f.AddFail(spec); err != nil {
				return Faults{}, fmt.Errorf("%s: %w", EnvFail, err)
			}
		}
	}
	if v := strings.TrimSpace(getenv(EnvUnreachable)); v != "" {
		if f.Unreachable, err = strconv.ParseBool(v); err != nil {
			return Faults{}, fmt.Errorf("%s=%q: want true or false", EnvUnreachable, v)
		}
	}
	return f, nil
}

// AddFail adds a `TOOL=TEXT` failure.
func (f *Faults) AddFail(spec string) error {
	tool, text, ok := strings.Cut(spec, "=")
	tool, text = strings.TrimSpace(tool), strings.TrimSpace(text)
	if !ok || tool == "" || text == "" {
		return fmt.Errorf("fault %q: want TOOL=TEXT", spec)
	}
	if f.Fail == nil {
		f.Fail = map[string]string{}
	}
	f.Fail[tool] = text
	return nil
}

// Active reports whether any fault is configured.
func (f Faults) Active() bool {
	return f.ExitAfter > 0 || f.Delay > 0 || len(f.Fail) > 0 || f.Unreachable
}

// LogValue lists the configured faults for the start-up log.
func (f Faults) LogValue() slog.Value {
	tools := make([]string, 0, len(f.Fail))
	for t := range f.Fail {
		tools = append(tools, t)
	}
	sort.Strings(tools)
	return slog.GroupValue(
		slog.Int("exit_after", f.ExitAfter),
		slog.Duration("delay", f.Delay),
		slog.Any("fail", tools),
		slog.Bool("unreachable", f.Unreachable),
	)
}

// faultError builds the image-side error of a Fail entry: its description
// is the text, verbatim.
func faultError(text string) *ImageError {
	class, _, _ := strings.Cut(text, ":")
	return &ImageError{Text: text, Class: strings.TrimSpace(class), Receiver: "UndefinedObject"}
}

// faultInjector wraps every tool handler with the configured faults.
type faultInjector struct {
	faults Faults
	calls  atomic.Int64
	exit   func(code int)
	log    *slog.Logger
}

func (fi *faultInjector) middleware(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		n := fi.calls.Add(1)
		if fi.faults.ExitAfter > 0 && n > int64(fi.faults.ExitAfter) {
			fi.log.Warn("fault injection: exiting before answering", "tool", req.Params.Name, "call", n)
			fi.exit(ExitStatus)
			return nil, fmt.Errorf("fault injection: exit after %d calls", fi.faults.ExitAfter)
		}
		if err := sleep(ctx, fi.faults.Delay); err != nil {
			return nil, err
		}
		if fi.faults.Unreachable {
			return toolResult(connectionErrorAnswer(unreachableText))
		}
		if text, ok := fi.faults.Fail[req.Params.Name]; ok {
			return toolResult(imageFailureAnswer(faultError(text)))
		}
		return next(ctx, req)
	}
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("interrupted while the call took its time: %w", ctx.Err())
	}
}
