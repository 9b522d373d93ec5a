package mcpclient

import (
	"context"
	"fmt"
	"strings"

	refactor "github.com/pharo-refactor/refactord"
)

// compareTool is pharo-sim's comparison of a method and a candidate, a
// tool beyond the real server's surface (docs/pharo-sim.md).
const compareTool = "compare_method"

// Bounds of a comparison's answer: it is the image's word, so it is
// checked like any other.
const (
	maxCompareInputs  = 256
	maxWitnessText    = 2000
	defaultMaxInputs  = 64
	maxComparedCounts = 1 << 20
)

// notOffered is the comparison's outcome on an image that has none.
const notOffered = "the image does not offer a comparison of the original and the candidate (compare_method): a real Pharo image behind pharo-smalltalk-interop-mcp-server has none, so only the checks, the validator and the tests guard this release"

// Compare runs the image's method and the candidate side by side (see
// refactor.Image). Neither is compiled into the image.
func (c *Client) Compare(ctx context.Context, cmp refactor.Comparison) (refactor.Equivalence, error) {
	if err := cmp.Ref.Validate(); err != nil {
		return refactor.Equivalence{}, err
	}
	s, err := c.current(ctx)
	if err != nil {
		return refactor.Equivalence{}, err
	}
	if !s.compares {
		return refactor.Equivalence{Outcome: refactor.EquivalenceNotChecked, Reason: notOffered}, nil
	}
	var tests []string
	if cmp.Tests != nil {
		if tests, err = cmp.Tests(ctx); err != nil {
			return refactor.Equivalence{}, err
		}
	}
	for _, class := range tests {
		if err := refactor.ValidateClassName(class); err != nil {
			return refactor.Equivalence{}, err
		}
	}
	limit := cmp.MaxInputs
	if limit <= 0 {
		limit = defaultMaxInputs
	}
	args := map[string]any{
		"class_name":       cmp.Ref.Class,
		"is_class_method":  cmp.Ref.ClassSide,
		"method_name":      cmp.Ref.Selector,
		"candidate_source": cmp.Candidate,
		"helper_sources":   append([]string{}, cmp.Helpers...),
		"test_classes":     strings.Join(tests, " "),
		"max_inputs":       min(limit, maxCompareInputs),
	}
	var eq refactor.Equivalence
	if err := c.call(ctx, compareTool, args, &eq); err != nil {
		return refactor.Equivalence{}, fmt.Errorf("comparing %s with the candidate: %w", cmp.Ref, err)
	}
	if err := checkEquivalence(&eq); err != nil {
		return refactor.Equivalence{}, refactor.Wrap(refactor.PharoError, err, "comparing %s with the candidate: the image's answer cannot be used", cmp.Ref)
	}
	return eq, nil
}

// checkEquivalence refuses an answer the service cannot rely on, and cuts
// the witness's texts to a bound.
func checkEquivalence(eq *refactor.Equivalence) error {
	switch eq.Outcome {
	case refactor.EquivalenceSame, refactor.EquivalenceNotChecked:
		eq.Witness = nil
	case refactor.EquivalenceChanged:
		if eq.Witness == nil {
			return fmt.Errorf("outcome changed without a witness")
		}
		w := eq.Witness
		w.Input, w.Original, w.Candidate, w.Aspect = clipText(w.Input), clipText(w.Original), clipText(w.Candidate), clipText(w.Aspect)
	default:
		return fmt.Errorf("unknown outcome %q", eq.Outcome)
	}
	for _, n := range []int{eq.Activations, eq.Recorded, eq.Generated, eq.Compared, eq.Unstable} {
		if n < 0 || n > maxComparedCounts {
			return fmt.Errorf("a count out of range: %d", n)
		}
	}
	if eq.Outcome == refactor.EquivalenceSame && eq.Compared == 0 {
		return fmt.Errorf("outcome same with no input compared")
	}
	eq.Reason = clipText(eq.Reason)
	return nil
}

func clipText(s string) string {
	if r := []rune(s); len(r) > maxWitnessText {
		return string(r[:maxWitnessText]) + "…"
	}
	return s
}
