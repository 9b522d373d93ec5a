package pharosim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseOracleRejectsBadFiles(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, json, want string
	}{
		{"not an object", `[1]`, "not a JSON object"},
		{"bad class name", `{"fooTest": {"tests": ["testA"]}}`, "not a class name"},
		{"unknown field", `{"FooTest": {"tests": ["testA"], "rulez": []}}`, "unknown field"},
		{"unknown condition field", `{"FooTest": {"tests": ["testA"], "rules": [{"test": "testA", "fails_when": {"method": "Foo>>a", "source_contain": "x"}}]}}`, "unknown field"},
		{"keyword test", `{"FooTest": {"tests": ["test:"]}}`, "not a unary selector"},
		{"rule for an undeclared test", `{"FooTest": {"tests": ["testA"], "rules": [{"test": "testB", "fails_when": {"method": "Foo>>a", "source_contains": "x"}}]}}`, "not one of the declared tests"},
		{"rule without condition", `{"FooTest": {"tests": ["testA"], "rules": [{"test": "testA"}]}}`, "needs fails_when, errors_when or hangs_when"},
		{"bad method", `{"FooTest": {"tests": ["testA"], "rules": [{"test": "testA", "fails_when": {"method": "Foo.a", "source_contains": "x"}}]}}`, "want Class>>selector"},
		{"no predicate", `{"FooTest": {"tests": ["testA"], "rules": [{"test": "testA", "fails_when": {"method": "Foo>>a"}}]}}`, "needs source_contains"},
		{"bad regexp", `{"FooTest": {"tests": ["testA"], "rules": [{"test": "testA", "errors_when": {"method": "Foo>>a", "source_matches": "("}}]}}`, "source_matches"},
		{"skipped not declared", `{"FooTest": {"tests": ["testA"], "skipped": ["testB"]}}`, "not one of the declared tests"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseOracle([]byte(tc.json))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestParseMethodKey(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want MethodKey
		ok   bool
	}{
		{"Foo>>bar", MethodKey{Class: "Foo", Selector: "bar"}, true},
		{"Foo >> #at:put:", MethodKey{Class: "Foo", Selector: "at:put:"}, true},
		{"Foo class>>new:", MethodKey{Class: "Foo", ClassSide: true, Selector: "new:"}, true},
		{"Foo>>+", MethodKey{Class: "Foo", Selector: "+"}, true},
		{"foo>>bar", MethodKey{}, false},
		{"Foo>>", MethodKey{}, false},
		{"Foo bar", MethodKey{}, false},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseMethodKey(tc.in)
			if !tc.ok {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.want, mustKey(t, got.String()), "String() reads back")
		})
	}
}

func mustKey(t *testing.T, s string) MethodKey {
	t.Helper()
	k, err := ParseMethodKey(s)
	require.NoError(t, err)
	return k
}

// fakeSources is an image of a few method sources for the oracle.
type fakeSources map[string]string

func (f fakeSources) lookup(k MethodKey) (string, bool) {
	src, ok := f[k.String()]
	return src, ok
}

const outcomeOracle = `{
  "_comment": "ignored",
  "FooTest": {
    "_comment": "also ignored",
    "tests": ["testA", "testB", "testC", "testD", "testE", "testF"],
    "skipped": ["testE"],
    "expected_failures": ["testF"],
    "rules": [
      {"test": "testA", "fails_when": {"method": "Foo>>a", "source_contains": "-"}},
      {"test": "testB", "fails_when": {"method": "Foo>>b", "source_contains": "negated"}},
      {"test": "testB", "errors_when": {"method": "Foo>>b", "source_not_matches": "isZero|= *0"}},
      {"test": "testC", "fails_when": {"method": "Foo class>>c", "source_matches": "^c \\^"}},
      {"test": "testD", "fails_when": {"method": "Foo>>gone", "source_contains": "y"}},
      {"test": "testF", "fails_when": {"method": "Foo>>a", "source_not_contains": "+"}}
    ]
  }
}`

func TestOracleOutcomes(t *testing.T) {
	t.Parallel()
	o, err := ParseOracle([]byte(outcomeOracle))
	require.NoError(t, err)
	cases := []struct {
		name    string
		sources fakeSources
		want    TestResult
	}{
		{
			name:    "every rule quiet",
			sources: fakeSources{"Foo>>#a": "a\n\t^ 1 + 2", "Foo>>#b": "b\n\t^ x isZero", "Foo class>>#c": "c ^ 3"},
			want: TestResult{
				Passed:           []string{"FooTest>>#testA", "FooTest>>#testB"},
				Failures:         []string{"FooTest>>#testC"},
				Errors:           []string{"FooTest>>#testD"},
				Skipped:          []string{"FooTest>>#testE"},
				PassedUnexpected: []string{"FooTest>>#testF"},
			},
		},
		{
			name: "a refactoring broke a and b, c is fine, the expected failure fails",
			sources: fakeSources{"Foo>>#a": "a\r\t^ 1 - 2", "Foo>>#b": "b\n\t^ x negated", "Foo class>>#c": "c\n\t^ 3",
				"Foo>>#gone": "gone ^ 0"},
			want: TestResult{
				Passed:           []string{"FooTest>>#testC", "FooTest>>#testD"},
				Failures:         []string{"FooTest>>#testA"},
				Errors:           []string{"FooTest>>#testB"},
				Skipped:          []string{"FooTest>>#testE"},
				ExpectedFailures: []string{"FooTest>>#testF"},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := o.Run([]string{"FooTest", "NotInOracle"}, tc.sources.lookup, nil)
			assert.ElementsMatch(t, tc.want.Passed, got.Passed, "passed")
			assert.Equal(t, tc.want.Failures, got.Failures, "failures")
			assert.Equal(t, tc.want.Errors, got.Errors, "errors")
			assert.Equal(t, tc.want.Skipped, got.Skipped, "skipped")
			assert.Equal(t, tc.want.ExpectedFailures, got.ExpectedFailures, "expected failures")
			assert.Equal(t, tc.want.PassedUnexpected, got.PassedUnexpected, "passed unexpected")
		})
	}
}

func TestTestResultText(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		result TestResult
		want   string
	}{
		{"nothing ran", TestResult{}, "No tests ran\rFailures:\r\rErrors:\r"},
		{"only skipped", TestResult{Skipped: []string{"A>>#testX"}}, "No tests ran\rFailures:\r\rErrors:\r"},
		{
			"all green",
			TestResult{Passed: []string{"A>>#testA", "A>>#testB"}},
			"2 ran, 2 passed, 0 skipped, 0 expected failures, 0 failures, 0 errors, 0 passed unexpected\rFailures:\r\rErrors:\r",
		},
		{
			"singular nouns at one",
			TestResult{
				Passed: []string{"A>>#testA"}, Failures: []string{"A>>#testB"}, Errors: []string{"A>>#testC"},
				Skipped: []string{"A>>#testD"}, ExpectedFailures: []string{"A>>#testE"}, PassedUnexpected: []string{"A>>#testF"},
			},
			"5 ran, 1 passed, 1 skipped, 1 expected failure, 1 failure, 1 error, 1 passed unexpected\r" +
				"Failures:\rA>>#testB\rA>>#testF\r\rErrors:\rA>>#testC\r",
		},
		{
			"plural lists",
			TestResult{Failures: []string{"A>>#testB", "B>>#testB"}, Errors: []string{"A>>#testC", "B>>#testC"}},
			"4 ran, 0 passed, 0 skipped, 0 expected failures, 2 failures, 2 errors, 0 passed unexpected\r" +
				"Failures:\rA>>#testB\rB>>#testB\r\rErrors:\rA>>#testC\rB>>#testC\r",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.result.Text())
		})
	}
}

func TestLoadOracleOptional(t *testing.T) {
	t.Parallel()
	o, err := LoadOracle(t.TempDir()+"/none.json", true)
	require.NoError(t, err)
	assert.Empty(t, o.ClassNames())
	_, err = LoadOracle(t.TempDir()+"/none.json", false)
	require.Error(t, err)
}

// The sample image's oracle must be green on the sources as shipped, and
// every rule must name a method the sample image has: the one it had
// before pharo-sim ran its tests (testdata, which the real runs are checked
// against). The oracle it ships declares no class: every test class runs
// for real.
func TestSampleOracleIsGreenAndNamesRealMethods(t *testing.T) {
	t.Parallel()
	img, root := loadTestImage(t)
	shipped, err := LoadOracle(root+"/"+OracleFileName, false)
	require.NoError(t, err)
	assert.Empty(t, shipped.ClassNames(), "the shipped oracle declares no class")
	cases := []struct {
		name, file string
		ran        int
	}{
		{"before the interpreter", "testdata/sample-image-oracle.json", 18},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o, err := LoadOracle(tc.file, false)
			require.NoError(t, err)
			require.NotEmpty(t, o.ClassNames())
			for _, name := range o.ClassNames() {
				require.NoError(t, img.requireClass(name), "oracle class %s", name)
				c, _ := o.Class(name)
				for _, r := range c.Rules {
					for _, cond := range []*Condition{r.FailsWhen, r.ErrorsWhen} {
						if cond != nil {
							_, err := img.MethodSource(cond.ref)
							assert.NoError(t, err, "%s %s names %s", name, r.Test, cond.Method)
						}
					}
				}
			}
			res := img.RunTests(o, o.ClassNames())
			assert.Empty(t, res.Failures)
			assert.Empty(t, res.Errors)
			assert.Equal(t, tc.ran, res.RunCount())
		})
	}
}
