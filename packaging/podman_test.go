package packaging_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/internal/testenv"
)

// podman runs the podman command line the way it works on hosts without
// systemd or with a restrictive sandbox: the runc runtime when it is
// installed (crun, podman's default, needs setrlimit calls such sandboxes
// refuse), cgroupfs, file events, no default ulimits — unless the caller's
// environment names its own CONTAINERS_CONF.
type podman struct {
	bin     string
	runtime []string
	env     []string
}

func (p *podman) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, p.bin, append(append([]string{}, p.runtime...), args...)...)
	cmd.Env = append(os.Environ(), p.env...)
	return cmd
}

// run runs podman and answers its standard output, failing the test with
// both streams on an error.
func (p *podman) run(t *testing.T, timeout time.Duration, args ...string) string {
	t.Helper()
	out, err := p.try(timeout, args...)
	require.NoError(t, err, "podman %s", strings.Join(args, " "))
	return out
}

func (p *podman) try(timeout time.Duration, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := p.command(ctx, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("%w\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
	}
	return strings.TrimSpace(stdout.String()), nil
}

// containersConf makes podman work without systemd and under a sandbox
// that refuses raising rlimits.
const containersConf = `[containers]
default_ulimits = []
[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
`

// fixture is the image this package's tests run, built once by `make image`.
type fixture struct {
	once  sync.Once
	err   error
	pm    *podman
	image string
	dir   string // for the podman configuration
}

var built fixture

func TestMain(m *testing.M) {
	code := m.Run()
	if built.image != "" && built.err == nil {
		if _, err := built.pm.try(2*time.Minute, "rmi", "-f", built.image); err != nil {
			fmt.Fprintf(os.Stderr, "removing the test image %s: %v\n", built.image, err)
		}
	}
	if built.dir != "" {
		_ = os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// requireImage answers podman and the image built from this tree, or
// skips the test: under -short, and loudly without podman — except in CI
// (CI=true), where a missing podman fails the test.
func requireImage(t *testing.T) (*podman, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs a container image: not under -short")
	}
	bin, err := exec.LookPath("podman")
	if err != nil {
		const msg = "podman is not installed (apt-get install podman runc): the container image cannot be built or run"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip("*** " + msg + " ***")
	}
	built.once.Do(func() { built.err = built.build(bin) })
	require.NoError(t, built.err, "make image")
	return built.pm, built.image
}

func (f *fixture) build(bin string) error {
	dir, err := os.MkdirTemp("", "refactord-podman-")
	if err != nil {
		return err
	}
	f.dir = dir
	f.pm = &podman{bin: bin}
	if os.Getenv("CONTAINERS_CONF") == "" {
		conf := filepath.Join(dir, "containers.conf")
		if err := os.WriteFile(conf, []byte(containersConf), 0o644); err != nil {
			return err
		}
		f.pm.env = append(f.pm.env, "CONTAINERS_CONF="+conf)
	}
	if _, err := exec.LookPath("runc"); err == nil {
		f.pm.runtime = []string{"--runtime", "runc"}
	}
	root, err := testenv.Root()
	if err != nil {
		return err
	}
	f.image = fmt.Sprintf("localhost/refactord-test:%d-%d", os.Getpid(), time.Now().UnixNano())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	// No intermediate images: removing the test's image leaves nothing.
	cmd := exec.CommandContext(ctx, "make", "image", "IMAGE="+f.image, "IMAGE_BUILD_FLAGS=--layers=false",
		"PODMAN="+strings.Join(append([]string{bin}, f.pm.runtime...), " "))
	cmd.Dir = root
	cmd.Env = append(os.Environ(), f.pm.env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		f.image = ""
		return fmt.Errorf("make image: %w\n%s", err, out)
	}
	return nil
}

// container is one started with `podman run -d`, removed at the test's
// end; its log is printed when the test failed.
type container struct {
	id string
	pm *podman
}

func startContainer(t *testing.T, pm *podman, args ...string) *container {
	t.Helper()
	id := pm.run(t, 2*time.Minute, append([]string{"run", "-d"}, args...)...)
	c := &container{id: id, pm: pm}
	t.Cleanup(func() {
		if t.Failed() {
			logs, err := pm.try(time.Minute, "logs", id)
			t.Logf("container %.12s:\n%s%v", id, logs, err)
		}
		if _, err := pm.try(2*time.Minute, "rm", "-f", "-v", id); err != nil {
			t.Errorf("removing container %.12s: %v", id, err)
		}
	})
	return c
}

// waitFor polls url until it answers 200, or fails the test.
func waitFor(t *testing.T, url string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		resp, err := http.Get(url)
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not answer 200 within %s (last: %v)", url, within, err)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// freePort is a loopback port nobody listens on right now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
