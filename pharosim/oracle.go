package pharosim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pharo-refactor/refactord/smalltalk"
)

// Oracle decides the outcome of tests the simulator cannot run. It maps a
// test class name to what is declared about it. See the package doc for the
// file format.
type Oracle struct {
	classes map[string]*OracleClass
}

// OracleClass declares one TestCase subclass: its test selectors, in the
// order they are reported, and the rules that make some of them fail.
type OracleClass struct {
	Comment          string   `json:"_comment,omitempty"`
	Tests            []string `json:"tests"`
	Rules            []Rule   `json:"rules,omitempty"`
	Skipped          []string `json:"skipped,omitempty"`
	ExpectedFailures []string `json:"expected_failures,omitempty"`
	// Duration is how long running the class takes (a Go duration such
	// as "10s"; none by default): a run longer than the per-call limit
	// answers the real server's "Connection error: timed out".
	Duration string `json:"duration,omitempty"`

	duration time.Duration
}

// Rule makes one test fail or error while a condition holds on the current
// source of the image. When both apply, the error wins: a test that errors
// never reaches its assertion. HangsWhen makes the test never finish (an
// endless loop): the class's run lasts until the call's time limit cuts
// it, and the server answers "Connection error: timed out".
type Rule struct {
	Comment    string     `json:"_comment,omitempty"`
	Test       string     `json:"test"`
	FailsWhen  *Condition `json:"fails_when,omitempty"`
	ErrorsWhen *Condition `json:"errors_when,omitempty"`
	HangsWhen  *Condition `json:"hangs_when,omitempty"`
}

// Condition holds when every predicate it sets holds on the method's current
// source (line endings normalized to LF). A method that is absent from the
// image makes the test error, as a MessageNotUnderstood would.
type Condition struct {
	Method            string `json:"method"` // "Class>>selector" or "Class class>>selector"
	SourceContains    string `json:"source_contains,omitempty"`
	SourceNotContains string `json:"source_not_contains,omitempty"`
	SourceMatches     string `json:"source_matches,omitempty"`     // Go regexp (RE2)
	SourceNotMatches  string `json:"source_not_matches,omitempty"` // Go regexp (RE2)

	ref        MethodKey
	matches    *regexp.Regexp
	notMatches *regexp.Regexp
}

// MethodKey names a method of the image.
type MethodKey struct {
	Class     string
	ClassSide bool
	Selector  string
}

// String prints the key the way Pharo prints a CompiledMethod: `Foo>>#bar`,
// `Foo class>>#bar`.
func (k MethodKey) String() string {
	side := ""
	if k.ClassSide {
		side = " class"
	}
	return k.Class + side + ">>#" + k.Selector
}

// ParseMethodKey reads "Class>>selector", "Class class>>selector" (a `#`
// before the selector is allowed).
func ParseMethodKey(s string) (MethodKey, error) {
	cls, sel, ok := strings.Cut(strings.TrimSpace(s), ">>")
	if !ok {
		return MethodKey{}, fmt.Errorf("method %q: want Class>>selector", s)
	}
	cls, sel = strings.TrimSpace(cls), strings.TrimPrefix(strings.TrimSpace(sel), "#")
	key := MethodKey{Class: cls, Selector: sel}
	if name, found := strings.CutSuffix(cls, " class"); found {
		key.Class, key.ClassSide = strings.TrimSpace(name), true
	}
	if !smalltalk.IsClassName(key.Class) || !smalltalk.IsSelector(key.Selector) {
		return MethodKey{}, fmt.Errorf("method %q: want Class>>selector", s)
	}
	return key, nil
}

// LoadOracle reads an oracle file. A missing file is not an error when
// optional is true: it yields an empty oracle.
func LoadOracle(path string, optional bool) (*Oracle, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if optional && errors.Is(err, os.ErrNotExist) {
			return &Oracle{classes: map[string]*OracleClass{}}, nil
		}
		return nil, fmt.Errorf("reading the test oracle: %w", err)
	}
	o, err := ParseOracle(data)
	if err != nil {
		return nil, fmt.Errorf("test oracle %s: %w", path, err)
	}
	return o, nil
}

// ParseOracle parses the oracle JSON. Top-level keys starting with `_` are
// comments; unknown fields elsewhere are errors, so that a typo in a rule
// cannot silently make a test pass.
func ParseOracle(data []byte) (*Oracle, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	o := &Oracle{classes: map[string]*OracleClass{}}
	for name, raw := range top {
		if strings.HasPrefix(name, "_") {
			continue
		}
		c, err := parseOracleClass(name, raw)
		if err != nil {
			return nil, err
		}
		o.classes[name] = c
	}
	return o, nil
}

func parseOracleClass(name string, raw json.RawMessage) (*OracleClass, error) {
	if !smalltalk.IsClassName(name) {
		return nil, fmt.Errorf("%q is not a class name", name)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var c OracleClass
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := c.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &c, nil
}

func (c *OracleClass) validate() error {
	if c.Duration != "" {
		d, err := time.ParseDuration(c.Duration)
		if err != nil || d < 0 {
			return fmt.Errorf("duration %q: want a Go duration such as 10s", c.Duration)
		}
		c.duration = d
	}
	tests := map[string]bool{}
	for _, t := range c.Tests {
		if !smalltalk.IsSelector(t) || strings.ContainsAny(t, ":") {
			return fmt.Errorf("test %q is not a unary selector", t)
		}
		tests[t] = true
	}
	for _, list := range [][]string{c.Skipped, c.ExpectedFailures} {
		for _, t := range list {
			if !tests[t] {
				return fmt.Errorf("%q is not one of the declared tests", t)
			}
		}
	}
	for i := range c.Rules {
		if err := c.Rules[i].validate(tests); err != nil {
			return fmt.Errorf("rule %d: %w", i+1, err)
		}
	}
	return nil
}

func (r *Rule) validate(tests map[string]bool) error {
	if !tests[r.Test] {
		return fmt.Errorf("test %q is not one of the declared tests", r.Test)
	}
	if r.FailsWhen == nil && r.ErrorsWhen == nil && r.HangsWhen == nil {
		return errors.New("needs fails_when, errors_when or hangs_when")
	}
	for _, c := range []*Condition{r.FailsWhen, r.ErrorsWhen, r.HangsWhen} {
		if c == nil {
			continue
		}
		if err := c.compile(); err != nil {
			return err
		}
	}
	return nil
}

func (c *Condition) compile() error {
	key, err := ParseMethodKey(c.Method)
	if err != nil {
		return err
	}
	c.ref = key
	if c.SourceContains == "" && c.SourceNotContains == "" && c.SourceMatches == "" && c.SourceNotMatches == "" {
		return fmt.Errorf("condition on %s needs source_contains, source_not_contains, source_matches or source_not_matches", c.Method)
	}
	if c.matches, err = compileOptional(c.SourceMatches); err != nil {
		return fmt.Errorf("source_matches of %s: %w", c.Method, err)
	}
	if c.notMatches, err = compileOptional(c.SourceNotMatches); err != nil {
		return fmt.Errorf("source_not_matches of %s: %w", c.Method, err)
	}
	return nil
}

// compileOptional compiles a regexp, or answers nil for an empty one.
func compileOptional(expr string) (*regexp.Regexp, error) {
	if expr == "" {
		return nil, nil
	}
	return regexp.Compile(expr)
}

// SourceLookup answers a method's current source (LF line endings) or false
// when the image has no such method.
type SourceLookup func(MethodKey) (string, bool)

// outcome of one test.
type outcome int

const (
	passed outcome = iota
	failed
	errored
	skipped
)

// holds evaluates the condition; missing reports that its method is absent.
func (c *Condition) holds(lookup SourceLookup) (ok, missing bool) {
	src, found := lookup(c.ref)
	if !found {
		return false, true
	}
	src = toLF(src)
	if c.SourceContains != "" && !strings.Contains(src, toLF(c.SourceContains)) {
		return false, false
	}
	if c.SourceNotContains != "" && strings.Contains(src, toLF(c.SourceNotContains)) {
		return false, false
	}
	if c.matches != nil && !c.matches.MatchString(src) {
		return false, false
	}
	if c.notMatches != nil && c.notMatches.MatchString(src) {
		return false, false
	}
	return true, false
}

// outcome decides one test against the current image.
func (c *OracleClass) outcome(test string, lookup SourceLookup) outcome {
	if slices.Contains(c.Skipped, test) {
		return skipped
	}
	result := passed
	for _, r := range c.Rules {
		if r.Test != test {
			continue
		}
		if r.ErrorsWhen != nil {
			if ok, missing := r.ErrorsWhen.holds(lookup); ok || missing {
				return errored
			}
		}
		if r.FailsWhen != nil {
			ok, missing := r.FailsWhen.holds(lookup)
			if missing {
				return errored
			}
			if ok {
				result = failed
			}
		}
	}
	return result
}

// Hangs reports whether a test of the named classes would never finish
// on the current sources (a hangs_when condition holds).
func (o *Oracle) Hangs(classes []string, lookup SourceLookup) bool {
	for _, name := range classes {
		c, ok := o.classes[name]
		if !ok {
			continue
		}
		for _, r := range c.Rules {
			if r.HangsWhen == nil || slices.Contains(c.Skipped, r.Test) {
				continue
			}
			if ok, _ := r.HangsWhen.holds(lookup); ok {
				return true
			}
		}
	}
	return false
}

// Class returns the oracle entry of a test class.
func (o *Oracle) Class(name string) (*OracleClass, bool) {
	c, ok := o.classes[name]
	return c, ok
}

// ClassNames returns the test classes the oracle declares, sorted.
func (o *Oracle) ClassNames() []string {
	names := make([]string, 0, len(o.classes))
	for n := range o.classes {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Duration is how long running the named classes takes.
func (o *Oracle) Duration(classes []string) time.Duration {
	var total time.Duration
	for _, name := range classes {
		if c, ok := o.classes[name]; ok {
			total += c.duration
		}
	}
	return total
}

// TestResult is an SUnit TestResult: what ran and how each test ended.
type TestResult struct {
	Passed           []string // printed test names, `Class>>#selector`
	Failures         []string
	Errors           []string
	Skipped          []string
	ExpectedFailures []string
	PassedUnexpected []string
}

// TestPrinter prints a test as SUnit does: `Class>>#selector`, or
// `Class(Super)>>#selector` for a test inherited from Super.
type TestPrinter func(class, selector string) string

// Run runs (decides) every test of the named classes against the image.
// print names the tests; nil prints `Class>>#selector`.
func (o *Oracle) Run(classes []string, lookup SourceLookup, print TestPrinter) TestResult {
	if print == nil {
		print = func(class, selector string) string { return class + ">>#" + selector }
	}
	var r TestResult
	for _, name := range classes {
		c, ok := o.classes[name]
		if !ok {
			continue
		}
		for _, t := range c.Tests {
			r.add(print(name, t), c.outcome(t, lookup), slices.Contains(c.ExpectedFailures, t))
		}
	}
	return r
}

func (r *TestResult) add(printed string, out outcome, expectedToFail bool) {
	switch {
	case out == skipped:
		r.Skipped = append(r.Skipped, printed)
	case expectedToFail && out == passed:
		r.PassedUnexpected = append(r.PassedUnexpected, printed)
	case expectedToFail:
		r.ExpectedFailures = append(r.ExpectedFailures, printed)
	case out == failed:
		r.Failures = append(r.Failures, printed)
	case out == errored:
		r.Errors = append(r.Errors, printed)
	default:
		r.Passed = append(r.Passed, printed)
	}
}

// RunCount counts the tests that ran; skipped tests did not.
func (r TestResult) RunCount() int {
	return len(r.Passed) + len(r.Failures) + len(r.Errors) + len(r.ExpectedFailures) + len(r.PassedUnexpected)
}

// Summary is the first line of TestResult>>printOn:.
func (r TestResult) Summary() string {
	if r.RunCount() == 0 {
		return "No tests ran"
	}
	parts := []string{
		strconv.Itoa(r.RunCount()) + " ran",
		strconv.Itoa(len(r.Passed)) + " passed",
		strconv.Itoa(len(r.Skipped)) + " skipped",
		counted(len(r.ExpectedFailures), "expected failure"),
		counted(len(r.Failures), "failure"),
		counted(len(r.Errors), "error"),
		strconv.Itoa(len(r.PassedUnexpected)) + " passed unexpected",
	}
	return strings.Join(parts, ", ")
}

// Text is what run_class_test answers (TestResult>>fileOutOn:): the summary,
// then the failures and errors, one per line, with CR line endings. As on
// the real server, `Failures:` lists the unexpected failures and then the
// unexpected passes (SUnit's TestResult>>failures), which the summary
// counts as "passed unexpected".
func (r TestResult) Text() string {
	var b strings.Builder
	b.WriteString(r.Summary())
	b.WriteString("\rFailures:\r")
	for _, t := range append(append([]string{}, r.Failures...), r.PassedUnexpected...) {
		b.WriteString(t + "\r")
	}
	b.WriteString("\rErrors:\r")
	for _, t := range r.Errors {
		b.WriteString(t + "\r")
	}
	return b.String()
}

// counted prints "1 failure" or "2 failures".
func counted(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
