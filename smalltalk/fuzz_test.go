package smalltalk

import (
	"errors"
	"strings"
	"testing"
)

// fuzzSeeds are inputs worth mutating: every syntax form, every error, and
// the corner cases of the scanner.
var fuzzSeeds = []string{
	"foo", "+ other ^ self", "at: i put: v ^ v",
	"foo ^ a foo + b bar: c", "foo ^ x-1", "foo ^ 3 - -2", "foo ^ 3--2", "foo x := -5",
	"foo ^ 16r-1F + 2r1e4 + 1.5s2 + 3s + 1.50s + 1e10 + 1.5e-3 + 36rSMALLTALK",
	"foo ^ 1. ", "foo ^ $ ", "foo ^ $'", "foo ^ [$]]", "foo ^ 'it''s'",
	"foo ^ #(foo bar: #baz $a 'str' 1.5 (nested) #(x) #[1 2] true foo:bar: + )",
	"foo ^ #(1 -2 a-1 . ; ^ [ ] { } foo:= := nil false #- - 3)",
	"foo ^ #[1 2 255]", "foo ^ { a. b }", "foo ^ [:a :b | | t | t := a. b]", "foo ^ [:a || t | t]",
	"foo | t u | ^ t", "foo || ^ 1", "foo a := b := 3", "foo r m1; m2: x; + y",
	"foo <primitive: 60> | t | <bar: 'x' baz: #(1)> ^ t", "foo <primitive: 'f' module: 'm' error: ec> ^ ec",
	`"c"foo"c"^"c"x"c"`, "foo ^ thisContext", "foo ^ café", "foo ^ #'with space' , ##foo , #foo:bar:",
	"foo ^ (1", "foo ^ 'abc", "foo \"abc", "foo ^ 1 2", "foo ^ x; bar", "foo ^ 1r0", "foo ^ #[256]",
	"foo ^ $", "foo ^ `", "foo ^ 1. 2", "foo ^ x )", "foo <bar: baz>", "foo | a", "foo ^[:a a]",
	"foo ^ " + strings.Repeat("(", 600) + "1" + strings.Repeat(")", 600),
	"foo ^ #" + strings.Repeat("(", 600),
	"foo\r\n\t^ 1\r", "foo ^ \xff\xfe", "foo ^ 'é' , $é",
}

func addSeeds(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	for _, s := range corpus(f) {
		f.Add(s)
	}
}

// checkParse holds for every input: a result or a well-formed error, never
// both, and spans inside the source.
func checkParse(t *testing.T, src string, root Node, err error) {
	if err != nil {
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Fatalf("%q: error %T is no *SyntaxError", src, err)
		}
		if se.Offset < 0 || se.Offset > len(src) || se.Message == "" {
			t.Fatalf("%q: bad error %+v", src, se)
		}
		if line, col := LineCol(src, se.Offset); line != se.Line || col != se.Col {
			t.Fatalf("%q: error at %d:%d, offset says %d:%d", src, se.Line, se.Col, line, col)
		}
		return
	}
	if p := spanProblem(src, root); p != "" {
		t.Fatalf("%q: %s", src, p)
	}
	Analyze(root)
}

func FuzzParseMethod(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, src string) {
		m, err := ParseMethod(src)
		if err != nil {
			if m != nil {
				t.Fatalf("%q: both a method and an error", src)
			}
			checkParse(t, src, nil, err)
			return
		}
		checkParse(t, src, m, nil)
		ArgumentAssignments(m)
		Undeclared(m, func(string) bool { return false })
	})
}

func FuzzParseExpression(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, src string) {
		seq, err := ParseExpression(src)
		if err != nil {
			if seq != nil {
				t.Fatalf("%q: both a sequence and an error", src)
			}
			checkParse(t, src, nil, err)
			return
		}
		checkParse(t, src, seq, nil)
	})
}

func FuzzQuoteString(f *testing.F) {
	for _, s := range quoteSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if kind, value := roundTrip(t, QuoteString(s)); kind != LitString || value != s {
			t.Fatalf("QuoteString(%q) reads back as %v %q", s, kind, value)
		}
		if kind, value := roundTrip(t, QuoteSymbol(s)); kind != LitSymbol || value != s {
			t.Fatalf("QuoteSymbol(%q) reads back as %v %q", s, kind, value)
		}
	})
}
