package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/internal/testenv"
)

// bins builds the pharo-sim binary when a test first runs it.
var bins testenv.Binaries

func TestMain(m *testing.M) { os.Exit(bins.Run(m)) }

// simBinary is the pharo-sim binary (built once; skips t under -short).
func simBinary(t testing.TB) string {
	t.Helper()
	return bins.Path(t, "pharo-sim")
}

// sim is a running pharo-sim subprocess driven by mcp-go's stdio client.
type sim struct {
	client *client.Client
	mu     sync.Mutex
	cmd    *exec.Cmd
	stderr *testenv.Buffer
}

// startSim starts `pharo-sim serve` with the arguments and environment and
// initializes an MCP session. The process is stopped at cleanup.
func startSim(t *testing.T, env []string, args ...string) *sim {
	t.Helper()
	s := &sim{stderr: &testenv.Buffer{}}
	keep := func(ctx context.Context, command string, env []string, args []string) (*exec.Cmd, error) {
		cmd := exec.CommandContext(ctx, command, args...)
		cmd.Env = append(os.Environ(), env...)
		s.mu.Lock()
		s.cmd = cmd
		s.mu.Unlock()
		return cmd, nil
	}
	c, err := client.NewStdioMCPClientWithOptions(simBinary(t), env, append([]string{"serve"}, args...),
		transport.WithCommandFunc(keep), transport.WithCommandStderrWriter(s.stderr))
	require.NoError(t, err)
	s.client = c
	t.Cleanup(func() {
		_ = c.Close()
		if t.Failed() {
			t.Logf("pharo-sim stderr:\n%s", s.stderr.String())
		}
	})
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "pharo-sim-test", Version: "1"}
	_, err = c.Initialize(context.Background(), req)
	require.NoError(t, err, "initialize; stderr: %s", s.stderr.String())
	return s
}

// process returns the subprocess.
func (s *sim) process() *os.Process {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cmd.Process
}

// envelope is a decoded tool answer.
type envelope struct {
	Success bool            `json:"success"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// errorDescription returns the description of an image error.
func (e envelope) errorDescription(t *testing.T) string {
	t.Helper()
	var obj struct {
		Description string         `json:"description"`
		StackTrace  *string        `json:"stack_trace"`
		Receiver    map[string]any `json:"receiver"`
	}
	require.NoError(t, json.Unmarshal(e.Error, &obj), "error object: %s", e.Error)
	require.NotNil(t, obj.StackTrace, "an image error has a stack_trace")
	require.NotNil(t, obj.Receiver, "an image error has a receiver")
	return obj.Description
}

// result decodes the result of a successful answer into v.
func (e envelope) result(t *testing.T, v any) {
	t.Helper()
	require.True(t, e.Success, "success; error: %s", e.Error)
	require.NoError(t, json.Unmarshal(e.Result, v), "result: %s", e.Result)
}

// call calls a tool, checks that text and structured content agree and that
// the answer is not an MCP-level error, and decodes the envelope.
func (s *sim) call(t *testing.T, tool string, args map[string]any) envelope {
	t.Helper()
	res, err := s.callRaw(tool, args)
	require.NoError(t, err, "calling %s", tool)
	require.False(t, res.IsError, "%s answered an MCP error: %v", tool, res.Content)
	require.Len(t, res.Content, 1)
	text, ok := mcp.AsTextContent(res.Content[0])
	require.True(t, ok, "text content")
	require.NotEmpty(t, res.RawStructuredContent, "structured content")
	assert.JSONEq(t, text.Text, string(res.RawStructuredContent), "structured content = text content")
	var env envelope
	require.NoError(t, json.Unmarshal([]byte(text.Text), &env))
	return env
}

func (s *sim) callRaw(tool string, args map[string]any) (*mcp.CallToolResult, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	return s.client.CallTool(context.Background(), req)
}

// eval evaluates code and returns the envelope.
func (s *sim) eval(t *testing.T, code string) envelope {
	t.Helper()
	return s.call(t, "eval", map[string]any{"code": code})
}

func mcpListTools() mcp.ListToolsRequest { return mcp.ListToolsRequest{} }
