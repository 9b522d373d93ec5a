package pipeline

import (
	"slices"
	"strings"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/smalltalk"
	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// What the prompts show of the class besides the method: its selectors on
// the method's side, and the sources of its other methods that the roles
// need to judge a rewrite — the ones the method sends to self (or to self
// class), so that the validator can tell what a send does, and the ones
// that repeat the method's code, so that the writer can reuse them instead
// of inventing a helper. All of it comes from the class source prefetch
// already read; the roles show it within their context budget.

// maxSimilar bounds the methods shown for repeating the method's code.
const maxSimilar = 3

// minSharedLines is how many code lines a method must share with the
// original to count as repeating it.
const minSharedLines = 2

// selectors lists the class's selectors on ref's side, sorted.
func (s *scope) selectors() []string {
	var out []string
	for _, m := range s.methods {
		if m.Side == s.side() {
			out = append(out, m.Selector)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func (s *scope) side() tonel.Side {
	if s.ref.ClassSide {
		return tonel.ClassSide
	}
	return tonel.InstanceSide
}

// related lists the methods the original sends to self, then those that
// repeat its code.
func (s *scope) related(original string) []refactor.RelatedMethod {
	out := s.sentBy(original, nil)
	return append(out, s.similarTo(original, out)...)
}

// sentBy lists the class's methods that code sends to self (on the
// method's side) or to self class (on the class side), in the order sent,
// leaving out the method itself and those in shown.
func (s *scope) sentBy(code string, shown []refactor.RelatedMethod) []refactor.RelatedMethod {
	m, err := smalltalk.ParseMethod(code)
	if err != nil {
		return nil
	}
	var out []refactor.RelatedMethod
	for _, send := range selfSends(m, s.side()) {
		ref := refactor.MethodRef{Class: s.ref.Class, Selector: send.selector, ClassSide: send.side == tonel.ClassSide}
		if ref == s.ref || isShown(ref, shown) || isShown(ref, out) {
			continue
		}
		if tm := s.method(send.side, send.selector); tm != nil {
			out = append(out, refactor.RelatedMethod{Ref: ref, Source: tm.Source, Why: refactor.RelatedSent})
		}
	}
	return out
}

// similarTo lists up to maxSimilar methods on the method's side that share
// the most code lines with original, most first.
func (s *scope) similarTo(original string, shown []refactor.RelatedMethod) []refactor.RelatedMethod {
	lines := codeLines(original)
	type scored struct {
		m      *tonel.Method
		shared int
	}
	var found []scored
	for _, m := range s.methods {
		ref := refactor.MethodRef{Class: s.ref.Class, Selector: m.Selector, ClassSide: m.Side == tonel.ClassSide}
		if m.Side != s.side() || ref == s.ref || isShown(ref, shown) {
			continue
		}
		if n := sharedLines(lines, codeLines(m.Source)); n >= minSharedLines {
			found = append(found, scored{m, n})
		}
	}
	slices.SortStableFunc(found, func(a, b scored) int { return b.shared - a.shared })
	var out []refactor.RelatedMethod
	for _, f := range found[:min(len(found), maxSimilar)] {
		out = append(out, refactor.RelatedMethod{
			Ref:    refactor.MethodRef{Class: s.ref.Class, Selector: f.m.Selector, ClassSide: s.ref.ClassSide},
			Source: f.m.Source, Why: refactor.RelatedSimilar,
		})
	}
	return out
}

func (s *scope) method(side tonel.Side, selector string) *tonel.Method {
	for _, m := range s.methods {
		if m.Side == side && m.Selector == selector {
			return m
		}
	}
	return nil
}

func isShown(ref refactor.MethodRef, list []refactor.RelatedMethod) bool {
	return slices.ContainsFunc(list, func(m refactor.RelatedMethod) bool { return m.Ref == ref })
}

// send is a message to self or to self class.
type send struct {
	side     tonel.Side
	selector string
}

// selfSends lists, in source order and once each, the messages m sends to
// self (answered on side) and to self class (answered on the class side).
// Sends to super go to the superclass and are left out.
func selfSends(m *smalltalk.Method, side tonel.Side) []send {
	var out []send
	add := func(s send) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	visit := func(receiver smalltalk.Node, selector string) {
		switch {
		case isSelf(receiver):
			add(send{side, selector})
		case side == tonel.InstanceSide && isSelfClass(receiver):
			add(send{tonel.ClassSide, selector})
		}
	}
	smalltalk.Walk(m, func(n smalltalk.Node) bool {
		switch n := n.(type) {
		case *smalltalk.Message:
			if n.Receiver != nil {
				visit(n.Receiver, n.Selector)
			}
		case *smalltalk.Cascade:
			for _, part := range n.Messages {
				visit(n.Receiver, part.Selector)
			}
		}
		return true
	})
	return out
}

func isSelf(n smalltalk.Node) bool {
	v, ok := n.(*smalltalk.Variable)
	return ok && v.Name == "self"
}

func isSelfClass(n smalltalk.Node) bool {
	m, ok := n.(*smalltalk.Message)
	return ok && m.Selector == "class" && len(m.Args) == 0 && isSelf(m.Receiver)
}

// codeLines are the lines of a method's body worth comparing: trimmed, and
// long enough to say something (not "]", "^ t", a blank).
func codeLines(source string) map[string]bool {
	lines := strings.Split(refactor.NormalizeSource(source), "\n")
	out := make(map[string]bool, len(lines))
	for _, l := range lines[min(1, len(lines)):] { // the pattern is not code
		if l = strings.Join(strings.Fields(l), " "); len(l) >= 8 {
			out[l] = true
		}
	}
	return out
}

func sharedLines(a, b map[string]bool) int {
	n := 0
	for l := range a {
		if b[l] {
			n++
		}
	}
	return n
}
