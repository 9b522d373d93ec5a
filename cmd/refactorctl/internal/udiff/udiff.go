// Package udiff writes unified line diffs (Myers' O(ND) algorithm) of
// method sources — small texts, so clarity wins over speed.
package udiff

import (
	"fmt"
	"strings"
)

// Kind is what an edit does to a line.
type Kind byte

// Edit kinds, as their unified-diff prefixes.
const (
	Equal  Kind = ' '
	Delete Kind = '-'
	Insert Kind = '+'
)

// Edit is one line of the edit script.
type Edit struct {
	Kind Kind
	Text string
}

// Lines splits a source into lines; a final newline does not make an extra
// empty line.
func Lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// Edits is a shortest edit script from a to b: Equal lines of a, Delete
// lines of a, Insert lines of b, in order.
func Edits(a, b []string) []Edit {
	trace := shortestEdit(a, b)
	return backtrack(a, b, trace)
}

// shortestEdit runs Myers' greedy forward search and keeps the furthest
// x of every diagonal k before each round d, for the backtrack.
func shortestEdit(a, b []string) [][]int {
	n, m := len(a), len(b)
	limit := n + m
	off := limit + 1
	v := make([]int, 2*limit+3)
	var trace [][]int
	for d := 0; d <= limit; d++ {
		trace = append(trace, append([]int(nil), v...))
		for k := -d; k <= d; k += 2 {
			x := v[off+k-1] + 1 // a step right: delete from a
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1] // a step down: insert from b
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				return trace
			}
		}
	}
	return trace
}

func backtrack(a, b []string, trace [][]int) []Edit {
	off := len(a) + len(b) + 1
	x, y := len(a), len(b)
	var rev []Edit
	for d := len(trace) - 1; d >= 0; d-- {
		v := trace[d]
		k := x - y
		prevK := k - 1
		if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
			prevK = k + 1
		}
		prevX := v[off+prevK]
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			x, y = x-1, y-1
			rev = append(rev, Edit{Equal, a[x]})
		}
		if d == 0 {
			break
		}
		if x == prevX {
			rev = append(rev, Edit{Insert, b[prevY]})
		} else {
			rev = append(rev, Edit{Delete, a[prevX]})
		}
		x, y = prevX, prevY
	}
	out := make([]Edit, len(rev))
	for i, e := range rev {
		out[len(rev)-1-i] = e
	}
	return out
}

// Unified is the unified diff of a → b with ctx lines of context and the
// given header names; "" when the texts are equal line by line.
func Unified(fromName, toName, a, b string, ctx int) string {
	edits := Edits(Lines(a), Lines(b))
	hunks := group(edits, ctx)
	if len(hunks) == 0 {
		return ""
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", fromName, toName)
	for _, h := range hunks {
		h.write(&sb, edits)
	}
	return sb.String()
}

// hunk is edits[lo:hi] starting at old line aStart and new line bStart
// (0-based).
type hunk struct {
	lo, hi         int
	aStart, bStart int
}

// group cuts the script into hunks: changes with at most 2*ctx equal lines
// between them share a hunk.
func group(edits []Edit, ctx int) []hunk {
	var hunks []hunk
	aLine, bLine := 0, 0 // line numbers before edits[i]
	var cur *hunk
	lastChange := -1
	for i, e := range edits {
		if e.Kind != Equal {
			if cur == nil || i-lastChange > 2*ctx+1 {
				if cur != nil {
					cur.hi = min(lastChange+ctx+1, len(edits))
					hunks = append(hunks, *cur)
				}
				back := min(ctx, countEqualBefore(edits, i))
				cur = &hunk{lo: i - back, aStart: aLine - back, bStart: bLine - back}
			}
			lastChange = i
		}
		if e.Kind != Insert {
			aLine++
		}
		if e.Kind != Delete {
			bLine++
		}
	}
	if cur != nil {
		cur.hi = min(lastChange+ctx+1, len(edits))
		hunks = append(hunks, *cur)
	}
	return hunks
}

func countEqualBefore(edits []Edit, i int) int {
	n := 0
	for j := i - 1; j >= 0 && edits[j].Kind == Equal; j-- {
		n++
	}
	return n
}

func (h hunk) write(sb *strings.Builder, edits []Edit) {
	aLen, bLen := 0, 0
	for _, e := range edits[h.lo:h.hi] {
		if e.Kind != Insert {
			aLen++
		}
		if e.Kind != Delete {
			bLen++
		}
	}
	fmt.Fprintf(sb, "@@ -%s +%s @@\n", span(h.aStart, aLen), span(h.bStart, bLen))
	for _, e := range edits[h.lo:h.hi] {
		sb.WriteByte(byte(e.Kind))
		sb.WriteString(e.Text)
		sb.WriteByte('\n')
	}
}

// span is a hunk range as GNU diff writes it: an empty range names the line
// before it, and a count of one is left out.
func span(start, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}
