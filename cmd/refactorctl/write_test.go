package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/internal/testenv"
	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// Tests of --write DIR: refactord verifies (or proposes) the change on its
// image, and refactorctl writes it into a copy of the tree taken as a CI
// job's Git checkout.

const (
	calculatorFile = "src/Sample-Shop/Calculator.class.st"
	cartFile       = "src/Sample-Shop/ShoppingCart.class.st"
	extensionFile  = "src/Sample-Extras/Calculator.extension.st"
	oddCategory    = `drag\'n\'drop`
	newTaxRate     = "taxRate\n\t\"The tax rate in percent, 20 unless set\"\n\n\t^ TaxRate ifNil: [ TaxRate := 20 ]"
	newDouble      = "double: x\n\t\"Answer twice x\"\n\n\t^ x + x"
)

// withExtrasAndOddCategory adds a package extending Calculator, and gives
// Calculator>>percent:of: a category whose STON string has escapes: the
// image and the checkout both hold them.
func withExtrasAndOddCategory(t *testing.T, tree string) {
	t.Helper()
	extras := filepath.Join(tree, "src", "Sample-Extras")
	require.NoError(t, os.MkdirAll(extras, 0o755))
	writeFile(t, filepath.Join(extras, "package.st"), "Package { #name : 'Sample-Extras' }\n")
	writeFile(t, filepath.Join(extras, "Calculator.extension.st"), "Extension { #name : 'Calculator' }\n\n"+
		"{ #category : '*Sample-Extras' }\nCalculator >> double: x [\n\n\t^ x * 2\n]\n\n"+
		"{ #category : '*Sample-Extras' }\nCalculator >> triple: x [\n\n\t^ x * 3\n]\n")
	editFile(t, filepath.Join(tree, calculatorFile), func(s string) string {
		i := strings.Index(s, "Calculator >> percent: x of: y [")
		require.Positive(t, i)
		j := strings.LastIndex(s[:i], "{ #category : 'calculating' }")
		require.GreaterOrEqual(t, j, 0)
		return s[:j] + "{ #category : '" + oddCategory + "' }" + s[j+len("{ #category : 'calculating' }"):]
	})
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
}

func editFile(t *testing.T, path string, change func(string) string) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	writeFile(t, path, change(string(data)))
}

func toCRLF(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }

func writeScript() testenv.Script {
	return testenv.Script{
		"Calculator>>sum:with:":       testenv.ApprovedInRoundOne(newSum),
		"Calculator>>average:":        testenv.ApprovedInRoundOne(newAverage),
		"Calculator>>percent:of:":     testenv.ApprovedInRoundOne(newPercent),
		"Calculator>>double:":         testenv.ApprovedInRoundOne(newDouble),
		"ShoppingCart class>>taxRate": testenv.ApprovedInRoundOne(newTaxRate),
		"ShoppingCart>>itemCount":     testenv.ApprovedInRoundOne(newItemCount),
		"ShoppingCart>>total": {"reviewer": {testenv.Review()}, "validator": {testenv.Approved()},
			"writer": {testenv.ComposedCode(testenv.ComposedTotal, testenv.SubtotalHelper, testenv.DiscountHelper)}},
	}
}

// checkoutOf is a copy of the sample image, prepared, as a Git checkout
// with everything committed; fresh is another copy, not a repository.
func checkoutOf(t *testing.T, prepare ...func(t *testing.T, tree string)) (repo, fresh string) {
	t.Helper()
	repo, fresh = t.TempDir(), t.TempDir()
	for _, dir := range []string{repo, fresh} {
		require.NoError(t, testenv.CopyTree("examples/sample-image", dir))
		for _, p := range prepare {
			p(t, dir)
		}
	}
	git(t, repo, "init", "-q")
	git(t, repo, "add", "-A")
	git(t, repo, "-c", "user.name=ci", "-c", "user.email=ci@example.org", "commit", "-q", "-m", "checkout")
	return repo, fresh
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return gitIn(t, dir, "", args...)
}

func gitIn(t *testing.T, dir, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "core.autocrlf=false", "-c", "core.safecrlf=false"}, args...)...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
	return string(out)
}

// files is every file of a tree but Git's own, by slash path.
func files(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		data, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		out[filepath.ToSlash(rel)] = string(data)
		return err
	}))
	return out
}

// changedFiles is what `git diff --stat` names.
func changedFiles(t *testing.T, repo string) []string {
	t.Helper()
	var names []string
	for _, l := range strings.Split(git(t, repo, "diff", "--stat=200"), "\n") {
		if name, _, ok := strings.Cut(l, "|"); ok {
			names = append(names, strings.TrimSpace(name))
		}
	}
	return names
}

// appliesToFresh checks that the printed patch applies with `git apply`
// to a fresh copy and gives exactly the tree that was written.
func appliesToFresh(t *testing.T, patch, fresh, repo string) {
	t.Helper()
	gitIn(t, fresh, patch, "apply", "--check", "-")
	gitIn(t, fresh, patch, "apply", "-")
	assert.Equal(t, files(t, repo), files(t, fresh), "the patch on a fresh copy gives the written tree")
}

// onlyTheMethodChanged checks the written file: the method reads back as
// the candidate, in its category; every byte outside its declaration and
// body is as it was.
func onlyTheMethodChanged(t *testing.T, before, after string, side tonel.Side, selector, candidate string) {
	t.Helper()
	fb, err := tonel.ParseFile("before", []byte(before))
	require.NoError(t, err)
	fa, err := tonel.ParseFile("after", []byte(after))
	require.NoError(t, err)
	mb, ma := fb.Method(side, selector), fa.Method(side, selector)
	require.NotNil(t, ma)
	assert.True(t, refactor.SameSource(candidate, ma.Source), "the method is the candidate: %q", ma.Source)
	assert.Equal(t, mb.Category, ma.Category, "its category is kept")
	assert.Equal(t, before[:mb.DeclStart], after[:ma.DeclStart], "every byte before the method")
	assert.Equal(t, before[mb.End:], after[ma.End:], "every byte after it")
	require.Len(t, fa.Methods, len(fb.Methods))
	for i, m := range fb.Methods {
		if m.Selector != selector || m.Side != side {
			assert.Equal(t, m.Source, fa.Methods[i].Source)
			assert.Equal(t, m.Category, fa.Methods[i].Category)
		}
	}
}

// withoutHelpers is a written file with the helpers it gained taken out
// again (each checked first: its source as given).
func withoutHelpers(t *testing.T, written string, helpers map[string]string) string {
	t.Helper()
	if len(helpers) == 0 {
		return written
	}
	f, err := tonel.ParseFile("written", []byte(written))
	require.NoError(t, err)
	for selector, source := range helpers {
		m := f.Method(tonel.InstanceSide, selector)
		require.NotNil(t, m, "helper %s is written", selector)
		assert.True(t, refactor.SameSource(source, m.Source), "helper %s: %q", selector, m.Source)
		require.NoError(t, f.RemoveMethod(tonel.InstanceSide, selector))
	}
	return string(f.Bytes())
}

func TestWriteIntoACheckout(t *testing.T) {
	svc := startService(t, writeScript(), serviceOpts{repeat: true, prepare: withExtrasAndOddCategory})
	crlf := func(t *testing.T, tree string) { editFile(t, filepath.Join(tree, calculatorFile), toCRLF) }
	noFinalNewline := func(t *testing.T, tree string) {
		editFile(t, filepath.Join(tree, calculatorFile), func(s string) string { return strings.TrimRight(s, "\n") })
	}
	cases := []struct {
		name      string
		prepare   func(t *testing.T, tree string) // the checkout's own difference from the image
		args      []string
		file      string
		side      tonel.Side
		selector  string
		candidate string
		helpers   map[string]string // new helper methods the file gains: selector → source
		check     func(t *testing.T, written string)
	}{
		{name: "the sample image", args: []string{"Calculator>>sum:with:", "--verify"}, file: calculatorFile,
			selector: "sum:with:", candidate: newSum},
		{name: "a dry run", args: []string{"Calculator>>sum:with:", "--dry-run"}, file: calculatorFile,
			selector: "sum:with:", candidate: newSum},
		{name: "a class-side method", args: []string{"ShoppingCart class>>taxRate", "--verify"}, file: cartFile,
			side: tonel.ClassSide, selector: "taxRate", candidate: newTaxRate},
		{name: "an extension method", args: []string{"Calculator>>double:", "--verify"}, file: extensionFile,
			selector: "double:", candidate: newDouble,
			check: func(t *testing.T, written string) {
				assert.Contains(t, written, "{ #category : '*Sample-Extras' }\nCalculator >> double: x [")
			}},
		{name: "CRLF line endings", prepare: crlf, args: []string{"Calculator>>average:", "--verify"}, file: calculatorFile,
			selector: "average:", candidate: newAverage,
			check: func(t *testing.T, written string) {
				assert.Equal(t, strings.Count(written, "\n"), strings.Count(written, "\r\n"), "every line still ends in CRLF")
			}},
		{name: "no final newline", prepare: noFinalNewline, args: []string{"Calculator>>sum:with:", "--verify"}, file: calculatorFile,
			selector: "sum:with:", candidate: newSum,
			check: func(t *testing.T, written string) {
				assert.True(t, strings.HasSuffix(written, "^ aNumber + anotherNumber\n]"), "still no final newline")
			}},
		{name: "a Composed Method result", args: []string{"ShoppingCart>>total", "--verify"}, file: cartFile,
			selector: "total", candidate: testenv.ComposedTotal,
			helpers: map[string]string{"subtotal": testenv.SubtotalHelper, "loyaltyDiscountOn:": testenv.DiscountHelper},
			check: func(t *testing.T, written string) {
				assert.Contains(t, written, "{ #category : 'private' }\nShoppingCart >> subtotal [", "a helper comes with its protocol")
				assert.Less(t, strings.Index(written, ">> loyaltyDiscountOn:"), strings.Index(written, ">> subtotal ["), "sorted as Pharo writes")
				assert.Less(t, strings.Index(written, ">> subtotal ["), strings.Index(written, ">> total ["))
			}},
		{name: "a category with quotes", args: []string{"Calculator>>percent:of:", "--verify"}, file: calculatorFile,
			selector: "percent:of:", candidate: newPercent,
			check: func(t *testing.T, written string) {
				assert.Contains(t, written, "{ #category : '"+oddCategory+"' }\nCalculator >> percent: x of: y [")
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			prepare := []func(*testing.T, string){withExtrasAndOddCategory}
			if tc.prepare != nil {
				prepare = append(prepare, tc.prepare)
			}
			repo, fresh := checkoutOf(t, prepare...)
			before := files(t, repo)

			out := ctl(t, svc, "", append([]string{"refactor", "--write", repo}, tc.args...)...)
			require.Equal(t, exitOK, out.code, out.stderr)
			assert.Contains(t, out.stderr, "wrote "+tc.file)
			assert.True(t, strings.HasPrefix(out.stdout, "diff --git a/"+tc.file+" b/"+tc.file+"\n--- a/"+tc.file+"\n+++ b/"+tc.file+"\n"), out.stdout)

			assert.Equal(t, []string{tc.file}, changedFiles(t, repo), "git diff --stat names only the method's file")
			written := files(t, repo)[tc.file]
			onlyTheMethodChanged(t, before[tc.file], withoutHelpers(t, written, tc.helpers), tc.side, tc.selector, tc.candidate)
			if tc.check != nil {
				tc.check(t, written)
			}
			appliesToFresh(t, out.stdout, fresh, repo)
		})
	}
}

// The method in the checkout is not the one the run started from: nothing
// is written, exit 6, the message names the file.
func TestWriteRefusesAnEditedMethod(t *testing.T) {
	svc := startService(t, writeScript(), serviceOpts{repeat: true})
	edited := func(t *testing.T, tree string) {
		editFile(t, filepath.Join(tree, calculatorFile), func(s string) string {
			return strings.Replace(s, "\t^ a + b\n]", "\t^ b + a \"edited in the checkout\"\n]", 1)
		})
	}
	cases := []struct {
		name    string
		prepare func(*testing.T, string)
		method  string
		file    string
	}{
		{"edited in the checkout", edited, "Calculator>>sum:with:", calculatorFile},
		{"absent from the checkout", func(t *testing.T, tree string) {
			editFile(t, filepath.Join(tree, calculatorFile), func(s string) string {
				i := strings.LastIndex(s, "{ #category : 'calculating' }\nCalculator >> sum: a with: b [")
				require.Positive(t, i)
				return s[:i]
			})
		}, "Calculator>>sum:with:", calculatorFile},
		{"a new helper's selector is in the checkout already", func(t *testing.T, tree string) {
			editFile(t, filepath.Join(tree, cartFile), func(s string) string {
				return s + "\n{ #category : 'private' }\nShoppingCart >> subtotal [\n\n\t^ 0\n]\n"
			})
		}, "ShoppingCart>>total", cartFile},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			repo, _ := checkoutOf(t, tc.prepare)
			before := files(t, repo)
			out := ctl(t, svc, "", "refactor", tc.method, "--verify", "--write", repo)
			assert.Equal(t, exitConflict, out.code, out.stderr)
			assert.Contains(t, out.stderr, tc.file)
			assert.Contains(t, out.stderr, "nothing was written")
			assert.Empty(t, out.stdout, "no patch")
			assert.Equal(t, before, files(t, repo))
			assert.Empty(t, changedFiles(t, repo))
		})
	}
}

// batch --verify --write: every approved method is written, a method that
// cannot be does not stop the others, the summary says what was written,
// and stdout as a whole is one patch git applies.
func TestBatchVerifyWrite(t *testing.T) {
	svc := startService(t, writeScript(), serviceOpts{repeat: true})
	edited := func(t *testing.T, tree string) {
		editFile(t, filepath.Join(tree, cartFile), func(s string) string {
			return strings.Replace(s, "ShoppingCart >> itemCount [", "ShoppingCart >> itemCount [\n\t\"edited\"", 1)
		})
	}
	repo, fresh := checkoutOf(t, edited)
	calcBefore := svc.classFile(t, "Calculator")
	batch := "Calculator>>sum:with:\nShoppingCart>>itemCount\nCalculator>>average:\nShoppingCart class>>taxRate\n"

	out := ctl(t, svc, batch, "batch", "-", "--verify", "--write", repo)

	assert.Equal(t, exitConflict, out.code, out.stderr)
	rows := summaryRows(t, out.stdout)
	require.Len(t, rows, 4, out.stdout)
	assert.Equal(t, []string{"Calculator>>sum:with:", "verified", "0"}, rows[0][:3])
	assert.Equal(t, calculatorFile, rows[0][len(rows[0])-1])
	assert.Equal(t, []string{"ShoppingCart>>itemCount", "verified,", "not_written", "6"}, rows[1][:4])
	assert.Equal(t, cartFile, rows[1][len(rows[1])-1])
	assert.Equal(t, "no:", rows[1][len(rows[1])-2])
	assert.Equal(t, []string{"Calculator>>average:", "verified", "0"}, rows[2][:3])
	assert.Equal(t, []string{"ShoppingCart", "class>>taxRate", "verified", "0"}, rows[3][:4])
	assert.Contains(t, out.stdout, "wrote 2 file(s) in "+repo+": "+calculatorFile+", "+cartFile+"; 1 method(s) not written")
	assert.Contains(t, out.stdout, "3 of 4 method(s) succeeded, 1 failed; exit 6")
	assert.Contains(t, out.stderr, "ShoppingCart>>itemCount not written: "+cartFile)

	assert.ElementsMatch(t, []string{calculatorFile, cartFile}, changedFiles(t, repo))
	written := files(t, repo)
	assert.Contains(t, written[calculatorFile], newSum[len("sum: aNumber with: anotherNumber"):])
	assert.Contains(t, written[cartFile], "\"edited\"", "the edited method is left alone")
	assert.Contains(t, written[cartFile], "20 unless set")
	assert.Equal(t, calcBefore, svc.classFile(t, "Calculator"), "the image holds the originals")

	appliesToFresh(t, out.stdout, fresh, repo)

	hist := ctl(t, svc, "", "history", "--outcome", "verified")
	require.Equal(t, exitOK, hist.code, hist.stderr)
	assert.Equal(t, 4, strings.Count(hist.stdout, "refactor (verify)"), "the history finds the verified runs:\n%s", hist.stdout)
}

func TestWriteUsage(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, testenv.CopyTree("examples/sample-image", dir))
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"with a release", []string{"refactor", "Calculator>>sum:with:", "--write", dir}, "--write needs --verify or --dry-run"},
		{"verify and dry run", []string{"refactor", "Calculator>>sum:with:", "--verify", "--dry-run"}, "exclude each other"},
		{"verify without tests", []string{"batch", "-", "--verify", "--no-tests"}, "exclude each other"},
		{"not a Tonel tree", []string{"refactor", "Calculator>>sum:with:", "--verify", "--write", t.TempDir()}, "not a Tonel tree"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := ctl(t, nil, "Calculator>>sum:with:\n", tc.args...)
			assert.Equal(t, exitUsage, out.code, out.stderr)
			assert.Contains(t, out.stderr, tc.want)
			assert.Empty(t, out.stdout)
		})
	}
}
