package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"pharo-refactor/internal/testenv"
)

// buildBinaries compiles refactord and pharo-sim from this checkout into
// dir, so that a stale bin/ never gets measured.
func buildBinaries(ctx context.Context, root, dir string) (refactord, pharoSim string, err error) {
	cmd := exec.CommandContext(ctx, "go", "build", "-o", dir+string(filepath.Separator), "./cmd/refactord", "./cmd/pharo-sim")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("go build: %w\n%s", err, out)
	}
	return filepath.Join(dir, "refactord"), filepath.Join(dir, "pharo-sim"), nil
}

// copyImage copies the sample image into a fresh directory under e.tmp.
func copyImage(e env, name string) (string, error) {
	dir := filepath.Join(e.tmp, name)
	if err := testenv.CopyTree(filepath.Join(e.root, "examples", "sample-image"), dir); err != nil {
		return "", fmt.Errorf("copying the sample image: %w", err)
	}
	return dir, nil
}

// service is refactord running as a real subprocess in its own process
// group, its log (stdout and stderr) in a file.
type service struct {
	name    string
	cmd     *exec.Cmd
	url     string
	logPath string
	exited  chan struct{}
	simPID  int
}

// startService starts refactord on a copy of the sample image with a clean
// environment (only PATH/HOME/TMPDIR of ours, plus vars) in its own working
// directory, so that no .env or key of the caller leaks in, and waits until
// /health answers with the MCP server up.
func startService(e env, name string, vars map[string]string) (*service, error) {
	image, err := copyImage(e, filepath.Join(name, "image"))
	if err != nil {
		return nil, err
	}
	return startServiceOn(e, name, image, vars)
}

// startServiceOn starts refactord as startService does, on the Tonel tree
// at image (which its compiles change).
func startServiceOn(e env, name, image string, vars map[string]string) (*service, error) {
	base := filepath.Join(e.tmp, name)
	if err := os.MkdirAll(base, 0o755); err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	logPath := filepath.Join(base, "refactord.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer logFile.Close() // the child holds its own copy
	environ := []string{
		"LISTEN_ADDR=127.0.0.1:" + strconv.Itoa(port),
		"DATA_DIR=" + filepath.Join(base, "data"),
		"PHARO_MCP_COMMAND=" + e.pharoSim,
		"PHARO_MCP_ARGS=serve --dir '" + image + "'",
		"SHUTDOWN_GRACE=2s",
	}
	for _, k := range []string{"PATH", "HOME", "TMPDIR"} {
		if v, ok := os.LookupEnv(k); ok {
			environ = append(environ, k+"="+v)
		}
	}
	for k, v := range vars {
		environ = append(environ, k+"="+v)
	}
	cmd := exec.Command(e.refactord)
	cmd.Dir = base
	cmd.Env = environ
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting refactord: %w", err)
	}
	s := &service{name: name, cmd: cmd, url: "http://127.0.0.1:" + strconv.Itoa(port), logPath: logPath, exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(s.exited) }()
	if err := s.waitHealthy(e.ctx, 30*time.Second); err != nil {
		s.stop()
		return nil, fmt.Errorf("%w\n%s", err, s.logTail())
	}
	return s, nil
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// healthBody is the part of /health the bench reads.
type healthBody struct {
	Status string `json:"status"`
	Busy   bool   `json:"busy"`
	MCP    struct {
		Up  bool `json:"up"`
		PID int  `json:"pid"`
	} `json:"mcp"`
}

func (s *service) health(ctx context.Context, client *http.Client) (healthBody, error) {
	var h healthBody
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url+"/health", nil)
	if err != nil {
		return h, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return h, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return h, err
	}
	if resp.StatusCode != http.StatusOK {
		return h, fmt.Errorf("/health answered %d: %s", resp.StatusCode, body)
	}
	return h, json.Unmarshal(body, &h)
}

func (s *service) waitHealthy(ctx context.Context, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	client := &http.Client{Timeout: 2 * time.Second}
	var last error
	for time.Now().Before(deadline) {
		select {
		case <-s.exited:
			return fmt.Errorf("refactord (%s) exited during start-up", s.name)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		h, err := s.health(ctx, client)
		if err == nil && h.MCP.Up {
			s.simPID = h.MCP.PID
			return nil
		}
		if err == nil {
			err = errors.New("the MCP server is not up")
		}
		last = err
	}
	return fmt.Errorf("refactord (%s) not healthy after %s: %v", s.name, limit, last)
}

// stop ends refactord: SIGTERM (a graceful shutdown closes pharo-sim), then
// SIGKILL to its process group; pharo-sim, which has a group of its own,
// is killed by PID if it outlived its parent.
func (s *service) stop() {
	pid := s.cmd.Process.Pid
	_ = syscall.Kill(pid, syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		<-s.exited
	}
	if s.simPID > 0 && processAlive(s.simPID) {
		time.Sleep(200 * time.Millisecond) // it exits on stdin EOF
		if processAlive(s.simPID) {
			_ = syscall.Kill(-s.simPID, syscall.SIGKILL)
			_ = syscall.Kill(s.simPID, syscall.SIGKILL)
		}
	}
}

func processAlive(pid int) bool {
	// A zombie or a recycled PID would also answer; good enough for a
	// last-resort cleanup of a child we started a moment ago.
	return syscall.Kill(pid, 0) == nil
}

// logTail is the end of the service's log, for error messages.
func (s *service) logTail() string {
	data, err := os.ReadFile(s.logPath)
	if err != nil {
		return ""
	}
	const n = 4000
	if len(data) > n {
		data = data[len(data)-n:]
	}
	return "refactord log (tail):\n" + string(data)
}

// rssMB reads VmRSS of a process, in MiB.
func rssMB(pid int) (float64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	kb, err := parseVmRSS(string(data))
	if err != nil {
		return 0, err
	}
	return round(float64(kb)/1024, 1), nil
}

// parseVmRSS finds "VmRSS:  12345 kB" in a /proc/PID/status text.
func parseVmRSS(status string) (int64, error) {
	for line := range strings.SplitSeq(status, "\n") {
		rest, ok := strings.CutPrefix(line, "VmRSS:")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) != 2 || fields[1] != "kB" {
			return 0, fmt.Errorf("unexpected VmRSS line %q", line)
		}
		return strconv.ParseInt(fields[0], 10, 64)
	}
	return 0, errors.New("no VmRSS line")
}

// post sends a JSON body and reads the whole answer.
func post(ctx context.Context, client *http.Client, url string, body []byte) (*http.Response, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp, data, err
}
