package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"pharo-refactor/internal/testenv"
)

// bins are the binaries TestMain builds: refactord, pharo-sim, refactorctl.
type bins struct{ refactord, pharoSim, refactorctl string }

// built is written once by TestMain before any test runs and only read
// afterwards.
var built bins

func TestMain(m *testing.M) {
	testenv.RunWithBinaries(m, func(p map[string]string) {
		built = bins{refactord: p["refactord"], pharoSim: p["pharo-sim"], refactorctl: p["refactorctl"]}
	}, "refactord", "pharo-sim", "refactorctl")
}

// script is a scripted model file (agents/scripted/doc.go): subject →
// role → answers.
type script map[string]map[string][]any

func answerJSON(v any) map[string]any { return map[string]any{"json": v} }

func delayed(ms int, a map[string]any) map[string]any {
	a["delay_ms"] = ms
	return a
}

func review(summary string) map[string]any {
	return answerJSON(map[string]any{"severity": "MEDIUM", "summary": summary, "issues": []any{
		map[string]any{"principle": "Intention-revealing names", "problem": "short names", "suggestion": "rename"}}})
}

func code(c string) map[string]any { return answerJSON(map[string]any{"code": c, "notes": "n"}) }

func approved() map[string]any {
	return answerJSON(map[string]any{"verdict": "APPROVED", "feedback": "Good.", "issues": []any{}})
}

func needsWork(feedback string) map[string]any {
	return answerJSON(map[string]any{"verdict": "NEEDS_IMPROVEMENT", "feedback": feedback, "issues": []any{}})
}

// Valid refactorings of the sample image's methods: they parse, keep the
// selector, declare every name and keep the methods' tests green.
const (
	newSum       = "sum: aNumber with: anotherNumber\n\t\"Answer the sum of aNumber and anotherNumber\"\n\n\t^ aNumber + anotherNumber"
	newAverage   = "average: aCollection\n\t\"Answer the arithmetic mean of aCollection, or 0 when it is empty\"\n\n\taCollection isEmpty ifTrue: [ ^ 0 ].\n\t^ (aCollection inject: 0 into: [ :sum :each | sum + each ]) / aCollection size"
	newItemCount = "itemCount\n\t\"Answer how many units the cart holds\"\n\n\t^ items inject: 0 into: [ :sum :each | sum + each value ]"
	newPercent   = "percent: x of: y\n\t\"Answer x as a percentage of y, or 0 when y is zero\"\n\n\ty = 0 ifTrue: [ ^ 0 ].\n\t^ x * 100 / y"
)

// approvedInOneRound scripts a method approved in round 1.
func approvedInOneRound(newCode string) map[string][]any {
	return map[string][]any{"reviewer": {review("Could be clearer.")}, "writer": {code(newCode)}, "validator": {approved()}}
}

// service is refactord running as a subprocess on a copy of the sample image.
type service struct {
	url   string
	image string // the Tonel tree pharo-sim serves
	cmd   *exec.Cmd
	log   *lockedBuffer
}

type serviceOpts struct {
	repeat bool     // the script's lists start over when used up
	env    []string // extra environment
}

func startService(t *testing.T, s script, o serviceOpts) *service {
	t.Helper()
	dir := t.TempDir()
	image := filepath.Join(dir, "image")
	require.NoError(t, testenv.CopyTree("examples/sample-image", image))
	modelFile := filepath.Join(dir, "model.json")
	data, err := json.Marshal(map[string]any{"repeat": o.repeat, "answers": s})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(modelFile, data, 0o644))

	addr := freeAddr(t)
	svc := &service{url: "http://" + addr, image: image, log: &lockedBuffer{}}
	svc.cmd = exec.Command(built.refactord)
	svc.cmd.Dir = dir
	svc.cmd.Env = append(os.Environ(),
		"LISTEN_ADDR="+addr, "DATA_DIR="+filepath.Join(dir, "data"),
		"PHARO_MCP_COMMAND="+built.pharoSim, "PHARO_MCP_ARGS=serve --dir "+image,
		"MODEL_PROVIDER=scripted", "SCRIPTED_MODEL_FILE="+modelFile,
		"MODEL_MAX_RETRIES=0", "SHUTDOWN_GRACE=1s", "LOG_LEVEL=warn")
	svc.cmd.Env = append(svc.cmd.Env, o.env...)
	svc.cmd.Stdout, svc.cmd.Stderr = svc.log, svc.log
	require.NoError(t, svc.cmd.Start())
	exited := make(chan struct{})
	go func() { _ = svc.cmd.Wait(); close(exited) }()
	t.Cleanup(func() { svc.stop(exited) })
	svc.waitReady(t, exited)
	return svc
}

func (s *service) stop(exited chan struct{}) {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-exited
	}
}

// kill ends the service at once, as a crash would.
func (s *service) kill() { _ = s.cmd.Process.Kill() }

func (s *service) waitReady(t *testing.T, exited chan struct{}) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			t.Fatalf("refactord exited before it was ready:\n%s", s.log.String())
		default:
		}
		if resp, err := http.Get(s.url + "/ready"); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("refactord was not ready within 30s:\n%s", s.log.String())
}

// busy reads /health's busy flag.
func (s *service) busy(t *testing.T) bool {
	t.Helper()
	resp, err := http.Get(s.url + "/health")
	require.NoError(t, err)
	defer resp.Body.Close()
	var h struct {
		Busy bool `json:"busy"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&h))
	return h.Busy
}

// classFile is a class's Tonel file as pharo-sim keeps it.
func (s *service) classFile(t *testing.T, class string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(s.image, "src", "Sample-Shop", class+".class.st"))
	require.NoError(t, err)
	return string(data)
}

// post sends a JSON request without the stream.
func (s *service) post(t *testing.T, path, body string) (int, []byte) {
	t.Helper()
	resp, err := http.Post(s.url+path, "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, data
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}

// lockedBuffer is written by a run on another goroutine while the test
// reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// outcome is one in-process invocation's result.
type outcome struct {
	code   int
	stdout string
	stderr string
}

// ctl runs refactorctl in-process against svc (REFACTORD_URL), with the
// real clock.
func ctl(t *testing.T, svc *service, stdin string, args ...string) outcome {
	t.Helper()
	var stdout, stderr lockedBuffer
	env := []string{}
	if svc != nil {
		env = append(env, "REFACTORD_URL="+svc.url)
	}
	code := run(args, env, strings.NewReader(stdin), &stdout, &stderr)
	return outcome{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// ctlWith runs an invocation with changed deps and a context, on the
// caller's goroutine.
func ctlWith(ctx context.Context, svc *service, change func(*deps), stdout, stderr io.Writer, args ...string) int {
	c := newCLI([]string{"REFACTORD_URL=" + svc.url}, strings.NewReader(""), stdout, stderr)
	if change != nil {
		change(&c.deps)
	}
	return c.main(ctx, args)
}
