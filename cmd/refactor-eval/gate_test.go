package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var sampleImage = filepath.Join("..", "..", "examples", "sample-image")

// tinyConfig is the gate on three methods of the sample image.
func tinyConfig(t *testing.T, equivalence bool) config {
	return config{Out: filepath.Join(t.TempDir(), "results.json"), Settings: Settings{
		Corpus:      []string{sampleImage},
		Methods:     []string{"Calculator>>average:", "Calculator>>divide:by:", "OrderProcessor>>shippingCostFor:"},
		Equivalence: equivalence, PerOperator: 3, Unreached: 3,
	}}
}

// The gate end to end on three methods, with the comparison on and off:
// every candidate is counted once, no faithful rewrite is refused, the
// comparison refuses mutants the tests let through (quo: for / in
// average:, whose tests divide evenly), a mutant the tests catch is
// rolled back, and neither the image copy after any candidate nor the
// corpus changes.
func TestGateEndToEnd(t *testing.T) {
	t.Parallel()
	corpusBefore, err := corpusHash([]string{sampleImage})
	require.NoError(t, err)

	var reports [2]*Report
	for i, equivalence := range []bool{true, false} {
		c := tinyConfig(t, equivalence)
		var progress bytes.Buffer
		r, err := gateRun(context.Background(), c, newProgress(&progress))
		require.NoError(t, err)
		reports[i] = r
		require.Len(t, r.Methods, 3)
		assert.Equal(t, 3, strings.Count(progress.String(), "\n"), "a plain line per method: %s", progress.String())

		f := r.Gate
		mutants, faithful := 0, 0
		for _, m := range r.Methods {
			for _, cand := range m.Candidates {
				assert.True(t, cand.ImageIntact, "%s %s %s: %s", m.Method, cand.Operator, cand.Where, cand.Detail)
				assert.NotEmpty(t, cand.Diff)
				if cand.Kind == KindMutant {
					mutants++
				} else {
					faithful++
				}
				if cand.Guard == GuardTests {
					assert.True(t, cand.RolledBack, "a run refused for its tests was rolled back")
				}
			}
		}
		assert.Equal(t, mutants, f.Mutants.Total)
		assert.Equal(t, faithful, f.Faithful.Total)
		assert.Positive(t, f.Faithful.Total)
		assert.Zero(t, f.Faithful.Refused, "false alarms: %+v", f.Faithful.RefusedList)
		assert.Zero(t, f.ImageChanged)
		refused := 0
		for _, n := range f.Mutants.ByGuard {
			refused += n
		}
		assert.Equal(t, f.Mutants.Total, f.Mutants.Released+refused)
		assert.Len(t, f.Mutants.ReleasedList, f.Mutants.Released)

		var onDisk Report
		data, err := os.ReadFile(c.Out)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(data, &onDisk))
		assert.Equal(t, r.Gate.Mutants.Total, onDisk.Gate.Mutants.Total)
		assert.Equal(t, r.Hash, onDisk.Hash)

		var table bytes.Buffer
		r.printTable(&table)
		assert.Contains(t, table.String(), "mutants")
	}
	on, off := reports[0].Gate, reports[1].Gate
	assert.Equal(t, on.Mutants.Total, off.Mutants.Total, "the same mutants either way")
	assert.Positive(t, on.Mutants.ByGuard[GuardEquivalence])
	assert.Zero(t, off.Mutants.ByGuard[GuardEquivalence])
	assert.Positive(t, off.Mutants.ByGuard[GuardTests])
	assert.Less(t, on.Mutants.Released, off.Mutants.Released, "the comparison refuses what the tests let through")
	assert.True(t, releasedWith(off, "Calculator>>average:", "/ → quo:"), "the tests alone let quo: for / through: %+v", off.Mutants.ReleasedList)
	assert.False(t, releasedWith(on, "Calculator>>average:", "/ → quo:"))

	corpusAfter, err := corpusHash([]string{sampleImage})
	require.NoError(t, err)
	assert.Equal(t, corpusBefore, corpusAfter, "the corpus itself is never touched")
}

func releasedWith(f Figures, method, where string) bool {
	for _, l := range f.Mutants.ReleasedList {
		if l.Method == method && strings.Contains(l.Where, where) {
			return true
		}
	}
	return false
}

// An interrupted run resumes: the methods already in the report are kept
// as they are and not measured again; a report made with other settings
// is started afresh.
func TestResume(t *testing.T) {
	t.Parallel()
	c := tinyConfig(t, true)
	c.Methods = c.Methods[:2]
	full, err := gateRun(context.Background(), c, nil)
	require.NoError(t, err)
	require.Len(t, full.Methods, 2)

	// As if the run had stopped after its first method.
	first := full.Methods[0]
	first.Candidates[0].Seconds = 1234 // a mark the resumed run must keep
	cut := &Report{Mode: "gate", Hash: full.Hash, Settings: full.Settings, Methods: []MethodResult{first}}
	require.NoError(t, cut.write(c.Out))

	var progress bytes.Buffer
	resumed, err := gateRun(context.Background(), c, newProgress(&progress))
	require.NoError(t, err)
	assert.Contains(t, progress.String(), "resuming")
	assert.Contains(t, progress.String(), "1 methods already measured")
	assert.NotContains(t, progress.String(), first.Method+":", "the first method is not measured again")
	require.Len(t, resumed.Methods, 2)
	assert.Equal(t, 1234.0, resumed.Methods[0].Candidates[0].Seconds)
	assert.Equal(t, full.Methods[1].Method, resumed.Methods[1].Method)
	assert.Equal(t, full.Gate.Mutants.Total, resumed.Gate.Mutants.Total)

	// Other settings: the report is not resumed.
	c.Equivalence = false
	progress.Reset()
	fresh, err := gateRun(context.Background(), c, newProgress(&progress))
	require.NoError(t, err)
	assert.NotContains(t, progress.String(), "resuming")
	assert.NotEqual(t, full.Hash, fresh.Hash)
	assert.NotEqual(t, 1234.0, fresh.Methods[0].Candidates[0].Seconds)
}

// The settings come from the environment; EVAL_MODELS selects the model
// mode, with its own default report, and a malformed entry is refused.
func TestReadConfig(t *testing.T) {
	t.Parallel()
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	c, err := readConfig(env(nil))
	require.NoError(t, err)
	assert.Equal(t, []string{"examples/sample-image", "eval/corpus"}, c.Corpus)
	assert.True(t, c.Equivalence)
	assert.Equal(t, "eval/results.json", c.Out)

	c, err = readConfig(env(map[string]string{"EVAL_CORPUS": "a, b", "EVAL_METHODS": "Foo>>bar,Foo class>>baz:",
		"EVAL_EQUIVALENCE": "off", "EVAL_OUT": "x.json", "EVAL_PER_OPERATOR": "0"}))
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b"}, c.Corpus)
	assert.Equal(t, []string{"Foo>>bar", "Foo class>>baz:"}, c.Methods)
	assert.False(t, c.Equivalence)
	assert.Equal(t, 0, c.PerOperator)

	c, err = readConfig(env(map[string]string{"EVAL_MODELS": "gemini:gemini-2.5-flash, openai:llama3", "GEMINI_API_KEY": "k"}))
	require.NoError(t, err)
	assert.Equal(t, []ModelSpec{{ProviderGemini, "gemini-2.5-flash"}, {ProviderOpenAI, "llama3"}}, c.Models)
	assert.Equal(t, "eval/models.json", c.Out)
	assert.Equal(t, "eval/prices.json", c.Prices)
	assert.Equal(t, 3, c.Service.MaxValidationIterations, "the service's own settings")
	for _, bad := range []string{"gemini", "anthropic:claude", "gemini:", "gemini:a,gemini:a", " , "} {
		_, err = readConfig(env(map[string]string{"EVAL_MODELS": bad}))
		assert.ErrorContains(t, err, "EVAL_MODELS", bad)
	}
	_, err = readConfig(env(map[string]string{"EVAL_EQUIVALENCE": "maybe"}))
	assert.Error(t, err)
}
