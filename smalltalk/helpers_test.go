package smalltalk

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// sexpr renders a node compactly so tests can assert the shape of a tree:
// (recv sel args…) for sends, (cascade recv (m1…) (m2…)), (v := e), (^ e),
// [:a | | t | s1. s2], {e1. e2}, #(…), #[…], #sym, 'str', $c.
func sexpr(n Node) string {
	switch n := n.(type) {
	case nil:
		return "<nil>"
	case *Method:
		return sexprMethod(n)
	case *Sequence:
		return sexprSeq(n)
	case *Variable:
		return n.Name
	case *Literal:
		return sexprLiteral(n)
	case *Message:
		return sexprMessage(n)
	case *Cascade:
		parts := []string{"cascade", sexpr(n.Receiver)}
		for _, m := range n.Messages {
			parts = append(parts, sexpr(m))
		}
		return "(" + strings.Join(parts, " ") + ")"
	case *Assignment:
		return "(" + n.Variable.Name + " := " + sexpr(n.Value) + ")"
	case *Return:
		return "(^ " + sexpr(n.Value) + ")"
	case *Block:
		var b strings.Builder
		b.WriteString("[")
		for _, a := range n.Args {
			b.WriteString(":" + a.Name + " ")
		}
		if len(n.Args) > 0 {
			b.WriteString("| ")
		}
		b.WriteString(sexprSeq(n.Body))
		b.WriteString("]")
		return b.String()
	case *DynamicArray:
		return "{" + joinNodes(n.Elements, ". ") + "}"
	case *Pragma:
		parts := []string{n.Selector}
		for _, a := range n.Args {
			parts = append(parts, sexpr(a))
		}
		return "<" + strings.Join(parts, " ") + ">"
	}
	return fmt.Sprintf("<%T>", n)
}

func sexprMethod(m *Method) string {
	parts := []string{m.Selector}
	for _, a := range m.Args {
		parts = append(parts, a.Name)
	}
	for _, p := range m.Pragmas {
		parts = append(parts, sexpr(p))
	}
	return strings.Join(parts, " ") + " => " + sexprSeq(m.Body)
}

func sexprSeq(s *Sequence) string {
	var b strings.Builder
	if len(s.Temps) > 0 {
		b.WriteString("|")
		for _, t := range s.Temps {
			b.WriteString(" " + t.Name)
		}
		b.WriteString(" | ")
	}
	b.WriteString(joinNodes(s.Statements, ". "))
	return b.String()
}

func sexprMessage(m *Message) string {
	parts := []string{}
	if m.Receiver != nil {
		parts = append(parts, sexpr(m.Receiver))
	}
	parts = append(parts, m.Selector)
	for _, a := range m.Args {
		parts = append(parts, sexpr(a))
	}
	return "(" + strings.Join(parts, " ") + ")"
}

func sexprLiteral(l *Literal) string {
	switch l.Kind {
	case LitString:
		return QuoteString(l.Value)
	case LitCharacter:
		return "$" + l.Value
	case LitSymbol:
		return "#" + l.Value
	case LitArray, LitByteArray:
		open, closer := "#(", ")"
		if l.Kind == LitByteArray {
			open, closer = "#[", "]"
		}
		parts := make([]string, len(l.Elements))
		for i, e := range l.Elements {
			parts[i] = sexpr(e)
		}
		return open + strings.Join(parts, " ") + closer
	}
	return l.Value
}

func joinNodes(ns []Node, sep string) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = sexpr(n)
	}
	return strings.Join(parts, sep)
}

// spanProblem returns a description of the first node whose span is not
// within bounds and within its parent's span, or "" when all are fine.
func spanProblem(src string, root Node) string {
	var problem string
	var check func(n Node, lo, hi int)
	check = func(n Node, lo, hi int) {
		if problem != "" || n == nil {
			return
		}
		if n.Start() < lo || n.Start() > n.End() || n.End() > hi {
			problem = fmt.Sprintf("%T %q spans [%d,%d) outside [%d,%d)", n, sexpr(n), n.Start(), n.End(), lo, hi)
			return
		}
		for _, c := range children(n) {
			check(c, n.Start(), n.End())
		}
	}
	check(root, 0, len(src))
	return problem
}

// mustMethod parses src or fails the test.
func mustMethod(t *testing.T, src string) *Method {
	t.Helper()
	m, err := ParseMethod(src)
	require.NoError(t, err, "ParseMethod(%q)", src)
	require.Empty(t, spanProblem(src, m), "spans of %q", src)
	return m
}
