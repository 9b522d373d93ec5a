package agents

import (
	"fmt"

	refactor "pharo-refactor"
	"pharo-refactor/smalltalk"
)

// Input is what the roles know about the method under work, prefetched from
// the image by the pipeline.
type Input struct {
	Class     string
	Selector  string
	ClassSide bool
	// Source is the method as the image has it.
	Source string
	// ClassDefinition is the class's shape: superclass, instance and class
	// variables (text, e.g. the Tonel class header).
	ClassDefinition string
	ClassComment    string
}

// Subject names the method the way Pharo prints it: "Foo>>bar" or
// "Foo class>>bar".
func (in Input) Subject() string {
	if in.ClassSide {
		return in.Class + " class>>" + in.Selector
	}
	return in.Class + ">>" + in.Selector
}

const maxNameLen = 256

// validClassName and validSelector use the grammar of package smalltalk,
// with a length bound: names go into prompts unfenced.
func validClassName(s string) bool { return len(s) <= maxNameLen && smalltalk.IsClassName(s) }

func validSelector(s string) bool { return len(s) <= maxNameLen && smalltalk.IsSelector(s) }

// check refuses an Input whose names are not Smalltalk-shaped: they go into
// prompts unfenced and name the scripted model's answers.
func (in Input) check() error {
	if !validClassName(in.Class) {
		return refactor.Errorf(refactor.InvalidRequest, "class name %q is not a Smalltalk class name", in.Class)
	}
	if !validSelector(in.Selector) {
		return refactor.Errorf(refactor.InvalidRequest, "selector %q is not a Smalltalk selector", in.Selector)
	}
	return nil
}

// Severity grades a review.
type Severity string

// Review severities.
const (
	SeverityLow    Severity = "LOW"
	SeverityMedium Severity = "MEDIUM"
	SeverityHigh   Severity = "HIGH"
)

// Issue is one finding of the reviewer or the validator.
type Issue struct {
	Principle  string `json:"principle"`
	Problem    string `json:"problem"`
	Suggestion string `json:"suggestion"`
}

// Review is the reviewer's structured judgement of the original method.
type Review struct {
	Severity Severity `json:"severity"`
	Summary  string   `json:"summary"`
	Issues   []Issue  `json:"issues"`
}

// Candidate is a proposed method from the writer or the refiner. Code is
// normalized (see NormalizeCode).
type Candidate struct {
	Code  string `json:"code"`
	Notes string `json:"notes"`
}

// VerdictKind is the validator's decision.
type VerdictKind string

// Validator decisions. Anything unclear is never read as approval.
const (
	VerdictApproved         VerdictKind = "APPROVED"
	VerdictNeedsImprovement VerdictKind = "NEEDS_IMPROVEMENT"
)

// Verdict is the validator's structured judgement of a candidate.
type Verdict struct {
	Verdict  VerdictKind `json:"verdict"`
	Feedback string      `json:"feedback"`
	Issues   []Issue     `json:"issues"`
}

// Approved reports whether the validator approved the candidate.
func (v Verdict) Approved() bool { return v.Verdict == VerdictApproved }

// CallStats is what one role invocation spent.
type CallStats struct {
	Role Role
	// Calls counts model calls made, failed ones, corrective retries and
	// tool rounds included; HTTP retries inside one call are not counted.
	Calls int
	// ToolCalls counts the image tools the model asked for, refused ones
	// included.
	ToolCalls    int
	InputTokens  int64
	OutputTokens int64
}

// Add accumulates o into s (roles may differ; s keeps its own).
func (s *CallStats) Add(o CallStats) {
	s.Calls += o.Calls
	s.ToolCalls += o.ToolCalls
	s.InputTokens += o.InputTokens
	s.OutputTokens += o.OutputTokens
}

func (s *CallStats) count(u Usage) {
	s.Calls++
	s.InputTokens += u.InputTokens
	s.OutputTokens += u.OutputTokens
}

func (s CallStats) String() string {
	return fmt.Sprintf("%s: %d calls, %d tool calls, %d in / %d out tokens", s.Role, s.Calls, s.ToolCalls, s.InputTokens, s.OutputTokens)
}
