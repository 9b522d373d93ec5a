package main

import (
	"sort"
	"strings"

	"github.com/pharo-refactor/refactord/smalltalk"
)

// Candidate is a rewrite of a method the gate is asked to release: a
// mutant, which changes behaviour on purpose, or a faithful rewrite,
// which keeps it.
type Candidate struct {
	Kind     string `json:"kind"`     // mutant or faithful
	Operator string `json:"operator"` // the operator or transformation that made it
	Where    string `json:"where"`    // what it changed, in a few words
	Source   string `json:"-"`
}

// The candidates' kinds.
const (
	KindMutant   = "mutant"
	KindFaithful = "faithful"
)

// edit replaces src[Start:End] with Text.
type edit struct {
	Start, End int
	Text       string
}

// apply applies non-overlapping edits to src.
func apply(src string, edits ...edit) string {
	sorted := append([]edit(nil), edits...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Start > sorted[j].Start })
	for _, e := range sorted {
		src = src[:e.Start] + e.Text + src[e.End:]
	}
	return src
}

// text is a node's source text.
func text(src string, n smalltalk.Node) string { return src[n.Start():n.End()] }

// primary says whether a node can take a unary message without
// parentheses: a variable, a literal, a block, a parenthesised expression.
func primary(n smalltalk.Node) bool {
	switch n := n.(type) {
	case *smalltalk.Variable, *smalltalk.Literal, *smalltalk.Block, *smalltalk.DynamicArray:
		return true
	case *smalltalk.Message:
		return n.Parens > 0 || len(n.Args) == 0 && !strings.HasSuffix(n.Selector, ":") && isUnary(n.Selector)
	case *smalltalk.Cascade:
		return n.Parens > 0
	case *smalltalk.Assignment:
		return n.Parens > 0
	}
	return false
}

func isUnary(sel string) bool { return smalltalk.IsIdentifier(sel) }

// paren is a node's text, in parentheses unless it is primary.
func paren(src string, n smalltalk.Node) string {
	if primary(n) {
		return text(src, n)
	}
	return "(" + text(src, n) + ")"
}

// keywordPositions answers the offset of each keyword of a keyword
// message: the first is SelectorPos, each later one is found between the
// argument before it and the argument it introduces.
func keywordPositions(src string, m *smalltalk.Message) []int {
	parts := strings.SplitAfter(m.Selector, ":")
	if len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	if len(parts) != len(m.Args) {
		return nil
	}
	pos := []int{m.SelectorPos}
	for i := 1; i < len(parts); i++ {
		from, to := m.Args[i-1].End(), m.Args[i].Start()
		k := strings.Index(src[from:to], parts[i])
		if k < 0 {
			return nil
		}
		pos = append(pos, from+k)
	}
	return pos
}

// lineOf is the 1-based line of an offset.
func lineOf(src string, off int) int { return strings.Count(src[:off], "\n") + 1 }

// parses says whether a source parses as a method of the given selector.
func parses(src, selector string) bool {
	m, err := smalltalk.ParseMethod(src)
	return err == nil && m.Selector == selector
}

// diff is a short line diff of two sources: the lines that differ, "-"
// for the original's and "+" for the rewrite's, between their common
// first and last lines.
func diff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	p := 0
	for p < len(al) && p < len(bl) && al[p] == bl[p] {
		p++
	}
	s := 0
	for s < len(al)-p && s < len(bl)-p && al[len(al)-1-s] == bl[len(bl)-1-s] {
		s++
	}
	var out []string
	for _, l := range al[p : len(al)-s] {
		out = append(out, "- "+l)
	}
	for _, l := range bl[p : len(bl)-s] {
		out = append(out, "+ "+l)
	}
	return strings.Join(out, "\n")
}
