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
	// Parameters is a ParametrizedTestCase's case as SUnit prints it after
	// the selector, "(#x->1 #y->2)"; empty for other tests.
	Parameters string
	Defining   string // the class that defines the test method
	Outcome    Outcome
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

// StepGuard is the step budget a test gets when it runs as Pharo's do,
// whose budget is time: a test ends by its call's deadline (Limits), and
// this many steps — sends and loop turns — only guard against an endless
// loop run without a deadline. Pharo makes a few hundred million sends a
// second, so no test it finishes in a few seconds comes near ten billion;
// the interpreter, at about fifty million steps a second, reaches the
// call's deadline (30 s) long before.
const StepGuard int64 = 10_000_000_000

// RunTestClass runs the tests of a TestCase class as `suite run` does: an
// abstract class (isAbstract) runs none of its own — its concrete
// subclasses run them; a class inherits its superclasses' tests when
// SUnit's shouldInheritSelectors says so. Each test gets
// stepsPerTest steps (StepGuard as the real runs give them) and ends by
// the interpreter's deadline.
func (in *Interp) RunTestClass(name string, stepsPerTest int64) ([]TestOutcome, error) {
	c, ok := in.classes[name]
	if !ok {
		return nil, fmt.Errorf("no class %s", name)
	}
	var out []TestOutcome
	if c.unloaded != "" {
		// each of its tests errors naming why: no test of it can run
		var selectors []string
		for s := range c.methods {
			if strings.HasPrefix(s, "test") && numArgs(s) == 0 {
				selectors = append(selectors, s)
			}
		}
		sort.Strings(selectors)
		for _, sel := range selectors {
			out = append(out, TestOutcome{Class: name, Selector: sel, Defining: name, Outcome: Errored,
				Detail: "the class " + name + " did not load: " + c.unloaded, Outside: true})
		}
		return out, nil
	}
	var classErr error
	in.guard(stepsPerTest, func() {
		if truthy(in.Send(c, "isAbstract")) {
			return
		}
		out = in.runClass(c, stepsPerTest)
	}, func(detail string) { classErr = fmt.Errorf("building the suite of %s: %s", name, detail) })
	if classErr == nil {
		in.resetResources(c, stepsPerTest)
	}
	return out, classErr
}

// resetResources tears down the test resources the class's tests set up,
// as a suite does when its run ends. Their outcomes are already counted: a
// tearDown that fails changes none.
func (in *Interp) resetResources(c *Class, steps int64) {
	resource, ok := in.classes["TestResource"]
	if !ok {
		return
	}
	in.guard(steps, func() {
		in.Send(resource, "resetResources:", in.Send(c, "resources"))
	}, func(string) {})
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

// testCase is one test of a class's run: its selector, and for a
// ParametrizedTestCase the instance its suite built (with its parameters).
type testCase struct {
	selector string
	instance Object // nil: built with selector: when it runs
}

// testCases answers the tests a class runs. A ParametrizedTestCase runs
// each test once per case of its matrix, as its buildSuite gives them;
// every other class runs one instance per test selector.
func (in *Interp) testCases(c *Class, steps int64) []testCase {
	var cases []testCase
	if p, ok := in.classes["ParametrizedTestCase"]; ok && c.inheritsFrom(p) {
		built := true
		in.guard(steps, func() {
			suite := in.Send(c, "buildSuite")
			tests, _ := in.Send(suite, "tests").(*Instance)
			if tests == nil {
				built = false
				return
			}
			for _, tc := range in.elements(tests) {
				cases = append(cases, testCase{selector: symOf(in.Send(tc, "selector")), instance: tc})
			}
		}, func(string) { built = false })
		if built {
			return cases
		}
		cases = nil
	}
	for _, sel := range in.testSelectors(c) {
		cases = append(cases, testCase{selector: sel})
	}
	return cases
}

func (c *Class) includesBehavior(k *Class) bool { return c == k || c.inheritsFrom(k) }

func (c *Class) inheritsFrom(k *Class) bool {
	for s := c.super; s != nil; s = s.super {
		if s == k {
			return true
		}
	}
	return false
}

// elements answers an ordered collection's or an array's elements.
func (in *Interp) elements(coll *Instance) []Object {
	arr, _ := in.Send(coll, "asArray").(*Instance)
	if arr == nil {
		return nil
	}
	return arr.indexed
}

func (in *Interp) runClass(c *Class, steps int64) []TestOutcome {
	var out []TestOutcome
	for _, tcase := range in.testCases(c, steps) {
		sel := tcase.selector
		t := TestOutcome{Class: c.name, Selector: sel, Defining: c.name}
		if m := c.lookup(sel); m != nil {
			t.Defining = m.class.name
		}
		in.guard(steps, func() {
			in.resetExecutionEnvironment()
			tc := tcase.instance
			if tc == nil {
				tc = in.Send(c, "selector:", Symbol(sel))
			} else {
				t.Parameters = str(in.Send(tc, "parametersString"))
			}
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

// resetExecutionEnvironment makes the process run in no execution
// environment, as each test of a run starts in Pharo: one a test left
// current when a limit ended it (its ensure: blocks do not run then) is
// not the next test's.
func (in *Interp) resetExecutionEnvironment() {
	if c, ok := in.classes["CurrentExecutionEnvironment"]; ok {
		in.Send(c, "resetSoleInstance")
	}
}

// guard runs f with a fresh step budget and memory budget; what ends it
// outside the image's exceptions (a limit, something the kernel lacks, an
// unhandled exception) is reported to failed.
func (in *Interp) guard(steps int64, f func(), failed func(detail string)) {
	// the processes first: a generator whose block waits in a process is
	// ended with its process
	in.endProcesses()
	in.endCoroutines()
	defer in.endCoroutines() // after what ended f is reported
	defer in.endProcesses()
	in.budget = steps
	in.depth, in.depthLimit = 0, maxDepth
	in.active = nil
	in.inUnwind = 0
	in.timeouts = in.timeouts[:0]
	in.active = nil
	in.aborting = false
	// no handler runs between two guarded computations: what their
	// exceptions knew of their handling is over
	clear(in.states)
	// what the last computation left on the interpreter's stacks and in
	// its free frames is garbage: nothing may keep it alive
	clear(in.handlers[:cap(in.handlers)])
	in.handlers = in.handlers[:0]
	in.handlerLimit = 0
	clear(in.argStack[:cap(in.argStack)])
	in.argStack = in.argStack[:0]
	clear(in.free[:cap(in.free)])
	in.free = in.free[:0]
	in.returning = nil
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		in.depth, in.active = 0, nil
		in.aborting = false
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
			// A Go runtime error, a bug of the interpreter (a primitive
			// checks what it is given and fails instead, see prims.go):
			// it ends the test, not pharo-sim.
			failed(fmt.Sprintf("pharo-sim's interpreter failed: %v", r))
		}
	}()
	in.startMemory()
	f()
}

func (in *Interp) describe(exc *Instance) string {
	depth, active := in.depth, in.active
	defer func() {
		if recover() != nil {
			in.depth, in.active = depth, active
		}
	}()
	if text := str(in.Send(exc, "messageText")); text != "" {
		return exc.class.name + ": " + text
	}
	return exc.class.name
}
