package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/pharo-refactor/refactord/internal/testenv"
	"github.com/pharo-refactor/refactord/wire"
)

// buildBinaries compiles the packages (./cmd/refactord, ./bench/loadgen, …)
// from this checkout into dir, so that a stale bin/ never gets measured,
// and answers each binary's path by its name.
func buildBinaries(ctx context.Context, root, dir string, pkgs ...string) (map[string]string, error) {
	cmd := exec.CommandContext(ctx, "go", append([]string{"build", "-o", dir + string(filepath.Separator)}, pkgs...)...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build: %w\n%s", err, out)
	}
	bins := map[string]string{}
	for _, p := range pkgs {
		bins[filepath.Base(p)] = filepath.Join(dir, filepath.Base(p))
	}
	return bins, nil
}

// copyImage copies the sample image into a fresh directory under e.tmp.
func copyImage(e env, name string) (string, error) {
	dir := filepath.Join(e.tmp, name)
	if err := testenv.CopyTree(filepath.Join(e.root, "examples", "sample-image"), dir); err != nil {
		return "", fmt.Errorf("copying the sample image: %w", err)
	}
	return dir, nil
}

// service is refactord running as a real subprocess (testenv's launcher,
// with a clean environment), its log in a file.
type service struct {
	*testenv.Service
	name    string
	logPath string
	simPID  int
}

// startService starts refactord on a copy of the sample image with the
// extra environment vars, and waits until it is ready.
func startService(e env, name string, vars []string) (*service, error) {
	image, err := copyImage(e, filepath.Join(name, "image"))
	if err != nil {
		return nil, err
	}
	return startServiceOn(e, name, image, vars)
}

// startServiceOn starts refactord as startService does, on the Tonel tree
// at image (which its compiles change).
func startServiceOn(e env, name, image string, vars []string) (*service, error) {
	base := filepath.Join(e.tmp, name)
	if err := os.MkdirAll(base, 0o755); err != nil {
		return nil, err
	}
	logPath := filepath.Join(base, "refactord.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer logFile.Close() // the child holds its own copy
	env := append(testenv.ServiceEnv(e.pharoSim, image, filepath.Join(base, "data")), "SHUTDOWN_GRACE=2s")
	svc, err := testenv.StartService(testenv.ServiceConfig{Binary: e.refactord, Dir: base, Env: append(env, vars...), Log: logFile})
	if err != nil {
		return nil, err
	}
	s := &service{Service: svc, name: name, logPath: logPath}
	if err := s.waitReady(e.ctx); err != nil {
		s.stop()
		return nil, fmt.Errorf("refactord (%s): %w\n%s", name, err, s.logTail())
	}
	return s, nil
}

// waitReady waits until refactord is ready and notes pharo-sim's PID.
func (s *service) waitReady(ctx context.Context) error {
	if err := s.WaitFor("/ready", 30*time.Second); err != nil {
		return err
	}
	h, err := s.health(ctx, &http.Client{Timeout: 2 * time.Second})
	if err != nil {
		return err
	}
	s.simPID = h.MCP.PID
	return nil
}

func (s *service) health(ctx context.Context, client *http.Client) (wire.HealthBody, error) {
	var h wire.HealthBody
	body, err := get(ctx, client, s.URL+"/health")
	if err != nil {
		return h, err
	}
	return h, json.Unmarshal(body, &h)
}

// stop ends refactord (a graceful shutdown closes pharo-sim, else its
// process group is killed); pharo-sim, which has a group of its own, is
// killed by PID if it outlived its parent.
func (s *service) stop() {
	s.Stop(5 * time.Second)
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
