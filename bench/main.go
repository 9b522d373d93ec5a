// Command bench measures the service's speed (make bench) and writes
// bench/results.json plus a table on stdout. Figures are reported, never
// asserted; it fails only when a figure cannot be measured.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"
)

// figure is one measured number with its unit for the table.
type figure struct {
	key   string
	value any
	unit  string
	note  string
}

// suite is one group of figures; it returns an error when it cannot measure.
type suite struct {
	name string
	run  func(env) ([]figure, error)
}

// env is what suites share: the repository root and the built binaries.
type env struct {
	root string
	bin  string
}

func main() {
	out := flag.String("out", "bench/results.json", "where to write the results")
	root := flag.String("root", ".", "the repository root")
	flag.Parse()
	if err := run(env{root: *root, bin: filepath.Join(*root, "bin")}, *out); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func suites() []suite {
	return []suite{
		{"parser", parserSuite},
	}
}

func run(e env, out string) error {
	results := map[string]any{
		"machine": map[string]any{"goos": runtime.GOOS, "goarch": runtime.GOARCH, "cpus": runtime.NumCPU(), "go": runtime.Version()},
		"date":    time.Now().UTC().Format(time.RFC3339),
	}
	var all []figure
	for _, s := range suites() {
		start := time.Now()
		figs, err := s.run(e)
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		fmt.Fprintf(os.Stderr, "bench: %s done in %s\n", s.name, time.Since(start).Round(time.Millisecond))
		all = append(all, figs...)
	}
	for _, f := range all {
		results[f.key] = f.value
	}
	printTable(all)
	data, err := json.MarshalIndent(results, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(out, append(data, '\n'), 0o644)
}

func printTable(figs []figure) {
	fmt.Printf("%-28s %14s  %-6s %s\n", "figure", "value", "unit", "note")
	for _, f := range figs {
		fmt.Printf("%-28s %14v  %-6s %s\n", f.key, format(f.value), f.unit, f.note)
	}
}

func format(v any) any {
	if x, ok := v.(float64); ok {
		return fmt.Sprintf("%.2f", x)
	}
	return v
}
