package pharosim_test

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/internal/testenv"
	"github.com/pharo-refactor/refactord/pharosim"
)

// TestRealRunOfATreeWithoutOracle: LedgerTest has no oracle entry, so the
// interpreter runs it: every count as SUnit gives it, the failures and
// errors named, and a change to the method under test seen by the next run.
func TestRealRunOfATreeWithoutOracle(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, testenv.CopyTree("testdata/real-tests", dir))
	img, err := pharosim.LoadImage(dir, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = img.Close() })
	oracle, err := pharosim.ParseOracle([]byte(`{}`))
	require.NoError(t, err)

	cases := []struct {
		name    string
		total   string // Ledger>>total's source; "" keeps the tree's
		summary string
		errors  []string
		fails   []string
	}{
		{"the tree as written", "",
			"7 ran, 5 passed, 1 skipped, 1 expected failure, 0 failures, 1 error, 0 passed unexpected",
			[]string{"LedgerTest>>#testAverageOfNothing"}, nil},
		{"a rewrite that changes the result", "total\n\t| sum |\n\tsum := 0.\n\tentries do: [ :amount | sum := sum + amount abs ].\n\t^ sum",
			"7 ran, 2 passed, 1 skipped, 1 expected failure, 3 failures, 1 error, 0 passed unexpected",
			[]string{"LedgerTest>>#testAverageOfNothing"},
			[]string{"LedgerTest>>#testAverage", "LedgerTest>>#testNegativeAmountsCount", "LedgerTest>>#testTotal"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.total != "" {
				_, err := img.Compile("Ledger", pharosim.InstanceSide, tc.total, "")
				require.NoError(t, err)
			}
			r, err := img.RunTestsFor(context.Background(), oracle, []string{"LedgerTest"})
			require.NoError(t, err)
			assert.Equal(t, tc.summary, r.Summary())
			assert.Equal(t, tc.errors, r.Errors)
			assert.Equal(t, tc.fails, r.Failures)
			assert.True(t, strings.HasPrefix(r.Text(), tc.summary+"\rFailures:\r"))
		})
	}
}

// TestRealRunStopsAtTheCallLimit: a test that never ends is cut at the
// call's deadline — the run answers the deadline's error instead of
// hanging — and the next run, with the method repaired, is served.
func TestRealRunStopsAtTheCallLimit(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, testenv.CopyTree("testdata/real-tests", dir))
	img, err := pharosim.LoadImage(dir, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = img.Close() })
	none, err := pharosim.ParseOracle([]byte(`{}`))
	require.NoError(t, err)
	// Each turn makes a large string: the loop reaches the deadline long
	// before its step budget, however fast the interpreter runs.
	_, err = img.Compile("Ledger", pharosim.InstanceSide, "total\n\t| sum |\n\tsum := 0.\n\t[ sum >= 0 ] whileTrue: [ sum := sum + (String new: 100000) size ].\n\t^ sum", "")
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err = img.RunTestsFor(ctx, none, []string{"LedgerTest"})
	require.Error(t, err)
	assert.ErrorIs(t, err, context.DeadlineExceeded)

	_, err = img.Compile("Ledger", pharosim.InstanceSide, "total\n\t^ entries inject: 0 into: [ :sum :each | sum + each ]", "")
	require.NoError(t, err)
	r, err := img.RunTestsFor(context.Background(), none, []string{"LedgerTest"})
	require.NoError(t, err)
	assert.Equal(t, 5, len(r.Passed))
}

// TestRealRunOfInheritedTests: the test-gate tree run without its oracle
// gives the oracle's report — FooTest runs the tests it inherits from the
// abstract AbstractFooTest, printed Sub(Super)>>#selector, with an
// expected failure and an unexpected pass — and AbstractFooTest runs none.
func TestRealRunOfInheritedTests(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, testenv.CopyTree("testdata/test-gate", dir))
	img, err := pharosim.LoadImage(dir, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = img.Close() })
	oracle, err := pharosim.LoadOracle(dir+"/"+pharosim.OracleFileName, false)
	require.NoError(t, err)
	none, err := pharosim.ParseOracle([]byte(`{}`))
	require.NoError(t, err)
	for _, class := range []string{"FooTest", "ReportTest"} {
		want, err := img.RunTestsFor(context.Background(), oracle, []string{class})
		require.NoError(t, err)
		got, err := img.RunTestsFor(context.Background(), none, []string{class})
		require.NoError(t, err)
		assert.Equal(t, want.Text(), got.Text(), class)
	}
	got, err := img.RunTestsFor(context.Background(), none, []string{"AbstractFooTest"})
	require.NoError(t, err)
	assert.Equal(t, "No tests ran", got.Summary())
}

// TestRealRunOfParametrizedTests: each case of a ParametrizedTestCase is a
// test of its own, printed with its parameters after the selector as SUnit
// prints it, so the report names the case that fails.
func TestRealRunOfParametrizedTests(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pkg := filepath.Join(dir, "Squares-Tests")
	require.NoError(t, os.MkdirAll(pkg, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(pkg, "package.st"), []byte("Package { #name : #'Squares-Tests' }\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(pkg, "SquareTest.class.st"), []byte(`Class {
	#name : #SquareTest,
	#superclass : #ParametrizedTestCase,
	#instVars : [ 'number' ],
	#category : #'Squares-Tests'
}

{ #category : #tests }
SquareTest class >> testParameters [
	^ ParametrizedTestMatrix new
		forSelector: #number addOptions: #( 2 3 4 );
		yourself
]

{ #category : #accessing }
SquareTest >> number: anInteger [
	number := anInteger
]

{ #category : #tests }
SquareTest >> testSquare [
	self assert: number * number equals: (number = 3 ifTrue: [ 10 ] ifFalse: [ number squared ])
]
`), 0o644))
	img, err := pharosim.LoadImage(dir, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = img.Close() })
	none, err := pharosim.ParseOracle([]byte(`{}`))
	require.NoError(t, err)
	r, err := img.RunTestsFor(context.Background(), none, []string{"SquareTest"})
	require.NoError(t, err)
	assert.Equal(t, "3 ran, 2 passed, 0 skipped, 0 expected failures, 1 failure, 0 errors, 0 passed unexpected", r.Summary())
	assert.Equal(t, []string{"SquareTest>>#testSquare(#number->3)"}, r.Failures)
}

// TestARealRunLoadsWhatTheTestsReach: the interpreter is built from the
// classes the test class reaches, not from the whole image (an image the
// size of Pharo's would be parsed and initialized on every run): a class a
// test's class names is loaded and initialized — its failing class-side
// initialize is logged — while a class nothing reached names is not.
func TestARealRunLoadsWhatTheTestsReach(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, testenv.CopyTree("testdata/real-tests", dir))
	write := func(pkg, file, text string) {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "src", pkg), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "src", pkg, file), []byte(text), 0o644))
	}
	classWithFailingInitialize := func(name, pkg string) string {
		return "Class {\n\t#name : #" + name + ",\n\t#superclass : #Object,\n\t#category : #'" + pkg + "'\n}\n\n" +
			"{ #category : #initialization }\n" + name + " class >> initialize [\n\tself zork\n]\n"
	}
	write("Unrelated-Core", "package.st", "Package { #name : #'Unrelated-Core' }\n")
	write("Unrelated-Core", "Unrelated.class.st", classWithFailingInitialize("Unrelated", "Unrelated-Core"))
	write("Ledger-Core", "Audited.class.st", classWithFailingInitialize("Audited", "Ledger-Core"))
	write("Ledger-Core", "LedgerTest.extension.st", "Extension { #name : #LedgerTest }\n\n{ #category : #'*Ledger-Core' }\nLedgerTest >> auditedClass [\n\t^ Audited\n]\n")

	var logged bytes.Buffer
	img, err := pharosim.LoadImage(dir, slog.New(slog.NewTextHandler(&logged, nil)))
	require.NoError(t, err)
	t.Cleanup(func() { _ = img.Close() })
	none, err := pharosim.ParseOracle([]byte(`{}`))
	require.NoError(t, err)
	r, err := img.RunTestsFor(context.Background(), none, []string{"LedgerTest"})
	require.NoError(t, err)
	assert.Equal(t, "7 ran, 5 passed, 1 skipped, 1 expected failure, 0 failures, 1 error, 0 passed unexpected", r.Summary())
	assert.Contains(t, logged.String(), "Audited class>>#initialize", "a class the test class names is loaded")
	assert.NotContains(t, logged.String(), "Unrelated", "a class nothing reaches is not")
}
