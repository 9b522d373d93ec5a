package main

import (
	"fmt"
	"go/parser"
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/pharo-refactor/refactord/bench/internal/measure"
	"github.com/pharo-refactor/refactord/smalltalk"
)

// parserInputBytes is the size of the large inputs of the parser
// comparison: about 3,300 methods of Pharo's average 313 bytes.
const parserInputBytes = 1 << 20

// goCodePackages are the Go sources the parsers are compared on, read in
// this order: compiler and library code whose share of comments (18–31%)
// is near the Pharo input's, unlike net/http's or go/types' (42–47%), whose
// comments a parser skips nearly for free.
var goCodePackages = []string{"cmd/compile/internal/ssagen", "go/parser", "text/template/parse", "crypto/tls", "regexp/syntax"}

// parserSuite compares the Pharo method parser with go/parser, in the same
// process, round by round, on inputs of comparable size and kind: about a
// MiB of Pharo methods (the image generator's, the same code as the image
// suite's: keyword, binary and unary sends, cascades, blocks, literal
// arrays, symbols, characters, comments) against about a MiB of Go
// compiler and library code with a similar share of comments, each parsed
// in its own unit (a method; a file).
func parserSuite(e env) ([]figure, error) {
	methods := generatedMethods(parserInputBytes)
	c, err := compareParsers(methods, "the Pharo parser on methods of a generated image")
	if err != nil {
		return nil, err
	}
	c.Goal = "ratio ≥ 1.0"
	if err := c.done(atLeast(1.0)); err != nil {
		return nil, err
	}
	return []figure{{key: "parser", value: c}}, nil
}

// compareParsers times both parsers for rounds rounds, in turn.
func compareParsers(methods []string, what string) (*comparison, error) {
	pharoBytes := 0
	for _, m := range methods {
		pharoBytes += len(m)
	}
	goFiles, goBytes, err := goSources(pharoBytes)
	if err != nil {
		return nil, err
	}
	c := &comparison{Unit: "MB/s",
		What:    fmt.Sprintf("%s: %d methods, %d bytes (%.0f%% in comments), parsed one by one", what, len(methods), pharoBytes, 100*pharoCommentShare(methods)),
		FloorIs: fmt.Sprintf("go/parser on %d files of Go (%s), %d bytes (%.0f%% in comments), parsed one by one", len(goFiles), strings.Join(goCodePackages, ", "), goBytes, 100*goCommentShare(goFiles)),
	}
	parsePharo := func() error {
		for _, m := range methods {
			if _, err := smalltalk.ParseMethod(m); err != nil {
				return err
			}
		}
		return nil
	}
	parseGo := func() error {
		fset := token.NewFileSet()
		for _, f := range goFiles {
			if _, err := parser.ParseFile(fset, "", f, parser.SkipObjectResolution); err != nil {
				return err
			}
		}
		return nil
	}
	for range rounds {
		pharo, err := throughput(pharoBytes, parsePharo)
		if err != nil {
			return nil, fmt.Errorf("the Pharo parser: %w", err)
		}
		golang, err := throughput(goBytes, parseGo)
		if err != nil {
			return nil, fmt.Errorf("go/parser: %w", err)
		}
		c.add(measure.Round(pharo, 2), measure.Round(golang, 2))
	}
	return c, nil
}

// parseTime is how long each parser parses its input, again and again, in
// a round.
const parseTime = 400 * time.Millisecond

// throughput parses the input (n bytes) with parse until parseTime has
// passed, after a collection of the garbage of the previous turn, and
// answers the MB/s.
func throughput(n int, parse func() error) (float64, error) {
	runtime.GC()
	start := time.Now()
	times := 0
	for time.Since(start) < parseTime {
		if err := parse(); err != nil {
			return 0, err
		}
		times++
	}
	return float64(n) * float64(times) / 1e6 / time.Since(start).Seconds(), nil
}

// generatedMethods are methods of the image generator (imagegen.go), from
// its fixed seed, until they hold n bytes.
func generatedMethods(n int) []string {
	g := newGenerator(imageSeed)
	var out []string
	total := 0
	for total < n {
		for _, m := range g.classMethods(20, []string{"items", "count", "owner"}, "Bench-Parser", false) {
			out = append(out, m.Source)
			total += len(m.Source)
		}
	}
	return out
}

// goSources reads Go files of goCodePackages (each package's files sorted,
// tests left out) until they hold n bytes, give or take a tenth: a file
// that would overshoot is passed over.
func goSources(n int) ([]string, int, error) {
	var out []string
	total := 0
	for _, pkg := range goCodePackages {
		dir := filepath.Join(runtime.GOROOT(), "src", filepath.FromSlash(pkg))
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil, 0, fmt.Errorf("reading Go sources: %w", err)
		}
		var names []string
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".go") && !strings.HasSuffix(e.Name(), "_test.go") {
				names = append(names, e.Name())
			}
		}
		sort.Strings(names)
		for _, name := range names {
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				return nil, 0, err
			}
			if total+len(data) > n+n/10 {
				continue
			}
			out = append(out, string(data))
			total += len(data)
			if total >= n-n/10 {
				return out, total, nil
			}
		}
	}
	return nil, 0, fmt.Errorf("only %d bytes of Go source found for %d", total, n)
}

// goCommentShare is the share of the files' bytes inside comments.
func goCommentShare(files []string) float64 {
	total, comments := 0, 0
	for _, src := range files {
		fset := token.NewFileSet()
		f := fset.AddFile("", fset.Base(), len(src))
		var s scanner.Scanner
		s.Init(f, []byte(src), nil, scanner.ScanComments)
		for {
			_, tok, lit := s.Scan()
			if tok == token.EOF {
				break
			}
			if tok == token.COMMENT {
				comments += len(lit)
			}
		}
		total += len(src)
	}
	return float64(comments) / float64(max(total, 1))
}

// pharoCommentShare is the share of the methods' bytes inside comments
// ("…"), strings ('…', a quote doubled inside) and characters ($c) skipped.
func pharoCommentShare(methods []string) float64 {
	total, comments := 0, 0
	for _, src := range methods {
		total += len(src)
		for i := 0; i < len(src); i++ {
			switch src[i] {
			case '$':
				i++
			case '\'':
				i = stringEnd(src, i)
			case '"':
				end := i + 1 + strings.IndexByte(src[i+1:], '"')
				if end == i {
					end = len(src) - 1 // unterminated: the rest
				}
				comments += end - i + 1
				i = end
			}
		}
	}
	return float64(comments) / float64(max(total, 1))
}

// stringEnd answers the index of the quote that closes the string opened
// at i (” inside is a quote), or the last index when none does.
func stringEnd(src string, i int) int {
	for j := i + 1; j < len(src); j++ {
		if src[j] != '\'' {
			continue
		}
		if j+1 < len(src) && src[j+1] == '\'' {
			j++
			continue
		}
		return j
	}
	return len(src) - 1
}
