package testenv

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pharo-refactor/refactord/wire"
)

// ServiceConfig says how to run refactord as a subprocess.
type ServiceConfig struct {
	// Binary is the refactord binary (built by Binaries or Build).
	Binary string
	// Dir is its working directory.
	Dir string
	// Env is its environment on top of PATH, HOME, TMPDIR and LISTEN_ADDR
	// (a free loopback port); nothing else of the caller's leaks in (no
	// model key). A later entry wins over an earlier one.
	Env []string
	// Log receives its stdout and stderr; nil keeps them for Log.
	Log io.Writer
}

// ServiceEnv is the environment that runs refactord on the Tonel tree at
// image through the pharo-sim binary, keeping its data in dataDir.
func ServiceEnv(pharoSim, image, dataDir string) []string {
	return []string{
		"DATA_DIR=" + dataDir,
		"PHARO_MCP_COMMAND=" + pharoSim,
		"PHARO_MCP_ARGS=serve --dir '" + image + "'",
	}
}

// Service is refactord running as a subprocess in its own process group.
type Service struct {
	// URL is where it listens: http://127.0.0.1:PORT.
	URL    string
	cmd    *exec.Cmd
	log    *Buffer
	exited chan struct{}
	err    error // Wait's answer, once exited is closed
}

// StartService starts refactord; it does not wait for it to listen
// (WaitFor does).
func StartService(cfg ServiceConfig) (*Service, error) {
	addr, err := FreeAddr()
	if err != nil {
		return nil, err
	}
	env := []string{"LISTEN_ADDR=" + addr}
	for _, k := range []string{"PATH", "HOME", "TMPDIR"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	s := &Service{URL: "http://" + addr, exited: make(chan struct{})}
	s.cmd = exec.Command(cfg.Binary)
	s.cmd.Dir = cfg.Dir
	s.cmd.Env = append(env, cfg.Env...)
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out := cfg.Log
	if out == nil {
		s.log = &Buffer{}
		out = s.log
	}
	s.cmd.Stdout, s.cmd.Stderr = out, out
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting refactord: %w", err)
	}
	go func() { s.err = s.cmd.Wait(); close(s.exited) }()
	return s, nil
}

// LaunchService starts refactord for t: killed (with its process group)
// when the test ends, its log printed when the test failed.
func LaunchService(t testing.TB, cfg ServiceConfig) *Service {
	t.Helper()
	s, err := StartService(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.kill()
		if t.Failed() && s.log != nil {
			t.Logf("refactord log:\n%s", s.Log())
		}
	})
	return s
}

// WaitFor waits until GET path answers 200, for at most limit; it gives up
// at once when the process exits.
func (s *Service) WaitFor(path string, limit time.Duration) error {
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(limit)
	for {
		resp, err := client.Get(s.URL + path)
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("refactord: %s did not answer 200 within %s", path, limit)
		}
		select {
		case <-s.exited:
			return fmt.Errorf("refactord exited before %s answered 200: %v", path, s.err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Health reads /health.
func (s *Service) Health() (wire.HealthBody, error) {
	var h wire.HealthBody
	resp, err := http.Get(s.URL + "/health")
	if err != nil {
		return h, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return h, fmt.Errorf("/health answered %d", resp.StatusCode)
	}
	return h, json.NewDecoder(resp.Body).Decode(&h)
}

// Signal sends sig to refactord (not to its process group).
func (s *Service) Signal(sig os.Signal) error { return s.cmd.Process.Signal(sig) }

// PID is refactord's process ID.
func (s *Service) PID() int { return s.cmd.Process.Pid }

// WaitExit waits at most limit for refactord to exit and returns how it
// ended (nil: status 0); it fails t when refactord is still running.
func (s *Service) WaitExit(t testing.TB, limit time.Duration) error {
	t.Helper()
	select {
	case <-s.exited:
		return s.err
	case <-time.After(limit):
		t.Fatalf("refactord did not exit within %s", limit)
		return nil
	}
}

// Exited is closed once refactord has exited.
func (s *Service) Exited() <-chan struct{} { return s.exited }

// Stop asks refactord to shut down (SIGTERM) and, after grace, kills its
// process group.
func (s *Service) Stop(grace time.Duration) {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(grace):
		s.kill()
	}
}

// kill ends refactord and its process group at once and waits for it.
func (s *Service) kill() {
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	<-s.exited
}

// Log is what refactord wrote so far, when ServiceConfig.Log was nil.
func (s *Service) Log() string {
	if s.log == nil {
		return ""
	}
	return s.log.String()
}

// FreeAddr is a loopback address with a port free a moment ago.
func FreeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// Buffer is a bytes.Buffer safe for a writer on another goroutine (a
// subprocess's output, a run's progress) while the test reads it.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String is everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Metric reads one series' value from a Prometheus text exposition (the
// body of /metrics); 0 when the series is not there.
func Metric(exposition []byte, series string) (float64, error) {
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`).FindSubmatch(exposition)
	if m == nil {
		return 0, nil
	}
	return strconv.ParseFloat(string(m[1]), 64)
}
