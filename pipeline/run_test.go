package pipeline_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/agents/scripted"
)

// TestOutcomes covers every way a run ends: what it answers, what the audit
// row says, how many model calls it made, and what the image holds.
func TestOutcomes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		ref        refactor.MethodRef
		script     map[refactor.Role][]scripted.Answer
		configure  func(*refactor.Request)
		kind       refactor.Kind // "" for success
		outcome    refactor.Outcome
		status     refactor.Status
		calls      int
		iterations int
		holds      string // a text the method's source must hold afterwards ("" = unchanged)
		// noEquivalence: the candidate changes behaviour on purpose, to
		// reach the guard under test (see testGateOnly).
		noEquivalence bool
	}{
		{
			name: "approved in round one is released with three calls", ref: sumWith,
			script:  script(newSum, []scripted.Answer{approvedAnswer()}),
			outcome: refactor.OutcomeReleased, status: refactor.StatusReleased, calls: 3, iterations: 1, holds: newSum,
		},
		{
			name: "class side, approved in round one", ref: taxRateSide,
			script:  script("taxRate\n\t\"The tax rate in percent, 20 unless set\"\n\n\t^ TaxRate ifNil: [ TaxRate := 20 ]", []scripted.Answer{approvedAnswer()}),
			outcome: refactor.OutcomeReleased, status: refactor.StatusReleased, calls: 3, iterations: 1, holds: "20 unless set",
		},
		{
			name: "approved in round two costs refine and validate more", ref: sumWith,
			script:  script("sum: a with: b\n\t^ b + a", []scripted.Answer{needsWorkAnswer("Say what it answers."), approvedAnswer()}, newSum),
			outcome: refactor.OutcomeReleased, status: refactor.StatusReleased, calls: 5, iterations: 2, holds: newSum,
		},
		{
			name: "never approved releases nothing", ref: sumWith,
			script: script("sum: a with: b\n\t^ b + a", []scripted.Answer{needsWorkAnswer("Still unclear.")}, "sum: a with: b\n\t^ a + b + 0", "sum: a with: b\n\t^ a + b + 0"),
			kind:   refactor.NotApproved, status: refactor.StatusFailed, calls: 7, iterations: 3,
		},
		{
			name: "a dry run proposes and compiles nothing", ref: sumWith,
			script:    script(newSum, []scripted.Answer{approvedAnswer()}),
			configure: func(r *refactor.Request) { r.DryRun = true },
			outcome:   refactor.OutcomeProposed, status: refactor.StatusProposed, calls: 3, iterations: 1,
		},
		{
			name: "a release that breaks a test is rolled back", ref: sumWith,
			script: script(subtractingSum, []scripted.Answer{approvedAnswer()}),
			kind:   refactor.TestsRegressed, status: refactor.StatusRolledBack, calls: 3, iterations: 1, noEquivalence: testGateOnly,
		},
		{
			name: "without the tests the same candidate is released", ref: sumWith,
			script:    script(subtractingSum, []scripted.Answer{approvedAnswer()}),
			configure: func(r *refactor.Request) { r.RunTests = false },
			outcome:   refactor.OutcomeReleased, status: refactor.StatusReleased, calls: 3, iterations: 1, holds: "^ a - b", noEquivalence: testGateOnly,
		},
		{
			name: "an unknown class is not found before any model call", ref: refactor.MethodRef{Class: "NoSuchClass", Selector: "foo"},
			kind: refactor.ClassNotFound, status: refactor.StatusFailed,
		},
		{
			name: "an unknown method is not found before any model call", ref: refactor.MethodRef{Class: "Calculator", Selector: "noSuchMethod"},
			kind: refactor.MethodNotFound, status: refactor.StatusFailed,
		},
		{
			name: "a model that keeps failing is model_unavailable", ref: sumWith,
			script: map[refactor.Role][]scripted.Answer{refactor.RoleReviewer: {{Error: "overloaded"}}},
			kind:   refactor.ModelUnavailable, status: refactor.StatusFailed, calls: 1,
		},
		{
			name: "an answer that is unusable twice is model_bad_output", ref: sumWith,
			script: map[refactor.Role][]scripted.Answer{refactor.RoleReviewer: {{Text: "no idea"}, {Text: "still no idea"}}},
			kind:   refactor.ModelBadOutput, status: refactor.StatusFailed, calls: 2,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, rigOpts{script: tc.script, noEquivalence: tc.noEquivalence})
			before := r.snapshot()
			res, err := r.run(tc.ref, func(req *refactor.Request) {
				if tc.configure != nil {
					tc.configure(req)
				}
			})
			if tc.kind == "" {
				require.NoError(t, err)
				assert.Equal(t, tc.outcome, res.Outcome)
			} else {
				require.Error(t, err)
				assert.Equal(t, tc.kind, refactor.KindOf(err), "%v", err)
			}
			if tc.holds == "" {
				assert.Equal(t, before, r.snapshot(), "the image is byte-identical to before")
			} else {
				assert.Contains(t, r.source(tc.ref), tc.holds)
			}
			if res == nil {
				return
			}
			assert.Equal(t, tc.calls, res.Usage.ModelCalls)
			assert.Equal(t, tc.iterations, res.Iterations)
			row := r.row(res.ID)
			assert.Equal(t, tc.status, row.Status)
			assert.Equal(t, tc.status, res.RunStatus, "the result says what the row says")
			assert.Equal(t, string(tc.kind), row.ErrorCode)
			assert.Equal(t, res.Usage.ModelCalls, row.ModelCalls)
			assert.Equal(t, res.RefactoredCode, row.FinalSource)
		})
	}
}

// TestBrokenCandidatesCostNoValidatorCall: a candidate failing the local or
// compile checks goes straight back to the refiner; only the good one is
// validated.
func TestBrokenCandidatesCostNoValidatorCall(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		candidate string
		check     string
	}{
		{"does not parse", "sum: a with: b\n\t^ (a + b", "parse"},
		{"renames the selector", "add: a to: b\n\t^ a + b", "selector"},
		{"undeclared variable", "sum: a with: b\n\t^ a + c", "undeclared"},
		{"assigns to an argument", "sum: a with: b\n\ta := a + b.\n\t^ a", "argument_assignment"},
		{"unknown global", "sum: a with: b\n\t^ NoSuchHelper add: a to: b", "undeclared"},
		{"new system capability", "sum: a with: b\n\tSmalltalk at: #Last put: a.\n\t^ a + b", "capability"},
		{"adds unreachable code", "sum: a with: b\n\t^ a + b.\n\ta printString", "unreachable"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, rigOpts{script: script(tc.candidate, []scripted.Answer{approvedAnswer()}, newSum)})
			res, err := r.run(sumWith)
			require.NoError(t, err)
			assert.Equal(t, 1, r.model.count(refactor.RoleValidator), "only the good candidate was validated")
			assert.Equal(t, 1, r.model.count(refactor.RoleRefiner))
			assert.Equal(t, 4, res.Usage.ModelCalls)
			require.Len(t, res.Rounds, 2)
			require.NotEmpty(t, res.Rounds[0].CheckErrors)
			assert.Equal(t, tc.check, res.Rounds[0].CheckErrors[0].Check)
			assert.Nil(t, res.Rounds[0].Verdict)
		})
	}
}

// TestMethodEditedDuringRunIsNotOverwritten: an edit made in the image
// while the model works wins; the run answers method_changed.
func TestMethodEditedDuringRunIsNotOverwritten(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOpts{script: script(newSum, []scripted.Answer{approvedAnswer()})})
	edited := "sum: a with: b\n\t\"edited by a person\"\n\t^ a + b"
	r.model.before = func(role refactor.Role) {
		if role == refactor.RoleValidator {
			require.NoError(t, r.image.Install(context.Background(), sumWith, edited, "calculating"))
		}
	}
	res, err := r.run(sumWith)
	require.Error(t, err)
	assert.Equal(t, refactor.MethodChanged, refactor.KindOf(err))
	assert.Contains(t, r.source(sumWith), "edited by a person")
	assert.Equal(t, refactor.StatusFailed, r.row(res.ID).Status)
}

// TestAlreadyFailingTestDoesNotBlock: only a test that passed before and
// fails after is a regression.
func TestAlreadyFailingTestDoesNotBlock(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOpts{script: script(newSum, []scripted.Answer{approvedAnswer()})})
	require.NoError(t, r.image.Install(context.Background(), divideBy, "divide: a by: b\n\tb isZero ifTrue: [ ^ nil ].\n\t^ a * b", "calculating"))
	res, err := r.run(sumWith)
	require.NoError(t, err)
	assert.Empty(t, res.Tests.Regressions)
	require.NotEmpty(t, res.Tests.Before)
	assert.Equal(t, []string{"CalculatorTest>>#testDivide"}, res.Tests.Before[0].Report.FailedTests)
}

// TestRegressionKeepsBothReports: the rolled-back run carries the reports
// of both phases, in the result and in the row.
func TestRegressionKeepsBothReports(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOpts{script: script(subtractingSum, []scripted.Answer{approvedAnswer()}), noEquivalence: testGateOnly})
	res, err := r.run(sumWith)
	require.Error(t, err)
	assert.True(t, res.RolledBack)
	assert.Equal(t, []string{"CalculatorTest>>#testSum"}, res.Tests.Regressions)
	assert.Len(t, res.Tests.Before, 1)
	assert.Len(t, res.Tests.After, 1)
	row := r.row(res.ID)
	assert.NotEmpty(t, row.TestsBefore)
	assert.NotEmpty(t, row.TestsAfter)
}

// TestTheSlotIsSingle: a second reservation is refused at once while a run
// holds the slot, with a time to come back.
func TestTheSlotIsSingle(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOpts{script: script(newSum, []scripted.Answer{approvedAnswer()})})
	slot, err := r.pipe.Reserve()
	require.NoError(t, err)
	assert.True(t, r.pipe.Busy())
	_, err = r.pipe.Reserve()
	assert.Equal(t, refactor.Busy, refactor.KindOf(err))
	assert.GreaterOrEqual(t, r.pipe.RetryAfter(), 1)
	slot.Free()
	assert.False(t, r.pipe.Busy())
}

func TestNoModelIsRefusedBeforeARun(t *testing.T) {
	r := newRig(t, rigOpts{noModel: true})
	assert.False(t, r.pipe.ModelConfigured())
	_, err := r.pipe.Reserve()
	assert.Equal(t, refactor.ModelNotConfigured, refactor.KindOf(err))
}

// TestDeadlineAndCancellation: a run whose deadline passes before release
// is a timeout; one whose client leaves is canceled; neither compiles.
func TestDeadlineAndCancellation(t *testing.T) {
	slow := script(newSum, []scripted.Answer{approvedAnswer()})
	slow[refactor.RoleReviewer] = []scripted.Answer{{JSON: reviewAnswer().JSON, DelayMS: 60_000}}
	cases := []struct {
		name    string
		timeout time.Duration
		ctx     func() (context.Context, context.CancelFunc)
		kind    refactor.Kind
	}{
		{"the run's deadline passes", 200 * time.Millisecond, func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }, refactor.Timeout},
		{"the client goes away", time.Minute, func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(200*time.Millisecond, cancel)
			return ctx, cancel
		}, refactor.Canceled},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, rigOpts{script: slow, timeout: tc.timeout})
			before := r.file("Calculator")
			ctx, cancel := tc.ctx()
			defer cancel()
			res, err := r.runCtx(ctx, sumWith)
			assert.Equal(t, tc.kind, refactor.KindOf(err), "%v", err)
			assert.Equal(t, before, r.file("Calculator"))
			assert.Equal(t, string(tc.kind), r.row(res.ID).ErrorCode)
			assert.False(t, r.pipe.Busy(), "the slot is free again")
		})
	}
}

// TestAnotherTonelTree: the corpus, a Pharo 11 tree in the symbol style,
// served as an image: an extension method keeps its *Package protocol and
// its file keeps its style.
func TestAnotherTonelTree(t *testing.T) {
	t.Parallel()
	blank := "tkIsBlank\n\t\"Answer whether the receiver holds only separators\"\n\n\t^ self allSatisfy: [ :each | each isSeparator ]"
	r := newRig(t, rigOpts{tree: "testdata/corpus", script: script(blank, []scripted.Answer{approvedAnswer()})})
	res, err := r.run(refactor.MethodRef{Class: "String", Selector: "tkIsBlank"})
	require.NoError(t, err)
	assert.Equal(t, "*TextKit-Core", res.Protocol)
	file, err := os.ReadFile(filepath.Join(r.dir, "src", "TextKit-Core", "String.extension.st"))
	require.NoError(t, err)
	assert.Contains(t, string(file), "{ #category : #'*TextKit-Core' }\nString >> tkIsBlank [\n\t\"Answer whether the receiver holds only separators\"")
}
