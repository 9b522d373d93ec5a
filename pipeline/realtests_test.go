package pipeline_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/agents/scripted"
)

// realTree has no test oracle: pharo-sim runs LedgerTest on its
// interpreter.
const realTree = "testdata/real-tests"

var ledgerTotal = refactor.MethodRef{Class: "Ledger", Selector: "total"}

// TestReleaseGuardedByRealTests: with no oracle, a rewrite that keeps
// Ledger>>total's behaviour is released with LedgerTest run before and
// after; one that changes its result (`sum + amount abs`) breaks the tests
// that use negative amounts: tests_regressed, the tree byte for byte as it
// was.
func TestReleaseGuardedByRealTests(t *testing.T) {
	t.Parallel()
	const (
		preserving = "total\n\t^ entries inject: 0 into: [ :sum :amount | sum + amount ]"
		changing   = "total\n\t^ entries inject: 0 into: [ :sum :amount | sum + amount abs ]"
		baseline   = "7 ran, 5 passed, 1 skipped, 1 expected failure, 0 failures, 1 error, 0 passed unexpected"
	)
	t.Run("behaviour kept: released", func(t *testing.T) {
		r := newRig(t, rigOpts{tree: realTree, script: script(preserving, []scripted.Answer{approvedAnswer()})})
		res, err := r.run(ledgerTotal)
		require.NoError(t, err)
		assert.Equal(t, refactor.OutcomeReleased, res.Outcome)
		require.Len(t, res.Tests.Before, 1)
		require.Len(t, res.Tests.After, 1)
		assert.Equal(t, "LedgerTest", res.Tests.Before[0].Class)
		assert.Equal(t, baseline, res.Tests.Before[0].Report.Summary)
		assert.Equal(t, baseline, res.Tests.After[0].Report.Summary)
		assert.Equal(t, 7, res.Tests.After[0].Report.Ran)
		assert.Empty(t, res.Tests.Regressions)
		assert.Contains(t, r.source(ledgerTotal), "inject:")
	})
	t.Run("result changed: tests_regressed, nothing released", func(t *testing.T) {
		r := newRig(t, rigOpts{tree: realTree, script: script(changing, []scripted.Answer{approvedAnswer()}), noEquivalence: testGateOnly})
		image := r.snapshot()
		res, err := r.run(ledgerTotal)
		require.Error(t, err)
		assert.Equal(t, refactor.TestsRegressed, refactor.KindOf(err), "%v", err)
		assert.Equal(t, []string{"LedgerTest>>#testAverage", "LedgerTest>>#testNegativeAmountsCount", "LedgerTest>>#testTotal"},
			res.Tests.Regressions)
		assert.Equal(t, baseline, res.Tests.Before[0].Report.Summary)
		assert.Equal(t, 7, res.Tests.After[0].Report.Ran)
		assert.True(t, res.RolledBack)
		assert.Equal(t, image, r.snapshot(), "the tree is byte-identical")
		assert.Equal(t, refactor.StatusRolledBack, r.row(res.ID).Status)
	})
}
