package agents

import (
	"slices"
	"strings"

	refactor "github.com/pharo-refactor/refactord"
)

// Budget caps, in bytes, what the prompts show of each input, so that one
// huge method, comment or class cannot crowd out the instructions or blow
// a model's context window (Ollama, for one, silently drops the oldest
// text of a prompt that does not fit). What is cut is marked in the prompt
// and named in CallStats.Truncated; nothing is ever cut silently.
type Budget struct {
	// MethodSource caps the method's source (PROMPT_MAX_METHOD_BYTES).
	MethodSource int
	// ClassComment caps the class comment (PROMPT_MAX_COMMENT_BYTES).
	ClassComment int
	// ClassSummary caps the class definition and its selector list
	// together (PROMPT_MAX_CLASS_BYTES).
	ClassSummary int
	// RelatedMethods caps the sources of the class's other methods shown,
	// in total (PROMPT_MAX_RELATED_BYTES). Methods are shown whole or not
	// at all; the ones left out are named.
	RelatedMethods int
	// ToolResults caps the reviewer's tool results, in total over its
	// rounds (PROMPT_MAX_TOOL_BYTES).
	ToolResults int
}

// DefaultBudget is the budget of Config's zero fields: about 20k tokens of
// input at most, besides the instructions.
func DefaultBudget() Budget {
	return Budget{MethodSource: 32 << 10, ClassComment: 4 << 10, ClassSummary: 8 << 10, RelatedMethods: 16 << 10, ToolResults: 24 << 10}
}

func (b Budget) withDefaults() Budget {
	def := DefaultBudget()
	b.MethodSource = orDefault(b.MethodSource, def.MethodSource)
	b.ClassComment = orDefault(b.ClassComment, def.ClassComment)
	b.ClassSummary = orDefault(b.ClassSummary, def.ClassSummary)
	b.RelatedMethods = orDefault(b.RelatedMethods, def.RelatedMethods)
	b.ToolResults = orDefault(b.ToolResults, def.ToolResults)
	return b
}

// shown is an Input as the prompts show it: every field within the budget.
type shown struct {
	Source          string
	ClassDefinition string
	ClassComment    string
	Selectors       string
	Related         []refactor.RelatedMethod
	// LeftOut names the related methods the budget left out.
	LeftOut   []string
	Truncated []string
}

// cut applies b to in.
func (b Budget) cut(in refactor.Input) shown {
	var s shown
	var cut bool
	s.Source, cut = fit(in.Source, b.MethodSource)
	s.mark(cut, refactor.TruncatedMethodSource)
	s.ClassComment, cut = fit(in.ClassComment, b.ClassComment)
	s.mark(cut, refactor.TruncatedClassComment)
	s.ClassDefinition, cut = fit(in.ClassDefinition, b.ClassSummary)
	s.mark(cut, refactor.TruncatedClassSummary)
	s.Selectors, cut = fit(strings.Join(in.Selectors, " "), max(b.ClassSummary-len(s.ClassDefinition), 0))
	s.mark(cut, refactor.TruncatedClassSummary)
	left := b.RelatedMethods
	for _, m := range in.Related {
		if len(m.Source) > left {
			s.LeftOut = append(s.LeftOut, m.Ref.String())
			continue
		}
		left -= len(m.Source)
		s.Related = append(s.Related, m)
	}
	s.mark(len(s.LeftOut) > 0, refactor.TruncatedRelatedMethods)
	return s
}

func (s *shown) mark(cut bool, input string) {
	if cut && !slices.Contains(s.Truncated, input) {
		s.Truncated = append(s.Truncated, input)
	}
}

// fit cuts text to at most n bytes (plus the marker), reporting whether it
// did.
func fit(text string, n int) (string, bool) {
	if len(text) <= n {
		return text, false
	}
	return truncate(text, n), true
}

// toolSpend tracks the reviewer's tool results against the budget.
type toolSpend struct {
	left int
	cut  bool
}

// take returns what the model gets of one raw tool result: all of it, or
// the part that fits both perResult and what is left of the budget,
// marked; ok is false when too little is left to show any of it.
func (t *toolSpend) take(result string, perResult int) (shown string, ok bool) {
	limit := min(perResult, t.left)
	if len(result) <= limit {
		t.left -= len(result)
		return result, true
	}
	t.cut = true
	if limit < minToolShare {
		t.left = 0
		return "", false
	}
	t.left -= limit
	return truncate(result, limit), true
}

// minToolShare is the smallest part of a tool result worth showing.
const minToolShare = 256
