// Package testenv helps integration tests: it builds the repository's
// binaries once per test process and copies the sample image, so that tests
// run pharo-sim and refactord as real subprocesses.
package testenv

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Root is the repository root (the directory of go.mod).
func Root() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("not inside the module")
	}
	return filepath.Dir(gomod), nil
}

// Build compiles ./cmd/NAME into dir and returns the binary's path.
func Build(dir, name string) (string, error) {
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

// Binaries builds ./cmd/NAME for each name into one fresh temporary
// directory, for a TestMain; cleanup removes it.
func Binaries(names ...string) (paths map[string]string, cleanup func(), err error) {
	dir, err := os.MkdirTemp("", "pharo-refactor-bin")
	if err != nil {
		return nil, nil, err
	}
	cleanup = func() { _ = os.RemoveAll(dir) }
	paths = map[string]string{}
	for _, name := range names {
		if paths[name], err = Build(dir, name); err != nil {
			cleanup()
			return nil, nil, err
		}
	}
	return paths, cleanup, nil
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

// RunWithBinaries is a whole TestMain: it builds the named binaries once,
// hands their paths to use, runs the tests, removes the binaries and exits.
func RunWithBinaries(m *testing.M, use func(paths map[string]string), names ...string) {
	paths, cleanup, err := Binaries(names...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	use(paths)
	code := m.Run()
	cleanup()
	os.Exit(code)
}
