package testenv

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	refactor "github.com/pharo-refactor/refactord"
)

// Reply is one scripted model answer: of a fake model server (FakeGemini,
// FakeOpenAI) or of the scripted model's file (Script).
type Reply struct {
	// Text is the answer's text (JSON for the structured roles); with an
	// error Status, the error's message.
	Text string
	// Call, when set, answers with this function call instead of text:
	// {"name": "get_class_comment", "args": {"class_name": "Calculator"}}.
	Call map[string]any
	// Status, when neither 0 nor 200, answers with an API error of this
	// HTTP status (the scripted model: a failed call).
	Status int
	// Delay holds the answer this long; a request whose context ends
	// first gets none.
	Delay time.Duration
	// FinishReason, when set, is the answer's finish reason in the
	// provider's own word (RECITATION, MAX_TOKENS; length, content_filter)
	// instead of a normal stop (scripted model: its finish_reason).
	FinishReason string

	// The rest only a fake server honours.

	// Header is set on the answer (e.g. Retry-After).
	Header map[string]string
	// Body, when set, is sent as the whole JSON answer instead of one built
	// from Text or Call: provider tests shape every field.
	Body any
	// Before runs before the answer is sent: to change the image mid-run,
	// or to hold the run until the test says so.
	Before func()
	// Usage, when set, is what the answer reports it cost; nil reports 100
	// input and 20 output tokens.
	Usage *TokenUsage
}

// TokenUsage is what a fake server's answer reports it cost, in each
// provider's own fields: Gemini's promptTokenCount, candidatesTokenCount
// and thoughtsTokenCount; OpenAI's prompt_tokens, completion_tokens
// (Output and Thoughts, as OpenAI counts reasoning within it) and
// completion_tokens_details.reasoning_tokens.
type TokenUsage struct {
	Input, Output, Thoughts int64
}

// WithUsage returns r reporting u.
func (r Reply) WithUsage(u TokenUsage) Reply {
	r.Usage = &u
	return r
}

// usage is what r reports it cost.
func (r Reply) usage() TokenUsage {
	if r.Usage == nil {
		return TokenUsage{Input: 100, Output: 20}
	}
	return *r.Usage
}

// Delayed returns r held for d before it is answered.
func (r Reply) Delayed(d time.Duration) Reply {
	r.Delay = d
	return r
}

// Answers are scripted replies per role, in the order they are given.
type Answers map[refactor.Role][]Reply

// The valid answers of each role, as the prompts ask for them.

// Review is a reviewer's answer: medium severity, one naming issue.
func Review() Reply {
	return jsonReply(refactor.Review{Severity: refactor.SeverityMedium, Summary: "Poor names.", Issues: []refactor.Issue{
		{Principle: "Intention-revealing names", Problem: "a, b", Suggestion: "rename"},
	}})
}

// Code is a writer's or a refiner's answer proposing source.
func Code(source string) Reply {
	return jsonReply(refactor.Candidate{Code: source, Notes: "n"})
}

// ComposedCode is a writer's or a refiner's answer proposing source with
// new helper methods (Composed Method), each in protocol private, in the
// shape the prompts ask for.
func ComposedCode(source string, helpers ...string) Reply {
	type helper struct {
		Code     string `json:"code"`
		Protocol string `json:"protocol"`
	}
	list := make([]helper, len(helpers))
	for i, h := range helpers {
		list[i] = helper{Code: h, Protocol: "private"}
	}
	return jsonReply(struct {
		Code    string   `json:"code"`
		Helpers []helper `json:"helpers"`
		Notes   string   `json:"notes"`
	}{source, list, "extracted helpers"})
}

// Approved is a validator's approval.
func Approved() Reply {
	return jsonReply(refactor.Verdict{Verdict: refactor.VerdictApproved, Feedback: "Good.", Issues: []refactor.Issue{}})
}

// NeedsWork is a validator's rejection with feedback.
func NeedsWork(feedback string) Reply {
	return jsonReply(refactor.Verdict{Verdict: refactor.VerdictNeedsImprovement, Feedback: feedback, Issues: []refactor.Issue{}})
}

// ApprovedInRoundOne scripts a run that releases source: a review, source
// as the candidate, an approval.
func ApprovedInRoundOne(source string) Answers {
	return Answers{refactor.RoleReviewer: {Review()}, refactor.RoleWriter: {Code(source)}, refactor.RoleValidator: {Approved()}}
}

// ApprovedInRoundTwo scripts a run that releases second: a review, first
// as the candidate, rejected with feedback, then second, approved.
func ApprovedInRoundTwo(first, feedback, second string) Answers {
	return Answers{
		refactor.RoleReviewer:  {Review()},
		refactor.RoleWriter:    {Code(first)},
		refactor.RoleValidator: {NeedsWork(feedback), Approved()},
		refactor.RoleRefiner:   {Code(second)},
	}
}

func jsonReply(v any) Reply {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // the domain's own types always encode
	}
	return Reply{Text: string(b)}
}

// Script is a scripted model's file (agents/scripted): the answers per
// subject ("Calculator>>sum:with:", "Calculator class>>new" or "*").
type Script map[string]Answers

// Env writes s to dir/model.json and returns the environment that makes
// refactord answer from it; with repeat, each list starts over when used up.
func (s Script) Env(dir string, repeat bool) ([]string, error) {
	answers := map[string]map[refactor.Role][]map[string]any{}
	for subject, roles := range s {
		answers[subject] = map[refactor.Role][]map[string]any{}
		for role, replies := range roles {
			for i, r := range replies {
				entry, err := scriptedEntry(r)
				if err != nil {
					return nil, fmt.Errorf("%s, %s, answer %d: %w", subject, role, i+1, err)
				}
				answers[subject][role] = append(answers[subject][role], entry)
			}
		}
	}
	data, err := json.Marshal(map[string]any{"repeat": repeat, "answers": answers})
	if err != nil {
		return nil, err
	}
	file := filepath.Join(dir, "model.json")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		return nil, err
	}
	return []string{"MODEL_PROVIDER=scripted", "SCRIPTED_MODEL_FILE=" + file}, nil
}

// scriptedEntry is r in the scripted model's file format.
func scriptedEntry(r Reply) (map[string]any, error) {
	if r.Header != nil || r.Body != nil || r.Before != nil || r.Usage != nil {
		return nil, errors.New("the scripted model has no headers, raw bodies, hooks or usage")
	}
	entry := map[string]any{}
	switch {
	case r.Status != 0 && r.Status != 200:
		entry["error"] = r.Text
	case r.Call != nil:
		entry["tool_call"] = r.Call
	default:
		entry["text"] = r.Text
	}
	if r.Delay > 0 {
		entry["delay_ms"] = r.Delay.Milliseconds()
	}
	if r.FinishReason != "" {
		entry["finish_reason"] = r.FinishReason
	}
	return entry, nil
}
