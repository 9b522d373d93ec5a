package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	corpusDir = "../../testdata/corpus"
	brokenDir = "../../testdata/broken"
)

func runCheck(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(append([]string{"check"}, args...), strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestCheckCorpusIsClean(t *testing.T) {
	code, out, _ := runCheck(t, corpusDir)
	assert.Equal(t, 0, code, out)
	m := regexp.MustCompile(`(?m)^(\d+) methods, 0 errors$`).FindStringSubmatch(out)
	require.NotNil(t, m, out)
	var n int
	_, err := fmt.Sscan(m[1], &n)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, n, 300, "the corpus must hold at least 300 methods")
}

// TestCheckBrokenMethods checks that every broken method fails at the line
// testdata/broken/expected.txt names, in the FILE:LINE:COL format.
func TestCheckBrokenMethods(t *testing.T) {
	expected := readExpected(t, filepath.Join(brokenDir, "expected.txt"))
	require.NotEmpty(t, expected)
	code, out, _ := runCheck(t, brokenDir)
	assert.Equal(t, 1, code)
	line := regexp.MustCompile(`^(.+\.st):(\d+):(\d+): (\S+(?: class)?>>\S+): (.+)$`)
	got := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if m := line.FindStringSubmatch(l); m != nil {
			got[m[4]] = m[2]
		}
	}
	for method, wantLine := range expected {
		assert.Equal(t, wantLine, got[method], "line of the error in %s", method)
	}
	assert.Len(t, got, len(expected), "exactly the broken methods fail")
	assert.Contains(t, out, fmt.Sprintf("%d methods, %d errors", len(expected), len(expected)))
}

func readExpected(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		i := strings.LastIndex(l, " ")
		require.Positive(t, i, l)
		out[l[:i]] = l[i+1:]
	}
	require.NoError(t, sc.Err())
	return out
}

func TestCheckPaths(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "Good.class.st")
	require.NoError(t, os.WriteFile(good, []byte("Class {\n\t#name : 'Good',\n\t#superclass : 'Object',\n\t#category : 'X'\n}\n\n{ #category : 'a' }\nGood >> one [\n\t^ 1\n]\n\n{ #category : 'a' }\nGood class >> two: x [\n\n\t^ (x + 2\n]\n"), 0o644))
	cases := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  string
	}{
		{"single file with an error", []string{good}, 1, "Good.class.st:15:10: Good class>>two:: ')' expected"},
		{"summary counts", []string{good}, 1, "2 methods, 1 errors"},
		{"missing path", []string{filepath.Join(dir, "nope")}, 2, ""},
		{"no path", nil, 2, ""},
		{"two paths", []string{dir, dir}, 2, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCheck(t, tc.args...)
			assert.Equal(t, tc.wantCode, code, out+errOut)
			assert.Contains(t, out, tc.wantOut)
		})
	}
}

// writeFiles writes files (path relative to root → content) under root.
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, text := range files {
		path := filepath.Join(root, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	}
}

func TestCheckReportsEveryBrokenFileAndMethod(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"src/.properties":    "{ #format : #tonel }",
		"src/Pkg/package.st": "Package { #name : 'Pkg' }\n",
		"src/Pkg/A.class.st": "Class { #name : 'A' }\n\n{ #category : 'x' }\nA >> good [\n\t^ 1\n]\n\n{ #category : 'x' }\nA >> bad [\n\t^ (1\n]\n",
		// Two files of one package whose Tonel cannot be read; in the
		// first, the methods around the broken one are still checked.
		"src/Pkg/B.class.st": "Class { #name : 'B' }\n\n{ #category : 'x' }\nB >> first [\n\t^ 1 +\n]\n\n{ #category : 'x' }\nB >> open [\n\t^ [ 1\n\n{ #category : 'x' }\nB >> last [\n\t^ 3\n]\n",
		"src/Pkg/C.class.st": "Class {\n\t#name : 'C'\n\t#superclass : 'Object'\n}\n",
		// Unreachable code is a warning, as in Pharo.
		"src/Pkg/D.class.st": "Class { #name : 'D' }\n\n{ #category : 'x' }\nD >> twice [\n\t^ 1.\n\t^ 2\n]\n",
		// A folder without package.st is not a package: never read, but
		// named.
		"src/scripts/load.st": "Metacello new baseline: 'Pkg'; load.\n",
	})
	code, out, _ := runCheck(t, root)
	assert.Equal(t, 1, code, out)
	src := filepath.Join(root, "src", "Pkg")
	want := []string{
		filepath.Join(src, "A.class.st") + ":10:6: A>>bad: ')' expected",
		filepath.Join(src, "B.class.st") + ":5:7: B>>first: Variable or expression expected",
		filepath.Join(src, "B.class.st") + ":9:1: unterminated method body: no matching ']' in B >> open",
		filepath.Join(src, "C.class.st") + ":3:2: unexpected text in value",
		filepath.Join(src, "D.class.st") + ":6:2: D>>twice: warning: Unreachable code",
		filepath.Join(root, "src", "scripts") + ": skipped: .st files but no package.st (Pharo reads only package folders)",
		"5 methods, 4 errors, 1 warnings",
	}
	assert.Equal(t, strings.Join(want, "\n")+"\n", out)
}

// TestCheckNamesWhatTheKernelLacksAndHowPackagesLoad: on a package of
// the project's own that names files, a Socket and a Seaside superclass,
// check says per package which classes and selectors of Pharo 13 it uses
// that pharo-sim's kernel lacks, and warns of the class that did not load
// and the class-side initialize that failed; none of it fails the check.
func TestCheckNamesWhatTheKernelLacksAndHowPackagesLoad(t *testing.T) {
	const dir = "../../testdata/kernel-gaps"
	code, out, errOut := runCheck(t, dir)
	require.Equal(t, 0, code, out+errOut)
	core, tests := dir+"/src/Gaps-Core: ", dir+"/src/Gaps-Tests: "
	cases := []struct{ name, line string }{
		{"a class whose superclass is missing", core + "warning: loading Gaps-Core: GapsWidget did not load: its superclass WAComponent is missing"},
		{"a class-side initialize that fails", core + "warning: loading Gaps-Core: GapsLog class>>#initialize: unhandled MessageNotUnderstood: Message not understood: GapsLog >> #zorkTheDefault"},
		{"Pharo's classes the kernel lacks", core + "Gaps-Core uses classes of Pharo 13 that pharo-sim's kernel lacks: Socket"},
		{"Pharo's selectors no kernel method defines",
			core + "Gaps-Core sends selectors of Pharo 13 that no method of pharo-sim's kernel defines: #connectToHostNamed:port: #newTCP #text:"},
		{"the disk, whose files are paths only", core + "Gaps-Core reaches for the disk, which pharo-sim's kernel lacks (its files are paths; FileSystem memory works): #asFileReference #disk"},
		{"the summary counts the load problems as warnings", "9 methods, 0 errors, 2 warnings"},
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	for _, c := range cases {
		assert.Contains(t, lines, c.line, c.name)
	}
	for _, l := range lines {
		assert.False(t, strings.HasPrefix(l, tests), "the test package uses nothing the kernel lacks: %s", l)
		assert.NotContains(t, l, "zorkTheDefault ", "a selector no class of Pharo's defines is not Pharo's")
	}
	assert.Len(t, lines, len(cases), out)
}

// TestCheckSaysNothingOfAKernelForATreeThatBringsItsOwn: a tree that
// defines Object (Pharo's src) is its own kernel: check names no gap.
func TestCheckSaysNothingOfAKernelForATreeThatBringsItsOwn(t *testing.T) {
	dir := t.TempDir()
	pkg := filepath.Join(dir, "src", "Kernel")
	require.NoError(t, os.MkdirAll(pkg, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(pkg, "package.st"), []byte("Package { #name : 'Kernel' }\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(pkg, "Object.class.st"), []byte(
		"Class { #name : 'Object', #superclass : 'ProtoObject', #package : 'Kernel' }\n\n{ #category : 'files' }\nObject >> home [ ^ FileSystem disk ]\n"), 0o644))
	code, out, errOut := runCheck(t, dir)
	require.Equal(t, 0, code, out+errOut)
	assert.Equal(t, "1 methods, 0 errors\n", out)
}
