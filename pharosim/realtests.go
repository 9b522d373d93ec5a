package pharosim

import (
	"context"
	"regexp"
	"sort"
	"strings"

	"github.com/pharo-refactor/refactord/pharosim/interp"
	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// stepsPerTest guards one test's run on the interpreter against an
// endless loop run without a deadline: a test's budget is its call's
// time limit, as on Pharo, and no legitimate test reaches the guard.
const stepsPerTest = interp.StepGuard

// programFor answers what an interpreter needs to run the named test
// classes: the classes and traits of the tree they reach — their
// superclasses, traits and pools, and every class or trait a method of an
// included class names, transitively — with all their methods, extensions
// included, and every method the tree adds to a class it does not define
// (an extension of the kernel's). Building the whole tree would parse and
// initialize every class of an image the size of Pharo's on each run.
func (img *Image) programFor(roots []string) *interp.Program {
	included := map[string]bool{}
	queue := append([]string{}, roots...)
	for name := range img.classes {
		if img.classes[name].def == nil {
			queue = append(queue, name) // extensions of a kernel class
		}
	}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		c, ok := img.classes[name]
		if !ok || included[name] {
			continue
		}
		included[name] = true
		if c.def != nil {
			d := c.def.def
			queue = append(queue, d.Superclass)
			queue = append(queue, capitalizedNames.FindAllString(d.Traits+" "+d.ClassTraits, -1)...)
			queue = append(queue, d.Pools...)
		}
		for _, f := range c.files() {
			for _, id := range f.methods {
				queue = append(queue, capitalizedNames.FindAllString(img.methods.rec(id).source(), -1)...)
			}
		}
	}
	names := make([]string, 0, len(included))
	for n := range included {
		names = append(names, n)
	}
	sort.Strings(names)
	// a variable nothing declares is Pharo's UndeclaredVariableRead unless
	// Pharo's version of a kernel class declares it (the index is read
	// only when such a read happens)
	p := &interp.Program{PharoDeclares: img.lib.Declares, PharoHasGlobal: img.lib.HasGlobal}
	for _, n := range names {
		c := img.classes[n]
		if c.def != nil && (c.def.kind == tonel.KindClass || c.def.kind == tonel.KindTrait) {
			d := c.def.def
			d.Package = c.def.pkg.name // the package folder, as Pharo's Tonel reader takes it
			p.Classes = append(p.Classes, d)
		}
		for _, f := range c.files() {
			for _, id := range f.methods {
				m := img.methods.rec(id)
				p.Methods = append(p.Methods, interp.MethodSource{Class: n, ClassSide: m.side == tonel.ClassSide, Source: m.source(), Package: f.pkg.name, Category: img.cats.name(m.category)})
			}
		}
	}
	return p
}

// capitalizedNames finds what may name a class in a method's source: a
// capitalized word (also in a symbol, a comment or a string, which at
// worst includes a class the tests do not need).
var capitalizedNames = regexp.MustCompile(`\b[A-Z][A-Za-z0-9_]*\b`)

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
	in, err := interp.New(img.programFor(classes), limits)
	if err != nil {
		return err
	}
	for _, failure := range in.InitializeFailures() {
		img.log.Warn("a class did not load, or its class-side initialize failed, while the image's classes loaded", "failure", failure)
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

// TestsReach reports whether a method of what the tests of classes reach
// (see programFor) holds text in its source.
func (img *Image) TestsReach(classes []string, text string) bool {
	img.mu.Lock()
	defer img.mu.Unlock()
	img.refresh()
	for _, m := range img.programFor(classes).Methods {
		if strings.Contains(m.Source, text) {
			return true
		}
	}
	return false
}
