package tonel

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCorpusShape(t *testing.T) {
	t.Parallel()
	tree, err := ReadTree(corpusRoot)
	require.NoError(t, err)
	var methods, classes int
	kinds := map[Kind]int{}
	styles := map[bool]int{}
	for _, f := range tree.Files() {
		methods += len(f.Methods)
		kinds[f.Kind()]++
		if f.Kind() == KindClass || f.Kind() == KindTrait {
			classes++
			styles[f.Def.SymbolStyle]++
		}
	}
	assert.GreaterOrEqual(t, methods, 300)
	assert.GreaterOrEqual(t, classes, 25)
	assert.GreaterOrEqual(t, len(tree.Packages), 4)
	for _, k := range []Kind{KindClass, KindTrait, KindExtension, KindPackage} {
		assert.Positive(t, kinds[k], "no %s file in the corpus", k)
	}
	assert.Positive(t, styles[true], "no Pharo ≤11 symbol-style class")
	assert.Positive(t, styles[false], "no Pharo 12 string-style class")
}

func TestCorpusRoundTripsByteForByte(t *testing.T) {
	t.Parallel()
	for _, path := range corpusFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			f, err := ParseFile(path, data)
			require.NoError(t, err)
			assert.Equal(t, string(data), string(f.Bytes()))
			if f.Kind() != KindPackage {
				assert.NotEmpty(t, f.Methods)
			}
		})
	}
}

func TestCorpusMethodsAreInWriterOrder(t *testing.T) {
	t.Parallel()
	for _, path := range corpusFiles(t) {
		f, err := ReadFile(path)
		require.NoError(t, err)
		for i := 1; i < len(f.Methods); i++ {
			assert.True(t, writesBefore(f.Methods[i-1], f.Methods[i]), "%s: %s before %s", path, f.Methods[i-1].Selector, f.Methods[i].Selector)
		}
	}
}

func TestReadTreeForms(t *testing.T) {
	t.Parallel()
	src := filepath.Join(corpusRoot, "src")
	cases := []struct {
		name     string
		path     string
		packages []string
		files    int
	}{
		{"repository root", corpusRoot, []string{"Collections-Extras", "Corpus-Edge", "Corpus-Tests", "Geometry-Core", "Ledger-Model", "TextKit-Core"}, 50},
		{"source folder", src, []string{"Collections-Extras", "Corpus-Edge", "Corpus-Tests", "Geometry-Core", "Ledger-Model", "TextKit-Core"}, 50},
		{"package folder", filepath.Join(src, "Geometry-Core"), []string{"Geometry-Core"}, 8},
		{"single file", filepath.Join(src, "Ledger-Model", "LedgerMoney.class.st"), []string{"Ledger-Model"}, 1},
		{"single symbol-style file", filepath.Join(src, "Geometry-Core", "GeoPoint.class.st"), []string{"Geometry-Core"}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tree, err := ReadTree(tc.path)
			require.NoError(t, err)
			var names []string
			for _, p := range tree.Packages {
				names = append(names, p.Name)
			}
			assert.Equal(t, tc.packages, names)
			assert.Len(t, tree.Files(), tc.files)
		})
	}
}

func TestReadTreeContents(t *testing.T) {
	t.Parallel()
	tree, err := ReadTree(corpusRoot)
	require.NoError(t, err)
	geo := tree.Package("Geometry-Core")
	require.NotNil(t, geo)
	require.NotNil(t, geo.Def)
	assert.Equal(t, "Geometry-Core", geo.Def.Def.Name)
	assert.Len(t, geo.Classes, 6)
	require.Len(t, geo.Traits, 1)
	assert.Equal(t, "TGeoComparable", geo.Traits[0].Def.Name)
	for i := 1; i < len(geo.Files); i++ {
		assert.Less(t, geo.Files[i-1].Path, geo.Files[i].Path)
	}

	point := tree.Class("GeoPoint")
	require.NotNil(t, point)
	assert.Equal(t, "GeoShape", point.Def.Superclass)
	assert.NotNil(t, tree.Class("TCxEmptiness"))
	assert.Nil(t, tree.Class("String"), "an extension does not define its class")
	require.Len(t, tree.ExtensionsOf("String"), 1)
	assert.Equal(t, "tkIsBlank", tree.ExtensionsOf("String")[0].Method(InstanceSide, "tkIsBlank").Selector)
	assert.Nil(t, tree.Package("Nope"))

	again, err := ReadTree(corpusRoot)
	require.NoError(t, err)
	for i, f := range tree.Files() {
		assert.Equal(t, f.Path, again.Files()[i].Path, "order is deterministic")
	}
}

func TestReadTreeLayouts(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		prepare func(t *testing.T, dir string) string
		files   int
		err     string
	}{
		{"no .properties, packages under src", func(t *testing.T, dir string) string {
			copyDir(t, filepath.Join(corpusRoot, "src"), filepath.Join(dir, "src"))
			require.NoError(t, os.Remove(filepath.Join(dir, "src", ".properties")))
			return dir
		}, 50, ""},
		{"no .properties, packages at the root", func(t *testing.T, dir string) string {
			copyDir(t, filepath.Join(corpusRoot, "src", "Ledger-Model"), filepath.Join(dir, "Ledger-Model"))
			copyDir(t, filepath.Join(corpusRoot, "src", "Corpus-Tests"), filepath.Join(dir, "Corpus-Tests"))
			return dir
		}, 15, ""},
		{".properties at the root", func(t *testing.T, dir string) string {
			copyDir(t, filepath.Join(corpusRoot, "src", "Ledger-Model"), filepath.Join(dir, "Ledger-Model"))
			require.NoError(t, os.WriteFile(filepath.Join(dir, ".properties"), []byte("{ #format : #tonel }"), 0o644))
			return dir
		}, 9, ""},
		{".project names the source folder", func(t *testing.T, dir string) string {
			copyDir(t, filepath.Join(corpusRoot, "src", "Ledger-Model"), filepath.Join(dir, "code", "Ledger-Model"))
			require.NoError(t, os.WriteFile(filepath.Join(dir, ".project"), []byte("{\n\t'srcDirectory' : 'code'\n}"), 0o644))
			return dir
		}, 9, ""},
		{"a folder without package.st is no package", func(t *testing.T, dir string) string {
			copyDir(t, filepath.Join(corpusRoot, "src", "Ledger-Model"), filepath.Join(dir, "src", "Ledger-Model"))
			require.NoError(t, os.Remove(filepath.Join(dir, "src", "Ledger-Model", "package.st")))
			return dir
		}, 0, "no package folders"},
		{"filetree format", func(t *testing.T, dir string) string {
			require.NoError(t, os.MkdirAll(filepath.Join(dir, "src"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "src", ".properties"), []byte("{ #format : #filetree }"), 0o644))
			return dir
		}, 0, `format "filetree" is not tonel`},
		{"unreadable .properties", func(t *testing.T, dir string) string {
			require.NoError(t, os.WriteFile(filepath.Join(dir, ".properties"), []byte("format: tonel"), 0o644))
			return dir
		}, 0, "'{' expected"},
		{"not a repository", func(t *testing.T, dir string) string {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "README"), []byte("hi"), 0o644))
			return dir
		}, 0, "not a Tonel repository"},
		{"missing path", func(t *testing.T, dir string) string { return filepath.Join(dir, "nope") }, 0, "no such file"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.prepare(t, t.TempDir())
			tree, err := ReadTree(path)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				assert.Nil(t, tree)
				return
			}
			require.NoError(t, err)
			assert.Len(t, tree.Files(), tc.files)
		})
	}
}

func TestReadTreeReportsEveryBrokenFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	copyDir(t, filepath.Join(corpusRoot, "src", "Geometry-Core"), filepath.Join(dir, "src", "Geometry-Core"))
	copyDir(t, filepath.Join(corpusRoot, "src", "Corpus-Edge"), filepath.Join(dir, "src", "Corpus-Edge"))
	broken := map[string]string{
		filepath.Join(dir, "src", "Geometry-Core", "GeoPoint.class.st"):   "Class { #name : #GeoPoint }\n\nGeoPoint >> x [\n\t^ [ x\n]\n",
		filepath.Join(dir, "src", "Corpus-Edge", "EdgeLiterals.class.st"): "Class {\n\t#name #EdgeLiterals\n}\n",
	}
	for path, text := range broken {
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	}
	tree, err := ReadTree(dir)
	require.Error(t, err)
	require.NotNil(t, tree, "the readable files are still returned")
	assert.Len(t, tree.Files(), 15-len(broken))

	var joined interface{ Unwrap() []error }
	require.True(t, errors.As(err, &joined))
	lines := map[string]int{}
	var collect func(error)
	collect = func(e error) {
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, inner := range j.Unwrap() {
				collect(inner)
			}
			return
		}
		var pe *ParseError
		require.True(t, errors.As(e, &pe), "%T", e)
		lines[pe.Path] = pe.Line
	}
	collect(err)
	assert.Equal(t, map[string]int{
		filepath.Join(dir, "src", "Geometry-Core", "GeoPoint.class.st"):   3,
		filepath.Join(dir, "src", "Corpus-Edge", "EdgeLiterals.class.st"): 2,
	}, lines)
}

// TestBrokenSetIsReadableTonel reads testdata/broken: the Tonel structure
// must be intact, and every method named in expected.txt must exist with its
// error line inside the method's body.
func TestBrokenSetIsReadableTonel(t *testing.T) {
	t.Parallel()
	tree, err := ReadTree("../../testdata/broken")
	require.NoError(t, err)
	file := tree.Class("BrokenExamples")
	require.NotNil(t, file)

	data, err := os.ReadFile("../../testdata/broken/expected.txt")
	require.NoError(t, err)
	seen := 0
	scanner := bufio.NewScanner(strings.NewReader(string(data)))
	for scanner.Scan() {
		line := strings.TrimSpace(scanner.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		sp := strings.LastIndex(line, " ")
		require.Positive(t, sp, line)
		name, lineText := line[:sp], line[sp+1:]
		errLine, err := strconv.Atoi(lineText)
		require.NoError(t, err, line)
		side := InstanceSide
		class, selector, _ := strings.Cut(name, ">>")
		if strings.HasSuffix(class, " class") {
			side = ClassSide
		}
		m := file.Method(side, selector)
		require.NotNil(t, m, line)
		assert.GreaterOrEqual(t, errLine, file.PosAt(m.BodyStart).Line, line)
		assert.LessOrEqual(t, errLine, file.PosAt(m.End).Line, line)
		seen++
	}
	assert.Equal(t, len(file.Methods), seen, "expected.txt lists every broken method")
	assert.GreaterOrEqual(t, seen, 12)
}
