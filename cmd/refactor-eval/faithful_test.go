package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/pharosim"
	"github.com/pharo-refactor/refactord/pharosim/interp"
)

// Each transformation makes a rewrite that parses and holds the change it
// names.
func TestFaithfulTransformations(t *testing.T) {
	t.Parallel()
	average := "average: aCollection\n\n\t| a b temp |\n\ta := 0.\n\tb := 0.\n\taCollection do: [ :each |\n\t\ta := a + each.\n\t\tb := b + 1 ].\n\tb = 0 ifTrue: [ ^ 0 ].\n\ttemp := a / b.\n\t^ temp"
	cases := []struct {
		tr, src string
		want    []string
		taken   string // a name the class already uses
	}{
		{TrRename, average, []string{"| renamedA renamedB renamedTemp |", "[ :renamedEach |", "renamedA := renamedA + renamedEach", "^ renamedTemp"}, ""},
		{TrRename, "at: x\n\t| y |\n\ty := x.\n\t^ y", []string{"| renamedYX |", "^ renamedYX"}, "renamedY"},
		{TrFormat, average, []string{"average: aCollection\n\t| a b temp | a := 0. b := 0. aCollection do: [ :each | a := a + each. b := b + 1 ]."}, ""},
		{TrFormat, "at: x\n\t\"keep  these   blanks\"\n\t^ x , '  a  '  , $ \t printString", []string{"\"keep  these   blanks\" ^ x , '  a  ' , $  printString"}, ""},
		{TrInline, average, []string{"| a b |", "\t^ (a / b)"}, ""},
		{TrInline, "at: x\n\t| y |\n\ty := x + 1.\n\t^ y * 2", []string{"at: x\n\t^ (x + 1) * 2"}, ""},
		{TrNegatedIf, average, []string{"b ~= 0 ifFalse: [ ^ 0 ]"}, ""},
		{TrNegatedIf, "at: x\n\t^ x < 3 ifTrue: [ #low ] ifFalse: [ #high ]", []string{"^ x >= 3 ifTrue: [ #high ] ifFalse: [ #low ]"}, ""},
		{TrNegatedIf, "at: x\n\t^ x isNil not ifTrue: [ 1 ]", []string{"^ x isNil ifFalse: [ 1 ]"}, ""},
		{TrNegatedIf, "at: x\n\t^ (x includes: 3) ifFalse: [ 1 ]", []string{"^ (x includes: 3) not ifTrue: [ 1 ]"}, ""},
		{TrComment, average, []string{"average: aCollection\n\t\"Kept as it was: only this comment is new.\"\n"}, ""},
	}
	covered := map[string]bool{}
	for _, c := range cases {
		t.Run(c.tr, func(t *testing.T) {
			taken := func(name string) bool { return name == c.taken }
			var got *Candidate
			for _, f := range Faithful(c.src, taken) {
				assert.True(t, parses(f.Source, selectorOf(t, c.src)), "%s: %q", f.Operator, f.Source)
				assert.NotEqual(t, c.src, f.Source)
				if f.Operator == c.tr {
					got = &f
				}
			}
			require.NotNil(t, got, "no %s rewrite of %q", c.tr, c.src)
			for _, w := range c.want {
				assert.Contains(t, got.Source, w)
			}
		})
		covered[c.tr] = true
	}
	for _, tr := range FaithfulTransformations {
		assert.True(t, covered[tr], "%s has no case", tr)
	}
	assert.Len(t, rewritesOf("at: x\n\tx < 0 ifTrue: [ ^ 0 ].\n\t^ x > 9 ifTrue: [ 9 ] ifFalse: [ x ]", TrNegatedIf), 2, "one rewrite per conditional")
	assert.Len(t, rewritesOf("at: x\n\t| y z |\n\ty := x + 1.\n\tz := y * 2.\n\t^ z", TrInline), 2, "one rewrite per temporary")
	assert.Empty(t, rewritesOf("at: x\n\t| y |\n\ty := x.\n\tself foo.\n\t^ y", TrInline), "a send between the assignment and the use")
	assert.Empty(t, rewritesOf("at: x\n\t| y |\n\ty := x.\n\t^ self foo: y", TrInline), "the use is not what the statement evaluates first")
	assert.Empty(t, rewritesOf("at: x\n\t| y |\n\ty := x.\n\t^ y + y", TrInline), "used twice")
}

func rewritesOf(src, tr string) []Candidate {
	var out []Candidate
	for _, f := range Faithful(src, nil) {
		if f.Operator == tr {
			out = append(out, f)
		}
	}
	return out
}

func selectorOf(t *testing.T, src string) string {
	t.Helper()
	for _, m := range []string{"average:", "at:"} {
		if strings.HasPrefix(src, m) {
			return m
		}
	}
	t.Fatalf("no selector for %q", src)
	return ""
}

// Every faithful rewrite of every method of the sample image and of the
// evaluation's package is the same as the original for pharo-sim's
// comparison, run on the inputs its class's tests give and those it makes.
func TestFaithfulRewritesAreTheSameOnTheCorpus(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, buildImage([]string{filepath.Join("..", "..", "examples", "sample-image"), filepath.Join("..", "..", "eval", "corpus")}, dir))
	corpus, err := readCorpus(dir)
	require.NoError(t, err)
	img, err := pharosim.LoadImage(dir, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = img.Close() })
	kinds := map[string]int{}
	for _, m := range corpus.Methods {
		var tests []string
		if img.IsTestCase(m.Ref.Class + "Test") {
			tests = []string{m.Ref.Class + "Test"}
		}
		for _, f := range Faithful(m.Source, corpus.taken(m.Ref.Class)) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			v, err := img.CompareMethod(ctx, pharosim.CompareRequest{Class: m.Ref.Class, ClassSide: m.Ref.ClassSide,
				Selector: m.Ref.Selector, Candidate: f.Source, TestClasses: tests})
			cancel()
			require.NoError(t, err, "%s %s", label(m.Ref), f.Operator)
			assert.Equal(t, interp.Same, v.Outcome, "%s %s (%s):\n%s\nwitness %+v", label(m.Ref), f.Operator, f.Where, f.Source, v.Witness)
			kinds[f.Operator]++
		}
	}
	for _, tr := range FaithfulTransformations {
		assert.Positive(t, kinds[tr], "the corpus has no %s rewrite", tr)
	}
	t.Logf("rewrites compared: %v", kinds)
}
