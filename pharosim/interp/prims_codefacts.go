package interp

import (
	"maps"
	"reflect"

	"github.com/pharo-refactor/refactord/smalltalk"
)

// codeFactPrimitives answer what Pharo reads from a method's bytecodes,
// read here from its syntax tree: the messages it sends, whether it reads
// self or thisContext, whether it is a quick return of a constant, and
// whether two methods are the same code (Pharo compares their method
// nodes).
var codeFactPrimitives = map[string]primitive{
	"methodMessages": onMethod(func(in *Interp, m *Method, a []Object) (Object, bool) {
		local, ok := a[0].(bool)
		if !ok || m.ast == nil {
			return nil, false
		}
		return in.sortedSymbols(maps.Keys(sentSelectors(m.ast, local))), true
	}),
	"methodReadsVariable": onMethod(func(in *Interp, m *Method, a []Object) (Object, bool) {
		name, ok := a[0].(Symbol)
		if !ok || m.ast == nil {
			return nil, false
		}
		found := false
		smalltalk.Walk(m.ast.Body, func(n smalltalk.Node) bool {
			if v, ok := n.(*smalltalk.Variable); ok && v.Name == string(name) {
				found = true
			}
			return !found
		})
		return found, true
	}),
	"methodUsesVariable": onMethod(func(in *Interp, m *Method, a []Object) (Object, bool) {
		name, mode := symOf(a[0]), symOf(a[1])
		if name == "" || m.ast == nil || (mode != "read" && mode != "write" && mode != "any") {
			return nil, false
		}
		return usesVariable(m.ast, name, mode), true
	}),
	"globalIsReferenced": func(in *Interp, r Object, a []Object) (Object, bool) {
		name, ok := a[0].(Symbol)
		if !ok || name == "" {
			return nil, false
		}
		for _, c := range in.classes {
			for _, side := range []*Class{c, c.meta} {
				for _, m := range side.methods {
					if m.ast != nil && usesVariable(m.ast, string(name), "any") {
						return true, true
					}
				}
			}
		}
		return false, true
	},
	"methodHasNonLocalReturn": onMethod(func(in *Interp, m *Method, a []Object) (Object, bool) {
		if m.ast == nil || m.ast.Body == nil {
			return false, true
		}
		return blocksReturn(m.ast.Body), true
	}),
	"methodIsReturnSpecial": onMethod(func(in *Interp, m *Method, a []Object) (Object, bool) {
		if m.ast == nil || len(m.ast.Body.Statements) != 1 || len(m.ast.Body.Temps) > 0 {
			return false, true
		}
		r, ok := m.ast.Body.Statements[0].(*smalltalk.Return)
		if !ok {
			return false, true
		}
		switch v := r.Value.(type) {
		case *smalltalk.Variable:
			return v.Name == "self", true
		case *smalltalk.Literal:
			switch v.Kind {
			case smalltalk.LitTrue, smalltalk.LitFalse, smalltalk.LitNil:
				return true, true
			case smalltalk.LitNumber:
				n := in.literalNumber(v.Value)
				return n == int64(-1) || n == int64(0) || n == int64(1) || n == int64(2), true
			}
		}
		return false, true
	}),
	"methodSameCode": onMethod(func(in *Interp, m *Method, a []Object) (Object, bool) {
		o, ok := asInstance(a[0])
		if !ok {
			return nil, false
		}
		other := in.methodByObject[o]
		if other == nil {
			return false, true
		}
		if m.ast == nil || other.ast == nil {
			return m.source == other.source, true
		}
		return sameSyntax(reflect.ValueOf(m.ast), reflect.ValueOf(other.ast)), true
	}),
}

// sentSelectors are the selectors a method sends (the messages Pharo's
// compiler inlines are not sent), local ones only (not those of the
// blocks it does not inline) when local is set.
func sentSelectors(m *smalltalk.Method, local bool) map[string]bool {
	out := map[string]bool{}
	inlinedBlocks := map[*smalltalk.Block]bool{}
	smalltalk.Walk(m.Body, func(n smalltalk.Node) bool {
		switch n := n.(type) {
		case *smalltalk.Block:
			return !local || inlinedBlocks[n]
		case *smalltalk.Message:
			if inlinedSend(n) {
				for _, part := range append([]smalltalk.Node{n.Receiver}, n.Args...) {
					if b, ok := part.(*smalltalk.Block); ok {
						inlinedBlocks[b] = true
					}
				}
				return true
			}
			out[n.Selector] = true
		case *smalltalk.Cascade:
			for _, msg := range n.Messages {
				out[msg.Selector] = true
			}
		}
		return true
	})
	return out
}

// sameSyntax compares two syntax trees as Pharo compares method nodes:
// the code, not where it stands in its source nor the comments and
// spaces around it.
func sameSyntax(a, b reflect.Value) bool {
	if a.Kind() != b.Kind() {
		return false
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		if a.Elem().Type() != b.Elem().Type() {
			return false
		}
		return sameSyntax(a.Elem(), b.Elem())
	case reflect.Slice:
		if a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			if !sameSyntax(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Struct:
		if a.Type() == reflect.TypeOf(smalltalk.Span{}) || a.Type() == reflect.TypeOf(smalltalk.Warning{}) {
			return true
		}
		for i := range a.NumField() {
			if name := a.Type().Field(i).Name; name == "Source" || name == "SelectorPos" {
				continue // where the text stands is no code
			}
			if !sameSyntax(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	}
	return a.Equal(b)
}

// usesVariable tells whether a method reads (mode "read"), writes
// ("write") or does either ("any") with the variable of that name.
func usesVariable(m *smalltalk.Method, name, mode string) bool {
	written := map[*smalltalk.Variable]bool{}
	found := false
	smalltalk.Walk(m.Body, func(n smalltalk.Node) bool {
		switch n := n.(type) {
		case *smalltalk.Assignment:
			written[n.Variable] = true
			if n.Variable.Name == name && mode != "read" {
				found = true
			}
		case *smalltalk.Variable:
			if n.Name == name && !written[n] && mode != "write" {
				found = true
			}
		}
		return !found
	})
	return found
}
