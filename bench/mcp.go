package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/bench/internal/measure"
	"github.com/pharo-refactor/refactord/mcpclient"
)

const (
	mcpWarmup = 200 // calls of each kind before the first round
	mcpCalls  = 400 // timed calls of each kind per round
)

// benchMethod is the method every MCP figure reads.
var benchMethod = refactor.MethodRef{Class: "Calculator", Selector: "sum:with:"}

// mcpSuite times get_method_source round trips through mcpclient to a
// pharo-sim subprocess beside two floors, round by round: mcp-go's own
// client calling an mcp-go stdio server that answers the same bytes at
// once (the floor of the library the service talks through), and the same
// JSON-RPC lines to a bare echo child (the floor of any stdio protocol).
func mcpSuite(e env) ([]figure, error) {
	dir, ex, err := imageWithExchange(e, "mcp-image")
	if err != nil {
		return nil, err
	}
	sim, err := startMCPClient(e.ctx, e.pharoSim, dir)
	if err != nil {
		return nil, err
	}
	defer func() { _ = sim.Close() }()
	floor, err := startMCPFloor(e, ex.result)
	if err != nil {
		return nil, err
	}
	defer func() { _ = floor.Close() }()
	pipe, err := startPipeEcho(e, ex.result)
	if err != nil {
		return nil, err
	}
	defer pipe.stop()

	kinds := []struct {
		name string
		call func(context.Context) error
	}{
		{"mcpclient", func(ctx context.Context) error { return methodSourceCall(ctx, sim) }},
		{"mcp-go", func(ctx context.Context) error { return floorCall(ctx, floor) }},
		{"pipe", func(ctx context.Context) error { return pipe.roundTrip() }},
	}
	ctx, cancel := context.WithTimeout(e.ctx, 5*time.Minute)
	defer cancel()
	for _, k := range kinds {
		if _, err := timeN(ctx, mcpWarmup, k.call); err != nil {
			return nil, fmt.Errorf("%s warm-up: %w", k.name, err)
		}
	}
	vsMCPGo := comparison{Unit: "µs", Goal: "ratio ≤ 1.5",
		What:    fmt.Sprintf("p50 of get_method_source through mcpclient to a pharo-sim subprocess, %d calls a round", mcpCalls),
		FloorIs: "p50 of the same call through mcp-go's client to an mcp-go stdio server answering pharo-sim's bytes at once"}
	vsPipe := comparison{Unit: "µs",
		What:    vsMCPGo.What,
		FloorIs: "p50 of the same JSON-RPC lines to a bare echo child over a pipe, both ends decoding (the floor under any stdio protocol)"}
	var p99, floorP99 []float64
	for range rounds {
		var got [3]measure.Summary
		for i, k := range kinds {
			lat, err := timeN(ctx, mcpCalls, k.call)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k.name, err)
			}
			got[i], _ = measure.Summarize(lat)
		}
		vsMCPGo.add(measure.Micros(got[0].P50), measure.Micros(got[1].P50))
		vsPipe.add(measure.Micros(got[0].P50), measure.Micros(got[2].P50))
		p99, floorP99 = append(p99, measure.Micros(got[0].P99)), append(floorP99, measure.Micros(got[1].P99))
	}
	if err := vsMCPGo.done(atMost(1.5)); err != nil {
		return nil, err
	}
	if err := vsPipe.done(nil); err != nil {
		return nil, err
	}
	sizes := fmt.Sprintf("request %d B, answer %d B", len(ex.request), len(ex.response))
	vsMCPGo.detail("p99_us", p99)
	vsMCPGo.detail("floor_p99_us", floorP99)
	vsMCPGo.note("sizes", sizes)
	vsPipe.note("sizes", sizes)
	return []figure{
		{key: "mcp_round_trip", value: &vsMCPGo},
		{key: "mcp_round_trip_vs_pipe", value: &vsPipe},
	}, nil
}

// timeN makes n calls and answers their latencies.
func timeN(ctx context.Context, n int, call func(context.Context) error) (measure.Samples, error) {
	lat := make(measure.Samples, 0, n)
	for i := range n {
		start := time.Now()
		if err := call(ctx); err != nil {
			return nil, fmt.Errorf("call %d: %w", i+1, err)
		}
		lat = append(lat, time.Since(start))
	}
	return lat, nil
}

func startMCPClient(ctx context.Context, pharoSim, dir string) (*mcpclient.Client, error) {
	c, err := mcpclient.New(mcpclient.Config{Command: pharoSim, Args: []string{"serve", "--dir", dir, "--log-level", "warn"}, StopGrace: time.Second})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("starting pharo-sim through mcpclient: %w", err)
	}
	return c, nil
}

func methodSourceCall(ctx context.Context, c *mcpclient.Client) error {
	src, err := c.MethodSource(ctx, benchMethod)
	if err == nil && !strings.HasPrefix(src, "sum: a with: b") {
		err = fmt.Errorf("unexpected source of %s: %q", benchMethod, src)
	}
	return err
}

// startMCPFloor starts the mcp-go floor server (floor mcp) through
// mcp-go's own stdio client and completes the handshake.
func startMCPFloor(e env, answer json.RawMessage) (*client.Client, error) {
	file := filepath.Join(e.tmp, "mcp-floor-answer.json")
	if err := os.WriteFile(file, answer, 0o644); err != nil {
		return nil, err
	}
	c, err := startMCPGo(e.ctx, e.floor, "mcp", "-answer", file)
	if err != nil {
		return nil, fmt.Errorf("the mcp-go floor: %w", err)
	}
	return c, nil
}

// floorCall is one get_method_source through mcp-go's client, its answer
// read as a client must: the envelope from the structured content.
func floorCall(ctx context.Context, c *client.Client) error {
	req := mcp.CallToolRequest{}
	req.Params.Name = "get_method_source"
	req.Params.Arguments = map[string]any{"class_name": benchMethod.Class, "method_name": benchMethod.Selector}
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return err
	}
	var env struct {
		Success bool   `json:"success"`
		Result  string `json:"result"`
	}
	if err := json.Unmarshal(res.RawStructuredContent, &env); err != nil || !env.Success {
		return fmt.Errorf("the floor answered %.200q", res.RawStructuredContent)
	}
	return nil
}

// rpcRequest is a JSON-RPC request as mcp-go writes it.
type rpcRequest struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int64  `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

func methodSourceRequest(id int64) rpcRequest {
	return rpcRequest{JSONRPC: "2.0", ID: id, Method: "tools/call", Params: map[string]any{
		"name":      "get_method_source",
		"arguments": map[string]any{"class_name": benchMethod.Class, "method_name": benchMethod.Selector},
	}}
}

// exchange is one get_method_source as pharo-sim answered it: the request
// line, the response line and the result in it.
type exchange struct {
	request, response []byte
	result            json.RawMessage
}

// imageWithExchange copies the sample image to name and captures one
// get_method_source exchange of pharo-sim serving it.
func imageWithExchange(e env, name string) (string, exchange, error) {
	dir, err := copyImage(e, name)
	if err != nil {
		return "", exchange{}, err
	}
	ex, err := captureExchange(e.ctx, e.pharoSim, dir)
	if err != nil {
		return "", exchange{}, fmt.Errorf("capturing one get_method_source exchange: %w", err)
	}
	return dir, ex, nil
}

// captureExchange speaks raw MCP to pharo-sim once: the handshake, then
// one get_method_source call, so that the floors move exactly its bytes.
func captureExchange(ctx context.Context, pharoSim, dir string) (exchange, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, pharoSim, "serve", "--dir", dir, "--log-level", "warn")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.Stderr = io.Discard
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return exchange{}, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return exchange{}, err
	}
	if err := cmd.Start(); err != nil {
		return exchange{}, err
	}
	defer func() {
		_ = stdin.Close()
		_ = cmd.Wait()
	}()
	out := bufio.NewReaderSize(stdout, 1<<20)
	send := func(v any) ([]byte, error) {
		line, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		_, err = stdin.Write(append(line, '\n'))
		return line, err
	}
	// until reads lines until the response with the given id.
	until := func(id string) (rpcResponse, []byte, error) {
		for {
			line, err := out.ReadBytes('\n')
			if err != nil {
				return rpcResponse{}, nil, err
			}
			line = []byte(strings.TrimRight(string(line), "\r\n"))
			var r rpcResponse
			if json.Unmarshal(line, &r) == nil && string(r.ID) == id {
				if len(r.Error) > 0 {
					return r, nil, fmt.Errorf("error response: %s", r.Error)
				}
				return r, line, nil
			}
		}
	}
	if _, err := send(rpcRequest{JSONRPC: "2.0", ID: 1, Method: "initialize", Params: map[string]any{
		"protocolVersion": "2024-11-05", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "bench", "version": "1"},
	}}); err != nil {
		return exchange{}, err
	}
	if _, _, err := until("1"); err != nil {
		return exchange{}, fmt.Errorf("initialize: %w", err)
	}
	if _, err := send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}); err != nil {
		return exchange{}, err
	}
	reqLine, err := send(methodSourceRequest(2))
	if err != nil {
		return exchange{}, err
	}
	resp, respLine, err := until("2")
	if err != nil {
		return exchange{}, fmt.Errorf("tools/call: %w", err)
	}
	if !strings.Contains(string(respLine), "sum: a with: b") {
		return exchange{}, fmt.Errorf("unexpected answer: %s", respLine)
	}
	return exchange{request: reqLine, response: respLine, result: resp.Result}, nil
}

// pipeEcho is the floor child that echoes JSON-RPC lines (floor pipe).
type pipeEcho struct {
	*child
	next int64
}

// startPipeEcho starts the echo child; every answer carries result.
func startPipeEcho(e env, result json.RawMessage) (*pipeEcho, error) {
	c, err := startChild(e.ctx, e.floor, "pipe")
	if err != nil {
		return nil, err
	}
	if _, err := c.stdin.Write(append(append([]byte{}, result...), '\n')); err != nil {
		c.stop()
		return nil, err
	}
	return &pipeEcho{child: c, next: 10}, nil
}

// roundTrip sends one request line and reads its answer, decoding it.
func (p *pipeEcho) roundTrip() error {
	p.next++
	line, err := json.Marshal(methodSourceRequest(p.next))
	if err != nil {
		return err
	}
	if _, err := p.stdin.Write(append(line, '\n')); err != nil {
		return err
	}
	reply, err := p.stdout.ReadBytes('\n')
	if err != nil {
		return err
	}
	var r rpcResponse
	if err := json.Unmarshal(reply, &r); err != nil {
		return err
	}
	if string(r.ID) != fmt.Sprint(p.next) || len(r.Result) == 0 {
		return errors.New("the echo child answered another request")
	}
	return nil
}
