package agents

import (
	refactor "github.com/pharo-refactor/refactord"
)

// Sample stands in for what the earlier roles of a run would have
// answered, so that every role's request can be shown without a model.
type Sample struct {
	Review    refactor.Review
	Candidate string
	Feedback  string
}

// Rendered is a role's opening request as a run sends it, and the inputs
// its prompt cut to the budget.
type Rendered struct {
	Request
	Truncated []string
}

// RenderRequests returns the opening request of every role for in, in
// pipeline order, exactly as a run would send it: the same prompts, budget,
// schemas and tools (offered when cfg has Tools and tool rounds). cfg's
// models are neither needed nor called: this is for reviewing prompts
// offline (`refactord prompts render`).
func RenderRequests(cfg Config, in refactor.Input, s Sample) ([]Rendered, error) {
	if err := checkInput(in); err != nil {
		return nil, err
	}
	r, err := newRoles(cfg)
	if err != nil {
		return nil, err
	}
	var out []Rendered
	for _, c := range []conversation{
		r.reviewing(in),
		r.writing(in, s.Review),
		r.validating(in, s.Review, refactor.Candidate{Code: s.Candidate}),
		r.refining(in, s.Review, refactor.Candidate{Code: s.Candidate}, s.Feedback),
	} {
		req, err := r.opening(c)
		if err != nil {
			return nil, err
		}
		out = append(out, Rendered{Request: req, Truncated: refactor.AddTruncated(nil, c.data.In.Truncated...)})
	}
	return out, nil
}
