package refactor

import "context"

// The outcomes of comparing a candidate with the original (Equivalence).
const (
	// EquivalenceSame: on every input compared, the candidate did what the
	// original did.
	EquivalenceSame = "same"
	// EquivalenceChanged: an input on which they differ (the Witness).
	EquivalenceChanged = "changed"
	// EquivalenceNotChecked: no comparison was made — the image does not
	// offer one (a real Pharo image behind the real MCP server), it is
	// turned off (EQUIVALENCE=off), or no input could be compared. Never
	// taken for same.
	EquivalenceNotChecked = "not_checked"
)

// Equivalence is what running the original and a candidate side by side
// on the same inputs showed (pharo-sim's compare_method).
type Equivalence struct {
	Outcome string `json:"outcome"`
	// Reason says why the outcome is not_checked; empty otherwise.
	Reason string `json:"reason,omitempty"`
	// Activations counts how often the method's tests reached the method
	// (0: no test calls it, and the inputs were generated).
	Activations int `json:"activations"`
	// Recorded and Generated count the distinct inputs of each kind;
	// Compared how many were run on both sides; Unstable those on which
	// the original disagreed with itself (not counted).
	Recorded  int `json:"recorded"`
	Generated int `json:"generated"`
	Compared  int `json:"compared"`
	Unstable  int `json:"unstable"`
	// Witness is the input on which they differ, when changed.
	Witness *Witness `json:"witness,omitempty"`
}

// Witness is one input on which the candidate did not do what the
// original did: short print strings of the input and of both outcomes (an
// answer, or a signalled exception's class), and the aspect that differed
// (answer, exception, receiver, argument N, steps).
type Witness struct {
	Input     string `json:"input"`
	Original  string `json:"original"`
	Candidate string `json:"candidate"`
	Aspect    string `json:"aspect"`
}

// Comparison asks the image to run a method and a candidate side by side:
// neither is compiled into the image. Tests answers the test classes whose
// runs record the inputs; an image asks for them only when it compares
// (finding them costs calls an image without a comparison need not make).
type Comparison struct {
	Ref       MethodRef
	Candidate string
	Helpers   []string // the sources of the candidate's new helper methods
	Tests     func(context.Context) ([]string, error)
	MaxInputs int
}
