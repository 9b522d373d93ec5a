package interp

import (
	"maps"
	"slices"
	"strings"

	"github.com/pharo-refactor/refactord/smalltalk"
)

// methodPrimitives are the Go primitives of the code model as Smalltalk
// reads it: a class's methods as CompiledMethod objects, their source,
// pragmas, protocol and literals, and running one on a receiver. Methods
// are never compiled or changed from Smalltalk: what they answer is what
// the interpreter loaded.
var methodPrimitives = map[string]primitive{
	"compiledMethodAt": onClass(func(in *Interp, c *Class, a []Object) (Object, bool) {
		m, ok := c.methods[symOf(a[0])]
		if !ok || symOf(a[0]) == "" {
			return nil, false
		}
		return in.methodObject(m), true
	}),
	"methodSource": onMethod(func(in *Interp, m *Method, a []Object) (Object, bool) {
		return in.newString(internalLineEndings(m.source)), true
	}),
	"methodPragmaSpecs": onMethod(primMethodPragmaSpecs),
	"methodProtocol": onMethod(func(in *Interp, m *Method, a []Object) (Object, bool) {
		if m.category == "" {
			return nil, true
		}
		return Symbol(m.category), true
	}),
	"methodOrigin": onMethod(func(in *Interp, m *Method, a []Object) (Object, bool) {
		if m.origin != nil {
			return m.origin, true
		}
		return m.class, true
	}),
	"methodLiterals": onMethod(func(in *Interp, m *Method, a []Object) (Object, bool) {
		deep, ok := a[0].(bool)
		if !ok || m.ast == nil {
			return nil, false
		}
		return in.newArray(in.methodLiterals(m, deep)), true
	}),
	"methodArgumentNames": onMethod(func(in *Interp, m *Method, a []Object) (Object, bool) {
		if m.ast == nil {
			return nil, false
		}
		out := make([]Object, len(m.ast.Args))
		for i, v := range m.ast.Args {
			out[i] = Symbol(v.Name)
		}
		return in.newArray(out), true
	}),
	"methodMarker":            onMethod(primMethodMarker),
	"methodValueWithReceiver": onMethod(primMethodValueWithReceiver),
	"allClassesAndTraits": func(in *Interp, r Object, a []Object) (Object, bool) {
		classes := in.imageClasses()
		out := make([]Object, len(classes))
		for i, c := range classes {
			out[i] = c
		}
		return in.newArray(out), true
	},
	"poolUsers": onClass(func(in *Interp, c *Class, a []Object) (Object, bool) {
		var out []Object
		for _, user := range in.imageClasses() {
			if slices.Contains(user.pools, c.name) {
				out = append(out, user)
			}
		}
		return in.newArray(out), true
	}),
	"poolVariableUsers": onClass(func(in *Interp, c *Class, a []Object) (Object, bool) {
		withPool, ok := a[0].(bool)
		if !ok {
			return nil, false
		}
		targets := map[*Binding]bool{}
		for _, b := range c.classVars {
			targets[b] = true
		}
		if b := in.globals[c.name]; withPool && b != nil {
			targets[b] = true
		}
		return in.newArray(in.methodsReading(targets)), true
	}),
	"methodsWithPragma": func(in *Interp, r Object, a []Object) (Object, bool) {
		name, ok := a[0].(Symbol)
		if !ok {
			return nil, false
		}
		var out []Object
		for _, c := range in.imageClasses() {
			for _, side := range []*Class{c, c.meta} {
				for _, sel := range slices.Sorted(maps.Keys(side.methods)) {
					if m := side.methods[sel]; slices.Contains(m.pragmas, string(name)) {
						out = append(out, in.methodObject(m))
					}
				}
			}
		}
		return in.newArray(out), true
	},
}

// imageClasses are the classes and traits the image holds (those that
// loaded, under their names), by name.
func (in *Interp) imageClasses() []*Class {
	var names []string
	for n, c := range in.classes {
		if b, ok := in.globals[n]; ok && b.Value == c && c.unloaded == "" {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	out := make([]*Class, len(names))
	for i, n := range names {
		out[i] = in.classes[n]
	}
	return out
}

// methodObject answers the CompiledMethod that stands for a method: the
// same object each time, as a class's method dictionary holds one.
func (in *Interp) methodObject(m *Method) *Instance {
	if o, ok := in.methodObjects[m]; ok {
		return o
	}
	o := in.newInstance(in.classes["CompiledMethod"])
	o.vars[in.known.slots.methodClass] = m.class
	o.vars[in.known.slots.methodSelector] = Symbol(m.selector)
	if in.methodObjects == nil {
		in.methodObjects = map[*Method]*Instance{}
		in.methodByObject = map[*Instance]*Method{}
	}
	in.methodObjects[m] = o
	in.methodByObject[o] = m
	return o
}

// onMethod makes a primitive of one that takes a CompiledMethod for its
// receiver: the method its class holds under its selector. Anything else
// fails it.
func onMethod(p func(in *Interp, m *Method, a []Object) (Object, bool)) primitive {
	return func(in *Interp, r Object, a []Object) (Object, bool) {
		m, ok := in.methodOf(r)
		if !ok {
			return nil, false
		}
		return p(in, m, a)
	}
}

// methodOf answers the method a CompiledMethod stands for: the one its
// class holds under its selector when the object was not made by
// methodObject.
func (in *Interp) methodOf(r Object) (*Method, bool) {
	o, ok := asInstance(r)
	cm := in.classes["CompiledMethod"]
	if !ok || cm == nil || (o.class != cm && !o.class.inheritsFrom(cm)) {
		return nil, false
	}
	if m := in.methodByObject[o]; m != nil {
		return m, true
	}
	c, ok := o.vars[in.known.slots.methodClass].(*Class)
	if !ok {
		return nil, false
	}
	sel, ok := o.vars[in.known.slots.methodSelector].(Symbol)
	if !ok {
		return nil, false
	}
	m, ok := c.methods[string(sel)]
	return m, ok
}

// primMethodPragmaSpecs answers a method's pragmas as Pharo's compiler
// keeps them, in source order: for each, an Array of its selector and an
// Array of its arguments (literals).
func primMethodPragmaSpecs(in *Interp, m *Method, a []Object) (Object, bool) {
	if m.ast == nil {
		return in.newArray(nil), true
	}
	out := make([]Object, len(m.ast.Pragmas))
	for i, p := range m.ast.Pragmas {
		args := make([]Object, len(p.Args))
		for j, l := range p.Args {
			args[j] = in.literal(l)
		}
		out[i] = in.newArray([]Object{Symbol(p.Selector), in.newArray(args)})
	}
	return in.newArray(out), true
}

// primMethodMarker answers the selector a method's first statement sends
// to self when it sends nothing else (`self subclassResponsibility`), as
// Pharo's markerOrNil reads it from the bytecodes; nil for any other.
func primMethodMarker(in *Interp, m *Method, a []Object) (Object, bool) {
	if m.ast == nil || m.ast.Body == nil || len(m.ast.Body.Statements) == 0 {
		return nil, true
	}
	st := m.ast.Body.Statements[0]
	if r, ok := st.(*smalltalk.Return); ok {
		st = r.Value
	}
	send, ok := st.(*smalltalk.Message)
	if !ok || len(send.Args) != 0 {
		return nil, true
	}
	if v, ok := send.Receiver.(*smalltalk.Variable); !ok || v.Name != "self" {
		return nil, true
	}
	return Symbol(send.Selector), true
}

// primMethodValueWithReceiver runs a method on a receiver of its class
// (or a subclass) with an Array of its arguments, without a lookup, as
// Pharo's primitive 188 does.
func primMethodValueWithReceiver(in *Interp, m *Method, a []Object) (Object, bool) {
	args, ok := asInstance(a[1])
	if !ok || args.class != in.classes["Array"] || m.ast == nil || len(args.indexed) != len(m.ast.Args) {
		return nil, false
	}
	if k := in.classOf(a[0]); k != m.class && !k.inheritsFrom(m.class) {
		return nil, false
	}
	m.compileBody()
	return in.invoke(m, a[0], slices.Clone(args.indexed)), true
}

// specialSelectors are the selectors Pharo 13's compiler sends with a
// bytecode of their own (BytecodeEncoder class>>specialSelectors): they
// are not among a method's literals.
var specialSelectors = map[string]bool{
	"+": true, "-": true, "<": true, ">": true, "<=": true, ">=": true, "=": true, "~=": true,
	"*": true, "/": true, "\\\\": true, "@": true, "bitShift:": true, "//": true, "bitAnd:": true,
	"bitOr:": true, "at:": true, "at:put:": true, "size": true, "next": true, "nextPut:": true,
	"atEnd": true, "==": true, "~~": true, "value": true, "value:": true, "do:": true,
	"new": true, "new:": true, "x": true, "y": true,
}

// methodLiterals answers a method's literals as Pharo's compiler gathers
// them, in the order its code pushes them, each once: the literal
// constants but true, false, nil, 0 and 1 (pushed by bytecodes of their
// own), the bindings of the globals and class variables it names, and
// the selectors it sends but the special ones and the control messages
// the compiler inlines. A block that is not inlined is a CompiledBlock
// among Pharo's literals, which the kernel lacks: its literals are left
// out, unless deep asks for them in its place (as hasLiteral: and
// refersToLiteral: dive into a CompiledBlock). The method's selector and
// class are not among them (Pharo's literalsToSkip).
func (in *Interp) methodLiterals(m *Method, deep bool) []Object {
	return in.codeLiterals(m, m.ast.Body, deep)
}

// codeLiterals answers the literals of the code under root, a method's
// body or one of its blocks'; a block not inlined is its CompiledBlock
// there, each one a literal of its own, unless deep takes its literals
// in its place.
func (in *Interp) codeLiterals(m *Method, root *smalltalk.Sequence, deep bool) []Object {
	locals := map[string]bool{}
	smalltalk.Walk(m.ast, func(n smalltalk.Node) bool {
		switch n := n.(type) {
		case *smalltalk.Method:
			for _, v := range n.Args {
				locals[v.Name] = true
			}
		case *smalltalk.Block:
			for _, v := range n.Args {
				locals[v.Name] = true
			}
		case *smalltalk.Sequence:
			for _, v := range n.Temps {
				locals[v.Name] = true
			}
		}
		return true
	})
	var out []Object
	seen := map[string]bool{}
	add := func(key string, make func() Object) {
		if !seen[key] {
			seen[key] = true
			out = append(out, make())
		}
	}
	var walk func(n smalltalk.Node)
	variable := func(name string) {
		if locals[name] || name == "self" || name == "super" || name == "thisContext" || ivarIndex(m.class, name) >= 0 {
			return
		}
		if b := in.shared(name, m.class); b != nil {
			add("binding "+name, func() Object { return in.Send(Symbol(name), "->", b.Value) })
		}
	}
	selector := func(sel string) {
		if !specialSelectors[sel] {
			add("#"+sel, func() Object { return Symbol(sel) })
		}
	}
	walk = func(n smalltalk.Node) {
		switch n := n.(type) {
		case *smalltalk.Literal:
			switch n.Kind {
			case smalltalk.LitTrue, smalltalk.LitFalse, smalltalk.LitNil:
				return
			case smalltalk.LitNumber:
				if v := in.literalNumber(n.Value); v == int64(0) || v == int64(1) {
					return
				}
			}
			add(literalKey(n), func() Object { return in.literal(n) })
		case *smalltalk.Variable:
			variable(n.Name)
		case *smalltalk.Assignment:
			walk(n.Value)
			walk(n.Variable)
		case *smalltalk.Return:
			walk(n.Value)
		case *smalltalk.Sequence:
			for _, s := range n.Statements {
				walk(s)
			}
		case *smalltalk.DynamicArray:
			for _, e := range n.Elements {
				walk(e)
			}
		case *smalltalk.Block:
			if deep {
				walk(n.Body)
			} else {
				out = append(out, in.blockCodeObject(m, n))
			}
		case *smalltalk.Message:
			if inlinedSend(n) {
				// the blocks' code is the method's own
				for _, part := range append([]smalltalk.Node{n.Receiver}, n.Args...) {
					if b, ok := part.(*smalltalk.Block); ok {
						walk(b.Body)
					} else {
						walk(part)
					}
				}
				return
			}
			if n.Receiver != nil {
				walk(n.Receiver)
			}
			for _, arg := range n.Args {
				walk(arg)
			}
			selector(n.Selector)
		case *smalltalk.Cascade:
			walk(n.Receiver)
			for _, msg := range n.Messages {
				for _, arg := range msg.Args {
					walk(arg)
				}
				selector(msg.Selector)
			}
		}
	}
	if root != nil {
		walk(root)
	}
	return out
}

// inlinedSend tells whether Pharo's compiler inlines a send (its
// arguments literal blocks): its selector is then no literal, and the
// blocks' code is the method's own.
func inlinedSend(n *smalltalk.Message) bool {
	switch n.Selector {
	case "ifTrue:", "ifFalse:", "ifTrue:ifFalse:", "ifFalse:ifTrue:", "and:", "or:",
		"ifNil:", "ifNotNil:", "ifNil:ifNotNil:", "ifNotNil:ifNil:", "timesRepeat:", "repeat":
	case "whileTrue:", "whileFalse:", "whileTrue", "whileFalse":
		if _, ok := n.Receiver.(*smalltalk.Block); !ok {
			return false
		}
	case "to:do:":
		b, ok := n.Args[1].(*smalltalk.Block)
		return ok && len(b.Args) == 1
	default:
		return false
	}
	for _, a := range n.Args {
		if _, ok := a.(*smalltalk.Block); !ok {
			return false
		}
	}
	if n.Selector == "repeat" {
		_, ok := n.Receiver.(*smalltalk.Block)
		return ok
	}
	return true
}

// literalKey tells literals apart as Pharo's literalEqual: does: by kind
// and value.
func literalKey(n *smalltalk.Literal) string {
	var b strings.Builder
	b.WriteString(n.Kind.String())
	b.WriteByte(' ')
	b.WriteString(n.Value)
	for _, e := range n.Elements {
		b.WriteString(" (")
		b.WriteString(literalKey(e))
		b.WriteByte(')')
	}
	return b.String()
}

// methodsReading answers the methods of the image, both sides of each
// class, that name one of the shared variables targets (a global, a class
// or pool variable), as Pharo finds them by their literal bindings.
func (in *Interp) methodsReading(targets map[*Binding]bool) []Object {
	var out []Object
	for _, c := range in.imageClasses() {
		for _, side := range []*Class{c, c.meta} {
			for _, sel := range slices.Sorted(maps.Keys(side.methods)) {
				m := side.methods[sel]
				if m.ast == nil || m.origin != nil {
					continue
				}
				if in.readsBinding(m, targets) {
					out = append(out, in.methodObject(m))
				}
			}
		}
	}
	return out
}

// readsBinding tells whether a method names one of targets.
func (in *Interp) readsBinding(m *Method, targets map[*Binding]bool) bool {
	found := false
	smalltalk.Walk(m.ast, func(n smalltalk.Node) bool {
		if v, ok := n.(*smalltalk.Variable); ok && !found {
			if b := in.shared(v.Name, m.class); b != nil && targets[b] {
				found = true
			}
		}
		return !found
	})
	return found
}
