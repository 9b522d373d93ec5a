package main

import (
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/internal/testenv"
)

// bins builds refactord and pharo-sim when a test first runs them.
var bins binaries

type binaries struct{ testenv.Binaries }

func (b *binaries) refactord(t testing.TB) string { t.Helper(); return b.Path(t, "refactord") }
func (b *binaries) pharoSim(t testing.TB) string  { t.Helper(); return b.Path(t, "pharo-sim") }

func TestMain(m *testing.M) { os.Exit(bins.Run(m)) }

// service is refactord running as a real subprocess.
type service struct {
	*testenv.Service
	t *testing.T
}

// start runs refactord in dir with env and waits until it is ready.
func start(t *testing.T, dir string, env ...string) *service {
	t.Helper()
	s := launch(t, dir, env...)
	require.NoError(t, s.WaitFor("/ready", 30*time.Second), "refactord did not become ready")
	return s
}

// launch runs refactord in dir with env (debug logs unless env says
// otherwise).
func launch(t *testing.T, dir string, env ...string) *service {
	t.Helper()
	cfg := testenv.ServiceConfig{Binary: bins.refactord(t), Dir: dir, Env: append([]string{"LOG_LEVEL=debug"}, env...)}
	return &service{Service: testenv.LaunchService(t, cfg), t: t}
}

// get answers the status of a GET, 0 when the service does not answer.
func (s *service) get(path string) int {
	resp, err := http.Get(s.URL + path)
	if err != nil {
		return 0
	}
	_ = resp.Body.Close()
	return resp.StatusCode
}

func (s *service) post(path, body string) (*http.Response, map[string]any, error) {
	resp, err := http.Post(s.URL+path, "application/json", strings.NewReader(body))
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

// imageEnv is a fresh copy of the sample image and the env that points
// refactord at it with a scripted model.
func imageEnv(t *testing.T, script testenv.Script) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	image := filepath.Join(dir, "image")
	require.NoError(t, testenv.CopyTree("examples/sample-image", image))
	model, err := script.Env(dir, true)
	require.NoError(t, err)
	return dir, append(testenv.ServiceEnv(bins.pharoSim(t), image, filepath.Join(dir, "data")), model...)
}

// answerTheSum is a refactoring of Calculator>>sum:with: that keeps its
// tests green.
const answerTheSum = "sum: a with: b\n\t\"Answer the sum\"\n\n\t^ a + b"

// approvesSum approves code as the new Calculator>>sum:with: in round 1;
// writerDelay holds the run in flight.
func approvesSum(code string, writerDelay time.Duration) testenv.Script {
	answers := testenv.ApprovedInRoundOne(code)
	answers[refactor.RoleWriter] = []testenv.Reply{testenv.Code(code).Delayed(writerDelay)}
	answers[refactor.RoleRefiner] = []testenv.Reply{testenv.Code(code)}
	return testenv.Script{"Calculator>>sum:with:": answers}
}

func TestSIGTERMLetsTheRunFinish(t *testing.T) {
	dir, env := imageEnv(t, approvesSum(answerTheSum, 1500*time.Millisecond))
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
	require.Eventually(t, s.busy, 10*time.Second, 10*time.Millisecond, "the run is in flight")
	require.NoError(t, s.Signal(syscall.SIGTERM))

	a := <-done
	require.NoError(t, a.err)
	assert.Equal(t, http.StatusOK, a.status, "%v", a.body)
	assert.Equal(t, "released", a.body["outcome"])
	assert.NoError(t, s.WaitExit(t, 20*time.Second), "exit status 0")
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
			dir, env := imageEnv(t, approvesSum(answerTheSum, 0))
			file := filepath.Join(dir, "image", "src", "Sample-Shop", "Calculator.class.st")
			original := mustRead(t, file)
			crashDuring(t, dir, env, tc.point, `{"class_name": "Calculator", "method_name": "sum:with:"}`)
			if tc.point == "after_write_ahead" {
				assert.Equal(t, original, mustRead(t, file), "nothing was compiled before the crash")
			}
			if tc.edit {
				edited := strings.Replace(string(original), "Calculator >> sum: a with: b [\n\n\t^ a + b", "Calculator >> sum: a with: b [\n\n\t^ b + a \"edited by hand\"", 1)
				require.NotEqual(t, string(original), edited)
				require.NoError(t, os.WriteFile(file, []byte(edited), 0o644))
			}

			run := start(t, dir, env...).newestRun()
			assert.Equal(t, tc.status, run["status"], "notes: %v", run["notes"])
			assert.NotEmpty(t, run["notes"], "reconciliation leaves a note")
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
	m := regexp.MustCompile(`curl [^\n]*-d '([^']+)'[^\n]*http://127\.0\.0\.1:8000/api/v1/refactor`).FindStringSubmatch(readme)
	require.NotNil(t, m, "README.md holds a curl example against http://127.0.0.1:8000/api/v1/refactor")

	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "bin"), 0o755))
	require.NoError(t, os.Symlink(bins.pharoSim(t), filepath.Join(dir, "bin", "pharo-sim")))
	require.NoError(t, testenv.CopyTree("examples/sample-image", filepath.Join(dir, "examples", "sample-image")))
	require.NoError(t, testenv.CopyTree("examples/sample-image", filepath.Join(dir, ".data", "image")))
	s := start(t, dir) // no key, no model settings: the scripted demo model
	resp, body, err := s.post("/api/v1/refactor", m[1])
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode, "%v", body)
	assert.Equal(t, "released", body["outcome"])
	assert.Contains(t, s.Log(), "NO MODEL KEY SET", "a loud log line says the demo model is in use")
}

// TestNoModelConfigured: no key and no demo model file (a binary run
// outside the repository) — the service starts, says so, and refuses runs.
func TestNoModelConfigured(t *testing.T) {
	dir, env := imageEnv(t, testenv.Script{})
	var kept []string
	for _, e := range env {
		if !strings.HasPrefix(e, "MODEL_PROVIDER=") && !strings.HasPrefix(e, "SCRIPTED_MODEL_FILE=") {
			kept = append(kept, e)
		}
	}
	s := launch(t, dir, kept...)
	require.NoError(t, s.WaitFor("/health", 30*time.Second))
	assert.Equal(t, http.StatusServiceUnavailable, s.get("/ready"))
	resp, body, err := s.post("/api/v1/refactor", `{"class_name": "Calculator", "method_name": "sum:with:"}`)
	require.NoError(t, err)
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.Equal(t, "model_not_configured", body["code"])
	assert.Contains(t, s.Log(), "NO MODEL CONFIGURED")
}

// TestCrashDuringVerifyIsPutBack kills refactord (SIGKILL) during a verify
// run — right after its write-ahead row, after the compile, and after its
// tests passed, before it put the original back — and restarts it: the
// image holds the original, byte for byte, and the row says how it got
// there.
func TestCrashDuringVerifyIsPutBack(t *testing.T) {
	cases := []struct {
		point, status string
	}{
		{"after_write_ahead", "not_released"},
		{"after_compile", "rolled_back"},
		{"before_put_back", "rolled_back"},
	}
	for _, tc := range cases {
		t.Run(tc.point, func(t *testing.T) {
			dir, env := imageEnv(t, approvesSum(answerTheSum, 0))
			file := filepath.Join(dir, "image", "src", "Sample-Shop", "Calculator.class.st")
			original := mustRead(t, file)
			crashDuring(t, dir, env, tc.point, `{"class_name": "Calculator", "method_name": "sum:with:", "verify": true}`)
			if tc.point != "after_write_ahead" {
				assert.NotEqual(t, string(original), string(mustRead(t, file)), "the candidate was in the image when the process died")
			}

			again := start(t, dir, env...)
			assert.Equal(t, string(original), string(mustRead(t, file)), "the image holds the original after the restart")
			run := again.newestRun()
			assert.Equal(t, true, run["verify"])
			assert.Equal(t, tc.status, run["status"], "notes: %v", run["notes"])
			assert.Contains(t, run["notes"], "verify run", "reconciliation says what it found")
		})
	}
}

// crashDuring starts refactord set to SIGKILL itself at the checkpoint
// point and posts body: the process dies before it answers.
func crashDuring(t *testing.T, dir string, env []string, point, body string) {
	t.Helper()
	s := start(t, dir, append(env, "REFACTORD_CRASH_AT="+point)...)
	_, _, err := s.post("/api/v1/refactor", body)
	require.Error(t, err, "the process died before answering")
	exitErr := s.WaitExit(t, 20*time.Second)
	var ee *exec.ExitError
	require.True(t, errors.As(exitErr, &ee), "%v", exitErr)
	assert.Equal(t, syscall.SIGKILL, ee.Sys().(syscall.WaitStatus).Signal())
}

// newestRun is the newest row of the audit trail, the only one there.
func (s *service) newestRun() map[string]any {
	s.t.Helper()
	runs := s.page("?limit=1")
	require.Len(s.t, runs, 1)
	return runs[0]
}
