// Command bench measures the service's speed (make bench) and writes
// bench/results.json plus a table on stdout. Figures are reported, never
// asserted; it fails only when a figure cannot be measured.
//
// It builds refactord, pharo-sim and its helpers (the load generator,
// bench/loadgen, and the floors, bench/floor) from this checkout into a
// temporary directory, starts them as real subprocesses on copies of the
// sample image, talks to them over loopback only, and removes every process
// and file it made when it ends, also on failure or Ctrl-C. Every figure of
// the service stands beside its floor, measured in the same rounds
// (compare.go).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/pharo-refactor/refactord/bench/internal/measure"
)

// figure is one measured number with its unit for the table.
type figure struct {
	key   string
	value any
	unit  string
	note  string
}

// breakdown is a figure's value made of named parts: an object in
// results.json, one table line per part.
type breakdown struct {
	values map[string]int
	rows   []figure
}

func (b breakdown) MarshalJSON() ([]byte, error) { return json.Marshal(b.values) }

// suite is one group of figures; it returns an error when it cannot measure.
type suite struct {
	name string
	run  func(env) ([]figure, error)
}

// env is what suites share.
type env struct {
	ctx       context.Context
	root      string // the repository root
	tmp       string // scratch space, removed at the end
	refactord string // binaries built from root into tmp
	pharoSim  string
	floor     string // the floors' servers (bench/floor)
	loadgen   string // the load generator (bench/loadgen)
}

func main() {
	out := flag.String("out", "bench/results.json", "where to write the results")
	root := flag.String("root", ".", "the repository root")
	bin := flag.String("bin", "", "use refactord and pharo-sim from this directory instead of building them")
	only := flag.String("suites", "", "comma-separated suites to run (parser, mcp, service, model_calls, image, class_library, pool, tests); their figures replace those in the results file, the others stay")
	flag.Parse()
	if err := run(*root, *out, *bin, *only); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func suites() []suite {
	return []suite{
		{"parser", parserSuite},
		{"mcp", mcpSuite},
		{"service", serviceSuite},
		{"model_calls", modelCallsSuite},
		{"image", imageSuite},
		{"class_library", classLibrarySuite},
		{"pool", poolSuite},
		{"tests", testsSuite},
	}
}

func run(root, out, bin, only string) error {
	began := time.Now()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "refactord-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	pkgs := []string{"./bench/floor", "./bench/loadgen"}
	if bin == "" {
		pkgs = append(pkgs, "./cmd/refactord", "./cmd/pharo-sim")
	}
	start := time.Now()
	bins, err := buildBinaries(ctx, root, filepath.Join(tmp, "bin"), pkgs...)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "bench: built %s in %s\n", strings.Join(pkgs, ", "), time.Since(start).Round(time.Millisecond))
	e := env{ctx: ctx, root: root, tmp: tmp, refactord: bins["refactord"], pharoSim: bins["pharo-sim"], floor: bins["floor"], loadgen: bins["loadgen"]}
	if bin != "" {
		if e.refactord, err = filepath.Abs(filepath.Join(bin, "refactord")); err != nil {
			return err
		}
		if e.pharoSim, err = filepath.Abs(filepath.Join(bin, "pharo-sim")); err != nil {
			return err
		}
	}

	if !filepath.IsAbs(out) {
		out = filepath.Join(root, out)
	}
	results := map[string]any{}
	if only != "" {
		if data, err := os.ReadFile(out); err == nil {
			_ = json.Unmarshal(data, &results)
		}
	}
	results["machine"], results["date"] = machine(), time.Now().UTC().Format(time.RFC3339)
	var all []figure
	for _, s := range suites() {
		if only != "" && !slices.Contains(strings.Split(only, ","), s.name) {
			continue
		}
		start := time.Now()
		figs, err := s.run(e)
		if err == nil {
			err = ctx.Err()
		}
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		fmt.Fprintf(os.Stderr, "bench: %s done in %s\n", s.name, time.Since(start).Round(time.Millisecond))
		all = append(all, figs...)
	}
	for _, f := range all {
		results[f.key] = f.value
	}
	elapsed := time.Since(began)
	results["bench_seconds"] = measure.Round(elapsed.Seconds(), 1)
	printTable(all, results["machine"].(map[string]any), elapsed)
	data, err := json.MarshalIndent(results, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(out, append(data, '\n'), 0o644)
}

// machine describes where the figures come from.
func machine() map[string]any {
	m := map[string]any{"goos": runtime.GOOS, "goarch": runtime.GOARCH, "cpus": runtime.NumCPU(), "go": runtime.Version()}
	if data, err := os.ReadFile("/proc/loadavg"); err == nil {
		// Other work on the machine shows in every figure: say how busy
		// it was when the bench began.
		if f := strings.Fields(string(data)); len(f) > 0 {
			m["loadavg_1m_at_start"] = f[0]
		}
	}
	if v := procField("/proc/cpuinfo", "model name"); v != "" {
		m["cpu"] = v
	}
	if v := procField("/proc/meminfo", "MemTotal"); v != "" {
		var kb int64
		if _, err := fmt.Sscanf(v, "%d kB", &kb); err == nil {
			m["mem_total_mib"] = kb / 1024
		}
	}
	return m
}

// procField is the value of the first "key: value" line of a /proc file.
func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func printTable(figs []figure, m map[string]any, elapsed time.Duration) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var desc []string
	for _, k := range keys {
		desc = append(desc, fmt.Sprintf("%s=%v", k, m[k]))
	}
	fmt.Printf("machine: %s\n\n", strings.Join(desc, " "))
	fmt.Println(comparisonHeader())
	for _, f := range figs {
		if c, ok := f.value.(*comparison); ok {
			fmt.Println(c.row(f.key))
		}
	}
	fmt.Printf("\n%-28s %12s  %-6s %s\n", "figure", "value", "unit", "note")
	for _, f := range figs {
		switch v := f.value.(type) {
		case *comparison:
			continue
		case breakdown:
			fmt.Printf("%-28s %12s  %-6s %s\n", f.key, "", f.unit, f.note)
			for _, r := range v.rows {
				fmt.Printf("%-28s %12v  %-6s %s\n", r.key, format(r.value), r.unit, r.note)
			}
		default:
			fmt.Printf("%-28s %12v  %-6s %s\n", f.key, format(f.value), f.unit, f.note)
		}
	}
	fmt.Printf("\nPython original: model agent turns read off its architecture text (reviewer, writer, validator,\n" +
		"refiner — which also runs when approved, to call exit_validation_loop — and release); lower bounds,\n" +
		"since every ADK tool call adds model requests the text does not count. n/a: it has no parse check,\n" +
		"so the count depends on what its validator model says about code that does not parse.\n")
	fmt.Printf("\nbench took %s; the details of each comparison (spreads over its rounds, the decomposition of the\n"+
		"pipeline overhead, CPU use under load) are in the results file\n", elapsed.Round(100*time.Millisecond))
}

func format(v any) any {
	if x, ok := v.(float64); ok {
		return fmt.Sprintf("%.2f", x)
	}
	return v
}
