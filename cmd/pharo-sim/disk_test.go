package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/internal/testenv"
)

// The simulator keeps the image's promise: a file edited on disk between two
// tool calls is an edit of the image, and a compile of another method of
// the same class keeps it.
func TestADiskEditBetweenToolCallsSurvivesACompile(t *testing.T) {
	root := testenv.SimTree(t)
	path := filepath.Join(root, "src", "Sample-Shop", "Calculator.class.st")
	s := startSim(t, nil, "--dir", root)
	var src string
	s.call(t, "get_method_source", map[string]any{"class_name": "Calculator", "method_name": "divide:by:"}).result(t, &src)
	require.NotContains(t, src, "edited")

	text, err := os.ReadFile(path)
	require.NoError(t, err)
	edited := strings.Replace(string(text), "\t^ a / b\n", "\t^ a / b \"edited by a person\"\n", 1)
	require.NotEqual(t, string(text), edited)
	require.NoError(t, os.WriteFile(path, []byte(edited), 0o644))

	s.eval(t, installExpr("Calculator", false, "sum: a with: b\r\r\t^ b + a", "calculating")).result(t, new(string))

	onDisk, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(onDisk), "\"edited by a person\"", "the compile kept the edit")
	assert.Contains(t, string(onDisk), "Calculator >> sum: a with: b [\n\n\t^ b + a\n]")
	s.call(t, "get_method_source", map[string]any{"class_name": "Calculator", "method_name": "divide:by:"}).result(t, &src)
	assert.Contains(t, src, "\"edited by a person\"")
	var refs []map[string]string
	s.call(t, "search_references", map[string]any{"method_name_or_symbol": "isZero"}).result(t, &refs)
	assert.Contains(t, refs, map[string]string{"class": "Calculator", "method": "divide:by:", "package": "Sample-Shop"})
}

// A tree with files that cannot be read: serve starts on the rest, and says
// so on stderr, in the handshake and in get_settings.
func TestServeStartsOnTheRestOfABrokenTree(t *testing.T) {
	root := testenv.SimTree(t)
	broken := filepath.Join(root, "src", "Sample-Shop", "Broken.class.st")
	require.NoError(t, os.WriteFile(broken, []byte("Class { #name : 'Broken' }\n\nBroken >> a [\n\t^ 'never closed\n]\n"), 0o644))
	s := startSim(t, nil, "--dir", root)

	var settings struct {
		Sim struct {
			Skipped []struct {
				File   string `json:"file"`
				Line   int    `json:"line"`
				Reason string `json:"reason"`
			} `json:"skipped_files"`
		} `json:"pharo_sim"`
	}
	s.call(t, "get_settings", nil).result(t, &settings)
	require.Len(t, settings.Sim.Skipped, 1)
	assert.Equal(t, broken, settings.Sim.Skipped[0].File)
	assert.Equal(t, 4, settings.Sim.Skipped[0].Line)
	assert.Contains(t, settings.Sim.Skipped[0].Reason, "unterminated string")

	var packages []string
	s.call(t, "list_packages", nil).result(t, &packages)
	assert.Equal(t, []string{"Sample-Shop", "Sim-Extras"}, packages)
	assert.Contains(t, s.stderr.String(), "skipping a Tonel file that cannot be read")
	assert.Contains(t, s.stderr.String(), "Broken.class.st")
	assert.Contains(t, s.stderr.String(), "skipped_files=1")
}
