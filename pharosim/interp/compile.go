package interp

import (
	"fmt"
	"math/big"
	"slices"

	"github.com/pharo-refactor/refactord/smalltalk"
)

// A method's body is compiled into Go closures when a send first finds
// it (see lookup and compileBody), once per interpreter: every name is
// resolved to a frame slot, an instance variable index or a shared
// binding; every send site keeps the method it found for the last
// receiver class (an inline cache: classes do not change while a run
// lasts); literals are made once. Nothing walks the syntax tree while a
// method runs.

// code evaluates an expression in a frame.
type code func(in *Interp, f *frame) Object

// stmt runs a statement; returned is true after a ^ reached by it
// (directly, or in a block the compiler inlined).
type stmt func(in *Interp, f *frame) (v Object, returned bool)

// blockCode is a block compiled once, run in place (inlined) or as a
// BlockClosure.
type blockCode struct {
	node  *smalltalk.Block
	nargs int
	size  int  // the frame's variables: arguments then temporaries
	own   bool // the block has a frame of its own; without names it runs in its outer frame
	// captures is true when a block inside this one may outlive an
	// iteration: a loop then needs a fresh frame per turn.
	captures bool
	body     stmt
	cost     int // the stack units an evaluation counts (see maxDepth)
}

// scope is one level of names; a scope that is not own adds no frame.
type scope struct {
	names  map[string]int
	parent *scope
	own    bool
}

// compile parses a method's source and prepares it.
func compile(class *Class, source string) *Method {
	ast, err := smalltalk.ParseMethod(source)
	return prepare(class, source, ast, err)
}

// prepare makes a method of a parsed source: its selector, pragmas and
// primitive. Its body is compiled when a send first finds it (see
// lookup): a test touches a small part of the kernel, and compiling all of
// it was most of what building an interpreter cost.
func prepare(class *Class, source string, ast *smalltalk.Method, err error) *Method {
	return prepareIn(&Method{}, class, source, ast, err)
}

// prepareIn is prepare into a Method already allocated (one of a block of
// them: an interpreter prepares thousands).
func prepareIn(m *Method, class *Class, source string, ast *smalltalk.Method, err error) *Method {
	m.class, m.source = class, source
	if err != nil {
		m.err = err
		return m
	}
	m.ast, m.selector = ast, ast.Selector
	for _, p := range ast.Pragmas {
		m.pragmas = append(m.pragmas, p.Selector)
		if (p.Selector == "primitive:" || p.Selector == "primitive:error:") && len(p.Args) >= 1 {
			m.primitive = p.Args[0].Value
			m.prim = primitives[m.primitive]
			if m.prim == nil && p.Args[0].Kind == smalltalk.LitNumber {
				m.prim = numberedPrimitive(m.primitive, len(ast.Args))
			}
			m.noFallback = len(ast.Body.Statements) == 0
		}
	}
	return m
}

// compileBody compiles the method's body into closures, once.
func (m *Method) compileBody() {
	if m.compiled || m.err != nil {
		return
	}
	m.compiled = true
	ast := m.ast
	sc := &scope{names: map[string]int{}, own: true}
	for _, a := range ast.Args {
		sc.names[a.Name] = len(sc.names)
	}
	for _, t := range ast.Temps {
		sc.names[t.Name] = len(sc.names)
	}
	// <primitive: n error: ec> declares ec, which holds nil when the
	// fallback runs (Pharo: the failure's code)
	for _, p := range ast.Pragmas {
		if p.Selector == "primitive:error:" && len(p.Args) == 2 {
			if _, ok := sc.names[p.Args[1].Value]; !ok {
				sc.names[p.Args[1].Value] = len(sc.names)
			}
		}
	}
	m.nTemps = len(sc.names)
	c := compiler{m: m, ivars: map[string]int{}, lits: &literalFrame{}}
	m.literals = append(m.literals[:0], c.lits)
	for i, n := range m.class.ivarNames {
		if isOrderedView(m.class, n) {
			// Pharo's array, firstIndex and lastIndex are a view for
			// reflection (orderedStorageVariable): a method that names one
			// reads what the kernel lacks, and says so, rather than nil
			continue
		}
		c.ivars[n] = i
	}
	m.body = c.seq(ast.Body, sc, false)
	m.quick = c.quick(ast)
	m.cost = nestingCost(ast.Body)
}

// nestingCost is what an activation of a body counts toward maxDepth: 1,
// and 1 more for each 8 levels of its deepest expression. The closures of
// one level of nesting (an argument's send inside a send, a block inlined
// in another) take about 220 bytes of Go stack, so a method whose
// recursive send lies deep inside its expressions uses much more stack
// than a plain one (a plain activation takes about 470 bytes). The parser
// bounds the nesting of parentheses, not of a chain of unary sends, so
// the depth is measured, not assumed.
func nestingCost(body *smalltalk.Sequence) int {
	return 1 + nesting(body)/8
}

// nesting is the depth of a syntax tree: the most nodes from n down to a
// leaf, blocks included (an inlined block runs in its method's closures).
func nesting(n smalltalk.Node) int {
	deepest := 0
	deeper := func(ns ...smalltalk.Node) {
		for _, c := range ns {
			deepest = max(deepest, nesting(c))
		}
	}
	switch n := n.(type) {
	case *smalltalk.Sequence:
		deeper(n.Statements...)
		return deepest
	case *smalltalk.Return:
		deeper(n.Value)
	case *smalltalk.Assignment:
		deeper(n.Value)
	case *smalltalk.Message:
		deeper(n.Receiver)
		deeper(n.Args...)
	case *smalltalk.Cascade:
		deeper(n.Receiver)
		for _, m := range n.Messages {
			deeper(m.Args...)
		}
	case *smalltalk.Block:
		deeper(n.Body)
	case *smalltalk.DynamicArray:
		deeper(n.Elements...)
	}
	return 1 + deepest
}

// quick compiles a method that only answers self, an instance variable or
// a literal into a function of its receiver: it runs without a frame, as
// the quick methods of Pharo's virtual machine do.
func (c *compiler) quick(ast *smalltalk.Method) func(in *Interp, rcv Object) Object {
	if c.m.primitive != "" || len(ast.Temps) != 0 || len(ast.Body.Statements) != 1 {
		return nil
	}
	r, ok := ast.Body.Statements[0].(*smalltalk.Return)
	if !ok {
		return nil
	}
	switch v := r.Value.(type) {
	case *smalltalk.Variable:
		if v.Name == "self" {
			return func(in *Interp, rcv Object) Object { return rcv }
		}
		if i, ok := c.ivars[v.Name]; ok && !slices.ContainsFunc(ast.Args, func(a *smalltalk.Variable) bool { return a.Name == v.Name }) {
			return func(in *Interp, rcv Object) Object { return in.ivars(rcv)[i] }
		}
	case *smalltalk.Literal:
		// a literal's code does not read its frame
		lit := c.expr(v, nil, false)
		return func(in *Interp, rcv Object) Object { return lit(in, nil) }
	}
	return nil
}

type compiler struct {
	m     *Method
	ivars map[string]int
	// lits is the literal frame of the method, or of the block being
	// compiled that is not inlined (Pharo 13's CompiledBlock has its own)
	lits *literalFrame
}

// literalFrame holds the literals of a method (or a block) made so far:
// Pharo's compiler puts equal literals (literalEqual:) of one method in
// one slot of its literal frame, so `#(1 2) == #(1 2)` in one method is
// true. A literal is made when first evaluated, then looked up here.
type literalFrame struct {
	made []Object
}

// canonical answers the literal of the frame that is literal-equal to v,
// or v, now in the frame.
func (lf *literalFrame) canonical(v Object) Object {
	for _, o := range lf.made {
		if literalEqual(o, v) {
			return o
		}
	}
	lf.made = append(lf.made, v)
	return v
}

// literalEqual is Pharo's literalEqual: between two literals: of one
// class and equal, an Array's elements literal-equal too (so 1 and 1.0,
// 'a' and #a differ), a Float's sign of zero counting.
func literalEqual(a, b Object) bool {
	switch x := a.(type) {
	case *big.Int:
		y, ok := b.(*big.Int)
		return ok && x.Cmp(y) == 0
	case *Instance:
		y, ok := b.(*Instance)
		if !ok || x.class != y.class || x.dict != nil || y.dict != nil || len(x.vars) != 0 || len(y.vars) != 0 {
			return false
		}
		if x.str != nil || y.str != nil {
			return x.str != nil && y.str != nil && string(x.str) == string(y.str)
		}
		if len(x.indexed) != len(y.indexed) {
			return false
		}
		for i := range x.indexed {
			if !literalEqual(x.indexed[i], y.indexed[i]) {
				return false
			}
		}
		return true
	}
	return identical(a, b)
}

func (c *compiler) seq(s *smalltalk.Sequence, sc *scope, inBlock bool) stmt {
	stmts := make([]stmt, len(s.Statements))
	for i, st := range s.Statements {
		stmts[i] = c.statement(st, sc, inBlock)
	}
	switch len(stmts) {
	case 0:
		return func(*Interp, *frame) (Object, bool) { return nil, false }
	case 1:
		return stmts[0]
	}
	return func(in *Interp, f *frame) (Object, bool) {
		var last Object
		for _, s := range stmts {
			v, returned := s(in, f)
			if returned {
				return v, true
			}
			last = v
		}
		return last, false
	}
}

func (c *compiler) statement(n smalltalk.Node, sc *scope, inBlock bool) stmt {
	switch n := n.(type) {
	case *smalltalk.Return:
		if inBlock {
			c.m.nlr = true
		}
		value := c.expr(n.Value, sc, inBlock)
		return func(in *Interp, f *frame) (Object, bool) { return value(in, f), true }
	case *smalltalk.Message:
		if s := c.inlined(n, sc, inBlock); s != nil {
			return s
		}
	}
	e := c.expr(n, sc, inBlock)
	return func(in *Interp, f *frame) (Object, bool) { return e(in, f), false }
}

func (c *compiler) expr(n smalltalk.Node, sc *scope, inBlock bool) code {
	switch n := n.(type) {
	case *smalltalk.Variable:
		return c.read(n.Name, sc)
	case *smalltalk.Literal:
		// A literal is one object, as in a compiled method: evaluating it
		// again answers the same object, and so does an equal literal of
		// the same method.
		var v Object
		made := false
		lits := c.lits
		return func(in *Interp, f *frame) Object {
			if !made {
				v, made = lits.canonical(in.literal(n)), true
			}
			return v
		}
	case *smalltalk.Assignment:
		value := c.expr(n.Value, sc, inBlock)
		return c.write(n.Variable.Name, sc, value)
	case *smalltalk.Message:
		if s := c.inlined(n, sc, inBlock); s != nil {
			return inlineValue(s)
		}
		return c.send(n, sc, inBlock)
	case *smalltalk.Cascade:
		rcv, super := c.receiver(n.Receiver, sc, inBlock)
		sends := make([]func(in *Interp, rcv Object, f *frame) Object, len(n.Messages))
		for i, m := range n.Messages {
			sends[i] = c.sendTo(m.Selector, m.Args, super, sc, inBlock)
		}
		return func(in *Interp, f *frame) Object {
			r := rcv(in, f)
			var v Object
			for _, s := range sends {
				v = s(in, r, f)
			}
			return v
		}
	case *smalltalk.Block:
		// a block that is not inlined has a literal frame of its own
		outer := c.lits
		c.lits = &literalFrame{}
		c.m.literals = append(c.m.literals, c.lits)
		bc := c.block(n, sc)
		c.lits = outer
		m := c.m
		return func(in *Interp, f *frame) Object {
			in.charge(blockBytes)
			return &Block{node: n, code: bc, outer: in.capture(f), home: f.home, m: m}
		}
	case *smalltalk.DynamicArray:
		elems := c.exprs(n.Elements, sc, inBlock)
		return func(in *Interp, f *frame) Object { return in.newArray(evalAll(in, f, elems)) }
	case *smalltalk.Return:
		if inBlock {
			c.m.nlr = true
		}
		value := c.expr(n.Value, sc, inBlock)
		return func(in *Interp, f *frame) Object { return in.blockReturn(f.home, value(in, f)) }
	case *smalltalk.Sequence:
		s := c.seq(n, sc, inBlock)
		return func(in *Interp, f *frame) Object { v, _ := s(in, f); return v }
	}
	panic(fmt.Sprintf("interp: cannot compile %T", n))
}

// inlineValue makes an inlined control message usable as an expression:
// a ^ inside it returns from the home method.
func inlineValue(s stmt) code {
	return func(in *Interp, f *frame) Object {
		v, returned := s(in, f)
		if returned {
			return in.blockReturn(f.home, v)
		}
		return v
	}
}

func (c *compiler) exprs(ns []smalltalk.Node, sc *scope, inBlock bool) []code {
	out := make([]code, len(ns))
	for i, n := range ns {
		out[i] = c.expr(n, sc, inBlock)
	}
	return out
}

func evalAll(in *Interp, f *frame, cs []code) []Object {
	if len(cs) == 0 {
		return nil
	}
	out := make([]Object, len(cs))
	for i, e := range cs {
		out[i] = e(in, f)
	}
	return out
}

// receiver compiles a message's receiver; super is true for a send to
// super.
func (c *compiler) receiver(n smalltalk.Node, sc *scope, inBlock bool) (code, bool) {
	if v, ok := n.(*smalltalk.Variable); ok && v.Name == "super" {
		return func(in *Interp, f *frame) Object { return f.self }, true
	}
	return c.expr(n, sc, inBlock), false
}

func (c *compiler) send(n *smalltalk.Message, sc *scope, inBlock bool) code {
	rcv, super := c.receiver(n.Receiver, sc, inBlock)
	s := c.sendTo(n.Selector, n.Args, super, sc, inBlock)
	return func(in *Interp, f *frame) Object { return s(in, rcv(in, f), f) }
}

// sendTo compiles a send site: the arguments, and the lookup cached for
// the receiver's class.
func (c *compiler) sendTo(sel string, argNodes []smalltalk.Node, super bool, sc *scope, inBlock bool) func(in *Interp, rcv Object, f *frame) Object {
	args := c.exprs(argNodes, sc, inBlock)
	if super {
		start := c.m.class.super
		return func(in *Interp, rcv Object, f *frame) Object {
			return in.sendFrom(start, rcv, sel, evalAll(in, f, args))
		}
	}
	var cachedClass *Class
	var cached *Method
	var cachedEpoch int
	lookup := func(in *Interp, rcv Object) *Method {
		cls := in.classOf(rcv)
		if cls != cachedClass || cachedEpoch != in.codeEpoch {
			cached, cachedClass, cachedEpoch = cls.lookup(sel), cls, in.codeEpoch
		}
		return cached
	}
	if len(args) == 1 {
		arg := args[0]
		fast := smallIntegerOp(sel)
		if sel == "==" {
			// Pharo's compiler never sends ==: it compares identity in place.
			return func(in *Interp, rcv Object, f *frame) Object {
				a := arg(in, f)
				in.step()
				return identical(rcv, a)
			}
		}
		return func(in *Interp, rcv Object, f *frame) Object {
			a := arg(in, f)
			if fast != nil {
				if x, ok := rcv.(int64); ok {
					if y, ok := a.(int64); ok && in.known.fastInts {
						if v, ok := fast(x, y); ok {
							in.step()
							return v
						}
					}
				}
			}
			m := lookup(in, rcv)
			in.step()
			if m == nil {
				return in.doesNotUnderstand(rcv, sel, []Object{a})
			}
			if m.quick != nil {
				return m.quick(in, rcv)
			}
			if m.plain() {
				mf := in.methodFrame(m, rcv)
				mf.vars[0] = a
				return in.run(mf)
			}
			return in.invokePushed(m, rcv, a)
		}
	}
	return func(in *Interp, rcv Object, f *frame) Object {
		// The receiver's class decides the method before the arguments
		// run (nothing they do changes it): a plain method's frame then
		// takes them without an intermediate slice.
		m := lookup(in, rcv)
		if m != nil && m.quick != nil {
			for _, arg := range args {
				arg(in, f)
			}
			in.step()
			return m.quick(in, rcv)
		}
		if m != nil && m.plain() {
			mf := in.methodFrame(m, rcv)
			for i, arg := range args {
				mf.vars[i] = arg(in, f)
			}
			in.step()
			return in.run(mf)
		}
		if m == nil {
			a := evalAll(in, f, args)
			in.step()
			return in.doesNotUnderstand(rcv, sel, a)
		}
		if len(args) == 0 {
			in.step()
			return in.invoke(m, rcv, nil)
		}
		base := len(in.argStack)
		for i, arg := range args {
			v := arg(in, f)
			// an exception handled while the argument ran may have left
			// entries above the ones pushed so far
			in.argStack = append(in.argStack[:base+i], v)
		}
		in.step()
		return in.invokeFromStack(m, rcv, base)
	}
}

// smallIntegerOp answers the arithmetic or comparison a binary selector
// does on two SmallIntegers, run without a lookup while SmallInteger's
// methods for them are the kernel's primitives (see fastInts).
func smallIntegerOp(sel string) func(x, y int64) (Object, bool) {
	switch sel {
	case "+":
		return func(x, y int64) (Object, bool) {
			v := x + y
			return v, v >= -(1<<60) && v < 1<<60
		}
	case "-":
		return func(x, y int64) (Object, bool) {
			v := x - y
			return v, v >= -(1<<60) && v < 1<<60
		}
	case "<":
		return func(x, y int64) (Object, bool) { return x < y, true }
	case ">":
		return func(x, y int64) (Object, bool) { return x > y, true }
	case "<=":
		return func(x, y int64) (Object, bool) { return x <= y, true }
	case ">=":
		return func(x, y int64) (Object, bool) { return x >= y, true }
	case "=":
		return func(x, y int64) (Object, bool) { return x == y, true }
	}
	return nil
}

// fastIntPrimitives are the primitives SmallInteger's methods for the
// selectors smallIntegerOp knows must have for its answers to be theirs.
var fastIntPrimitives = map[string]string{"+": "add", "-": "sub", "<": "lt", ">": "gt", "<=": "le", ">=": "ge", "=": "numEq"}

// inlined compiles the control messages Pharo's compiler inlines, when
// their arguments are literal blocks; at run time a receiver that does
// not fit gets an ordinary send. It answers nil for any other message.
// Each family of messages has its compiler below.
func (c *compiler) inlined(n *smalltalk.Message, sc *scope, inBlock bool) stmt {
	var family func(c *compiler, il *inlining) stmt
	switch n.Selector {
	case "ifTrue:", "ifFalse:", "ifTrue:ifFalse:", "ifFalse:ifTrue:", "and:", "or:":
		family = (*compiler).inlineBoolean
	case "ifNil:", "ifNotNil:", "ifNil:ifNotNil:", "ifNotNil:ifNil:":
		family = (*compiler).inlineIfNil
	case "whileTrue:", "whileFalse:", "whileTrue", "whileFalse":
		if _, ok := n.Receiver.(*smalltalk.Block); !ok {
			return nil
		}
		family = (*compiler).inlineWhile
	case "to:do:":
		family = (*compiler).inlineToDo
	case "timesRepeat:":
		family = (*compiler).inlineTimesRepeat
	default:
		return nil
	}
	if n.Selector == "to:do:" {
		if b, ok := n.Args[1].(*smalltalk.Block); !ok || len(b.Args) != 1 {
			return nil
		}
	} else {
		for _, a := range n.Args {
			if _, ok := a.(*smalltalk.Block); !ok {
				return nil
			}
		}
	}
	il := &inlining{n: n, sc: sc, inBlock: inBlock, lits: make([]*blockCode, len(n.Args))}
	for i, a := range n.Args {
		if b, ok := a.(*smalltalk.Block); ok {
			il.lits[i] = c.block(b, sc)
		}
	}
	il.argCode = c.exprsReusingBlocks(n.Args, il.lits, sc, inBlock)
	return family(c, il)
}

// inlining is one inlined control message being compiled: its literal
// blocks (nil where an argument is not one) and its arguments as an
// ordinary send evaluates them.
type inlining struct {
	n       *smalltalk.Message
	sc      *scope
	inBlock bool
	lits    []*blockCode
	argCode []code
}

// fallback sends the message for a receiver the inlined form does not
// fit: its literal blocks become closures.
func (il *inlining) fallback(in *Interp, f *frame, rcv Object) (Object, bool) {
	return in.sendFrom(in.classOf(rcv), rcv, il.n.Selector, evalAll(in, f, il.argCode)), false
}

// inlineBoolean compiles ifTrue:, ifFalse:, ifTrue:ifFalse:,
// ifFalse:ifTrue:, and: and or:.
func (c *compiler) inlineBoolean(il *inlining) stmt {
	rcv := c.expr(il.n.Receiver, il.sc, il.inBlock)
	lits := il.lits
	var onTrue, onFalse *blockCode
	var valueTrue, valueFalse Object // when the branch is absent
	switch il.n.Selector {
	case "ifTrue:":
		onTrue = lits[0]
	case "ifFalse:":
		onFalse = lits[0]
	case "ifTrue:ifFalse:":
		onTrue, onFalse = lits[0], lits[1]
	case "ifFalse:ifTrue:":
		onFalse, onTrue = lits[0], lits[1]
	case "and:":
		onTrue, valueFalse = lits[0], false
	case "or:":
		onFalse, valueTrue = lits[0], true
	}
	return func(in *Interp, f *frame) (Object, bool) {
		r := rcv(in, f)
		b, ok := r.(bool)
		if !ok {
			return il.fallback(in, f, r)
		}
		in.step()
		if b {
			if onTrue == nil {
				return valueTrue, false
			}
			return in.runInline(onTrue, f)
		}
		if onFalse == nil {
			return valueFalse, false
		}
		return in.runInline(onFalse, f)
	}
}

// inlineIfNil compiles ifNil:, ifNotNil:, ifNil:ifNotNil: and
// ifNotNil:ifNil:.
func (c *compiler) inlineIfNil(il *inlining) stmt {
	rcv := c.expr(il.n.Receiver, il.sc, il.inBlock)
	lits := il.lits
	var nilB, notB *blockCode
	switch il.n.Selector {
	case "ifNil:":
		nilB = lits[0]
	case "ifNotNil:":
		notB = lits[0]
	case "ifNil:ifNotNil:":
		nilB, notB = lits[0], lits[1]
	case "ifNotNil:ifNil:":
		notB, nilB = lits[0], lits[1]
	}
	return func(in *Interp, f *frame) (Object, bool) {
		r := rcv(in, f)
		in.step()
		if r == nil {
			if nilB == nil {
				return nil, false
			}
			return in.runInline(nilB, f)
		}
		if notB == nil {
			return r, false
		}
		return in.runInline(notB, f, r)
	}
}

// inlineWhile compiles whileTrue:, whileFalse:, whileTrue and whileFalse
// sent to a literal block.
func (c *compiler) inlineWhile(il *inlining) stmt {
	cond := c.block(il.n.Receiver.(*smalltalk.Block), il.sc)
	var body *blockCode
	if len(il.lits) == 1 {
		body = il.lits[0]
	}
	want := il.n.Selector[:9] == "whileTrue"
	return func(in *Interp, f *frame) (Object, bool) {
		for {
			in.step()
			v, returned := in.runInline(cond, f)
			if returned {
				return v, true
			}
			if b, ok := v.(bool); !ok {
				in.Send(v, "mustBeBoolean")
				return nil, false
			} else if b != want {
				return nil, false
			}
			if body != nil {
				if v, returned := in.runInline(body, f); returned {
					return v, true
				}
			}
		}
	}
}

// inlineToDo compiles to:do: whose second argument is a literal block of
// one argument.
func (c *compiler) inlineToDo(il *inlining) stmt {
	rcv := c.expr(il.n.Receiver, il.sc, il.inBlock)
	limit := c.expr(il.n.Args[0], il.sc, il.inBlock)
	body := il.lits[1]
	return func(in *Interp, f *frame) (Object, bool) {
		r := rcv(in, f)
		from, ok := r.(int64)
		if !ok {
			return il.fallback(in, f, r)
		}
		l := limit(in, f)
		to, ok := l.(int64)
		if !ok {
			blk := il.argCode[1](in, f)
			return in.sendFrom(in.classOf(r), r, il.n.Selector, []Object{l, blk}), false
		}
		var bf *frame
		for i := from; i <= to; i++ {
			in.step()
			// a frame per turn only when a block may keep it
			if bf == nil || body.captures {
				if bf != nil {
					in.release(bf)
				}
				bf = in.newFrame(body.size, f, f.self, f.m, f.home)
			} else {
				clear(bf.vars)
			}
			bf.vars[0] = i
			if in.ran != nil {
				in.ran.note(f.m, body)
			}
			if v, returned := body.body(in, bf); returned {
				in.release(bf)
				return v, true
			}
		}
		if bf != nil {
			in.release(bf)
		}
		return r, false
	}
}

// inlineTimesRepeat compiles timesRepeat:.
func (c *compiler) inlineTimesRepeat(il *inlining) stmt {
	rcv := c.expr(il.n.Receiver, il.sc, il.inBlock)
	body := il.lits[0]
	return func(in *Interp, f *frame) (Object, bool) {
		r := rcv(in, f)
		k, ok := r.(int64)
		if !ok {
			return il.fallback(in, f, r)
		}
		for i := int64(0); i < k; i++ {
			in.step()
			if v, returned := in.runInline(body, f); returned {
				return v, true
			}
		}
		return r, false
	}
}

// exprsReusingBlocks compiles arguments, a literal block from its
// compiled form (a block is compiled once, inlined or not).
func (c *compiler) exprsReusingBlocks(ns []smalltalk.Node, lits []*blockCode, sc *scope, inBlock bool) []code {
	out := make([]code, len(ns))
	m := c.m
	for i, n := range ns {
		if bc := lits[i]; bc != nil {
			node := n.(*smalltalk.Block)
			out[i] = func(in *Interp, f *frame) Object {
				in.charge(blockBytes)
				return &Block{node: node, code: bc, outer: in.capture(f), home: f.home, m: m}
			}
			continue
		}
		out[i] = c.expr(n, sc, inBlock)
	}
	return out
}

func (c *compiler) block(n *smalltalk.Block, sc *scope) *blockCode {
	inner := &scope{names: map[string]int{}, parent: sc}
	for _, a := range n.Args {
		inner.names[a.Name] = len(inner.names)
	}
	for _, t := range n.Body.Temps {
		inner.names[t.Name] = len(inner.names)
	}
	// a block that reads thisContext is an activation of its own
	inner.own = len(inner.names) > 0 || readsThisContext(n.Body)
	bc := &blockCode{node: n, nargs: len(n.Args), size: len(inner.names), own: inner.own, captures: hasBlock(n.Body),
		cost: nestingCost(n.Body)}
	bc.body = c.seq(n.Body, inner, true)
	return bc
}

// hasBlock tells whether a block node appears under n.
func hasBlock(n smalltalk.Node) bool {
	return anyNode(n, func(n smalltalk.Node) bool { _, ok := n.(*smalltalk.Block); return ok })
}

// readsThisContext tells whether thisContext appears under n, in a block
// nested in it too.
func readsThisContext(n smalltalk.Node) bool {
	return anyNode(n, func(n smalltalk.Node) bool {
		v, ok := n.(*smalltalk.Variable)
		return ok && v.Name == "thisContext"
	})
}

// anyNode tells whether a node under n (n included) satisfies is; the
// walk goes into blocks.
func anyNode(n smalltalk.Node, is func(smalltalk.Node) bool) bool {
	found := false
	var walk func(n smalltalk.Node)
	walk = func(n smalltalk.Node) {
		if found || n == nil {
			return
		}
		if is(n) {
			found = true
			return
		}
		switch n := n.(type) {
		case *smalltalk.Block:
			walk(n.Body)
		case *smalltalk.Sequence:
			for _, s := range n.Statements {
				walk(s)
			}
		case *smalltalk.Return:
			walk(n.Value)
		case *smalltalk.Assignment:
			walk(n.Value)
		case *smalltalk.Message:
			walk(n.Receiver)
			for _, a := range n.Args {
				walk(a)
			}
		case *smalltalk.Cascade:
			walk(n.Receiver)
			for _, m := range n.Messages {
				for _, a := range m.Args {
					walk(a)
				}
			}
		case *smalltalk.DynamicArray:
			for _, e := range n.Elements {
				walk(e)
			}
		}
	}
	walk(n)
	return found
}

// where resolves a name: the frame depth and slot of a temporary, or ok
// false.
func (c *compiler) where(name string, sc *scope) (depth, index int, ok bool) {
	d := 0
	for s := sc; s != nil; s = s.parent {
		if i, found := s.names[name]; found {
			return d, i, true
		}
		if s.own {
			d++
		}
	}
	return 0, 0, false
}

func (c *compiler) read(name string, sc *scope) code {
	switch name {
	case "self", "super":
		return func(in *Interp, f *frame) Object { return f.self }
	case "thisContext":
		return func(in *Interp, f *frame) Object { return in.contextOf(f) }
	case "nil":
		return func(*Interp, *frame) Object { return nil }
	case "true":
		return func(*Interp, *frame) Object { return true }
	case "false":
		return func(*Interp, *frame) Object { return false }
	}
	if d, i, ok := c.where(name, sc); ok {
		switch d {
		case 0:
			return func(in *Interp, f *frame) Object { return f.vars[i] }
		case 1:
			return func(in *Interp, f *frame) Object { return f.parent.vars[i] }
		}
		return func(in *Interp, f *frame) Object {
			for k := d; k > 0; k-- {
				f = f.parent
			}
			return f.vars[i]
		}
	}
	class := c.m.class
	// a variable the kernel's class declares for Pharo's sake (Fraction's
	// numerator) while its objects are Go values is read by its accessor
	if accessor, ok := valueVariable(class, name); ok {
		return func(in *Interp, f *frame) Object { return in.Send(f.self, accessor) }
	}
	if i, ok := c.ivars[name]; ok {
		return func(in *Interp, f *frame) Object {
			if o, ok := f.self.(*Instance); ok && i < len(o.vars) {
				return o.vars[i]
			}
			return in.ivars(f.self)[i]
		}
	}
	var b *Binding
	return func(in *Interp, f *frame) Object {
		if b == nil {
			if b = in.shared(name, class); b == nil {
				return in.undeclared(name, class)
			}
		}
		return b.Value
	}
}

func (c *compiler) write(name string, sc *scope, value code) code {
	if d, i, ok := c.where(name, sc); ok {
		if d == 0 {
			return func(in *Interp, f *frame) Object {
				v := value(in, f)
				f.vars[i] = v
				return v
			}
		}
		return func(in *Interp, f *frame) Object {
			v := value(in, f)
			t := f
			for k := d; k > 0; k-- {
				t = t.parent
			}
			t.vars[i] = v
			return v
		}
	}
	if i, ok := c.ivars[name]; ok {
		return func(in *Interp, f *frame) Object {
			v := value(in, f)
			in.ivars(f.self)[i] = v
			return v
		}
	}
	class := c.m.class
	var b *Binding
	return func(in *Interp, f *frame) Object {
		v := value(in, f)
		if b == nil {
			if b = in.shared(name, class); b == nil {
				b = &Binding{Name: name}
				in.globals[name] = b
				in.globalsVersion++
			}
		}
		b.Value = v
		return v
	}
}

// valueVariables names, per kernel class whose objects are Go values
// rather than instances with slots, the instance variables Pharo's class
// declares and the accessor answering each: a method of the class (an
// extension's, PolyMath's Fraction>>asArbitraryPrecisionFloatNumBits:)
// reading one reads it through its accessor.
var valueVariables = map[string]map[string]string{
	"Fraction": {"numerator": "numerator", "denominator": "denominator"},
}

// valueVariable answers the accessor of a variable a method of class (or
// of a kernel class it inherits from) reads on a Go value, if there is one.
func valueVariable(class *Class, name string) (string, bool) {
	for k := class; k != nil; k = k.super {
		if accessor, ok := valueVariables[k.name][name]; ok {
			return accessor, true
		}
	}
	return "", false
}
