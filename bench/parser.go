package main

import (
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"pharo-refactor/smalltalk"
	"pharo-refactor/smalltalk/tonel"
)

// parserSuite compares the Pharo method parser on the test corpus with Go's
// own go/parser on about as many bytes of Go source, in the same process.
func parserSuite(e env) ([]figure, error) {
	methods, err := corpusMethods(filepath.Join(e.root, "testdata", "corpus"))
	if err != nil {
		return nil, err
	}
	pharoBytes := 0
	for _, m := range methods {
		pharoBytes += len(m)
	}
	goFiles, err := goSources(pharoBytes)
	if err != nil {
		return nil, err
	}
	goBytes := 0
	for _, f := range goFiles {
		goBytes += len(f)
	}
	pharo := testing.Benchmark(func(b *testing.B) {
		b.SetBytes(int64(pharoBytes))
		for b.Loop() {
			for _, m := range methods {
				if _, err := smalltalk.ParseMethod(m); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	golang := testing.Benchmark(func(b *testing.B) {
		b.SetBytes(int64(goBytes))
		for b.Loop() {
			fset := token.NewFileSet()
			for _, f := range goFiles {
				if _, err := parser.ParseFile(fset, "", f, parser.SkipObjectResolution); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	if pharo.N == 0 || golang.N == 0 {
		return nil, errors.New("a parser benchmark failed")
	}
	pMB, gMB := mbPerSecond(pharo), mbPerSecond(golang)
	return []figure{
		{"parser_mb_s", round(pMB, 2), "MB/s", fmt.Sprintf("%d corpus methods, %d bytes", len(methods), pharoBytes)},
		{"goparser_mb_s", round(gMB, 2), "MB/s", fmt.Sprintf("go/parser on %d files, %d bytes of Go", len(goFiles), goBytes)},
		{"parser_vs_goparser", round(pMB/gMB, 2), "ratio", "above 1: faster than go/parser per byte"},
	}, nil
}

func mbPerSecond(r testing.BenchmarkResult) float64 {
	return float64(r.Bytes) * float64(r.N) / 1e6 / r.T.Seconds()
}

func corpusMethods(dir string) ([]string, error) {
	tree, err := tonel.ReadTree(dir)
	if err != nil {
		return nil, fmt.Errorf("reading the corpus: %w", err)
	}
	var out []string
	for _, f := range tree.Files() {
		for _, m := range f.Methods {
			out = append(out, m.Source)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("the corpus has no methods")
	}
	return out, nil
}

// goSources reads Go files of the standard library (sorted, tests left
// out) until they hold at least n bytes.
func goSources(n int) ([]string, error) {
	dir := filepath.Join(runtime.GOROOT(), "src", "net", "http")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("reading Go sources: %w", err)
	}
	names := []string{}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".go") && !strings.HasSuffix(e.Name(), "_test.go") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	var out []string
	total := 0
	for _, name := range names {
		if total >= n {
			break
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		out = append(out, string(data))
		total += len(data)
	}
	if total < n/2 {
		return nil, fmt.Errorf("only %d bytes of Go source found", total)
	}
	return out, nil
}
