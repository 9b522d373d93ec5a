package interp

import (
	"pharo-refactor/smalltalk"
)

type varKind uint8

const (
	vTemp varKind = iota
	vIvar
	vShared // class variable, pool variable or global, looked up by name
	vSelf
	vSuper
	vThisContext
)

// varRef says where a name of a method lives.
type varRef struct {
	kind  varKind
	depth int // frames up from the current one, for a temporary
	index int
	name  string
}

type scope struct {
	names  map[string]int
	parent *scope
}

// compile parses a method's source and resolves its names.
func compile(class *Class, source string) *Method {
	m := &Method{class: class, source: source, refs: map[*smalltalk.Variable]varRef{}, blocks: map[*smalltalk.Block]int{}}
	ast, err := smalltalk.ParseMethod(source)
	if err != nil {
		m.err = err
		return m
	}
	m.ast, m.selector = ast, ast.Selector
	for _, p := range ast.Pragmas {
		m.pragmas = append(m.pragmas, p.Selector)
		if p.Selector == "primitive:" && len(p.Args) == 1 {
			m.primitive = p.Args[0].Value
			m.prim = primitives[m.primitive]
		}
	}
	sc := &scope{names: map[string]int{}}
	for _, a := range ast.Args {
		sc.names[a.Name] = len(sc.names)
	}
	for _, t := range ast.Temps {
		sc.names[t.Name] = len(sc.names)
	}
	m.nTemps = len(sc.names)
	ivars := class.ivarNames
	r := resolver{m: m, ivars: map[string]int{}}
	for i, n := range ivars {
		r.ivars[n] = i
	}
	r.seq(ast.Body, sc, false)
	return m
}

type resolver struct {
	m     *Method
	ivars map[string]int
}

func (r *resolver) seq(s *smalltalk.Sequence, sc *scope, inBlock bool) {
	for _, st := range s.Statements {
		r.node(st, sc, inBlock)
	}
}

func (r *resolver) node(n smalltalk.Node, sc *scope, inBlock bool) {
	switch n := n.(type) {
	case *smalltalk.Variable:
		r.m.refs[n] = r.lookup(n.Name, sc)
	case *smalltalk.Return:
		if inBlock {
			r.m.nlr = true
		}
		r.node(n.Value, sc, inBlock)
	case *smalltalk.Assignment:
		r.m.refs[n.Variable] = r.lookup(n.Variable.Name, sc)
		r.node(n.Value, sc, inBlock)
	case *smalltalk.Message:
		if n.Receiver != nil {
			r.node(n.Receiver, sc, inBlock)
		}
		for _, a := range n.Args {
			r.node(a, sc, inBlock)
		}
	case *smalltalk.Cascade:
		r.node(n.Receiver, sc, inBlock)
		for _, m := range n.Messages {
			r.node(m, sc, inBlock)
		}
	case *smalltalk.DynamicArray:
		for _, e := range n.Elements {
			r.node(e, sc, inBlock)
		}
	case *smalltalk.Block:
		inner := &scope{names: map[string]int{}, parent: sc}
		for _, a := range n.Args {
			inner.names[a.Name] = len(inner.names)
		}
		for _, t := range n.Body.Temps {
			inner.names[t.Name] = len(inner.names)
		}
		r.m.blocks[n] = len(inner.names)
		r.seq(n.Body, inner, true)
	case *smalltalk.Sequence:
		r.seq(n, sc, inBlock)
	}
}

func (r *resolver) lookup(name string, sc *scope) varRef {
	switch name {
	case "self":
		return varRef{kind: vSelf}
	case "super":
		return varRef{kind: vSuper}
	case "thisContext":
		return varRef{kind: vThisContext}
	}
	for d, s := 0, sc; s != nil; d, s = d+1, s.parent {
		if i, ok := s.names[name]; ok {
			return varRef{kind: vTemp, depth: d, index: i, name: name}
		}
	}
	if i, ok := r.ivars[name]; ok {
		return varRef{kind: vIvar, index: i, name: name}
	}
	return varRef{kind: vShared, name: name}
}
