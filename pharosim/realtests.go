package pharosim

import (
	"context"
	"sort"

	"github.com/pharo-refactor/refactord/pharosim/interp"
	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// stepsPerTest bounds one test's run on the interpreter: far above what a
// unit test takes (NeoJSON's slowest takes well under a million), low
// enough that an endless loop errors in about a second.
const stepsPerTest = 20_000_000

// program is the image's code as the interpreter takes it: every class
// and trait the tree defines, and every method, extensions included. The
// caller holds the lock.
func (img *Image) program() *interp.Program {
	p := &interp.Program{}
	names := make([]string, 0, len(img.classes))
	for n := range img.classes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		c := img.classes[n]
		if c.def != nil && (c.def.kind == tonel.KindClass || c.def.kind == tonel.KindTrait) {
			p.Classes = append(p.Classes, c.def.def)
		}
		for _, f := range c.files() {
			for _, id := range f.methods {
				m := img.methods.rec(id)
				p.Methods = append(p.Methods, interp.MethodSource{Class: n, ClassSide: m.side == tonel.ClassSide, Source: m.source()})
			}
		}
	}
	return p
}

// runReal runs the tests of the named classes on the interpreter, adding
// their outcomes to r. A test that errors outside SUnit's reach (a limit
// ran out, the kernel lacks what it touched) is logged with the reason.
// The caller holds the lock.
func (img *Image) runReal(ctx context.Context, classes []string, r *TestResult) error {
	if len(classes) == 0 {
		return nil
	}
	limits := interp.Limits{Steps: stepsPerTest}
	if d, ok := ctx.Deadline(); ok {
		limits.Deadline = d
	}
	in, err := interp.New(img.program(), limits)
	if err != nil {
		return err
	}
	for _, failure := range in.InitializeFailures() {
		img.log.Warn("a class-side initialize failed while the image's classes loaded", "failure", failure)
	}
	for _, name := range classes {
		outcomes, err := in.RunTestClass(name, stepsPerTest)
		if err != nil {
			return err
		}
		for _, t := range outcomes {
			// a parametrized test prints its case after the selector, as
			// SUnit does: each case is a test of its own in the report
			printed := img.printTest(t.Class, t.Selector) + t.Parameters
			if t.Outside {
				img.log.Warn("a test errored outside SUnit", "test", printed, "reason", t.Detail)
			}
			r.add(printed, realOutcome(t.Outcome), t.ExpectedFailure)
		}
	}
	return ctx.Err()
}

func realOutcome(o interp.Outcome) outcome {
	switch o {
	case interp.Failed:
		return failed
	case interp.Errored:
		return errored
	case interp.Skipped:
		return skipped
	}
	return passed
}

// RunTestsFor runs the tests of the named classes: by the oracle for the
// classes it declares, on the interpreter for the others, in the order
// given. Classes that run for real one after another share one
// interpreter, as a package's test classes share one image: building it
// is most of what a small class costs.
func (img *Image) RunTestsFor(ctx context.Context, o *Oracle, classes []string) (TestResult, error) {
	img.mu.Lock()
	defer img.mu.Unlock()
	img.refresh()
	var r TestResult
	var batch []string
	for _, name := range classes {
		if _, declared := o.Class(name); !declared {
			batch = append(batch, name)
			continue
		}
		if err := img.runReal(ctx, batch, &r); err != nil {
			return TestResult{}, err
		}
		batch = nil
		part := o.Run([]string{name}, img.sourceLookup, img.printTest)
		r.merge(part)
	}
	if err := img.runReal(ctx, batch, &r); err != nil {
		return TestResult{}, err
	}
	return r, nil
}

func (r *TestResult) merge(o TestResult) {
	r.Passed = append(r.Passed, o.Passed...)
	r.Failures = append(r.Failures, o.Failures...)
	r.Errors = append(r.Errors, o.Errors...)
	r.Skipped = append(r.Skipped, o.Skipped...)
	r.ExpectedFailures = append(r.ExpectedFailures, o.ExpectedFailures...)
	r.PassedUnexpected = append(r.PassedUnexpected, o.PassedUnexpected...)
}
