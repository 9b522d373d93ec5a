package interp

import (
	"fmt"
	"sort"
	"strings"
)

// Outcome is how one test ended.
type Outcome int

// The outcomes of a test, as SUnit tells them.
const (
	Passed Outcome = iota
	Failed
	Errored
	Skipped
)

// TestOutcome is one test's run.
type TestOutcome struct {
	Class    string // the test class run
	Selector string
	Defining string // the class that defines the test method
	Outcome  Outcome
	// ExpectedFailure: the test is declared to fail (<expectedFailure>
	// or expectedFailures).
	ExpectedFailure bool
	// Detail says why a test did not pass: the failure's or error's
	// description, or why it ended outside SUnit's reach (a limit ran
	// out, the kernel lacks what it touched).
	Detail string
	// Outside: the test ended outside SUnit's reach.
	Outside bool
	// Steps is how much of its step budget the test used.
	Steps int64
}

// RunTestClass runs the tests of a TestCase class as `suite run` does: an
// abstract class (isAbstract) runs none of its own — its concrete
// subclasses run them; a class inherits its superclasses' tests when
// SUnit's shouldInheritSelectors says so. Each test gets
// stepsPerTest steps.
func (in *Interp) RunTestClass(name string, stepsPerTest int64) ([]TestOutcome, error) {
	c, ok := in.classes[name]
	if !ok {
		return nil, fmt.Errorf("no class %s", name)
	}
	var out []TestOutcome
	var classErr error
	in.guard(stepsPerTest, func() {
		if truthy(in.Send(c, "isAbstract")) {
			return
		}
		out = in.runClass(c, stepsPerTest)
	}, func(detail string) { classErr = fmt.Errorf("building the suite of %s: %s", name, detail) })
	return out, classErr
}

// testSelectors answers allTestSelectors, sorted.
func (in *Interp) testSelectors(c *Class) []string {
	set := map[string]bool{}
	own := func(k *Class) {
		for s := range k.methods {
			if strings.HasPrefix(s, "test") && numArgs(s) == 0 {
				set[s] = true
			}
		}
	}
	own(c)
	if truthy(in.Send(c, "shouldInheritSelectors")) {
		root := in.classes["TestCase"]
		for k := c.super; k != nil && k != root; k = k.super {
			own(k)
		}
	}
	out := make([]string, 0, len(set))
	for s := range set {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

func (in *Interp) runClass(c *Class, steps int64) []TestOutcome {
	var out []TestOutcome
	for _, sel := range in.testSelectors(c) {
		t := TestOutcome{Class: c.name, Selector: sel, Defining: c.name}
		if m := c.lookup(sel); m != nil {
			t.Defining = m.class.name
		}
		in.guard(steps, func() {
			tc := in.Send(c, "selector:", Symbol(sel))
			t.ExpectedFailure = truthy(in.Send(tc, "isExpectedFailure"))
			res, _ := in.Send(tc, "runCaseOutcome").(*Instance)
			if res == nil || len(res.indexed) != 2 {
				t.Outcome, t.Detail = Errored, "the test runner answered no outcome"
				return
			}
			if res.indexed[1] != nil {
				t.Detail = str(res.indexed[1])
			}
			switch res.indexed[0] {
			case Symbol("passed"):
				t.Outcome = Passed
			case Symbol("failed"):
				t.Outcome = Failed
			case Symbol("skipped"):
				t.Outcome = Skipped
			default:
				t.Outcome = Errored
			}
		}, func(detail string) {
			t.Outcome, t.Detail, t.Outside = Errored, detail, true
		})
		t.Steps = steps - max(in.budget, 0)
		out = append(out, t)
	}
	return out
}

// guard runs f with a fresh step budget; what ends it outside the image's
// exceptions (a limit, something the kernel lacks, an unhandled
// exception) is reported to failed.
func (in *Interp) guard(steps int64, f func(), failed func(detail string)) {
	in.budget = steps
	in.depth = 0
	in.handlers = in.handlers[:0]
	in.handlerLimit = 0
	in.argStack = in.argStack[:0]
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		switch v := r.(type) {
		case *abort:
			failed(v.reason)
		case *Missing:
			failed(v.Error())
		case *unhandled:
			failed("unhandled " + in.describe(v.exc))
		case *nonLocalReturn:
			failed("a block returned from a method that had already returned")
		case *unwind, *retrying, *resuming:
			failed("an exception was handled outside its handler")
		default:
			// A primitive met an object it does not expect: the test's
			// code is untrusted, so this ends the test, not pharo-sim.
			failed(fmt.Sprintf("pharo-sim's interpreter failed: %v", r))
		}
	}()
	f()
}

func (in *Interp) describe(exc *Instance) string {
	defer func() { recover() }()
	return exc.class.name + ": " + str(in.Send(exc, "messageText"))
}
