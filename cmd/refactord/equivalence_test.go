package main

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/internal/testenv"
)

// Candidates of the sample image's Calculator>>average:. CalculatorTest
// averages #(1 2 3 6) and the empty collection only, so quo: for / passes
// every test; the comparison tells them apart.
const (
	averageWithQuo  = "average: aCollection\n\t\"Answer the mean of the elements, 0 when there are none\"\n\n\t| sum count |\n\tsum := 0.\n\tcount := 0.\n\taCollection do: [ :each |\n\t\tsum := sum + each.\n\t\tcount := count + 1 ].\n\tcount = 0 ifTrue: [ ^ 0 ].\n\t^ sum quo: count"
	averageFaithful = "average: aCollection\n\t\"Answer the mean of the elements, 0 when there are none\"\n\n\taCollection isEmpty ifTrue: [ ^ 0 ].\n\t^ (aCollection inject: 0 into: [ :sum :each | sum + each ]) / aCollection size"
)

// TestABehaviourChangeThroughTheService: through the real binaries, with
// the Gemini provider against a fake Gemini server, a writer that changes
// behaviour (quo: for /) and a refiner that then rewrites faithfully.
// Round 1 ends behaviour_changed with its witness and no validator call;
// the refiner's request carries the witness; the validator is called
// once; round 2 is released, and the answer and the run's row say how the
// comparison went.
func TestABehaviourChangeThroughTheService(t *testing.T) {
	gem := &testenv.FakeGemini{Key: "test-key"}
	gem.ScriptAll(testenv.Answers{
		refactor.RoleReviewer:  {testenv.Review()},
		refactor.RoleWriter:    {testenv.Code(averageWithQuo)},
		refactor.RoleRefiner:   {testenv.Code(averageFaithful)},
		refactor.RoleValidator: {testenv.Approved()},
	})
	dir, env := modelEnv(t, "MODEL_PROVIDER=gemini", "GEMINI_API_KEY=test-key", "GOOGLE_GEMINI_BASE_URL="+testenv.Serve(t, gem), "MODEL_ID=gemini-test")
	file := filepath.Join(dir, "image", "src", "Sample-Shop", "Calculator.class.st")
	s := start(t, dir, env...)

	resp, out, err := s.post("/api/v1/refactor", `{"class_name": "Calculator", "method_name": "average:"}`)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%v", out)
	assert.Equal(t, "released", out["outcome"])

	rounds, _ := out["rounds"].([]any)
	require.Len(t, rounds, 2, "%v", out)
	first := rounds[0].(map[string]any)
	checks, _ := first["check_errors"].([]any)
	require.Len(t, checks, 1, "%v", first)
	witness := checks[0].(map[string]any)
	assert.Equal(t, "behaviour_changed", witness["check"])
	input, _ := witness["input"].(string)
	require.NotEmpty(t, input, "%v", witness)
	assert.NotEqual(t, witness["original"], witness["candidate"])
	assert.Nil(t, first["verdict"], "no validator call for a candidate that changed behaviour")

	var refiner []string
	for _, r := range gem.Requests() {
		if r.Role == refactor.RoleRefiner {
			refiner = append(refiner, string(r.Body))
		}
	}
	require.Len(t, refiner, 1)
	assert.Contains(t, refiner[0], "behaviour_changed")
	assert.Contains(t, refiner[0], jsonEscaped(input), "the refiner sees the input that shows the difference")
	assert.Equal(t, 1, gem.Count(refactor.RoleValidator), "the validator is called once, for the faithful rewrite")

	eq, _ := out["equivalence"].(map[string]any)
	require.NotNil(t, eq, "%v", out)
	assert.Equal(t, "same", eq["outcome"])
	assert.Positive(t, eq["activations"], "CalculatorTest reaches average:")
	assert.Contains(t, string(mustRead(t, file)), "inject: 0 into:")

	row := s.row(out["id"].(string))
	rowEq, _ := row["equivalence"].(map[string]any)
	require.NotNil(t, rowEq, "%v", row)
	assert.Equal(t, "same", rowEq["outcome"])
}

// jsonEscaped is s as it appears inside a JSON string.
func jsonEscaped(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`).Replace(s)
}
