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
	refactor "pharo-refactor"
	"strings"
	"syscall"
	"time"

	"pharo-refactor/mcpclient"
)

const (
	mcpWarmup = 200
	mcpCalls  = 2000
)

// benchMethod is the method every MCP figure reads.
var benchMethod = refactor.MethodRef{Class: "Calculator", Selector: "sum:with:"}

// mcpSuite times get_method_source round trips through mcpclient to a
// pharo-sim subprocess, and the floor under them: the same JSON-RPC lines
// over a pipe to a child that only decodes each request and encodes a
// reply of the same size.
func mcpSuite(e env) ([]figure, error) {
	dir, err := copyImage(e, "mcp-image")
	if err != nil {
		return nil, err
	}
	reqLine, respLine, err := captureExchange(e.ctx, e.pharoSim, dir)
	if err != nil {
		return nil, fmt.Errorf("capturing one get_method_source exchange: %w", err)
	}
	mcpLat, err := timeMCP(e.ctx, e.pharoSim, dir)
	if err != nil {
		return nil, err
	}
	echoLat, err := timeEcho(e.ctx, e.self, respLine)
	if err != nil {
		return nil, fmt.Errorf("pipe echo: %w", err)
	}
	m, _ := summarize(mcpLat)
	p, _ := summarize(echoLat)
	sizes := fmt.Sprintf("request %d B, response %d B", len(reqLine), len(respLine))
	return []figure{
		{"mcp_call_p50_us", micros(m.P50), "µs", fmt.Sprintf("get_method_source via mcpclient → pharo-sim, %d calls after %d warm-up", m.N, mcpWarmup)},
		{"mcp_call_p99_us", micros(m.P99), "µs", fmt.Sprintf("max %.1f µs", micros(m.Max))},
		{"pipe_echo_p50_us", micros(p.P50), "µs", fmt.Sprintf("floor: JSON-RPC echo child over a pipe, %d calls, %s; p99 %.1f µs", p.N, sizes, micros(p.P99))},
	}, nil
}

func timeMCP(ctx context.Context, pharoSim, dir string) (samples, error) {
	c, err := mcpclient.New(mcpclient.Config{Command: pharoSim, Args: []string{"serve", "--dir", dir, "--log-level", "warn"}, StopGrace: time.Second})
	if err != nil {
		return nil, err
	}
	defer func() { _ = c.Close() }()
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		return nil, fmt.Errorf("starting pharo-sim through mcpclient: %w", err)
	}
	want := ""
	lat := make(samples, 0, mcpCalls)
	for i := range mcpWarmup + mcpCalls {
		start := time.Now()
		src, err := c.MethodSource(ctx, benchMethod)
		d := time.Since(start)
		if err != nil {
			return nil, fmt.Errorf("get_method_source call %d: %w", i+1, err)
		}
		if want == "" {
			want = src
		} else if src != want {
			return nil, fmt.Errorf("get_method_source answered %q, then %q", want, src)
		}
		if i >= mcpWarmup {
			lat = append(lat, d)
		}
	}
	if !strings.HasPrefix(want, "sum: a with: b") {
		return nil, fmt.Errorf("unexpected source of %s: %q", benchMethod, want)
	}
	return lat, nil
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

// captureExchange speaks raw MCP to pharo-sim once: the handshake, then
// one get_method_source call. It answers the request and response lines,
// so that the echo floor moves exactly as many bytes.
func captureExchange(ctx context.Context, pharoSim, dir string) ([]byte, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, pharoSim, "serve", "--dir", dir, "--log-level", "warn")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.Stderr = io.Discard
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, err
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
	until := func(id string) ([]byte, error) {
		for {
			line, err := out.ReadBytes('\n')
			if err != nil {
				return nil, err
			}
			line = []byte(strings.TrimRight(string(line), "\r\n"))
			var r rpcResponse
			if json.Unmarshal(line, &r) == nil && string(r.ID) == id {
				if len(r.Error) > 0 {
					return nil, fmt.Errorf("error response: %s", r.Error)
				}
				return line, nil
			}
		}
	}
	if _, err := send(rpcRequest{JSONRPC: "2.0", ID: 1, Method: "initialize", Params: map[string]any{
		"protocolVersion": "2024-11-05", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "bench", "version": "1"},
	}}); err != nil {
		return nil, nil, err
	}
	if _, err := until("1"); err != nil {
		return nil, nil, fmt.Errorf("initialize: %w", err)
	}
	if _, err := send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}); err != nil {
		return nil, nil, err
	}
	reqLine, err := send(methodSourceRequest(2))
	if err != nil {
		return nil, nil, err
	}
	respLine, err := until("2")
	if err != nil {
		return nil, nil, fmt.Errorf("tools/call: %w", err)
	}
	if !strings.Contains(string(respLine), "sum: a with: b") {
		return nil, nil, fmt.Errorf("unexpected answer: %s", respLine)
	}
	return reqLine, respLine, nil
}

// timeEcho runs this program as an echo child and times JSON-RPC round
// trips over its stdin/stdout. The child's first input line is the
// result it sends back for every request (the captured pharo-sim result).
func timeEcho(ctx context.Context, self string, respLine []byte) (samples, error) {
	var template rpcResponse
	if err := json.Unmarshal(respLine, &template); err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, self, "-echo-child")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	defer func() {
		_ = stdin.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	}()
	if _, err := stdin.Write(append(append([]byte{}, template.Result...), '\n')); err != nil {
		return nil, err
	}
	in := bufio.NewReaderSize(stdout, 1<<20)
	lat := make(samples, 0, mcpCalls)
	for i := range mcpWarmup + mcpCalls {
		id := int64(i + 10)
		start := time.Now()
		line, err := json.Marshal(methodSourceRequest(id))
		if err != nil {
			return nil, err
		}
		if _, err := stdin.Write(append(line, '\n')); err != nil {
			return nil, err
		}
		reply, err := in.ReadBytes('\n')
		if err != nil {
			return nil, err
		}
		var r rpcResponse
		if err := json.Unmarshal(reply, &r); err != nil {
			return nil, err
		}
		d := time.Since(start)
		if string(r.ID) != fmt.Sprint(id) || len(r.Result) == 0 {
			return nil, fmt.Errorf("echo child answered %s to request %d", reply, id)
		}
		if i >= mcpWarmup {
			lat = append(lat, d)
		}
	}
	return lat, nil
}

// echoChild is the floor's child process: for every JSON-RPC request line
// on stdin it writes one response line carrying the result given on the
// first line. It stops at EOF.
func echoChild(stdin io.Reader, stdout io.Writer) error {
	in := bufio.NewReaderSize(stdin, 1<<20)
	out := bufio.NewWriterSize(stdout, 1<<20)
	first, err := in.ReadBytes('\n')
	if err != nil {
		return fmt.Errorf("reading the result template: %w", err)
	}
	result := json.RawMessage(strings.TrimSpace(string(first)))
	if !json.Valid(result) {
		return errors.New("the result template is not JSON")
	}
	for {
		line, err := in.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		var req struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Method  string          `json:"method"`
			Params  json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(line, &req); err != nil {
			return fmt.Errorf("bad request line: %w", err)
		}
		reply, err := json.Marshal(rpcResponse{JSONRPC: "2.0", ID: req.ID, Result: result})
		if err != nil {
			return err
		}
		if _, err := out.Write(append(reply, '\n')); err != nil {
			return err
		}
		if err := out.Flush(); err != nil {
			return err
		}
	}
}
