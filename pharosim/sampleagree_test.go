package pharosim_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/internal/testenv"
	"github.com/pharo-refactor/refactord/pharosim"
)

// TestSampleImageRealRunsAgreeWithOracle: the sample image's test classes,
// run on the interpreter, answer what the oracle they had before the
// interpreter (testdata/sample-image-oracle.json) says on the image as
// shipped — InvoiceTest included, whose due date comes from the clock
// (Date today). A rewrite that breaks a method fails its test for real.
func TestSampleImageRealRunsAgreeWithOracle(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, testenv.CopyTree("examples/sample-image", dir))
	img, err := pharosim.LoadImage(dir, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = img.Close() })
	oracle, err := pharosim.LoadOracle("testdata/sample-image-oracle.json", false)
	require.NoError(t, err)
	none, err := pharosim.ParseOracle([]byte(`{}`))
	require.NoError(t, err)
	for _, class := range oracle.ClassNames() {
		t.Run(class, func(t *testing.T) {
			want, err := img.RunTestsFor(context.Background(), oracle, []string{class})
			require.NoError(t, err)
			got, err := img.RunTestsFor(context.Background(), none, []string{class})
			require.NoError(t, err)
			require.NotEmpty(t, got.Passed, "no test passed")
			assert.Equal(t, want.Text(), got.Text())
		})
	}
	_, err = img.Compile("Calculator", pharosim.InstanceSide, "sum: a with: b\n\t^ a - b", "")
	require.NoError(t, err)
	r, err := img.RunTestsFor(context.Background(), none, []string{"CalculatorTest"})
	require.NoError(t, err)
	assert.Equal(t, []string{"CalculatorTest>>#testSum"}, r.Failures)

	// A due date on a Saturday (28 November 2026) whatever today is.
	_, err = img.Compile("Invoice", pharosim.InstanceSide, "dueDate\n\t^ Date year: 2026 month: 11 day: 28", "")
	require.NoError(t, err)
	r, err = img.RunTestsFor(context.Background(), none, []string{"InvoiceTest"})
	require.NoError(t, err)
	assert.Equal(t, []string{"InvoiceTest>>#testDueDateIsAWeekday"}, r.Failures)
	assert.Empty(t, r.Errors)
	shipped, err := pharosim.LoadOracle(dir+"/"+pharosim.OracleFileName, false)
	require.NoError(t, err)
	assert.Empty(t, shipped.ClassNames(), "every test class of the sample image runs for real")
}
