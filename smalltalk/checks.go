package smalltalk

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// Ref is one occurrence of a name in a method's source.
type Ref struct {
	Name      string
	Start     int // byte offset of the name
	End       int // byte offset just past it
	Line, Col int // 1-based; Col counts runes
}

func (m *Method) ref(v *Variable) Ref {
	line, col := LineCol(m.Source, v.StartPos)
	return Ref{Name: v.Name, Start: v.StartPos, End: v.EndPos, Line: line, Col: col}
}

// CheckSelector reports an error naming both selectors when the method does
// not define want, e.g. because the model renamed the method it was asked
// to refactor.
func CheckSelector(m *Method, want string) error {
	if m.Selector == want {
		return nil
	}
	return fmt.Errorf("the method defines %s but %s was expected", QuoteSymbol(m.Selector), QuoteSymbol(want))
}

// ArgumentAssignments lists every assignment to a method or block argument,
// which Pharo refuses to compile ("Cannot store into"); assignments to
// self, super and thisContext are listed too, for the same reason.
func ArgumentAssignments(m *Method) []Ref {
	var out []Ref
	r := resolver{visit: func(v *Variable, k declKind, write bool) {
		if write && (k == declArg || k == declPseudo) {
			out = append(out, m.ref(v))
		}
	}}
	r.method(m)
	return out
}

// Undeclared lists the names the method uses without declaring them, with
// proper lexical scoping: arguments and temporaries of the method are
// visible everywhere, those of a block only inside it. Names for which
// known returns true (instance and class variables, globals) are fine, as
// are the pseudo-variables self, super, thisContext, true, false and nil.
// Each name is reported once, at its first use. Capitalised names (likely a
// missing global or class) come apart from lower-case ones (likely a typo
// or a missing temporary). known may be nil.
func Undeclared(m *Method, known func(name string) bool) (capitalised, lowercase []Ref) {
	reported := make(map[string]bool)
	r := resolver{visit: func(v *Variable, k declKind, _ bool) {
		if k != declNone || reported[v.Name] || (known != nil && known(v.Name)) {
			return
		}
		reported[v.Name] = true
		if isCapitalised(v.Name) {
			capitalised = append(capitalised, m.ref(v))
		} else {
			lowercase = append(lowercase, m.ref(v))
		}
	}}
	r.method(m)
	return capitalised, lowercase
}

func isCapitalised(name string) bool {
	r, _ := utf8.DecodeRuneInString(name)
	return unicode.IsUpper(r)
}

// declKind says what a name resolved to.
type declKind uint8

const (
	declNone   declKind = iota // not declared in the method
	declPseudo                 // self, super, thisContext
	declArg                    // a method or block argument
	declTemp                   // a method or block temporary
)

// resolver walks a method with a stack of declared names and calls visit
// for every use of a variable.
type resolver struct {
	names []string
	kinds []declKind
	visit func(v *Variable, k declKind, write bool)
}

func (r *resolver) declare(vs []*Variable, k declKind) {
	for _, v := range vs {
		r.names = append(r.names, v.Name)
		r.kinds = append(r.kinds, k)
	}
}

// pop drops the declarations made after mark.
func (r *resolver) pop(mark int) {
	r.names, r.kinds = r.names[:mark], r.kinds[:mark]
}

func (r *resolver) lookup(name string) declKind {
	switch name {
	case "self", "super", "thisContext":
		return declPseudo
	}
	for i := len(r.names) - 1; i >= 0; i-- {
		if r.names[i] == name {
			return r.kinds[i]
		}
	}
	return declNone
}

func (r *resolver) method(m *Method) {
	r.declare(m.Args, declArg)
	for _, p := range m.Pragmas {
		for _, a := range p.Args {
			if a.Kind == LitName { // <primitive: 1 error: ec> declares ec
				r.names = append(r.names, a.Value)
				r.kinds = append(r.kinds, declTemp)
			}
		}
	}
	r.node(m.Body)
}

func (r *resolver) use(v *Variable, write bool) {
	r.visit(v, r.lookup(v.Name), write)
}

func (r *resolver) node(n Node) {
	switch n := n.(type) {
	case *Sequence:
		mark := len(r.names)
		r.declare(n.Temps, declTemp)
		r.nodes(n.Statements)
		r.pop(mark)
	case *Block:
		mark := len(r.names)
		r.declare(n.Args, declArg)
		r.node(n.Body)
		r.pop(mark)
	case *Variable:
		r.use(n, false)
	case *Assignment:
		r.use(n.Variable, true)
		r.node(n.Value)
	case *Return:
		r.node(n.Value)
	case *Message:
		if n.Receiver != nil {
			r.node(n.Receiver)
		}
		r.nodes(n.Args)
	case *Cascade:
		r.node(n.Receiver)
		for _, m := range n.Messages {
			r.node(m)
		}
	case *DynamicArray:
		r.nodes(n.Elements)
	}
}

func (r *resolver) nodes(ns []Node) {
	for _, n := range ns {
		r.node(n)
	}
}
