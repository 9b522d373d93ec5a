package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pharo-refactor/refactord/smalltalk"
)

// The mutation operators: each changes what a method does in one place.
const (
	OpRelational    = "relational_boundary" // < ↔ <=, > ↔ >=
	OpArithmetic    = "arithmetic_swap"     // + ↔ -, * ↔ /
	OpConstant      = "constant_plus_minus" // a number literal ±1
	OpDivision      = "division_kind"       // / → // and quo:
	OpNegate        = "negated_condition"   // not added to a condition
	OpSwapBranches  = "swapped_branches"    // ifTrue: ↔ ifFalse:
	OpDropStatement = "dropped_statement"   // a statement removed
	OpOtherVariable = "other_variable"      // ^ x → ^ y of the same scope
	OpAbsNegated    = "abs_negated"         // abs or negated added to an answer
)

// MutationOperators lists every operator, in the order mutants are made.
var MutationOperators = []string{OpRelational, OpArithmetic, OpConstant, OpDivision, OpNegate,
	OpSwapBranches, OpDropStatement, OpOtherVariable, OpAbsNegated}

// Mutants answers the mutants of a method's source, each of them parsing
// as a method of the same selector and differing from the source, in
// operator order; at most perOperator of each operator (0: all), spread
// over the method. A source that does not parse has none.
func Mutants(src string, perOperator int) []Candidate {
	m, err := smalltalk.ParseMethod(src)
	if err != nil {
		return nil
	}
	byOp := map[string][]Candidate{}
	seen := map[string]bool{src: true}
	add := func(op string, at int, where string, edits ...edit) {
		out := apply(src, edits...)
		if seen[out] || !parses(out, m.Selector) {
			return
		}
		seen[out] = true
		byOp[op] = append(byOp[op], Candidate{Kind: KindMutant, Operator: op,
			Where: fmt.Sprintf("line %d: %s", lineOf(src, at), where), Source: out})
	}
	walkScoped(m, nil, func(n smalltalk.Node, scope []string) {
		switch n := n.(type) {
		case *smalltalk.Message:
			mutateMessage(src, n, add)
		case *smalltalk.Literal:
			if n.Kind == smalltalk.LitNumber {
				if v, err := strconv.Atoi(n.Value); err == nil {
					for _, d := range []int{1, -1} {
						add(OpConstant, n.Start(), fmt.Sprintf("%d → %d", v, v+d),
							edit{n.Start(), n.End(), constantText(src, n, v+d)})
					}
				}
			}
		case *smalltalk.Sequence:
			for i, s := range n.Statements {
				start, end := s.Start(), s.End()
				if i+1 < len(n.Statements) {
					end = n.Statements[i+1].Start()
				} else if i > 0 {
					start = n.Statements[i-1].End()
				}
				add(OpDropStatement, s.Start(), "dropped `"+oneLine(text(src, s))+"`", edit{start, end, ""})
			}
		case *smalltalk.Block:
			// A block answers its last statement.
			if k := len(n.Body.Statements); k > 0 {
				inner := append(append([]string(nil), scope...), names(n.Args)...)
				otherVariable(n.Body.Statements[k-1], append(inner, names(n.Body.Temps)...), add)
			}
		case *smalltalk.Return:
			otherVariable(n.Value, scope, add)
			for _, sel := range []string{"abs", "negated"} {
				if l, ok := n.Value.(*smalltalk.Literal); ok && l.Kind == smalltalk.LitNumber &&
					(sel == "abs" && !strings.HasPrefix(l.Value, "-") || sel == "negated" && l.Value == "0") {
					continue // 12 abs, 0 negated: the same number by construction
				}
				add(OpAbsNegated, n.Value.Start(), sel+" added to `^ "+oneLine(text(src, n.Value))+"`",
					edit{n.Value.Start(), n.Value.End(), paren(src, n.Value) + " " + sel})
			}
		}
	})
	var out []Candidate
	for _, op := range MutationOperators {
		out = append(out, spread(byOp[op], perOperator)...)
	}
	return out
}

// otherVariable answers each other variable of the scope where n, the
// answer of a method or block, is a variable.
func otherVariable(n smalltalk.Node, scope []string, add func(op string, at int, where string, edits ...edit)) {
	v, ok := n.(*smalltalk.Variable)
	if !ok {
		return
	}
	for _, other := range scope {
		if other != v.Name {
			add(OpOtherVariable, v.Start(), fmt.Sprintf("%s answered instead of %s", other, v.Name),
				edit{v.Start(), v.End(), other})
		}
	}
}

func names(vs []*smalltalk.Variable) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Name
	}
	return out
}

// constantText writes a number, with a space before a negative one that
// follows a binary selector character (x -1, not x--1).
func constantText(src string, n *smalltalk.Literal, v int) string {
	s := strconv.Itoa(v)
	if v < 0 && n.Start() > 0 && smalltalk.BinaryCharLen(src, n.Start()-1) > 0 {
		s = " " + s
	}
	return s
}

func mutateMessage(src string, n *smalltalk.Message, add func(op string, at int, where string, edits ...edit)) {
	selAt := func(to string) edit { return edit{n.SelectorPos, n.SelectorPos + len(n.Selector), to} }
	swap := map[string]string{"<": "<=", "<=": "<", ">": ">=", ">=": ">"}
	if to, ok := swap[n.Selector]; ok && len(n.Args) == 1 {
		add(OpRelational, n.SelectorPos, n.Selector+" → "+to, selAt(to))
	}
	arith := map[string]string{"+": "-", "-": "+", "*": "/", "/": "*"}
	if to, ok := arith[n.Selector]; ok && len(n.Args) == 1 {
		add(OpArithmetic, n.SelectorPos, n.Selector+" → "+to, selAt(to))
	}
	if n.Selector == "/" && n.Receiver != nil && len(n.Args) == 1 {
		add(OpDivision, n.SelectorPos, "/ → //", selAt("//"))
		// quo: is a keyword message: the receiver and argument keep their
		// binding in parentheses.
		add(OpDivision, n.SelectorPos, "/ → quo:", edit{n.Start(), n.End(),
			"(" + text(src, n.Receiver) + " quo: " + text(src, n.Args[0]) + ")"})
	}
	switch n.Selector {
	case "ifTrue:", "ifFalse:", "ifTrue:ifFalse:", "ifFalse:ifTrue:", "and:", "or:", "whileTrue:", "whileFalse:":
		if n.Receiver != nil {
			add(OpNegate, n.Receiver.Start(), "not added to `"+oneLine(text(src, n.Receiver))+"`",
				edit{n.Receiver.Start(), n.Receiver.End(), paren(src, n.Receiver) + " not"})
		}
	}
	switch n.Selector {
	case "ifTrue:", "ifFalse:", "ifTrue:ifFalse:", "ifFalse:ifTrue:", "ifNil:", "ifNotNil:", "ifNil:ifNotNil:", "ifNotNil:ifNil:":
		pos := keywordPositions(src, n)
		if pos == nil {
			return
		}
		other := map[string]string{"ifTrue:": "ifFalse:", "ifFalse:": "ifTrue:", "ifNil:": "ifNotNil:", "ifNotNil:": "ifNil:"}
		var edits []edit
		for _, p := range pos {
			for from, to := range other {
				if len(src) >= p+len(from) && src[p:p+len(from)] == from {
					edits = append(edits, edit{p, p + len(from), to})
					break
				}
			}
		}
		if len(edits) == len(pos) {
			add(OpSwapBranches, n.SelectorPos, n.Selector+" with its keywords swapped", edits...)
		}
	}
}

// spread picks at most n of cs (all when n is 0), spread evenly.
func spread(cs []Candidate, n int) []Candidate {
	if n <= 0 || len(cs) <= n {
		return cs
	}
	out := make([]Candidate, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, cs[i*len(cs)/n])
	}
	return out
}

func oneLine(s string) string {
	out := make([]rune, 0, len(s))
	space := false
	for _, r := range s {
		if r == '\n' || r == '\t' || r == ' ' || r == '\r' {
			if !space {
				out = append(out, ' ')
			}
			space = true
			continue
		}
		space = false
		out = append(out, r)
	}
	if len(out) > 60 {
		return string(out[:57]) + "…"
	}
	return string(out)
}

// walkScoped visits every node under n, in source order, with the names
// of the method's arguments and temporaries and of the enclosing blocks'
// that are visible there.
func walkScoped(n smalltalk.Node, scope []string, fn func(n smalltalk.Node, scope []string)) {
	if n == nil {
		return
	}
	fn(n, scope)
	with := func(vs []*smalltalk.Variable) []string {
		out := append([]string(nil), scope...)
		for _, v := range vs {
			out = append(out, v.Name)
		}
		return out
	}
	switch n := n.(type) {
	case *smalltalk.Method:
		walkScoped(n.Body, with(n.Args), fn)
	case *smalltalk.Sequence:
		inner := with(n.Temps)
		for _, s := range n.Statements {
			walkScoped(s, inner, fn)
		}
	case *smalltalk.Block:
		walkScoped(n.Body, with(n.Args), fn)
	case *smalltalk.Return:
		walkScoped(n.Value, scope, fn)
	case *smalltalk.Assignment:
		walkScoped(n.Variable, scope, fn)
		walkScoped(n.Value, scope, fn)
	case *smalltalk.Message:
		walkScoped(n.Receiver, scope, fn)
		for _, a := range n.Args {
			walkScoped(a, scope, fn)
		}
	case *smalltalk.Cascade:
		walkScoped(n.Receiver, scope, fn)
		for _, m := range n.Messages {
			walkScoped(m, scope, fn)
		}
	case *smalltalk.DynamicArray:
		for _, e := range n.Elements {
			walkScoped(e, scope, fn)
		}
	}
}
