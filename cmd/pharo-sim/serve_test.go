package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/internal/testenv"
	"github.com/pharo-refactor/refactord/pharosim"
)

func TestParseServe(t *testing.T) {
	cases := []struct {
		name    string
		args    []string
		env     map[string]string
		want    serveConfig
		wantErr string
	}{
		{"minimal", []string{"--dir", "img"}, nil,
			serveConfig{dir: "img", logLevel: slog.LevelInfo, logFormat: "text"}, ""},
		{"everything by flags", []string{"--dir", "img", "--test-oracle", "o.json", "--fault-exit-after", "5",
			"--fault-delay", "20ms", "--fault-fail", "eval=ZeroDivide", "--fault-fail", "list_packages=Error: x",
			"--fault-unreachable", "--log-level", "debug", "--log-format", "json"}, nil,
			serveConfig{dir: "img", oracle: "o.json", logLevel: slog.LevelDebug, logFormat: "json",
				faults: pharosim.Faults{ExitAfter: 5, Delay: 20 * time.Millisecond, Unreachable: true,
					Fail: map[string]string{"eval": "ZeroDivide", "list_packages": "Error: x"}}}, ""},
		{"environment", []string{"--dir", "img"},
			map[string]string{pharosim.EnvExitAfter: "2", pharosim.EnvFail: "eval=ZeroDivide", pharosim.EnvUnreachable: "1"},
			serveConfig{dir: "img", logLevel: slog.LevelInfo, logFormat: "text",
				faults: pharosim.Faults{ExitAfter: 2, Unreachable: true, Fail: map[string]string{"eval": "ZeroDivide"}}}, ""},
		{"flags win over the environment", []string{"--dir", "img", "--fault-exit-after", "7", "--fault-fail", "eval=Halt"},
			map[string]string{pharosim.EnvExitAfter: "2", pharosim.EnvFail: "eval=ZeroDivide"},
			serveConfig{dir: "img", logLevel: slog.LevelInfo, logFormat: "text",
				faults: pharosim.Faults{ExitAfter: 7, Fail: map[string]string{"eval": "Halt"}}}, ""},
		{"call limit by flag over the environment", []string{"--dir", "img", "--call-limit", "2s"}, map[string]string{pharosim.EnvCallLimit: "9s"},
			serveConfig{dir: "img", logLevel: slog.LevelInfo, logFormat: "text", callLimit: 2 * time.Second}, ""},
		{"call limit by environment", []string{"--dir", "img"}, map[string]string{pharosim.EnvCallLimit: "9s"},
			serveConfig{dir: "img", logLevel: slog.LevelInfo, logFormat: "text", callLimit: 9 * time.Second}, ""},
		{"bad call limit", []string{"--dir", "img"}, map[string]string{pharosim.EnvCallLimit: "0"}, serveConfig{}, pharosim.EnvCallLimit},
		{"class library by flag over the environment", []string{"--dir", "img", "--class-library", "p12.idx.gz"}, map[string]string{envClassLibrary: "p14.idx.gz"},
			serveConfig{dir: "img", logLevel: slog.LevelInfo, logFormat: "text", library: "p12.idx.gz"}, ""},
		{"class library by environment", []string{"--dir", "img"}, map[string]string{envClassLibrary: "p14.idx.gz"},
			serveConfig{dir: "img", logLevel: slog.LevelInfo, logFormat: "text", library: "p14.idx.gz"}, ""},
		{"no dir", nil, nil, serveConfig{}, "--dir is required"},
		{"stray argument", []string{"--dir", "img", "extra"}, nil, serveConfig{}, "unexpected arguments"},
		{"bad fault", []string{"--dir", "img", "--fault-fail", "eval"}, nil, serveConfig{}, "TOOL=TEXT"},
		{"bad level", []string{"--dir", "img", "--log-level", "loud"}, nil, serveConfig{}, "--log-level"},
		{"bad format", []string{"--dir", "img", "--log-format", "xml"}, nil, serveConfig{}, "--log-format"},
		{"bad environment", []string{"--dir", "img"}, map[string]string{pharosim.EnvDelay: "soon"}, serveConfig{}, pharosim.EnvDelay},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseServe(tc.args, func(k string) string { return tc.env[k] }, io.Discard)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestVerbDispatch(t *testing.T) {
	cases := []struct {
		args   []string
		status int
		out    string // on stdout
		errOut string // on stderr
	}{
		{nil, 2, "", "usage: pharo-sim VERB"},
		{[]string{"help"}, 0, "serve --dir DIR", ""},
		{[]string{"frobnicate"}, 2, "", `unknown verb "frobnicate"`},
		{[]string{"serve"}, 2, "", "--dir is required"},
		{[]string{"serve", "-h"}, 0, "", "-fault-exit-after"},
		{[]string{"serve", "--dir", "/nonexistent/tree"}, 1, "", "cannot start"},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			status := run(tc.args, strings.NewReader(""), &stdout, &stderr)
			assert.Equal(t, tc.status, status)
			assert.Contains(t, stdout.String(), tc.out)
			assert.Contains(t, stderr.String(), tc.errOut)
			if len(tc.args) > 0 && tc.args[0] == "serve" {
				assert.Empty(t, stdout.String(), "serve never writes anything but MCP frames to stdout")
			}
		})
	}
}

// Speak raw JSON-RPC to the binary: stdout must hold nothing but MCP
// frames, logs go to stderr, and closing stdin ends the process with 0.
func TestStdoutCarriesOnlyFramesAndEOFStops(t *testing.T) {
	cmd := exec.Command(simBinary(t), "serve", "--dir", testenv.SimTree(t), "--log-level", "debug")
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	stderr := &testenv.Buffer{}
	cmd.Stderr = stderr
	require.NoError(t, cmd.Start())

	lines := bufio.NewScanner(stdout)
	lines.Buffer(make([]byte, 1<<20), 1<<20)
	send := func(frame string) {
		_, err := fmt.Fprintln(stdin, frame)
		require.NoError(t, err)
	}
	receive := func() map[string]any {
		require.True(t, lines.Scan(), "a frame; stderr: %s", stderr.String())
		var frame map[string]any
		require.NoError(t, json.Unmarshal(lines.Bytes(), &frame), "stdout line is JSON: %q", lines.Text())
		assert.Equal(t, "2.0", frame["jsonrpc"])
		return frame
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	init := receive()
	assert.Equal(t, pharosim.ServerName, init["result"].(map[string]any)["serverInfo"].(map[string]any)["name"])
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_packages","arguments":{}}}`)
	call := receive()
	content := call["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"].(string)
	assert.JSONEq(t, `{"success": true, "result": ["Sample-Shop", "Sim-Extras"]}`, content)

	require.NoError(t, stdin.Close())
	assert.False(t, lines.Scan(), "nothing more on stdout: %q", lines.Text())
	require.NoError(t, cmd.Wait(), "exit status 0 when stdin closes; stderr: %s", stderr.String())
	assert.Contains(t, stderr.String(), "pharo-sim serving MCP on stdio")
	assert.Contains(t, stderr.String(), "tool call")
}

func TestFaultFlags(t *testing.T) {
	t.Run("exit after N calls", func(t *testing.T) {
		s := startSim(t, nil, "--dir", testenv.SimTree(t), "--fault-exit-after", "2")
		for i := 0; i < 2; i++ {
			s.call(t, "list_packages", nil).result(t, new([]string))
		}
		_, err := s.callRaw("list_packages", nil)
		require.Error(t, err, "call 3 is never answered")
		var exit *exec.ExitError
		waitErr := s.client.Close()
		require.True(t, errors.As(waitErr, &exit), "the process exited on its own: %v", waitErr)
		assert.Equal(t, pharosim.ExitStatus, exit.ExitCode())
	})
	t.Run("fail a tool", func(t *testing.T) {
		s := startSim(t, nil, "--dir", testenv.SimTree(t), "--fault-fail", "get_method_source=ZeroDivide")
		e := s.call(t, "get_method_source", map[string]any{"class_name": "Calculator", "method_name": "sum:with:"})
		assert.Equal(t, "ZeroDivide", e.errorDescription(t))
		s.call(t, "list_packages", nil).result(t, new([]string))
	})
	t.Run("unreachable image, from the environment", func(t *testing.T) {
		s := startSim(t, []string{pharosim.EnvUnreachable + "=true"}, "--dir", testenv.SimTree(t))
		e := s.call(t, "get_class_comment", map[string]any{"class_name": "Calculator"})
		assert.False(t, e.Success)
		assert.JSONEq(t, `"Connection error: All connection attempts failed"`, string(e.Error))
	})
	t.Run("delayed calls are still answered", func(t *testing.T) {
		s := startSim(t, []string{pharosim.EnvDelay + "=20ms"}, "--dir", testenv.SimTree(t))
		var pkgs []string
		s.call(t, "list_packages", nil).result(t, &pkgs)
		assert.Equal(t, []string{"Sample-Shop", "Sim-Extras"}, pkgs)
	})
}
