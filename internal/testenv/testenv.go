// Package testenv holds the helpers the tests share (and the benchmarks
// reuse): the repository's binaries built once per test process when a
// test first needs one (Binaries), copies of
// the sample image, refactord as a subprocess (Service), fake model servers
// that tell the roles apart by agents.RoleHeader (FakeGemini, FakeOpenAI),
// and the scripted answers of each role (Reply, Script).
package testenv

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// Root is the repository root: the nearest directory holding go.mod, from
// the working directory up (go test runs in the package's directory).
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}

// build compiles ./cmd/NAME into dir and returns the binary's path.
func build(dir, name string) (string, error) {
	root, err := Root()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, name)
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/"+name)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/%s: %w\n%s", name, err, out)
	}
	return bin, nil
}

// CopyTree copies the directory src (relative to the repository root when
// not absolute) to dst.
func CopyTree(src, dst string) error {
	if !filepath.IsAbs(src) {
		root, err := Root()
		if err != nil {
			return err
		}
		src = filepath.Join(root, src)
	}
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}

// Build compiles ./cmd/NAME for each name into dir (a program that is not
// a test, such as the soak, builds what it drives) and returns the paths.
func Build(dir string, names ...string) (map[string]string, error) {
	paths := map[string]string{}
	for _, name := range names {
		bin, err := build(dir, name)
		if err != nil {
			return nil, err
		}
		paths[name] = bin
	}
	return paths, nil
}

// RecordingTools is an image-tools double for model-provider tests: it
// answers from a map and records the tool names that reached it.
type RecordingTools struct {
	mu      sync.Mutex
	Answers map[string]string
	seen    []string
}

// CallTool records name and answers Answers[name].
func (f *RecordingTools) CallTool(_ context.Context, name string, _ map[string]any) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seen = append(f.seen, name)
	return f.Answers[name], nil
}

// Seen lists the tool names called so far, in order.
func (f *RecordingTools) Seen() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.seen...)
}

// Binaries builds the repository's commands the first time a test of the
// process asks for one, each once, into one temporary directory that Run
// removes. The zero value is ready to use.
type Binaries struct {
	mu    sync.Mutex
	dir   string
	paths map[string]string
}

// Path answers the path of ./cmd/NAME, building it on first use. The
// fast tier (-short) starts no subprocess, so there it skips t instead.
func (b *Binaries) Path(t testing.TB, name string) string {
	t.Helper()
	if testing.Short() {
		t.Skipf("-short: runs the %s binary as a subprocess", name)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if path, ok := b.paths[name]; ok {
		return path
	}
	if b.dir == "" {
		dir, err := os.MkdirTemp("", "pharo-refactor-bin")
		if err != nil {
			t.Fatal(err)
		}
		b.dir = dir
	}
	path, err := build(b.dir, name)
	if err != nil {
		t.Fatal(err)
	}
	if b.paths == nil {
		b.paths = map[string]string{}
	}
	b.paths[name] = path
	return path
}

// Run is a whole TestMain: it runs the tests, removes what Path built and
// answers the exit code.
func (b *Binaries) Run(m *testing.M) int {
	code := m.Run()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dir != "" {
		if err := os.RemoveAll(b.dir); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
	return code
}

// SkipShort skips t in the fast tier (-short), saying why: what the test
// needs that the fast tier does without.
func SkipShort(t testing.TB, why string) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: " + why)
	}
}

// SimTree copies what pharo-sim's tests load into a fresh directory and
// returns it: the sample image's src/ with pharosim's Sim-Extras fixture,
// and the image's test oracle.
func SimTree(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	for _, c := range []struct{ from, to string }{
		{"examples/sample-image/src", "src"},
		{"pharosim/testdata/extras", "src"},
		{"examples/sample-image/test-oracle.json", "test-oracle.json"},
	} {
		if err := CopyTree(c.from, filepath.Join(root, c.to)); err != nil {
			t.Fatal(err)
		}
	}
	return root
}
