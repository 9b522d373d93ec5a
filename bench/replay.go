package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// The image's part of a run's floor is the run's own tool calls made
// again, directly, on a pharo-sim subprocess of the same binary serving
// its own copy of the same image: the same tools with the same arguments
// (test runs and comparisons included), in the same order, through
// mcp-go's own client. What that takes is what the image and the MCP
// transport cost a run without refactord; the run's overhead over it is
// refactord's. The calls go one after another: the run sends the reads
// that do not depend on each other at once, so it waits for fewer round
// trips than the replay does (in process the calls answer too fast for
// their overlap to show in pharo-sim's log, so the replay cannot tell
// which went together).

// imageCall is one tool call a run made, as pharo-sim logged it.
type imageCall struct {
	tool       string
	arguments  any
	start, end time.Time
}

// imageReplay is a pharo-sim subprocess behind mcp-go's own client, on an
// image of its own.
type imageReplay struct {
	client *client.Client
}

// startImageReplay starts pharoSim serving the Tonel tree at dir and
// completes the MCP handshake.
func startImageReplay(ctx context.Context, pharoSim, dir string) (*imageReplay, error) {
	c, err := startMCPGo(ctx, pharoSim, "serve", "--dir", dir, "--log-level", "warn")
	if err != nil {
		return nil, fmt.Errorf("pharo-sim for the replay: %w", err)
	}
	return &imageReplay{client: c}, nil
}

func (r *imageReplay) close() error { return r.client.Close() }

// replay makes calls again, one after another in the order they began,
// and answers how long they took. A call that fails, or that the image
// answers with an error, is an error: the run whose calls they are was
// released, so each of its calls was answered.
func (r *imageReplay) replay(ctx context.Context, calls []imageCall) (time.Duration, error) {
	ordered := slices.Clone(calls)
	slices.SortStableFunc(ordered, func(a, b imageCall) int { return a.start.Compare(b.start) })
	start := time.Now()
	for _, c := range ordered {
		if err := r.call(ctx, c); err != nil {
			return 0, err
		}
	}
	return time.Since(start), nil
}

func (r *imageReplay) call(ctx context.Context, c imageCall) error {
	req := mcp.CallToolRequest{}
	req.Params.Name = c.tool
	req.Params.Arguments = c.arguments
	res, err := r.client.CallTool(ctx, req)
	if err != nil {
		return fmt.Errorf("replaying %s: %w", c.tool, err)
	}
	if res.IsError {
		return fmt.Errorf("replaying %s: the image answered an error: %.300v", c.tool, res.Content)
	}
	return nil
}

// startMCPGo starts command with args as an MCP stdio server through
// mcp-go's own transport and client, as mcpclient's session sets them
// up, and completes the handshake. The process lives as long as ctx.
func startMCPGo(ctx context.Context, command string, args ...string) (*client.Client, error) {
	tr := transport.NewStdio(command, nil, args...)
	if err := tr.Start(ctx); err != nil {
		return nil, fmt.Errorf("starting %s: %w", command, err)
	}
	hsCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	c := client.NewClient(tr, client.WithLegacyProtocolOnly())
	if err := c.Start(hsCtx); err != nil {
		return nil, errors.Join(fmt.Errorf("starting the client of %s: %w", command, err), c.Close())
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "bench", Version: "1"}
	if _, err := c.Initialize(hsCtx, req); err != nil {
		return nil, errors.Join(fmt.Errorf("the handshake of %s: %w", command, err), c.Close())
	}
	return c, nil
}
