package api_test

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/internal/testenv"
)

// realImage is a tree with no test oracle: pharo-sim runs its tests.
const realImage = "testdata/real-tests"

// TestRealTestsGuardARelease: over HTTP against pharo-sim as a subprocess,
// with no oracle, a rewrite of Ledger>>total that keeps its behaviour is
// released with LedgerTest run before and after, and one that changes its
// result is 422 tests_regressed with the file byte-identical.
func TestRealTestsGuardARelease(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		candidate string
		status    int
	}{
		{"behaviour kept", "total\n\t^ entries inject: 0 into: [ :sum :amount | sum + amount ]", http.StatusOK},
		{"result changed", "total\n\t^ entries inject: 0 into: [ :sum :amount | sum + amount abs ]", http.StatusUnprocessableEntity},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, harnessOpts{image: realImage, noEquivalence: true})
			file := filepath.Join(h.dir, "src", "Ledger-Core", "Ledger.class.st")
			before, err := os.ReadFile(file)
			require.NoError(t, err)
			h.gem.ScriptAll(testenv.ApprovedInRoundOne(tc.candidate))
			resp, out := h.refactor(`{"class_name": "Ledger", "method_name": "total"}`)
			require.Equal(t, tc.status, resp.StatusCode, "%v", out)
			tests, ok := out["tests"].(map[string]any)
			require.True(t, ok, "%v", out)
			for _, when := range []string{"before", "after"} {
				runs := tests[when].([]any)
				require.Len(t, runs, 1, when)
				report := runs[0].(map[string]any)["report"].(map[string]any)
				assert.Equal(t, float64(7), report["ran"], "%s: LedgerTest ran for real", when)
			}
			after, err := os.ReadFile(file)
			require.NoError(t, err)
			if tc.status == http.StatusOK {
				assert.Contains(t, string(after), "inject:")
				return
			}
			assert.Equal(t, "tests_regressed", out["code"])
			assert.Equal(t, before, after, "the file is byte-identical")
			assert.Equal(t, []any{"LedgerTest>>#testAverage", "LedgerTest>>#testNegativeAmountsCount", "LedgerTest>>#testTotal"}, tests["regressions"])
		})
	}
}
