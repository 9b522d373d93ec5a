package agents

import (
	refactor "github.com/pharo-refactor/refactord"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseCandidateShapes(t *testing.T) {
	t.Parallel()
	const want = "sum: a with: b\n\t^ a + b"
	cases := []struct {
		name, text string
		notes      string
	}{
		{"bare JSON", `{"code": "sum: a with: b\n\t^ a + b", "notes": "ok"}`, "ok"},
		{"fenced JSON", "```json\n{\"code\": \"sum: a with: b\\n\\t^ a + b\", \"notes\": \"ok\"}\n```", "ok"},
		{"fence without language", "```\n{\"code\": \"sum: a with: b\\n\\t^ a + b\", \"notes\": \"ok\"}\n```", "ok"},
		{"JSON after prose", "Sure! Here is the improved method:\n{\"code\": \"sum: a with: b\\n\\t^ a + b\", \"notes\": \"ok\"}\nHope it helps.", "ok"},
		{"prose with braces before JSON", "I kept {the} pattern. {\"code\": \"sum: a with: b\\n\\t^ a + b\", \"notes\": \"ok\"}", "ok"},
		{"code fenced as smalltalk", "Here it is:\n```smalltalk\nsum: a with: b\n\t^ a + b\n```\n", ""},
		{"code fenced as st", "```st\nsum: a with: b\n\t^ a + b\n```", ""},
		{"class prefix in code", `{"code": "Calculator >> sum: a with: b\n\t^ a + b", "notes": "ok"}`, "ok"},
		{"class prefix with #", `{"code": "Calculator>>#sum: a with: b\n\t^ a + b", "notes": "ok"}`, "ok"},
		{"Tonel brackets in code", `{"code": "Calculator >> sum: a with: b [\n\t^ a + b\n]", "notes": "ok"}`, "ok"},
		{"fence inside the code value", `{"code": "` + "```smalltalk" + `\nsum: a with: b\n\t^ a + b\n` + "```" + `", "notes": "ok"}`, "ok"},
		{"CRLF line endings", "{\"code\": \"sum: a with: b\\r\\n\\t^ a + b\", \"notes\": \"ok\"}", "ok"},
		{"raw newlines inside the JSON string", "{\"code\": \"sum: a with: b\n\t^ a + b\", \"notes\": \"ok\"}", "ok"},
		{"fenced Tonel method with prefix", "```smalltalk\nCalculator >> sum: a with: b [\n\t^ a + b\n]\n```", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := parseCandidate(tc.text, "Calculator", tolerant)
			require.NoError(t, err)
			assert.Equal(t, want, c.Code)
			assert.Equal(t, tc.notes, c.Notes)
		})
	}
}

func TestParseCandidateRejects(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, text string }{
		{"empty", "   "},
		{"prose only", "I would rename the method."},
		{"JSON without code", `{"notes": "nothing"}`},
		{"empty code", `{"code": "  ", "notes": ""}`},
		{"cut-off JSON", `{"code": "sum: a with: b\n\t^ a +`},
		{"only a JSON fence", "```json\n{\"notes\": \"x\"}\n```"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseCandidate(tc.text, "Calculator", tolerant)
			assert.Error(t, err)
		})
	}
}

func TestParseReview(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, text string
		want       refactor.Severity
		issues     int
	}{
		{"bare", `{"severity": "HIGH", "summary": "too long", "issues": [{"principle": "Method length", "problem": "p", "suggestion": "s"}]}`, refactor.SeverityHigh, 1},
		{"lower case severity", `{"severity": "medium", "summary": "meh", "issues": []}`, refactor.SeverityMedium, 0},
		{"severity with punctuation", `{"severity": "Low.", "summary": "fine"}`, refactor.SeverityLow, 0},
		{"fenced after prose", "Review:\n```json\n{\"severity\": \"HIGH\", \"summary\": \"x\", \"issues\": [\"feature envy\"]}\n```", refactor.SeverityHigh, 1},
		{"issues as strings", `{"severity": "LOW", "summary": "x", "issues": ["a", "b"]}`, refactor.SeverityLow, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := parseReview(tc.text, tolerant)
			require.NoError(t, err)
			assert.Equal(t, tc.want, r.Severity)
			assert.Len(t, r.Issues, tc.issues)
		})
	}
	for _, bad := range []string{`{"severity": "CATASTROPHIC", "summary": "x"}`, `{"severity": "LOW"}`, `{"summary": "x"}`, "looks fine to me", ""} {
		_, err := parseReview(bad, tolerant)
		assert.Error(t, err, bad)
	}
}

func TestParseVerdict(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, text string
		want       refactor.VerdictKind
	}{
		{"approved", `{"verdict": "APPROVED", "feedback": "", "issues": []}`, refactor.VerdictApproved},
		{"lower case", `{"verdict": "approved", "feedback": ""}`, refactor.VerdictApproved},
		{"with period", `{"verdict": "Approved.", "feedback": ""}`, refactor.VerdictApproved},
		{"needs improvement with space", `{"verdict": "needs improvement", "feedback": "rename x"}`, refactor.VerdictNeedsImprovement},
		{"needs improvement in prose", "My verdict:\n{\"verdict\": \"NEEDS_IMPROVEMENT\", \"feedback\": \"\", \"issues\": [{\"principle\": \"names\", \"problem\": \"x\", \"suggestion\": \"y\"}]}", refactor.VerdictNeedsImprovement},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v, err := parseVerdict(tc.text, tolerant)
			require.NoError(t, err)
			assert.Equal(t, tc.want, v.Verdict)
			assert.Equal(t, tc.want == refactor.VerdictApproved, v.Approved())
		})
	}
}

// An unclear verdict is never approval.
func TestParseVerdictNeverGuessesApproval(t *testing.T) {
	t.Parallel()
	for _, text := range []string{
		`{"verdict": "NOT APPROVED", "feedback": "x"}`,
		`{"verdict": "APPROVED WITH CHANGES", "feedback": "x"}`,
		`{"verdict": "yes", "feedback": ""}`,
		`{"verdict": "", "feedback": ""}`,
		`{"verdict": true}`,
		`{"verdict": "NEEDS_IMPROVEMENT", "feedback": ""}`,
		"VERDICT: APPROVED",
		"APPROVED",
	} {
		_, err := parseVerdict(text, tolerant)
		assert.Error(t, err, text)
	}
}

func TestParseCandidateHelpers(t *testing.T) {
	t.Parallel()
	text := `{"code": "total\n\t^ self subtotal", "helpers": [` +
		`{"code": "Cart >> subtotal [\n\t^ 1\n]", "protocol": " private "}, {"code": "tax\n\t^ 2", "protocol": ""}], "notes": "extracted"}`
	c, err := parseCandidate(text, "Cart", constrainedMode)
	require.NoError(t, err)
	assert.Equal(t, "total\n\t^ self subtotal", c.Code)
	assert.Equal(t, []refactor.Helper{{Source: "subtotal\n\t^ 1", Protocol: "private"}, {Source: "tax\n\t^ 2"}}, c.Helpers,
		"each helper normalized like the method; the pipeline names them")

	c, err = parseCandidate(`{"code": "total\n\t^ 1", "helpers": [], "notes": ""}`, "Cart", constrainedMode)
	require.NoError(t, err)
	assert.Empty(t, c.Helpers)

	_, err = parseCandidate(`{"code": "total\n\t^ 1", "helpers": [{"code": " ", "protocol": "private"}], "notes": ""}`, "Cart", tolerant)
	assert.ErrorContains(t, err, "helpers[0]")
}

func TestPromptsShowTheHelperSet(t *testing.T) {
	t.Parallel()
	p, err := loadPrompts()
	require.NoError(t, err)
	in := refactor.Input{MethodRef: refactor.MethodRef{Class: "Foo", Selector: "bar"}, Source: "bar\n\t^ 1"}
	for _, role := range []refactor.Role{refactor.RoleWriter, refactor.RoleRefiner, refactor.RoleValidator} {
		data := newPromptData(in, DefaultBudget().cut(in), CandidateSchema())
		data.Candidate, data.Feedback, data.ReviewText = "bar\n\t^ self baz", "x", "y"
		data.CandidateHelpers = []refactor.Helper{{Selector: "baz", Protocol: "private", Source: "baz\n\t^ 2"}}
		system, user, err := p.render(role, data)
		require.NoError(t, err)
		assert.Contains(t, system, "Composed Method", role)
		if role == refactor.RoleWriter {
			assert.Contains(t, system, "4 helpers, each at most 8192 bytes", role)
			assert.Contains(t, system, `"helpers": []`, role)
			assert.NotContains(t, user, "new helper method #baz", "the writer has no candidate yet")
			continue
		}
		assert.Contains(t, user, `<image-data label="new helper method #baz">`+"\nbaz\n\t^ 2\n</image-data>", role)
	}
}
