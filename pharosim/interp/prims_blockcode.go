package interp

import "github.com/pharo-refactor/refactord/smalltalk"

// blockCodePrimitives give a block of a method's source its CompiledBlock,
// the object Pharo's compiler makes for each block it does not inline:
// one per block of the source, read from the syntax tree (its outer code,
// its names, its literals, its ^).
var blockCodePrimitives = map[string]primitive{
	"blockCompiledBlock": func(in *Interp, r Object, a []Object) (Object, bool) {
		b, ok := asBlock(r)
		if !ok || b.m == nil || b.node == nil {
			return nil, false
		}
		return in.blockCodeObject(b.m, b.node), true
	},
	"compiledBlockOuterCode": onBlockCode(func(in *Interp, c sourceBlock, a []Object) (Object, bool) {
		path := blockPath(c.m.ast, c.node)
		for i := len(path) - 1; i >= 0; i-- {
			if path[i].ownCode {
				if b, ok := path[i].node.(*smalltalk.Block); ok {
					return in.blockCodeObject(c.m, b), true
				}
			}
		}
		return in.methodObject(c.m), true
	}),
	"compiledBlockNumArgs": onBlockCode(func(in *Interp, c sourceBlock, a []Object) (Object, bool) {
		return int64(len(c.node.Args)), true
	}),
	"compiledBlockHasTemporaries": onBlockCode(func(in *Interp, c sourceBlock, a []Object) (Object, bool) {
		return inlinedTemps(c.node.Body) > 0 || copiesOuterNames(c.m.ast, c.node), true
	}),
	"compiledBlockHasMethodReturn": onBlockCode(func(in *Interp, c sourceBlock, a []Object) (Object, bool) {
		return hasOwnReturn(c.node.Body), true
	}),
	"compiledBlockLiterals": onBlockCode(func(in *Interp, c sourceBlock, a []Object) (Object, bool) {
		deep, ok := a[0].(bool)
		if !ok {
			return nil, false
		}
		return in.newArray(in.codeLiterals(c.m, c.node.Body, deep)), true
	}),
	"compiledBlockSource": onBlockCode(func(in *Interp, c sourceBlock, a []Object) (Object, bool) {
		return in.newString(c.m.source[c.node.Start():c.node.End()]), true
	}),
	"methodHasTemporaries": onMethod(func(in *Interp, m *Method, a []Object) (Object, bool) {
		if m.ast == nil || m.ast.Body == nil {
			return false, true
		}
		return inlinedTemps(m.ast.Body) > 0, true
	}),
}

// sourceBlock is a block of a method's source, as a CompiledBlock stands
// for it.
type sourceBlock struct {
	m    *Method
	node *smalltalk.Block
}

// blockCodeObject answers the CompiledBlock of a block of m's source: one
// object per block, as Pharo's method holds one among its literals.
func (in *Interp) blockCodeObject(m *Method, node *smalltalk.Block) *Instance {
	if o, ok := in.blockCodeObjects[node]; ok {
		return o
	}
	o := in.newInstance(in.classes["CompiledBlock"])
	if in.blockCodeObjects == nil {
		in.blockCodeObjects = map[*smalltalk.Block]*Instance{}
		in.blockCodeByObject = map[*Instance]sourceBlock{}
	}
	in.blockCodeObjects[node] = o
	in.blockCodeByObject[o] = sourceBlock{m, node}
	return o
}

// onBlockCode makes a primitive of one that takes a CompiledBlock for its
// receiver; anything else fails it.
func onBlockCode(p func(in *Interp, c sourceBlock, a []Object) (Object, bool)) primitive {
	return func(in *Interp, r Object, a []Object) (Object, bool) {
		o, ok := asInstance(r)
		if !ok {
			return nil, false
		}
		c, ok := in.blockCodeByObject[o]
		if !ok || c.m.ast == nil {
			return nil, false
		}
		return p(in, c, a)
	}
}

// scopeStep is a method or a block around a block: ownCode is false for
// a block Pharo's compiler inlines, whose code is its outer code's.
type scopeStep struct {
	node    smalltalk.Node
	ownCode bool
}

// blockPath answers the method and the blocks around target, outermost
// first.
func blockPath(m *smalltalk.Method, target *smalltalk.Block) []scopeStep {
	var path, found []scopeStep
	var visit func(n smalltalk.Node)
	visit = func(n smalltalk.Node) {
		smalltalk.Walk(n, func(x smalltalk.Node) bool {
			if found != nil {
				return false
			}
			switch x := x.(type) {
			case *smalltalk.Block:
				if x == target {
					found = append([]scopeStep(nil), path...)
					return false
				}
				path = append(path, scopeStep{x, true})
				visit(x.Body)
				path = path[:len(path)-1]
				return false
			case *smalltalk.Message:
				if !inlinedSend(x) {
					return true
				}
				eachInlinedPart(x, func(b *smalltalk.Block) {
					path = append(path, scopeStep{b, false})
					visit(b.Body)
					path = path[:len(path)-1]
				}, visit)
				return false
			}
			return true
		})
	}
	path = []scopeStep{{m, true}}
	visit(m.Body)
	return found
}

// inlinedTemps counts the temporaries a method's or a block's own code
// has: its own, and the arguments and temporaries of the blocks inlined
// in it, which Pharo's compiler makes temporaries of the code around them.
func inlinedTemps(body *smalltalk.Sequence) int {
	n := len(body.Temps)
	var walk func(x smalltalk.Node) bool
	walk = func(x smalltalk.Node) bool {
		switch x := x.(type) {
		case *smalltalk.Block:
			return false
		case *smalltalk.Message:
			if !inlinedSend(x) {
				return true
			}
			eachInlinedPart(x, func(b *smalltalk.Block) {
				n += len(b.Args) + len(b.Body.Temps)
				smalltalk.Walk(b.Body, walk)
			}, func(part smalltalk.Node) { smalltalk.Walk(part, walk) })
			return false
		}
		return true
	}
	for _, s := range body.Statements {
		smalltalk.Walk(s, walk)
	}
	return n
}

// copiesOuterNames tells whether a block uses a name of the code around
// it: Pharo's closure then copies the value (or the vector of the
// variables written) into a temporary of the block.
func copiesOuterNames(m *smalltalk.Method, target *smalltalk.Block) bool {
	outer := map[string]bool{}
	for _, step := range blockPath(m, target) {
		switch n := step.node.(type) {
		case *smalltalk.Method:
			for _, v := range n.Args {
				outer[v.Name] = true
			}
			for _, v := range n.Body.Temps {
				outer[v.Name] = true
			}
		case *smalltalk.Block:
			for _, v := range n.Args {
				outer[v.Name] = true
			}
			for _, v := range n.Body.Temps {
				outer[v.Name] = true
			}
		}
	}
	return anyNode(target.Body, func(x smalltalk.Node) bool {
		switch x := x.(type) {
		case *smalltalk.Variable:
			return outer[x.Name]
		case *smalltalk.Assignment:
			return outer[x.Variable.Name]
		}
		return false
	})
}

// eachInlinedPart goes over the receiver and arguments of a send Pharo's
// compiler inlines: block gets each literal block among them (whose code
// is the outer code's), other each other part.
func eachInlinedPart(msg *smalltalk.Message, block func(*smalltalk.Block), other func(smalltalk.Node)) {
	for _, part := range append([]smalltalk.Node{msg.Receiver}, msg.Args...) {
		if b, ok := part.(*smalltalk.Block); ok {
			block(b)
		} else if part != nil {
			other(part)
		}
	}
}
