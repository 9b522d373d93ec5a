package refactor

import (
	"context"
	"slices"
)

// Agents are the four model roles of a run (package agents implements them
// on a provider). Each call answers what it spent, also when it fails.
type Agents interface {
	Review(ctx context.Context, in Input) (Review, CallStats, error)
	Write(ctx context.Context, in Input, review Review) (Candidate, CallStats, error)
	// Validate judges a candidate as a set: the method and its helpers.
	Validate(ctx context.Context, in Input, review Review, candidate Candidate) (Verdict, CallStats, error)
	Refine(ctx context.Context, in Input, review Review, previous Candidate, feedback string) (Candidate, CallStats, error)
}

// Role names the part a model plays in a run.
type Role string

// The four roles of a run.
const (
	RoleReviewer  Role = "reviewer"
	RoleWriter    Role = "writer"
	RoleValidator Role = "validator"
	RoleRefiner   Role = "refiner"
)

// AllRoles lists every role, in pipeline order.
func AllRoles() []Role {
	return []Role{RoleReviewer, RoleWriter, RoleValidator, RoleRefiner}
}

// Input is what the roles know about the method under work, prefetched from
// the image by the pipeline. Its names come from a validated MethodRef.
type Input struct {
	MethodRef
	// Source is the method as the image has it.
	Source string
	// ClassDefinition is the class's shape: superclass, instance and class
	// variables (text, e.g. the Tonel class header).
	ClassDefinition string
	ClassComment    string
	// Selectors are the class's selectors on the method's side, sorted:
	// the messages self understands without looking at superclasses.
	Selectors []string
	// Related are sources of other methods of the class the prompts show:
	// those the method sends to self (or to self class), then those that
	// repeat its code. The roles show them within the context budget.
	Related []RelatedMethod
}

// RelatedMethod is another method of the class, shown to the roles.
type RelatedMethod struct {
	Ref    MethodRef
	Source string
	// Why says why it is shown: RelatedSent or RelatedSimilar.
	Why string
}

// Why a related method is shown.
const (
	RelatedSent    = "sent"    // the method (or the candidate) sends it to self
	RelatedSimilar = "similar" // it repeats code of the method
)

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

// Candidate is a proposed method from the writer or the refiner, its code
// normalized to a bare method source, with the new helper methods it
// sends (Composed Method), if any: their Source and Protocol as the model
// gave them (normalized), their Selector and side filled in by the
// pipeline's checks.
type Candidate struct {
	Code    string   `json:"code"`
	Helpers []Helper `json:"helpers,omitempty"`
	Notes   string   `json:"notes"`
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
	// Truncated names the inputs the prompts showed cut to the context
	// budget (TruncatedMethodSource, …), sorted.
	Truncated []string
}

// AddTruncated adds names to list, keeping it sorted and each name once.
func AddTruncated(list []string, names ...string) []string {
	for _, n := range names {
		if !slices.Contains(list, n) {
			list = append(list, n)
		}
	}
	slices.Sort(list)
	return list
}

// The inputs the context budget can cut (Result.Truncated).
const (
	TruncatedMethodSource   = "method_source"
	TruncatedClassComment   = "class_comment"
	TruncatedClassSummary   = "class_summary"
	TruncatedRelatedMethods = "related_methods"
	TruncatedToolResults    = "tool_results"
)
