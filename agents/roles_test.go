package agents_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/agents"
	"github.com/pharo-refactor/refactord/agents/scripted"
)

var calc = refactor.Input{
	MethodRef:       refactor.MethodRef{Class: "Calculator", Selector: "sum:with:"},
	Source:          "sum: a with: b\n\t^ a + b",
	ClassDefinition: "Object subclass: #Calculator\n\tinstanceVariableNames: 'memory'",
	ClassComment:    "I add numbers.",
}

var review = refactor.Review{Severity: refactor.SeverityMedium, Summary: "names", Issues: []refactor.Issue{{Principle: "Intention-revealing names", Problem: "a, b", Suggestion: "augend, addend"}}}

const (
	goodReview    = `{"json": {"severity": "MEDIUM", "summary": "names", "issues": []}}`
	goodCandidate = `{"json": {"code": "sum: augend with: addend\n\t^ augend + addend", "notes": "renamed"}}`
	approved      = `{"json": {"verdict": "APPROVED", "feedback": "", "issues": []}}`
)

// newRoles builds Roles on a scripted model answering for calc.
func newRoles(t *testing.T, byRole map[string]string, tools agents.ImageTools, rounds int) *agents.Roles {
	t.Helper()
	var parts []string
	for role, answers := range byRole {
		parts = append(parts, `"`+role+`": [`+answers+`]`)
	}
	m, err := scripted.Parse([]byte(`{"answers": {"Calculator>>sum:with:": {` + strings.Join(parts, ",") + `}}}`))
	require.NoError(t, err)
	r, err := agents.New(agents.Config{Reviewer: m, Writer: m, Validator: m, Refiner: m, Tools: tools, MaxToolRounds: rounds, MaxAnswerBytes: 4096})
	require.NoError(t, err)
	return r
}

// An approved first round costs exactly three calls when the reviewer
// calls no tool, even with tools available.
func TestApprovedFirstRoundCostsThreeCalls(t *testing.T) {
	t.Parallel()
	tools := &agents.FakeTools{}
	r := newRoles(t, map[string]string{"reviewer": goodReview, "writer": goodCandidate, "validator": approved}, tools, 2)
	ctx := context.Background()

	rev, rs, err := r.Review(ctx, calc)
	require.NoError(t, err)
	cand, ws, err := r.Write(ctx, calc, rev)
	require.NoError(t, err)
	verdict, vs, err := r.Validate(ctx, calc, rev, cand)
	require.NoError(t, err)

	assert.Equal(t, refactor.SeverityMedium, rev.Severity)
	assert.Equal(t, "sum: augend with: addend\n\t^ augend + addend", cand.Code)
	assert.True(t, verdict.Approved())
	calls, input := 0, int64(0)
	for _, s := range []refactor.CallStats{rs, ws, vs} {
		calls, input = calls+s.Calls, input+s.InputTokens
	}
	assert.Equal(t, 3, calls)
	assert.Positive(t, input)
	assert.Equal(t, []refactor.Role{refactor.RoleReviewer, refactor.RoleWriter, refactor.RoleValidator}, []refactor.Role{rs.Role, ws.Role, vs.Role})
	assert.Empty(t, tools.Seen())
}

func TestReviewerToolRounds(t *testing.T) {
	t.Parallel()
	evalCall := `{"tool_call": {"name": "eval", "args": {"code": "Smalltalk snapshot: false andQuit: true"}}}`
	commentCall := `{"tool_call": {"name": "get_class_comment", "args": {"class_name": "Calculator"}}}`
	cases := []struct {
		name      string
		answers   string
		rounds    int
		calls     int
		toolCalls int
		seen      []string
		wantKind  refactor.Kind
	}{
		{"one round adds one call", commentCall + "," + goodReview, 2, 2, 1, []string{"get_class_comment"}, ""},
		{"eval is refused without being sent, the review goes on", evalCall + "," + commentCall + "," + goodReview, 2, 3, 2, []string{"get_class_comment"}, ""},
		{"a tool call after the last round gets one corrective retry", commentCall + "," + commentCall + "," + goodReview, 1, 3, 1, []string{"get_class_comment"}, ""},
		{"tool calls past the rounds fail the review", commentCall + "," + commentCall + "," + commentCall, 1, 3, 1, []string{"get_class_comment"}, refactor.ModelBadOutput},
		{"no tools without ImageTools rounds", goodReview, 0, 1, 0, nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tools := &agents.FakeTools{Answers: map[string]string{"get_class_comment": "I add numbers."}}
			r := newRoles(t, map[string]string{"reviewer": tc.answers}, tools, tc.rounds)
			_, stats, err := r.Review(context.Background(), calc)
			if tc.wantKind != "" {
				require.Error(t, err)
				assert.Equal(t, tc.wantKind, refactor.KindOf(err))
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tc.calls, stats.Calls)
			assert.Equal(t, tc.toolCalls, stats.ToolCalls)
			assert.Equal(t, tc.seen, tools.Seen())
		})
	}
}

func TestUnusableAnswersAreRetriedOnce(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		answers  string
		calls    int
		wantKind refactor.Kind
		wantMsg  string
	}{
		{"garbage then good", `{"text": "I think it is fine."},` + goodCandidate, 2, "", ""},
		{"cut off then good", `{"text": "{\"code\": \"sum: augend with:", "finish_reason": "length"},` + goodCandidate, 2, "", ""},
		{"empty then good", `{"text": "  "},` + goodCandidate, 2, "", ""},
		{"garbage twice", `{"text": "nope"}, {"text": "still nope"}`, 2, refactor.ModelBadOutput, "after a corrective retry"},
		{"blocked", `{"finish_reason": "safety"}`, 1, refactor.ModelBadOutput, "blocked"},
		{"too large", `{"text": "` + strings.Repeat("x", 5000) + `"}`, 1, refactor.ModelBadOutput, "over the limit"},
		{"provider down", `{"error": "503 from upstream"}`, 1, refactor.ModelUnavailable, "503 from upstream"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRoles(t, map[string]string{"writer": tc.answers}, nil, 0)
			cand, stats, err := r.Write(context.Background(), calc, review)
			assert.Equal(t, tc.calls, stats.Calls)
			if tc.wantKind == "" {
				require.NoError(t, err)
				assert.Equal(t, "sum: augend with: addend\n\t^ augend + addend", cand.Code)
				return
			}
			require.Error(t, err)
			assert.Equal(t, tc.wantKind, refactor.KindOf(err))
			assert.Contains(t, err.Error(), tc.wantMsg)
		})
	}
}

func TestUnclearVerdictIsNeverApproval(t *testing.T) {
	t.Parallel()
	r := newRoles(t, map[string]string{"validator": `{"json": {"verdict": "Approved, mostly"}}, {"json": {"verdict": "LGTM"}}`}, nil, 0)
	v, stats, err := r.Validate(context.Background(), calc, review, refactor.Candidate{Code: "sum: a with: b\n\t^ a + b"})
	require.Error(t, err)
	assert.Equal(t, refactor.ModelBadOutput, refactor.KindOf(err))
	assert.False(t, v.Approved())
	assert.Equal(t, 2, stats.Calls)
}

func TestRefineUsesTheRefiner(t *testing.T) {
	t.Parallel()
	r := newRoles(t, map[string]string{"refiner": goodCandidate}, nil, 0)
	cand, stats, err := r.Refine(context.Background(), calc, review, refactor.Candidate{Code: "sum: a with: b\n\t^ a + b"}, "rename the arguments")
	require.NoError(t, err)
	assert.Equal(t, "renamed", cand.Notes)
	assert.Equal(t, refactor.RoleRefiner, stats.Role)
	assert.Equal(t, 1, stats.Calls)
}

func TestRolesRefuseBadInputAndMissingModels(t *testing.T) {
	t.Parallel()
	r := newRoles(t, map[string]string{"reviewer": goodReview}, nil, 0)
	for _, in := range []refactor.Input{{MethodRef: refactor.MethodRef{Class: "calculator", Selector: "foo"}}, {MethodRef: refactor.MethodRef{Class: "Foo", Selector: "foo bar"}}, {MethodRef: refactor.MethodRef{Class: "Foo'; eval", Selector: "x"}}} {
		_, stats, err := r.Review(context.Background(), in)
		assert.Equal(t, refactor.InvalidRequest, refactor.KindOf(err), in)
		assert.Zero(t, stats.Calls)
	}
	_, err := agents.New(agents.Config{})
	assert.ErrorContains(t, err, "no model for the reviewer")
}

func TestTheRunDeadlineIsATimeout(t *testing.T) {
	t.Parallel()
	r := newRoles(t, map[string]string{"writer": `{"text": "late", "delay_ms": 600000}`}, nil, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, _, err := r.Write(ctx, calc, review)
	require.Error(t, err)
	assert.Equal(t, refactor.Timeout, refactor.KindOf(err))
}
