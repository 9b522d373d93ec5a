package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/internal/testenv"
)

// The rewrites the fake models propose for the sample image's Calculator.
const (
	faithfulAverage = "average: aCollection\n\t| sum count |\n\tsum := 0.\n\tcount := 0.\n\taCollection do: [ :each |\n\t\tsum := sum + each.\n\t\tcount := count + 1 ].\n\tcount = 0 ifTrue: [ ^ 0 ].\n\t^ sum / count"
	// truncatingAverage passes CalculatorTest (12 quo: 4 is 3); the
	// comparison with the original tells it apart.
	truncatingAverage = "average: aCollection\n\t| sum count |\n\tsum := 0.\n\tcount := 0.\n\taCollection do: [ :each |\n\t\tsum := sum + each.\n\t\tcount := count + 1 ].\n\tcount = 0 ifTrue: [ ^ 0 ].\n\t^ sum quo: count"
	composedPercent   = "percent: x of: y\n\ty = 0 ifTrue: [ ^ 0 ].\n\t^ self scaledPercent: x of: y"
	percentHelper     = "scaledPercent: x of: y\n\t^ x * 100 / y"
	plainPercent      = "percent: x of: y\n\ty = 0 ifTrue: [ ^ 0 ].\n\t^ x * 100 / y"
)

// fakeRun is what one provider's fake server is scripted to do with the
// two methods, and what the per-model table must then show.
type fakeRun struct {
	model   string
	answers testenv.Answers
	usage   map[refactor.Role]testenv.TokenUsage // what each role's answers report
	want    ModelFigures                         // outcomes, rounds, calls, catches, helpers
	byRun   map[string]ModelRun                  // per method: outcome, approved round, calls
}

// scripted gives every reply of a the usage its role reports.
func (f fakeRun) scripted() testenv.Answers {
	out := testenv.Answers{}
	for role, replies := range f.answers {
		for _, r := range replies {
			out[role] = append(out[role], r.WithUsage(f.usage[role]))
		}
	}
	return out
}

// The model mode against the project's fake Gemini and OpenAI servers,
// through the real provider clients and the real pipeline in verify mode:
// the per-model table's calls and tokens are what the fakes reported in
// their answers, summed over the requests they received; the cost is the
// price table's, and unknown (never 0) for a model it does not name;
// outcomes, rounds, the comparison's catches and the helpers are each
// model's own; the image copy is the corpus after every run, and the
// corpus is untouched. A second run resumes and calls no model.
func TestModelModeAgainstTheFakeServers(t *testing.T) {
	t.Parallel()
	runs := []fakeRun{
		{
			// average: approved in round 1; percent:of: approved in round
			// 1 with a helper method.
			model: "gemini:gemini-2.5-flash",
			answers: testenv.Answers{
				refactor.RoleReviewer:  {testenv.Review()},
				refactor.RoleWriter:    {testenv.Code(faithfulAverage), testenv.ComposedCode(composedPercent, percentHelper)},
				refactor.RoleValidator: {testenv.Approved()},
			},
			usage: map[refactor.Role]testenv.TokenUsage{
				refactor.RoleReviewer:  {Input: 1200, Output: 300, Thoughts: 500},
				refactor.RoleWriter:    {Input: 1500, Output: 400, Thoughts: 700},
				refactor.RoleValidator: {Input: 1800, Output: 60, Thoughts: 250},
			},
			want: ModelFigures{Methods: 2, Outcomes: map[string]int{"verified": 2}, ApprovedInRound: map[string]int{"1": 2},
				ModelCalls: 6, Helpers: 1},
			byRun: map[string]ModelRun{
				"Calculator>>average:":    {Outcome: "verified", ApprovedRound: 1, ModelCalls: 3},
				"Calculator>>percent:of:": {Outcome: "verified", ApprovedRound: 1, ModelCalls: 3, Helpers: 1},
			},
		},
		{
			// average: a truncating candidate the comparison refuses, then
			// the faithful one approved in round 2; percent:of: rejected in
			// every round.
			model: "openai:local-model",
			answers: testenv.Answers{
				refactor.RoleReviewer:  {testenv.Review()},
				refactor.RoleWriter:    {testenv.Code(truncatingAverage), testenv.Code(plainPercent)},
				refactor.RoleRefiner:   {testenv.Code(faithfulAverage), testenv.Code(plainPercent)},
				refactor.RoleValidator: {testenv.Approved(), testenv.NeedsWork("Name the scale.")},
			},
			usage: map[refactor.Role]testenv.TokenUsage{
				refactor.RoleReviewer:  {Input: 900, Output: 200},
				refactor.RoleWriter:    {Input: 1000, Output: 350, Thoughts: 100},
				refactor.RoleRefiner:   {Input: 1100, Output: 330},
				refactor.RoleValidator: {Input: 1300, Output: 40},
			},
			want: ModelFigures{Methods: 2, Outcomes: map[string]int{"verified": 1, "not_approved": 1}, ApprovedInRound: map[string]int{"2": 1},
				ModelCalls: 4 + 7, CaughtByComparison: 1},
			byRun: map[string]ModelRun{
				"Calculator>>average:":    {Outcome: "verified", ApprovedRound: 2, ModelCalls: 4, CaughtByComparison: 1},
				"Calculator>>percent:of:": {Outcome: "not_approved", ApprovedRound: 0, ModelCalls: 7},
			},
		},
	}
	gem := &testenv.FakeGemini{Key: "gemini-test-key"}
	gem.ScriptAll(runs[0].scripted())
	oai := &testenv.FakeOpenAI{Key: "openai-test-key", Models: []string{"local-model"}}
	oai.ScriptAll(runs[1].scripted())

	dir := t.TempDir()
	prices := filepath.Join(dir, "prices.json")
	require.NoError(t, os.WriteFile(prices, []byte(`{"currency": "USD", "source": "the test",
		"models": {"gemini:gemini-2.5-flash": {"input_per_million": 0.30, "output_per_million": 2.50}}}`), 0o644))
	out := filepath.Join(dir, "models.json")
	env := map[string]string{
		"EVAL_MODELS":  runs[0].model + "," + runs[1].model,
		"EVAL_CORPUS":  sampleImage,
		"EVAL_METHODS": "Calculator>>average:,Calculator>>percent:of:",
		"EVAL_OUT":     out, "EVAL_PRICES": prices,
		"GEMINI_API_KEY": "gemini-test-key", "GOOGLE_GEMINI_BASE_URL": testenv.Serve(t, gem),
		"OPENAI_BASE_URL": testenv.Serve(t, oai) + "/v1", "OPENAI_API_KEY": "openai-test-key",
	}
	corpusBefore, err := corpusHash([]string{sampleImage})
	require.NoError(t, err)

	var stdout, stderr bytes.Buffer
	require.NoError(t, run(context.Background(), func(k string) string { return env[k] }, &stdout, &stderr), stderr.String())
	report := readModelReport(t, out)
	require.Len(t, report.Models, 2)
	require.Len(t, report.Methods, 2)

	received := [][]testenv.Request{modelCalls(gem.Requests()), modelCalls(oai.Requests())}
	for i, fr := range runs {
		requests := received[i]
		var input, output int64
		for _, r := range requests {
			u := fr.usage[r.Role]
			input += u.Input
			output += u.Output + u.Thoughts // thinking is output, as it is billed
		}
		got := report.Models[i]
		assert.Equal(t, fr.model, got.Model)
		assert.Equal(t, len(requests), got.ModelCalls, "%s: the calls are the requests the fake received", fr.model)
		assert.Equal(t, fr.want.ModelCalls, got.ModelCalls, fr.model)
		assert.Equal(t, input, got.InputTokens, "%s: the input tokens the fake reported", fr.model)
		assert.Equal(t, output, got.OutputTokens, "%s: the output tokens the fake reported", fr.model)
		assert.Equal(t, fr.want.Outcomes, got.Outcomes, fr.model)
		assert.Equal(t, fr.want.ApprovedInRound, got.ApprovedInRound, fr.model)
		assert.Equal(t, fr.want.CaughtByComparison, got.CaughtByComparison, fr.model)
		assert.Zero(t, got.CaughtByTests, fr.model)
		assert.Equal(t, fr.want.Helpers, got.Helpers, fr.model)
		assert.Zero(t, got.ImageChanged, fr.model)
		for _, m := range report.Methods {
			r := runOf(t, m, fr.model)
			want := fr.byRun[m.Method]
			assert.Equal(t, want.Outcome, r.Outcome, "%s %s: %s", fr.model, m.Method, r.Detail)
			assert.Equal(t, want.ApprovedRound, r.ApprovedRound, "%s %s", fr.model, m.Method)
			assert.Equal(t, want.ModelCalls, r.ModelCalls, "%s %s", fr.model, m.Method)
			assert.Equal(t, want.CaughtByComparison, r.CaughtByComparison, "%s %s", fr.model, m.Method)
			assert.Equal(t, want.Helpers, r.Helpers, "%s %s", fr.model, m.Method)
			assert.Len(t, r.HelperCode, r.Helpers)
			assert.True(t, r.ImageIntact, "%s %s: %s", fr.model, m.Method, r.Detail)
			assert.Len(t, r.Refusals, r.Rounds-min(r.ApprovedRound, 1), "%s %s: a refusal per round not approved", fr.model, m.Method)
			if r.Outcome == "verified" {
				assert.Equal(t, []string{"CalculatorTest"}, r.TestClasses, "a verify run is its tests")
			}
		}
	}

	flash := report.Models[0]
	require.NotNil(t, flash.Cost, "the price table names the model")
	assert.InDelta(t, (float64(flash.InputTokens)*0.30+float64(flash.OutputTokens)*2.50)/1e6, *flash.Cost, 1e-12)
	assert.Nil(t, report.Models[1].Cost, "no price: the cost is unknown, not 0")

	table := stdout.String()
	for _, f := range report.Models {
		for _, cell := range []string{f.Model, strconv.Itoa(f.ModelCalls), strconv.FormatInt(f.InputTokens, 10), strconv.FormatInt(f.OutputTokens, 10)} {
			assert.Contains(t, table, cell)
		}
	}
	assert.Contains(t, table, formatCost(flash.Cost))
	assert.Contains(t, table, "unknown")
	assert.Contains(t, table, "approved in round 3", "every round MAX_VALIDATION_ITERATIONS allows")
	assert.Contains(t, stderr.String(), "Calculator>>percent:of: openai:local-model: not_approved", "a progress line per run")
	t.Logf("the table:\n%s", table)

	corpusAfter, err := corpusHash([]string{sampleImage})
	require.NoError(t, err)
	assert.Equal(t, corpusBefore, corpusAfter, "the corpus itself is never touched")

	// Run again: every run is in the report, so no model is called.
	callsBefore := len(modelCalls(gem.Requests())) + len(modelCalls(oai.Requests()))
	stderr.Reset()
	stdout.Reset()
	require.NoError(t, run(context.Background(), func(k string) string { return env[k] }, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "resuming")
	assert.Equal(t, callsBefore, len(modelCalls(gem.Requests()))+len(modelCalls(oai.Requests())), "a resumed run makes no run again")
	again := readModelReport(t, out)
	assert.Equal(t, report.Models, again.Models)
}

// modelCalls are the requests that asked a model for an answer (not the
// OpenAI base URL's probe).
func modelCalls(requests []testenv.Request) []testenv.Request {
	var out []testenv.Request
	for _, r := range requests {
		if strings.HasSuffix(r.Path, ":generateContent") || strings.HasSuffix(r.Path, "/chat/completions") {
			out = append(out, r)
		}
	}
	return out
}

func readModelReport(t *testing.T, path string) ModelReport {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var r ModelReport
	require.NoError(t, json.Unmarshal(data, &r))
	require.Equal(t, "models", r.Mode)
	return r
}

func runOf(t *testing.T, m ModelMethod, model string) ModelRun {
	t.Helper()
	for _, r := range m.Runs {
		if r.Model == model {
			return r
		}
	}
	require.Fail(t, fmt.Sprintf("%s has no run by %s", m.Method, model))
	return ModelRun{}
}

// A price table: a named model's cost from its prices per million tokens,
// a model it does not name unknown, a missing file every cost unknown, and
// a misspelt price refused rather than taken for no price.
func TestPrices(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		return p
	}
	good := write("good.json", `{"models": {"gemini:m": {"input_per_million": 1.25, "output_per_million": 10}}}`)
	cases := []struct {
		name    string
		path    string
		model   string
		want    *float64
		wantErr string
	}{
		{"named", good, "gemini:m", ptr(2_000_000*1.25/1e6 + 500_000*10/1e6), ""},
		{"not named", good, "openai:x", nil, ""},
		{"no file", filepath.Join(dir, "none.json"), "gemini:m", nil, ""},
		{"misspelt", write("typo.json", `{"models": {"gemini:m": {"input_per_1m": 1}}}`), "gemini:m", nil, "unknown field"},
		{"negative", write("neg.json", `{"models": {"gemini:m": {"input_per_million": -1}}}`), "gemini:m", nil, "negative"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			table, err := loadPrices(c.path)
			if c.wantErr != "" {
				assert.ErrorContains(t, err, c.wantErr)
				return
			}
			require.NoError(t, err)
			got := table.cost(c.model, 2_000_000, 500_000)
			if c.want == nil {
				assert.Nil(t, got)
				return
			}
			require.NotNil(t, got)
			assert.InDelta(t, *c.want, *got, 1e-12)
		})
	}
	shipped, err := loadPrices(filepath.Join("..", "..", "eval", "prices.json"))
	require.NoError(t, err)
	for _, model := range []string{"gemini:gemini-2.5-flash", "gemini:gemini-2.5-pro"} {
		assert.NotNil(t, shipped.cost(model, 1, 1), "the shipped table prices %s", model)
	}
}

func ptr(f float64) *float64 { return &f }

// A model the mode cannot build or reach is refused before any run, with
// the variable to set; no report is written.
func TestModelModeRefusesAModelItCannotReach(t *testing.T) {
	t.Parallel()
	notAnAPI := testenv.Serve(t, http.NotFoundHandler())
	cases := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"gemini without a key", map[string]string{"EVAL_MODELS": "gemini:gemini-2.5-flash"}, "GEMINI_API_KEY"},
		{"openai without a base URL", map[string]string{"EVAL_MODELS": "openai:llama3"}, "OPENAI_BASE_URL"},
		{"openai at no API", map[string]string{"EVAL_MODELS": "openai:llama3", "OPENAI_BASE_URL": notAnAPI}, "404"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "models.json")
			c.env["EVAL_OUT"], c.env["EVAL_CORPUS"], c.env["EVAL_METHODS"] = out, sampleImage, "Calculator>>average:"
			err := run(context.Background(), func(k string) string { return c.env[k] }, io.Discard, io.Discard)
			assert.ErrorContains(t, err, c.want)
			assert.NoFileExists(t, out)
		})
	}
}
