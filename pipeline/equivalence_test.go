package pipeline_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/agents/scripted"
)

// Candidates of Calculator>>average: on the sample image. CalculatorTest
// averages #(1 2 3 6) (3, exactly) and the empty collection only, so quo:
// for / passes every test: only the comparison tells them apart.
const (
	averageQuo = "average: aCollection\n\t\"Answer the mean of the elements, 0 when there are none\"\n\n" +
		"\t| sum count |\n\tsum := 0.\n\tcount := 0.\n\taCollection do: [ :each |\n\t\tsum := sum + each.\n\t\tcount := count + 1 ].\n" +
		"\tcount = 0 ifTrue: [ ^ 0 ].\n\t^ sum quo: count"
	averageFaithful = "average: aCollection\n\t\"Answer the mean of the elements, 0 when there are none\"\n\n" +
		"\t| sum count |\n\tsum := 0.\n\tcount := 0.\n\taCollection do: [ :each |\n\t\tsum := sum + each.\n\t\tcount := count + 1 ].\n" +
		"\tcount = 0 ifTrue: [ ^ 0 ].\n\t^ sum / count"
)

var averageRef = refactor.MethodRef{Class: "Calculator", Selector: "average:"}

// A candidate that changes behaviour goes back to the refiner with the
// input that shows it, before any validator call; the faithful rewrite
// that follows is validated once and released.
func TestABehaviourChangeGoesBackToTheRefinerWithItsWitness(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOpts{script: script(averageQuo, []scripted.Answer{approvedAnswer()}, averageFaithful)})
	res, err := r.run(averageRef)
	require.NoError(t, err)
	assert.Equal(t, refactor.OutcomeReleased, res.Outcome)
	require.Len(t, res.Rounds, 2, "equivalence: %+v", res.Equivalence)

	first := res.Rounds[0]
	require.Len(t, first.CheckErrors, 1, "%+v", first.CheckErrors)
	changed := first.CheckErrors[0]
	assert.Equal(t, "behaviour_changed", changed.Check)
	assert.NotEmpty(t, changed.Input)
	assert.NotEqual(t, changed.Original, changed.Candidate, "the witness shows two outcomes")
	assert.Nil(t, first.Verdict, "no validator call for a candidate that changed behaviour")
	t.Logf("witness: on %s the original %s, the candidate %s", changed.Input, changed.Original, changed.Candidate)

	refinerPrompt := r.model.prompt(refactor.RoleRefiner, 0)
	assert.Contains(t, refinerPrompt, "behaviour_changed")
	assert.Contains(t, refinerPrompt, changed.Input, "the refiner sees the input that shows the difference")
	assert.Equal(t, 1, r.model.count(refactor.RoleValidator), "the validator is called once, for the faithful rewrite")

	require.NotNil(t, res.Equivalence)
	assert.Equal(t, refactor.EquivalenceSame, res.Equivalence.Outcome)
	assert.Positive(t, res.Equivalence.Activations, "CalculatorTest reaches average:")
	assert.Positive(t, res.Equivalence.Compared)
	assert.Equal(t, 2, countStages(res.Stages, refactor.StageEquivalence), "one comparison per round")

	var row refactor.Equivalence
	require.NoError(t, json.Unmarshal(r.row(res.ID).Equivalence, &row))
	assert.Equal(t, *res.Equivalence, row, "the row holds the answer's equivalence")
	assert.Contains(t, r.file("Calculator"), "^ sum / count")
}

// A run whose candidates all change behaviour ends 422 behaviour_changed
// with nothing compiled and no validator call; with the comparison off the
// same candidate passes the tests and is released — what the comparison
// guards.
func TestBehaviourChangedAfterTheLastRound(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOpts{maxIterations: 2, script: script(averageQuo, []scripted.Answer{approvedAnswer()}, averageQuo)})
	before := r.file("Calculator")
	res, err := r.run(averageRef)
	require.Error(t, err)
	assert.Equal(t, refactor.BehaviourChanged, refactor.KindOf(err), "%v", err)
	assert.Equal(t, before, r.file("Calculator"), "nothing compiled")
	assert.Zero(t, r.model.count(refactor.RoleValidator))
	require.NotNil(t, res.Equivalence)
	assert.Equal(t, refactor.EquivalenceChanged, res.Equivalence.Outcome)
	require.NotNil(t, res.Equivalence.Witness)

	off := newRig(t, rigOpts{noEquivalence: true, script: script(averageQuo, []scripted.Answer{approvedAnswer()})})
	res, err = off.run(averageRef)
	require.NoError(t, err, "the tests alone let it through")
	assert.Equal(t, refactor.OutcomeReleased, res.Outcome)
	require.NotNil(t, res.Equivalence)
	assert.Equal(t, refactor.EquivalenceNotChecked, res.Equivalence.Outcome)
}

func countStages(stages []refactor.StageStat, name string) int {
	n := 0
	for _, s := range stages {
		if s.Name == name {
			n++
		}
	}
	return n
}
