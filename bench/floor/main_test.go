package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPipeEchoAnswersEveryRequest(t *testing.T) {
	in := strings.NewReader(`{"content": [], "isError": false}` + "\n" +
		`{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {}}` + "\n" +
		`{"jsonrpc": "2.0", "id": "x", "method": "tools/call"}` + "\n")
	var out strings.Builder
	require.NoError(t, pipeEcho(in, &out))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 2)
	assert.JSONEq(t, `{"jsonrpc": "2.0", "id": 7, "result": {"content": [], "isError": false}}`, lines[0])
	assert.JSONEq(t, `{"jsonrpc": "2.0", "id": "x", "result": {"content": [], "isError": false}}`, lines[1])

	assert.Error(t, pipeEcho(strings.NewReader("not json\n"), io.Discard))
	assert.Error(t, pipeEcho(strings.NewReader("{}\nnot json\n"), io.Discard))
}

func TestCannedResultSendsTheSameBytes(t *testing.T) {
	captured := `{"content":[{"type":"text","text":"{\"success\": true, \"result\": \"sum: a\\r\\t^ a\"}"}],"structuredContent":{"success":true,"result":"sum: a\r\t^ a"}}`
	res, err := cannedResult([]byte(captured))
	require.NoError(t, err)
	again, err := json.Marshal(res)
	require.NoError(t, err)
	assert.JSONEq(t, captured, string(again))
	_, ok := mcp.AsTextContent(res.Content[0])
	assert.True(t, ok)

	_, err = cannedResult([]byte(`[1]`))
	assert.Error(t, err)
}

func TestServeHTTPAnswersTheCannedBodies(t *testing.T) {
	dir := t.TempDir()
	busy, health := filepath.Join(dir, "busy.json"), filepath.Join(dir, "health.json")
	require.NoError(t, os.WriteFile(busy, []byte(`{"code": "busy"}`), 0o644))
	require.NoError(t, os.WriteFile(health, []byte(`{"busy": true}`), 0o644))
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- serveHTTP([]string{"-busy", busy, "-health", health, "-retry-after", "4"}, stdinR, stdoutW)
	}()
	line, err := bufio.NewReader(stdoutR).ReadString('\n')
	require.NoError(t, err)
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening ")
	require.True(t, ok, line)
	base := "http://" + addr

	resp, err := http.Post(base+"/api/v1/refactor", "application/json", strings.NewReader(`{"class_name": "A"}`))
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.Equal(t, "4", resp.Header.Get("Retry-After"))
	assert.Equal(t, "application/problem+json", resp.Header.Get("Content-Type"))
	assert.Equal(t, `{"code": "busy"}`, string(body))

	resp, err = http.Get(base + "/health")
	require.NoError(t, err)
	body, _ = io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	assert.Equal(t, `{"busy": true}`, string(body))

	resp, err = http.Post(base+"/floor/result", "application/json", strings.NewReader(`{}`))
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.NotEqual(t, http.StatusOK, resp.StatusCode, "no -result: no such route")

	require.NoError(t, stdinW.Close())
	assert.NoError(t, <-done, "it stops when its stdin closes")
}
