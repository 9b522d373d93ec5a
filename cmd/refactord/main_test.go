package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharo-refactor/internal/testenv"
)

var bins struct{ refactord, pharoSim string }

func TestMain(m *testing.M) {
	testenv.RunWithBinaries(m, func(p map[string]string) {
		bins.refactord, bins.pharoSim = p["refactord"], p["pharo-sim"]
	}, "refactord", "pharo-sim")
}

// service is refactord running as a real subprocess.
type service struct {
	t      *testing.T
	cmd    *exec.Cmd
	url    string
	log    *lockedWriter
	exited chan struct{}
	err    error // Wait's answer, once exited is closed
}

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}

// start runs refactord in dir with env (on top of a minimal environment)
// and waits until it is ready.
func start(t *testing.T, dir string, env ...string) *service {
	t.Helper()
	s := launch(t, dir, env...)
	require.Eventually(t, func() bool { return s.get("/ready") == http.StatusOK }, 30*time.Second, 50*time.Millisecond, "refactord did not become ready")
	return s
}

// get answers the status of a GET, 0 when the service does not answer.
func (s *service) get(path string) int {
	resp, err := http.Get(s.url + path)
	if err != nil {
		return 0
	}
	_ = resp.Body.Close()
	return resp.StatusCode
}

// launch runs refactord in dir with env (on top of a minimal environment).
func launch(t *testing.T, dir string, env ...string) *service {
	t.Helper()
	addr := freeAddr(t)
	cmd := exec.Command(bins.refactord)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "LISTEN_ADDR=" + addr, "LOG_LEVEL=debug"}, env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	s := &service{t: t, cmd: cmd, url: "http://" + addr, log: &lockedWriter{}, exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = s.log, s.log
	require.NoError(t, cmd.Start())
	go func() { s.err = cmd.Wait(); close(s.exited) }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-s.exited
		if t.Failed() {
			t.Logf("refactord log:\n%s", s.log.String())
		}
	})
	return s
}

// lockedWriter collects the subprocess's output; exec copies stdout and
// stderr on their own goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  bytes.Buffer
}

func (l *lockedWriter) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.String()
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (s *service) post(path, body string) (*http.Response, map[string]any, error) {
	resp, err := http.Post(s.url+path, "application/json", strings.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return resp, nil, err
	}
	return resp, out, nil
}

func (s *service) waitExit(d time.Duration) error {
	select {
	case <-s.exited:
		return s.err
	case <-time.After(d):
		s.t.Fatalf("refactord did not exit within %s", d)
		return nil
	}
}

// imageEnv is a fresh copy of the sample image and the env that points
// refactord at it with a scripted model.
func imageEnv(t *testing.T, script string) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	image := filepath.Join(dir, "image")
	require.NoError(t, testenv.CopyTree("examples/sample-image", image))
	scriptFile := filepath.Join(dir, "model.json")
	require.NoError(t, os.WriteFile(scriptFile, []byte(script), 0o644))
	return dir, []string{
		"DATA_DIR=" + filepath.Join(dir, "data"),
		"PHARO_MCP_COMMAND=" + bins.pharoSim,
		"PHARO_MCP_ARGS=serve --dir " + image,
		"MODEL_PROVIDER=scripted",
		"SCRIPTED_MODEL_FILE=" + scriptFile,
	}
}

// sumScript approves a new Calculator>>sum:with: in round 1; writerDelay
// holds the run in flight.
func sumScript(writerDelayMS int) string {
	return fmt.Sprintf(`{"repeat": true, "answers": {"Calculator>>sum:with:": {
		"reviewer": [{"json": {"severity": "LOW", "summary": "ok", "issues": []}}],
		"writer": [{"json": {"code": "sum: a with: b\n\t\"Answer the sum\"\n\n\t^ a + b", "notes": ""}, "delay_ms": %d}],
		"validator": [{"json": {"verdict": "APPROVED", "feedback": "fine", "issues": []}}],
		"refiner": [{"json": {"code": "sum: a with: b\n\t^ a + b", "notes": ""}}]}}}`, writerDelayMS)
}

func TestSIGTERMLetsTheRunFinish(t *testing.T) {
	dir, env := imageEnv(t, sumScript(1500))
	s := start(t, dir, env...)
	type answer struct {
		status int
		body   map[string]any
		err    error
	}
	done := make(chan answer, 1)
	go func() {
		resp, body, err := s.post("/api/v1/refactor", `{"class_name": "Calculator", "method_name": "sum:with:"}`)
		a := answer{body: body, err: err}
		if resp != nil {
			a.status = resp.StatusCode
		}
		done <- a
	}()
	require.Eventually(t, func() bool {
		resp, err := http.Get(s.url + "/health")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		var h map[string]any
		return json.NewDecoder(resp.Body).Decode(&h) == nil && h["busy"] == true
	}, 10*time.Second, 10*time.Millisecond, "the run is in flight")
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))

	a := <-done
	require.NoError(t, a.err)
	assert.Equal(t, http.StatusOK, a.status, "%v", a.body)
	assert.Equal(t, "released", a.body["outcome"])
	assert.NoError(t, s.waitExit(20*time.Second), "exit status 0")
	assert.Contains(t, string(mustRead(t, filepath.Join(dir, "image", "src", "Sample-Shop", "Calculator.class.st"))), "\"Answer the sum\"")
}

func mustRead(t *testing.T, path string) []byte {
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return data
}

// TestCrashDuringReleaseIsReconciled kills refactord (SIGKILL) right after
// the write-ahead row is committed, before or after the compile, restarts
// it, and checks what start-up reconciliation decided.
func TestCrashDuringReleaseIsReconciled(t *testing.T) {
	cases := []struct {
		name   string
		point  string
		edit   bool // a person changes the method while the service is down
		status string
	}{
		{"before the compile", "after_write_ahead", false, "not_released"},
		{"after the compile", "after_compile", false, "released"},
		{"edited meanwhile", "after_write_ahead", true, "conflict"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir, env := imageEnv(t, sumScript(0))
			file := filepath.Join(dir, "image", "src", "Sample-Shop", "Calculator.class.st")
			original := mustRead(t, file)
			s := start(t, dir, append(env, "REFACTORD_CRASH_AT="+tc.point)...)
			_, _, err := s.post("/api/v1/refactor", `{"class_name": "Calculator", "method_name": "sum:with:"}`)
			require.Error(t, err, "the process died before answering")
			exitErr := s.waitExit(20 * time.Second)
			var ee *exec.ExitError
			require.True(t, errors.As(exitErr, &ee), "%v", exitErr)
			assert.Equal(t, syscall.SIGKILL, ee.Sys().(syscall.WaitStatus).Signal())
			if tc.point == "after_write_ahead" {
				assert.Equal(t, original, mustRead(t, file), "nothing was compiled before the crash")
			}
			if tc.edit {
				edited := strings.Replace(string(original), "Calculator >> sum: a with: b [\n\n\t^ a + b", "Calculator >> sum: a with: b [\n\n\t^ b + a \"edited by hand\"", 1)
				require.NotEqual(t, string(original), edited)
				require.NoError(t, os.WriteFile(file, []byte(edited), 0o644))
			}

			s2 := start(t, dir, env...)
			resp, err := http.Get(s2.url + "/api/v1/refactorings?limit=1")
			require.NoError(t, err)
			defer resp.Body.Close()
			var page struct {
				Runs []map[string]any `json:"runs"`
			}
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&page))
			require.Len(t, page.Runs, 1)
			assert.Equal(t, tc.status, page.Runs[0]["status"], "notes: %v", page.Runs[0]["notes"])
			assert.NotEmpty(t, page.Runs[0]["notes"], "reconciliation leaves a note")
		})
	}
}

// TestReadmeCurlAfterMakeRun starts refactord the way `make run` does
// (defaults only, from a directory laid out like the repository) and sends
// the README's curl body.
func TestReadmeCurlAfterMakeRun(t *testing.T) {
	root, err := testenv.Root()
	require.NoError(t, err)
	readme := string(mustRead(t, filepath.Join(root, "README.md")))
	m := regexp.MustCompile(`curl [^\n]*-d '([^']+)'[^\n]*http://127\.0\.0\.1:8080/api/v1/refactor`).FindStringSubmatch(readme)
	require.NotNil(t, m, "README.md holds a curl example against http://127.0.0.1:8080/api/v1/refactor")

	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "bin"), 0o755))
	require.NoError(t, os.Symlink(bins.pharoSim, filepath.Join(dir, "bin", "pharo-sim")))
	require.NoError(t, testenv.CopyTree("examples/sample-image", filepath.Join(dir, "examples", "sample-image")))
	require.NoError(t, testenv.CopyTree("examples/sample-image", filepath.Join(dir, ".data", "image")))
	s := start(t, dir) // no key, no model settings: the scripted demo model
	resp, body, err := s.post("/api/v1/refactor", m[1])
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode, "%v", body)
	assert.Equal(t, "released", body["outcome"])
	assert.Contains(t, s.log.String(), "NO MODEL KEY SET", "a loud log line says the demo model is in use")
}

// TestNoModelConfigured: no key and no demo model file (a binary run
// outside the repository) — the service starts, says so, and refuses runs.
func TestNoModelConfigured(t *testing.T) {
	dir, env := imageEnv(t, "{}")
	var kept []string
	for _, e := range env {
		if !strings.HasPrefix(e, "MODEL_PROVIDER=") && !strings.HasPrefix(e, "SCRIPTED_MODEL_FILE=") {
			kept = append(kept, e)
		}
	}
	s := launch(t, dir, kept...)
	require.Eventually(t, func() bool { return s.get("/health") == http.StatusOK }, 30*time.Second, 50*time.Millisecond)
	assert.Equal(t, http.StatusServiceUnavailable, s.get("/ready"))
	resp, body, err := s.post("/api/v1/refactor", `{"class_name": "Calculator", "method_name": "sum:with:"}`)
	require.NoError(t, err)
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.Equal(t, "model_not_configured", body["code"])
	assert.Contains(t, s.log.String(), "NO MODEL CONFIGURED")
}
