package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/internal/testenv"
	"github.com/pharo-refactor/refactord/smalltalk/tonel"
	"github.com/pharo-refactor/refactord/wire"
)

// apiKey is the key the well-behaved clients send (API_KEYS is set, so
// that the unauthenticated and the oversized-without-a-key cases are real).
const apiKey = "soak-key-0123456789"

// shutdownGrace is refactord's SHUTDOWN_GRACE in the soak.
const shutdownGrace = 5 * time.Second

// instance is one refactord process of the soak.
type instance struct {
	svc    *testenv.Service
	simPID int
}

// startService starts refactord on the soak's image and data and waits
// until it is ready; it always listens on the same address, so a client
// holding the URL reaches the next instance.
func (s *soak) startService() (*instance, error) {
	logFile, err := os.OpenFile(filepath.Join(s.tmp, "refactord.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer logFile.Close() // the child holds its own copy
	env := append(testenv.ServiceEnv(s.simBin, s.image, filepath.Join(s.tmp, "data")),
		"PHARO_MCP_ARGS=serve --dir '"+s.image+"' --fault-crash-tests-on '"+crashText+"'",
		"LISTEN_ADDR="+s.addr,
		"API_KEYS="+apiKey,
		"MODEL_PROVIDER=gemini", "GEMINI_API_KEY=soak", "GOOGLE_GEMINI_BASE_URL="+s.modelURL,
		"MODEL_MAX_RETRIES=1", "MODEL_TIMEOUT=15s", "MAX_VALIDATION_ITERATIONS=2",
		"PIPELINE_TIMEOUT=90s", "PHARO_MCP_TIMEOUT=15s",
		"READ_HEADER_TIMEOUT=2s", "READ_BODY_TIMEOUT=2s", "SHUTDOWN_GRACE="+shutdownGrace.String(),
		"LOG_LEVEL=warn",
	)
	svc, err := testenv.StartService(testenv.ServiceConfig{Binary: s.refactordBin, Dir: s.tmp, Env: env, Log: logFile})
	if err != nil {
		return nil, err
	}
	svc.URL = s.url() // LISTEN_ADDR above wins over the launcher's own
	in := &instance{svc: svc}
	if err := svc.WaitFor("/ready", 60*time.Second); err != nil {
		in.kill()
		return nil, fmt.Errorf("%w\n%s", err, s.logTail())
	}
	h, err := svc.Health()
	if err != nil {
		in.kill()
		return nil, err
	}
	in.simPID = h.MCP.PID
	return in, nil
}

// kill ends refactord and its process group, and pharo-sim (which has a
// group of its own) if it outlived its parent.
func (in *instance) kill() {
	in.svc.Stop(0)
	in.reapSim()
}

// reapSim kills a pharo-sim left behind by a killed refactord (it exits
// on its own at stdin's EOF; this is for one that does not).
func (in *instance) reapSim() {
	if in.simPID <= 0 {
		return
	}
	for i := 0; i < 40 && syscall.Kill(in.simPID, 0) == nil; i++ {
		time.Sleep(50 * time.Millisecond)
	}
	if syscall.Kill(in.simPID, 0) == nil {
		_ = syscall.Kill(in.simPID, syscall.SIGKILL)
	}
}

// waitExit waits for refactord to exit (killing its group if it takes
// longer than limit) and reaps its pharo-sim.
func (in *instance) waitExit(limit time.Duration) {
	select {
	case <-in.svc.Exited():
	case <-time.After(limit):
		in.svc.Stop(0)
	}
	in.reapSim()
}

func (s *soak) logTail() string {
	data, err := os.ReadFile(filepath.Join(s.tmp, "refactord.log"))
	if err != nil {
		return ""
	}
	if len(data) > 4000 {
		data = data[len(data)-4000:]
	}
	return "refactord log (tail):\n" + string(data)
}

// get sends an authorized GET to the current refactord.
func (s *soak) get(ctx context.Context, path string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url()+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+apiKey)
	resp, err := s.control.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s answered %d: %s", path, resp.StatusCode, clip(string(data), 300))
	}
	return json.Unmarshal(data, out)
}

// waitIdle waits until no run holds the slot (runs outlive their
// requests), for at most limit.
func (s *soak) waitIdle(ctx context.Context, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		var h wire.HealthBody
		err := s.get(ctx, "/health", &h)
		if err == nil && !h.Busy {
			return nil
		}
		if time.Now().After(deadline) {
			if err == nil {
				err = errors.New("still busy")
			}
			return fmt.Errorf("waiting for the slot to be free: %w", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// rows reads the whole audit trail.
func (s *soak) rows(ctx context.Context) ([]Row, error) {
	var out []Row
	cursor := ""
	for {
		var page refactor.Page
		q := url.Values{"limit": {"100"}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		if err := s.get(ctx, "/api/v1/refactorings?"+q.Encode(), &page); err != nil {
			return nil, err
		}
		for _, r := range page.Runs {
			out = append(out, rowOf(r))
		}
		if page.NextCursor == "" {
			return out, nil
		}
		cursor = page.NextCursor
	}
}

func rowOf(r refactor.Run) Row {
	var verdict struct {
		Verdict string `json:"verdict"`
	}
	_ = json.Unmarshal(r.Verdict, &verdict)
	return Row{
		ID: r.ID, Kind: string(r.Kind), Method: methodKey(r.ClassName, r.IsClassMethod, r.Selector),
		Status: string(r.Status), Verdict: verdict.Verdict, FinalSource: normalize(r.FinalSource),
		CreatedAt: r.CreatedAt, Unsettled: r.Status.Unsettled(),
	}
}

// imageSources reads what the image holds for the soak's methods, from
// the Tonel tree pharo-sim serves (its only state).
func imageSources(dir string) (map[string]string, error) {
	tree, err := tonel.ReadTree(dir)
	if tree == nil {
		return nil, fmt.Errorf("reading the image: %w", err)
	}
	if err != nil {
		return nil, fmt.Errorf("the image has a file that does not parse: %w", err)
	}
	want := map[string]bool{}
	for _, t := range targets() {
		want[t.key()] = true
	}
	out := map[string]string{}
	for _, p := range tree.Packages {
		for _, f := range p.Files {
			for _, m := range f.Methods {
				key := methodKey(strings.TrimSuffix(m.Class, " class"), m.Side == tonel.ClassSide, m.Selector)
				if want[key] {
					out[key] = normalize(m.Source)
				}
			}
		}
	}
	for k := range want {
		if _, ok := out[k]; !ok {
			return nil, fmt.Errorf("the image has no %s", k)
		}
	}
	return out, nil
}

// checkpoint reads the rows and the image at a quiet moment (the caller
// holds every client off) and records them.
func (s *soak) checkpoint(ctx context.Context, step int64, why string, restartedAt time.Time) error {
	if err := s.waitIdle(ctx, 2*time.Minute); err != nil {
		return err
	}
	rows, err := s.rows(ctx)
	if err != nil {
		return err
	}
	img, err := imageSources(s.image)
	if err != nil {
		return err
	}
	s.rec.checkpoint(Checkpoint{Step: step, Why: why, At: time.Now(), Rows: rows, Image: img, Initial: s.initial, RestartedAt: restartedAt})
	return nil
}

// resources reads refactord's goroutines (its own metric), open files and
// RSS (from /proc).
func (s *soak) resources(ctx context.Context, pid int) (Resources, error) {
	var r Resources
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url()+"/metrics", nil)
	if err != nil {
		return r, err
	}
	resp, err := s.control.Do(req)
	if err != nil {
		return r, err
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return r, err
	}
	g, err := testenv.Metric(data, "go_goroutines")
	if err != nil {
		return r, err
	}
	r.Goroutines = int(g)
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return r, err
	}
	r.OpenFiles = len(fds)
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return r, err
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		var kb float64
		if _, err := fmt.Sscanf(line, "VmRSS: %f kB", &kb); err == nil {
			r.RSSMiB = float64(int(kb/1024*10)) / 10
		}
	}
	return r, nil
}
