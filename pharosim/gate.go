package pharosim

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// DefaultCallLimit is the real server's time limit on one image call: its
// HTTP client (httpx) gives up after 30 s.
const DefaultCallLimit = 30 * time.Second

// EnvCallLimit sets the per-call limit (`pharo-sim serve --call-limit`
// overrides it).
const EnvCallLimit = "PHARO_SIM_CALL_LIMIT"

// timedOutText is what httpx says when the image does not answer in time.
const timedOutText = "timed out"

// CallLimitFromEnv reads EnvCallLimit through getenv; 0 when unset.
func CallLimitFromEnv(getenv func(string) string) (time.Duration, error) {
	v := strings.TrimSpace(getenv(EnvCallLimit))
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s=%q: want a positive duration such as 30s", EnvCallLimit, v)
	}
	return d, nil
}

// gate makes tool calls behave as they do through the real MCP server:
// one at a time (a quick call waits behind a running test), and each cut
// at the server's time limit with {"success": false, "error": "Connection
// error: timed out"}. The time spent waiting for the gate does not count
// against the limit: the server takes the next call only when the last one
// is done. At the limit the simulator stops the call (its context ends);
// a real image may go on running it.
type gate struct {
	turn  chan struct{} // holds a token while a call runs
	limit time.Duration
	log   *slog.Logger
	// finishCancelled: a call the client cancels (notifications/cancelled)
	// runs on to its end, holding the turn, as the real server's does (its
	// HTTP call to the image goes on); otherwise it stops at once.
	finishCancelled bool
}

func newGate(limit time.Duration, finishCancelled bool, log *slog.Logger) *gate {
	if limit <= 0 {
		limit = DefaultCallLimit
	}
	return &gate{turn: make(chan struct{}, 1), limit: limit, log: log, finishCancelled: finishCancelled}
}

// EnvFinishCancelled makes a cancelled call run on to its end (`pharo-sim
// serve --finish-cancelled`).
const EnvFinishCancelled = "PHARO_SIM_FINISH_CANCELLED"

type answer struct {
	res *mcp.CallToolResult
	err error
}

func (g *gate) middleware(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		select {
		case g.turn <- struct{}{}:
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for the call before it: %w", ctx.Err())
		}
		released := false
		release := func() {
			if !released {
				released = true
				<-g.turn
			}
		}
		defer release()
		clientCtx := ctx // ended by the client's notifications/cancelled
		if g.finishCancelled {
			ctx = context.WithoutCancel(ctx)
		}
		stopWatch := context.AfterFunc(clientCtx, func() {
			g.log.Info("the client cancelled a tool call (notifications/cancelled)", "tool", req.Params.Name,
				"finishing_it", g.finishCancelled)
		})
		defer stopWatch()
		callCtx, cancel := context.WithTimeout(ctx, g.limit)
		defer cancel()
		done := make(chan answer, 1)
		go func() {
			defer func() {
				if r := recover(); r != nil {
					done <- answer{err: fmt.Errorf("panic in %s: %v", req.Params.Name, r)}
				}
			}()
			res, err := next(callCtx, req)
			done <- answer{res, err}
		}()
		select {
		case a := <-done:
			return a.res, a.err
		case <-callCtx.Done():
			if ctx.Err() != nil {
				return nil, ctx.Err() // the client gave up: nobody reads the answer
			}
			g.log.Info("a tool call ran over the per-call limit; answering as the real server does",
				"tool", req.Params.Name, "limit", g.limit)
			release()
			return toolResult(connectionErrorAnswer(timedOutText))
		}
	}
}
