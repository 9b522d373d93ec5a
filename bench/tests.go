package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/pharo-refactor/refactord/bench/internal/measure"
	"github.com/pharo-refactor/refactord/pharosim"
)

// testRunRounds is how many times each test class runs.
const testRunRounds = 7

// realTestClasses are the test classes pharo-sim runs on its interpreter:
// the sample image's (those its oracle no longer declares) and the tree
// written for the interpreter's tests.
var realTestClasses = []struct{ tree, class string }{
	{"examples/sample-image", "CalculatorTest"},
	{"examples/sample-image", "ShoppingCartTest"},
	{"examples/sample-image", "CustomerTest"},
	{"examples/sample-image", "OrderProcessorTest"},
	{"testdata/real-tests", "LedgerTest"},
}

// testsSuite times run_class_test's work for real test classes, in
// process: building the interpreter from the image and running the class
// (what one call costs, without the MCP hop). Goal: under a second each.
func testsSuite(e env) ([]figure, error) {
	var figs []figure
	for _, tc := range realTestClasses {
		img, err := pharosim.LoadImage(filepath.Join(e.root, tc.tree), nil)
		if err != nil {
			return nil, err
		}
		none, err := pharosim.ParseOracle([]byte(`{}`))
		if err != nil {
			_ = img.Close()
			return nil, err
		}
		var samples measure.Samples
		var summary string
		for range testRunRounds {
			start := time.Now()
			r, err := img.RunTestsFor(context.Background(), none, []string{tc.class})
			if err != nil {
				_ = img.Close()
				return nil, err
			}
			samples = append(samples, time.Since(start))
			summary = r.Summary()
		}
		_ = img.Close()
		s, _ := measure.Summarize(samples)
		figs = append(figs, figure{"tests_real_" + tc.class + "_ms", measure.Millis(s.P50), "ms",
			fmt.Sprintf("run_class_test's work on the interpreter (%s), median of %d, max %.1f ms; %s; goal < 1000", tc.tree, s.N, measure.Millis(s.Max), summary)})
	}
	fig, err := comparisonBesideTests(e)
	if err != nil {
		return nil, err
	}
	figs = append(figs, fig)
	if dir := os.Getenv("BENCH_NEOJSON"); dir != "" {
		fig, err := neoJSONPackage(dir)
		if err != nil {
			return nil, err
		}
		figs = append(figs, fig)
	}
	return figs, nil
}

// neoJSONPackage times run_package_test's work for NeoJSON's test package
// (Neo-JSON-Tests) on the interpreter, when BENCH_NEOJSON names a checkout
// of github.com/svenvc/NeoJSON; the tree is not part of this repository.
func neoJSONPackage(dir string) (figure, error) {
	const pkg = "Neo-JSON-Tests"
	img, err := pharosim.LoadImage(filepath.Join(dir, "repository"), nil)
	if err != nil {
		return figure{}, fmt.Errorf("BENCH_NEOJSON: %w", err)
	}
	defer func() { _ = img.Close() }()
	names, err := img.PackageClasses(pkg)
	if err != nil {
		return figure{}, fmt.Errorf("BENCH_NEOJSON: %w", err)
	}
	var classes []string
	for _, n := range names {
		if img.IsTestCase(n) {
			classes = append(classes, n)
		}
	}
	none, err := pharosim.ParseOracle([]byte(`{}`))
	if err != nil {
		return figure{}, err
	}
	var samples measure.Samples
	var summary string
	for range 3 {
		start := time.Now()
		r, err := img.RunTestsFor(context.Background(), none, classes)
		if err != nil {
			return figure{}, err
		}
		samples = append(samples, time.Since(start))
		summary = r.Summary()
	}
	s, _ := measure.Summarize(samples)
	return figure{"tests_real_NeoJSON_package_ms", measure.Millis(s.P50), "ms",
		fmt.Sprintf("run_package_test's work on the interpreter (%s, %d test classes), median of %d, max %.1f ms; %s; goal < 1000", pkg, len(classes), s.N, measure.Millis(s.Max), summary)}, nil
}

// averageRewrite is a faithful rewrite of the sample image's
// Calculator>>average:, which the comparison finds the same.
const averageRewrite = "average: aCollection\n\t| sum count |\n\tsum := 0.\n\tcount := 0.\n" +
	"\taCollection do: [ :each | sum := sum + each. count := count + 1 ].\n\tcount = 0 ifTrue: [ ^ 0 ].\n\t^ sum / count"

// comparisonBesideTests times compare_method's work for a faithful
// rewrite of Calculator>>average: (inputs recorded from CalculatorTest's
// run, and varied), in process, beside CalculatorTest's own run in the same
// rounds. A release sits between two test runs of the class; the goal is a
// comparison that costs no more than those two.
func comparisonBesideTests(e env) (figure, error) {
	img, err := pharosim.LoadImage(filepath.Join(e.root, "examples/sample-image"), nil)
	if err != nil {
		return figure{}, err
	}
	defer func() { _ = img.Close() }()
	none, err := pharosim.ParseOracle([]byte(`{}`))
	if err != nil {
		return figure{}, err
	}
	req := pharosim.CompareRequest{Class: "Calculator", Selector: "average:", Candidate: averageRewrite, TestClasses: []string{"CalculatorTest"}}
	var compares, tests measure.Samples
	var outcome string
	compare := func() error {
		start := time.Now()
		v, err := img.CompareMethod(context.Background(), req)
		if err != nil {
			return err
		}
		compares = append(compares, time.Since(start))
		if v.Outcome != "same" {
			return fmt.Errorf("the faithful rewrite of average: compared %s", v.Outcome)
		}
		outcome = fmt.Sprintf("%s on %d inputs (%d recorded, %d generated)", v.Outcome, v.Compared, v.Recorded, v.Generated)
		return nil
	}
	test := func() error {
		start := time.Now()
		_, err := img.RunTestsFor(context.Background(), none, []string{"CalculatorTest"})
		tests = append(tests, time.Since(start))
		return err
	}
	// A first round of each warms the process (kernel parsed, code paged
	// in) and is not counted; then the two alternate which goes first.
	if err := errors.Join(compare(), test()); err != nil {
		return figure{}, err
	}
	compares, tests = compares[:0], tests[:0]
	for r := range 3 * testRunRounds {
		steps := []func() error{compare, test}
		if r%2 == 1 {
			steps[0], steps[1] = steps[1], steps[0]
		}
		for _, step := range steps {
			if err := step(); err != nil {
				return figure{}, err
			}
		}
	}
	c, _ := measure.Summarize(compares)
	t, _ := measure.Summarize(tests)
	return figure{"compare_sample_average_ms", measure.Millis(c.P50), "ms",
		fmt.Sprintf("compare_method's work for a faithful rewrite of Calculator>>average: (%s), median of %d; CalculatorTest's run in the same rounds %.1f ms, so %.2f test runs; goal ≤ 2 (the two test runs it sits beside)",
			outcome, c.N, measure.Millis(t.P50), float64(c.P50)/float64(t.P50))}, nil
}
