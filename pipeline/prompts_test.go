package pipeline_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/agents/scripted"
)

func lowReview(issues ...refactor.Issue) scripted.Answer {
	return jsonAnswer(refactor.Review{Severity: refactor.SeverityLow, Summary: "Clear and idiomatic.", Issues: issues})
}

// A LOW review without issues ends the run: one model call, no candidate,
// nothing compiled, recorded as unchanged.
func TestNothingToChangeEndsTheRunUnchanged(t *testing.T) {
	t.Parallel()
	for _, dryRun := range []bool{false, true} {
		r := newRig(t, rigOpts{script: map[refactor.Role][]scripted.Answer{refactor.RoleReviewer: {lowReview()}}})
		before := r.snapshot()
		res, err := r.run(sumWith, func(req *refactor.Request) { req.DryRun = dryRun })
		require.NoError(t, err)
		assert.Equal(t, refactor.OutcomeUnchanged, res.Outcome)
		assert.Equal(t, refactor.StatusUnchanged, res.RunStatus)
		assert.Equal(t, 1, res.Usage.ModelCalls)
		assert.Equal(t, 0, r.model.count(refactor.RoleWriter))
		assert.Zero(t, res.Iterations)
		assert.Equal(t, res.OriginalCode, res.RefactoredCode, "what stands is the original")
		assert.Nil(t, res.Validation)
		assert.False(t, res.Tests.Ran, "no release, no tests")
		assert.Equal(t, before, r.snapshot(), "the image is untouched")
		var stages []string
		for _, s := range res.Stages {
			stages = append(stages, s.Name)
		}
		assert.Equal(t, []string{refactor.StagePrefetch, refactor.StageReview}, stages)
		row := r.row(res.ID)
		assert.Equal(t, refactor.StatusUnchanged, row.Status)
		assert.Empty(t, row.ErrorCode)
		assert.Equal(t, 1, row.ModelCalls)
	}
}

// A LOW review that names an issue is still worth a rewrite.
func TestALowReviewWithAnIssueIsRewritten(t *testing.T) {
	t.Parallel()
	s := script(newSum, []scripted.Answer{approvedAnswer()})
	s[refactor.RoleReviewer] = []scripted.Answer{lowReview(refactor.Issue{Principle: "Comments", Problem: "no comment", Suggestion: "say what it answers"})}
	r := newRig(t, rigOpts{script: s})
	res, err := r.run(sumWith)
	require.NoError(t, err)
	assert.Equal(t, refactor.OutcomeReleased, res.Outcome)
	assert.Equal(t, 3, res.Usage.ModelCalls)
}

// The roles see the class's selectors and the sources of the methods that
// matter: ShoppingCart>>total repeats totalWithoutTax and sends taxRate to
// self class; a candidate that sends memory to self shows the validator
// what memory does.
func TestPromptsShowTheClassAndItsRelatedMethods(t *testing.T) {
	t.Parallel()
	total := refactor.MethodRef{Class: "ShoppingCart", Selector: "total"}
	r := newRig(t, rigOpts{script: script("total\n\t^ self totalWithoutTax * (100 + self class taxRate) / 100", []scripted.Answer{approvedAnswer()})})
	_, err := r.run(total, func(req *refactor.Request) { req.DryRun = true })
	require.NoError(t, err)
	review := r.model.prompt(refactor.RoleReviewer, 0)
	assert.Contains(t, review, "Selectors of ShoppingCart")
	assert.Contains(t, review, "add:quantity: customer customer: initialize itemCount items total totalWithoutTax")
	assert.Contains(t, review, `label="ShoppingCart>>totalWithoutTax, repeats code of this method"`)
	assert.Contains(t, review, "^ t - d", "the source of totalWithoutTax")
	assert.Contains(t, review, `label="ShoppingCart class>>taxRate, sent to self"`)
	assert.NotContains(t, review, "Cut to fit the context budget")

	// (memory * 0 + a + b would not do: with a Float in memory it answers
	// a Float, and the comparison says so)
	r = newRig(t, rigOpts{script: script("sum: a with: b\n\tself memory.\n\t^ a + b", []scripted.Answer{approvedAnswer()})})
	_, err = r.run(sumWith, func(req *refactor.Request) { req.DryRun = true })
	require.NoError(t, err)
	assert.NotContains(t, r.model.prompt(refactor.RoleWriter, 0), "Calculator>>memory,", "the original sends nothing to self")
	assert.Contains(t, r.model.prompt(refactor.RoleValidator, 0), `label="Calculator>>memory, sent to self"`, "the candidate does")
}

// A recitation is not a failed run: the writer is asked once more.
func TestARecitationCostsOneCallMore(t *testing.T) {
	t.Parallel()
	s := script(newSum, []scripted.Answer{approvedAnswer()})
	s[refactor.RoleWriter] = append([]scripted.Answer{{FinishReason: "recitation"}}, s[refactor.RoleWriter]...)
	r := newRig(t, rigOpts{script: s})
	res, err := r.run(sumWith)
	require.NoError(t, err)
	assert.Equal(t, refactor.OutcomeReleased, res.Outcome)
	assert.Equal(t, 4, res.Usage.ModelCalls)
	assert.Equal(t, 2, r.model.count(refactor.RoleWriter))
}

// A method longer than the context budget is shown cut, with a marker; it
// is reviewed, not rewritten: no rewrite of it could be whole or checked.
func TestAMethodOverTheBudgetIsReviewedNotRewritten(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOpts{
		script:  script(newSum, []scripted.Answer{approvedAnswer()}),
		prepare: func(dir string) { addMethod(t, dir, "Calculator", hugeMethod(200<<10)) },
	})
	before := r.snapshot()
	res, err := r.run(refactor.MethodRef{Class: "Calculator", Selector: "huge"})
	require.Error(t, err)
	assert.Equal(t, refactor.NotApproved, refactor.KindOf(err))
	assert.Equal(t, 1, res.Usage.ModelCalls, "the review only")
	assert.NotNil(t, res.Review)
	assert.Equal(t, []string{refactor.TruncatedMethodSource}, res.Truncated)
	assert.Contains(t, res.Feedback, "PROMPT_MAX_METHOD_BYTES")
	assert.Equal(t, before, r.snapshot())
	prompt := r.model.prompt(refactor.RoleReviewer, 0)
	assert.Contains(t, prompt, "[… truncated: 32768 of")
	assert.Contains(t, prompt, "Cut to fit the context budget")
	assert.Less(t, len(prompt), 64<<10, "the prompt stays within the budget")
}

// hugeMethod is a unary method #huge of about n bytes.
func hugeMethod(n int) string {
	var b strings.Builder
	b.WriteString("huge\n\t| t |\n\tt := 0.\n")
	for b.Len() < n {
		b.WriteString("\tt := t + 1.\n")
	}
	b.WriteString("\t^ t")
	return b.String()
}

// addMethod appends a method to a class file of the sample package.
func addMethod(t *testing.T, dir, class, source string) {
	t.Helper()
	path := filepath.Join(dir, "src", "Sample-Shop", class+".class.st")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	pattern, body, _ := strings.Cut(source, "\n")
	data = append(data, []byte("\n{ #category : 'generated' }\n"+class+" >> "+pattern+" [\n"+body+"\n]\n")...)
	require.NoError(t, os.WriteFile(path, data, 0o644))
}
