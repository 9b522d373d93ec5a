package interp

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/pharosim/classlib"
	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// TestPublicSuite measures a public package's tests on the interpreter:
// PHARO_SIM_SUITE names Tonel package folders (separated by ':'), whose
// TestCase classes run; the share passing and each test that does not
// pass, with why, are printed. Unset, there is nothing to measure.
func TestPublicSuite(t *testing.T) {
	dirs := os.Getenv("PHARO_SIM_SUITE")
	if dirs == "" {
		t.Skip("PHARO_SIM_SUITE is not set")
	}
	var files []*tonel.File
	for _, dir := range strings.Split(dirs, ":") {
		paths, err := filepath.Glob(filepath.Join(dir, "*.st"))
		require.NoError(t, err)
		for _, p := range paths {
			if filepath.Base(p) == "package.st" {
				continue
			}
			f, err := tonel.ReadFile(p)
			require.NoError(t, err, p)
			files = append(files, f)
		}
	}
	start := time.Now()
	program := ReadProgram(files)
	program.PharoDeclares = classlib.Default().Declares // as pharo-sim's runs do
	program.PharoHasGlobal = classlib.Default().HasGlobal
	in, err := New(program, Limits{Steps: StepGuard, Deadline: time.Now().Add(time.Minute)})
	require.NoError(t, err)
	for _, failure := range in.InitializeFailures() {
		fmt.Printf("load: %s\n", failure)
	}
	var classes []string
	for name, c := range in.classes {
		for k := c.super; k != nil; k = k.super {
			if k.name == "TestCase" && c.meta != nil {
				classes = append(classes, name)
				break
			}
		}
	}
	sort.Strings(classes)
	ran, passed := 0, 0
	for _, name := range classes {
		t0 := time.Now()
		// each class gets a call's time limit, as run_class_test gives it
		in.deadline = t0.Add(30 * time.Second)
		out, err := in.RunTestClass(name, StepGuard)
		if d := time.Since(t0); d > 200*time.Millisecond {
			fmt.Printf("slow: %s %s\n", name, d)
		}
		require.NoError(t, err)
		for _, o := range out {
			if os.Getenv("PHARO_SIM_STEPS") != "" {
				fmt.Printf("steps %s>>#%s %d\n", o.Class, o.Selector, o.Steps)
			}
			if o.Outcome == Skipped {
				continue
			}
			ran++
			if (o.Outcome == Passed) != o.ExpectedFailure {
				passed++
				continue
			}
			fmt.Printf("%s>>#%s %v: %s\n", o.Class, o.Selector, o.Outcome, o.Detail)
		}
	}
	fmt.Printf("%d of %d tests pass (%.1f %%) in %s\n", passed, ran, 100*float64(passed)/float64(max(ran, 1)), time.Since(start))
}
