package main

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/internal/testenv"
	"github.com/pharo-refactor/refactord/pharosim"
	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// killTarget is a method the kill test keeps recompiling.
type killTarget struct {
	class, file, selector, protocol string
	old, new                        string // sources as stored in the file
}

const (
	killRounds         = 4
	compilesPerWriter  = 150
	maxKillDelayMillis = 150
)

// Kill -9 the simulator while several clients compile without pause: every
// file left behind must parse and hold either the old or the new version of
// each method, never a torn mix.
func TestKillDuringCompilesLeavesWholeFiles(t *testing.T) {
	for round := 1; round <= killRounds; round++ {
		root := testenv.SimTree(t)
		targets := killTargets(t, root)
		s := startSim(t, nil, "--dir", root)

		firstWrite := make(chan struct{})
		var once sync.Once
		var wg sync.WaitGroup
		answered := make([]int, len(targets))
		for i := range targets {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				answered[i] = compileUntilGone(s, targets[i], func() { once.Do(func() { close(firstWrite) }) })
			}(i)
		}
		select {
		case <-firstWrite:
		case <-time.After(30 * time.Second):
			t.Fatalf("round %d: no compile was ever answered; stderr: %s", round, s.stderr.String())
		}
		time.Sleep(time.Duration(rand.IntN(maxKillDelayMillis)) * time.Millisecond)
		require.NoError(t, s.process().Kill(), "round %d: kill -9", round)
		wg.Wait()
		t.Logf("round %d: compiles answered before the kill: %v", round, answered)

		checkWholeFiles(t, root, targets)
		img, err := pharosim.LoadImage(root, nil)
		require.NoError(t, err, "round %d: the tree loads again", round)
		assert.Empty(t, img.Skipped(), "round %d: every file reads", round)
		require.NoError(t, img.Close())
	}
}

// killTargets picks one method in each of three files, with a second
// version of it.
func killTargets(t *testing.T, root string) []killTarget {
	t.Helper()
	targets := []killTarget{
		{class: "Calculator", file: "Calculator.class.st", selector: "sum:with:", protocol: "calculating"},
		{class: "ShoppingCart", file: "ShoppingCart.class.st", selector: "total", protocol: "pricing"},
		{class: "Invoice", file: "Invoice.class.st", selector: "text", protocol: "printing"},
	}
	for i := range targets {
		f, err := tonel.ReadFile(filepath.Join(root, "src", "Sample-Shop", targets[i].file))
		require.NoError(t, err)
		m := f.Method(tonel.InstanceSide, targets[i].selector)
		require.NotNil(t, m, targets[i].selector)
		targets[i].old = m.Source
		targets[i].new = m.Source + "\n\t\"second version: " + strings.Repeat("padding ", 200) + "\""
	}
	return targets
}

// compileUntilGone alternates the two versions of the target until the
// process is gone or the budget is spent.
func compileUntilGone(s *sim, tg killTarget, answered func()) int {
	for i := 0; i < compilesPerWriter; i++ {
		src := tg.new
		if i%2 == 1 {
			src = tg.old
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		req := mcp.CallToolRequest{}
		req.Params.Name = "eval"
		req.Params.Arguments = map[string]any{"code": installExpr(tg.class, false, src, tg.protocol)}
		_, err := s.client.CallTool(ctx, req)
		cancel()
		if err != nil {
			return i
		}
		answered()
	}
	return compilesPerWriter
}

// checkWholeFiles reads every Tonel file of the tree: each must parse, and
// each target method must be one of its two versions.
func checkWholeFiles(t *testing.T, root string, targets []killTarget) {
	t.Helper()
	dir := filepath.Join(root, "src", "Sample-Shop")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".st") {
			continue
		}
		_, err := tonel.ReadFile(filepath.Join(dir, e.Name()))
		assert.NoError(t, err, "%s parses", e.Name())
	}
	for _, tg := range targets {
		f, err := tonel.ReadFile(filepath.Join(dir, tg.file))
		require.NoError(t, err)
		m := f.Method(tonel.InstanceSide, tg.selector)
		require.NotNil(t, m, "%s>>%s is still there", tg.class, tg.selector)
		assert.True(t, m.Source == tg.old || m.Source == tg.new, "%s>>%s is the old or the new version, got %q",
			tg.class, tg.selector, m.Source)
		assert.Len(t, f.Methods, methodCount(t, tg.file), "%s keeps all its methods", tg.file)
	}
}

// methodCount counts the methods of a sample-image file as shipped.
func methodCount(t *testing.T, file string) int {
	t.Helper()
	f, err := tonel.ReadFile(filepath.Join("..", "..", "examples", "sample-image", "src", "Sample-Shop", file))
	require.NoError(t, err)
	return len(f.Methods)
}
