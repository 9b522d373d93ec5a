package pharosim

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/internal/testenv"
	"github.com/pharo-refactor/refactord/pharosim/interp"
)

// loadEquivalenceImage loads a fresh copy of testdata/equivalence: Scale,
// whose thin tests (ScaleTest) all pass.
func loadEquivalenceImage(t *testing.T) (*Image, string) {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, testenv.CopyTree("testdata/equivalence", dir))
	img, err := LoadImage(dir, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = img.Close() })
	return img, dir
}

// compareWithin compares under a deadline, as a tool call has one.
func compareWithin(t *testing.T, img *Image, req CompareRequest) interp.Verdict {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	v, err := img.CompareMethod(ctx, req)
	require.NoError(t, err)
	return v
}

// TestCompareMethodCatchesWhatTheTestsMiss: each candidate passes
// ScaleTest, yet behaves otherwise; the comparison finds an input that
// shows it, and says in which aspect.
func TestCompareMethodCatchesWhatTheTestsMiss(t *testing.T) {
	t.Parallel()
	img, _ := loadEquivalenceImage(t)
	cases := []struct {
		name      string
		selector  string
		candidate string
		aspect    string
		// what the witness's texts hold
		input, original, cand string
		recorded              bool // the witness is an input the tests gave
	}{
		{"quo: for / on the readings the tests use", "mean",
			"mean\n\t^ (readings inject: 0 into: [ :sum :each | sum + each ]) quo: readings size",
			interp.AspectAnswer, "stamp: nil) mean", "answered (-1/2)", "answered 0", true},
		{"a boundary moved where the tests weigh far from it", "category:",
			"category: aWeight\n\t^ aWeight <= 50 ifTrue: [ #light ] ifFalse: [ #heavy ]",
			interp.AspectAnswer, "category: 50", "answered #heavy", "answered #light", false},
		{"the readings sorted in place", "sortedReadings",
			"sortedReadings\n\t^ readings sort: [ :a :b | a <= b ]",
			interp.AspectReceiver, "stamp: nil) sortedReadings", "after the call, the receiver's readings", "an OrderedCollection(-4 3)", true},
		{"an error swallowed", "limit:",
			"limit: aNumber\n\taNumber < 0 ifTrue: [ ^ self ].\n\tlimit := aNumber",
			interp.AspectException, "limit: -", "signalled Error: a limit cannot be negative", "answered its receiver", false},
		{"a method no test reaches", "totalOf:",
			"totalOf: aCollection\n\t^ aCollection inject: 0 into: [ :sum :each | sum + each abs ]",
			interp.AspectAnswer, "totalOf: #(", "answered", "answered", false},
		{"a boundary in a method no test reaches, at a number the tests' receivers hold", "countAbove:",
			"countAbove: aNumber\n\t^ (readings select: [ :each | each >= aNumber ]) size",
			interp.AspectAnswer, "countAbove: ", "answered", "answered", false},
		{"a candidate that never ends", "total",
			"total\n\t| sum |\n\tsum := 0.\n\t[ true ] whileTrue: [ sum := sum + 1 ].\n\t^ sum",
			interp.AspectSteps, "stamp: nil) total", "answered -1", "ran out of its limits", true},
		{"a candidate that reaches for the files", "total",
			"total\n\t(FileSystem workingDirectory / 'x') delete.\n\t^ readings inject: 0 into: [ :a :b | a + b ]",
			interp.AspectException, "stamp: nil) total", "answered -1", "the disk (files)", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := compareWithin(t, img, CompareRequest{Class: "Scale", Selector: tc.selector, Candidate: tc.candidate,
				TestClasses: []string{"ScaleTest"}})
			require.Equal(t, interp.Changed, v.Outcome, "reason: %s", v.Reason)
			require.NotNil(t, v.Witness)
			w := v.Witness
			t.Logf("%+v %+v", v, *w)
			assert.Equal(t, tc.aspect, w.Aspect)
			assert.Contains(t, w.Input, tc.input)
			assert.Contains(t, w.Original, tc.original)
			assert.Contains(t, w.Candidate, tc.cand)
			assert.Empty(t, v.Reason)
			assert.Positive(t, v.Compared)
			if tc.recorded {
				assert.Positive(t, v.Activations, "the tests reach the method")
				assert.LessOrEqual(t, v.Compared, v.Recorded, "the witness is a recorded input")
			} else {
				assert.Greater(t, v.Compared, v.Recorded, "the witness is a generated input")
			}
		})
	}
}

// TestCompareMethodSeesFaithfulRewritesAsSame: rewrites that keep the
// behaviour are the same on every input, including a method that reads the
// clock (both sides of an input see one instant) and one that draws from
// Random new (both sides draw the same numbers).
func TestCompareMethodSeesFaithfulRewritesAsSame(t *testing.T) {
	t.Parallel()
	img, _ := loadEquivalenceImage(t)
	cases := []struct {
		name, selector, candidate string
		helpers                   []string
	}{
		{"inject:into: for a summing loop, the temporaries renamed", "total",
			"total\n\t^ readings inject: 0 into: [ :acc :reading | acc + reading ]", nil},
		{"the clock written into the receiver", "touch",
			"touch\n\t| now |\n\tnow := DateAndTime now.\n\tstamp := now", nil},
		{"a draw from Random new", "jitter",
			"jitter\n\t| generator |\n\tgenerator := Random new.\n\t^ (generator next * 10) rounded", nil},
		{"a helper the candidate brings", "mean",
			"mean\n\t^ self sumOfReadings / readings size",
			[]string{"sumOfReadings\n\t^ readings inject: 0 into: [ :a :b | a + b ]"}},
		{"a method no test reaches", "countAbove:",
			"countAbove: aNumber\n\t^ readings count: [ :r | r > aNumber ]", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := compareWithin(t, img, CompareRequest{Class: "Scale", Selector: tc.selector, Candidate: tc.candidate,
				Helpers: tc.helpers, TestClasses: []string{"ScaleTest"}})
			t.Logf("%+v", v)
			assert.Equal(t, interp.Same, v.Outcome, "reason %q, witness %+v", v.Reason, v.Witness)
			assert.Nil(t, v.Witness)
			assert.Empty(t, v.Reason)
			assert.Positive(t, v.Compared)
			assert.Zero(t, v.Unstable, "the original agrees with itself")
			assert.Equal(t, v.Recorded+v.Generated, v.Compared, "every input compared")
		})
	}
}

// treeDigest reads every file of a tree: what the image holds on disk.
func treeDigest(t *testing.T, root string) map[string]string {
	t.Helper()
	files := map[string]string{}
	require.NoError(t, filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		files[path] = string(data)
		return err
	}))
	return files
}

// TestCompareMethodThroughTheTool: compare_method answers in the usual
// envelope, with the result's keys as the service reads them; the image's
// errors come the usual way; and the image's files are byte for byte what
// they were: the candidate never entered the image.
func TestCompareMethodThroughTheTool(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, testenv.CopyTree("testdata/equivalence", dir))
	before := treeDigest(t, dir)
	c, _ := inProcess(t, Options{Dir: dir})

	env, _ := call(t, c, "compare_method", map[string]any{
		"class_name": "Scale", "method_name": "category:", "is_class_method": false,
		"candidate_source": "category: aWeight\r\t^ aWeight <= 50 ifTrue: [ #light ] ifFalse: [ #heavy ]",
		"helper_sources":   []any{}, "test_classes": "ScaleTest", "max_inputs": 16,
	})
	require.True(t, env.Success, string(env.Error))
	var result map[string]any
	require.NoError(t, json.Unmarshal(env.Result, &result))
	keys := make([]string, 0, len(result))
	for k := range result {
		keys = append(keys, k)
	}
	assert.ElementsMatch(t, []string{"outcome", "reason", "activations", "recorded", "generated", "compared", "unstable", "witness"}, keys)
	assert.Equal(t, "changed", result["outcome"])
	assert.Equal(t, "", result["reason"])
	assert.EqualValues(t, 2, result["activations"])
	assert.LessOrEqual(t, result["generated"], float64(16), "max_inputs bounds the generated inputs")
	assert.Equal(t, map[string]any{"input": "a Scale (readings: an OrderedCollection(3 -4), limit: 100, stamp: nil) category: 50", "original": "answered #heavy",
		"candidate": "answered #light", "aspect": "answer"}, result["witness"])

	env, _ = call(t, c, "compare_method", map[string]any{
		"class_name": "Scale", "method_name": "total", "test_classes": "ScaleTest",
		"candidate_source": "total\n\t^ readings inject: 0 into: [ :a :b | a + b ]",
	})
	require.True(t, env.Success, string(env.Error))
	var same compareAnswer
	require.NoError(t, json.Unmarshal(env.Result, &same))
	assert.Equal(t, "same", same.Outcome)
	assert.Nil(t, same.Witness)
	assert.NotContains(t, string(env.Result), "witness", "no witness key when nothing differs")

	failures := []struct {
		name string
		args map[string]any
		want string
	}{
		{"an unknown class", map[string]any{"class_name": "Nope", "method_name": "total", "candidate_source": "total ^ 1"},
			"KeyNotFound: key #Nope not found in SystemDictionary"},
		{"an unknown method", map[string]any{"class_name": "Scale", "method_name": "nope", "candidate_source": "nope ^ 1"},
			"KeyNotFound: key #nope not found in MethodDictionary"},
		{"a candidate that does not parse", map[string]any{"class_name": "Scale", "method_name": "total", "candidate_source": "total ^ (1"},
			"CodeError:OCSyntaxErrorNotice Scale>>#DoIt"},
		{"a candidate of another selector", map[string]any{"class_name": "Scale", "method_name": "total", "candidate_source": "sum ^ 1"},
			"Error: the candidate defines #sum, not #total"},
		{"a helper that does not parse", map[string]any{"class_name": "Scale", "method_name": "total", "candidate_source": "total ^ self h",
			"helper_sources": []any{"h ^ ]"}}, "CodeError:OCSyntaxErrorNotice"},
		{"a test class that is no TestCase", map[string]any{"class_name": "Scale", "method_name": "total", "candidate_source": "total ^ 1",
			"test_classes": "Scale"}, "MessageNotUnderstood: Scale class>>doesNotUnderstand: #suite"},
	}
	for _, tc := range failures {
		t.Run(tc.name, func(t *testing.T) {
			env, _ := call(t, c, "compare_method", tc.args)
			require.False(t, env.Success)
			var obj errorObject
			require.NoError(t, json.Unmarshal(env.Error, &obj))
			assert.Contains(t, obj.Description, tc.want)
		})
	}
	for _, tc := range []struct {
		name, want string
		maxInputs  any
	}{
		{"too many inputs", "max_inputs\n  Input should be less than or equal to 256", 1000},
		{"no inputs", "max_inputs\n  Input should be greater than or equal to 1", 0},
		{"not a number", "max_inputs\n  Input should be a valid integer", "many"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, res := call(t, c, "compare_method", map[string]any{"class_name": "Scale", "method_name": "total",
				"candidate_source": "total ^ 1", "max_inputs": tc.maxInputs})
			require.True(t, res.IsError)
			text, _ := mcp.AsTextContent(res.Content[0])
			assert.Contains(t, text.Text, tc.want)
		})
	}
	env, _ = call(t, c, "get_method_source", map[string]any{"class_name": "Scale", "method_name": "category:"})
	require.True(t, env.Success)
	assert.Contains(t, string(env.Result), "aWeight < 50", "the image still has its method")
	assert.Equal(t, before, treeDigest(t, dir), "the image's files are untouched")
}

// TestCompareMethodOnTheSampleImage: Calculator's methods rewritten
// faithfully are the same; the example, average: with quo: for /,
// passes CalculatorTest (#(1 2 3 6) averages 3 exactly) and is changed.
func TestCompareMethodOnTheSampleImage(t *testing.T) {
	t.Parallel()
	img, _ := loadTestImage(t)
	cases := []struct {
		name, selector, candidate string
		classSide                 bool
		outcome                   string
	}{
		{"average: as a loop with named temporaries", "average:",
			"average: aCollection\n\t| sum count |\n\tsum := 0.\n\tcount := 0.\n\taCollection do: [ :each |\n\t\tsum := sum + each.\n\t\tcount := count + 1 ].\n\tcount = 0 ifTrue: [ ^ 0 ].\n\t^ sum / count",
			false, interp.Same},
		{"percent:of: in one expression", "percent:of:",
			"percent: x of: y\n\ty = 0 ifTrue: [ ^ 0 ].\n\t^ x * 100 / y", false, interp.Same},
		{"divide:by: with ifTrue:ifFalse:", "divide:by:",
			"divide: a by: b\n\t^ b isZero ifTrue: [ nil ] ifFalse: [ a / b ]", false, interp.Same},
		{"sum:with: with its arguments renamed", "sum:with:", "sum: x with: y\n\t^ x + y", false, interp.Same},
		{"compute:with:operation: on the class side", "compute:with:operation:",
			"compute: x with: y operation: op\n\top = 'add' ifTrue: [ ^ x + y ].\n\top = 'subtract' ifTrue: [ ^ x - y ].\n\top = 'multiply' ifTrue: [ ^ x * y ].\n\top = 'divide' ifTrue: [ ^ y = 0 ifTrue: [ nil ] ifFalse: [ x / y ] ].\n\t^ self error: 'unknown operation ' , op",
			true, interp.Same},
		{"average: with quo: for /", "average:",
			"average: aCollection\n\t| a b |\n\ta := 0.\n\tb := 0.\n\taCollection do: [ :each |\n\t\ta := a + each.\n\t\tb := b + 1 ].\n\tb = 0 ifTrue: [ ^ 0 ].\n\t^ a quo: b",
			false, interp.Changed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := compareWithin(t, img, CompareRequest{Class: "Calculator", ClassSide: tc.classSide, Selector: tc.selector,
				Candidate: tc.candidate, TestClasses: []string{"CalculatorTest"}})
			require.Equal(t, tc.outcome, v.Outcome, "reason %q, witness %+v", v.Reason, v.Witness)
			assert.Positive(t, v.Activations, "CalculatorTest reaches the method")
			assert.Zero(t, v.Unstable)
			if tc.outcome == interp.Same {
				assert.Equal(t, v.Recorded+v.Generated, v.Compared)
				return
			}
			require.NotNil(t, v.Witness)
			t.Logf("%+v", *v.Witness)
			assert.Equal(t, interp.AspectAnswer, v.Witness.Aspect)
			assert.True(t, strings.HasPrefix(v.Witness.Input, "a Calculator (memory: nil) average: #("), v.Witness.Input)
			assert.NotEqual(t, v.Witness.Original, v.Witness.Candidate)
		})
	}
}
