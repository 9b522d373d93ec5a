package interp

import (
	"fmt"
	"math/big"
	"strconv"
	"time"

	"pharo-refactor/smalltalk"
)

// Interp is one image of the interpreter: its classes, globals and the
// state of the running computation. It is not safe for concurrent use.
type Interp struct {
	globals  map[string]*Binding
	classes  map[string]*Class
	budget   int64 // steps left
	deadline time.Time
	handlers []*handler
	// handlerLimit hides the handlers at and above it while a handler
	// block runs: a signal inside a handler searches below it.
	handlerLimit int
	depth        int
	nextHash     int64
	hashes       map[*Instance]int64
	states       map[*Instance]*excState
	literals     map[*smalltalk.Literal]Object
	known        knownClasses
}

// Limits bound a computation.
type Limits struct {
	Steps    int64
	Deadline time.Time
}

// maxDepth bounds the depth of sends (a runaway recursion is an error).
const maxDepth = 10000

// abort ends a computation that went over its limits; exceptions of the
// image cannot catch it.
type abort struct{ reason string }

// nonLocalReturn is a ^ from a block, travelling to its home method.
type nonLocalReturn struct {
	home  *frame
	value Object
}

// Missing is what a test touched that the kernel lacks.
type Missing struct{ What string }

func (m *Missing) Error() string { return "pharo-sim's kernel lacks " + m.What }

func (in *Interp) step() {
	in.budget--
	if in.budget < 0 {
		panic(&abort{"the step budget ran out (an endless loop?)"})
	}
	if in.budget&0xfff == 0 && !in.deadline.IsZero() && time.Now().After(in.deadline) {
		panic(&abort{"the time limit ran out"})
	}
}

// classOf answers the class of any object.
func (in *Interp) classOf(o Object) *Class {
	k := &in.known
	switch v := o.(type) {
	case nil:
		return k.undefined
	case bool:
		if v {
			return k.trueClass
		}
		return k.falseClass
	case int64:
		return k.smallInteger
	case *big.Int:
		if v.Sign() < 0 {
			return k.largeNegative
		}
		return k.largePositive
	case *big.Rat:
		return k.fraction
	case float64:
		return k.float
	case Char:
		return k.character
	case Symbol:
		return k.symbol
	case *Instance:
		return v.class
	case *Class:
		if v.meta != nil {
			return v.meta
		}
		return k.metaclass
	case *Block:
		return k.block
	case *Context:
		return k.context
	}
	panic(fmt.Sprintf("interp: no class for %T", o))
}

// knownClasses are the kernel's classes of immediate objects, looked up
// once.
type knownClasses struct {
	undefined, trueClass, falseClass, smallInteger, largePositive, largeNegative *Class
	fraction, float, character, symbol, metaclass, block, context                *Class
}

func (in *Interp) findKnown() {
	c := in.classes
	in.known = knownClasses{c["UndefinedObject"], c["True"], c["False"], c["SmallInteger"], c["LargePositiveInteger"],
		c["LargeNegativeInteger"], c["Fraction"], c["Float"], c["Character"], c["Symbol"], c["Metaclass"], c["BlockClosure"], c["Context"]}
}

// Context is thisContext, as far as SUnit needs it.
type Context struct{ f *frame }

// lookup finds the method a message to an instance of c runs; the
// answers are cached (the classes do not change while a run lasts).
func (c *Class) lookup(sel string) *Method {
	if m, ok := c.cache[sel]; ok {
		return m
	}
	var found *Method
	for k := c; k != nil; k = k.super {
		if m, ok := k.methods[sel]; ok {
			found = m
			break
		}
	}
	if c.cache == nil {
		c.cache = map[string]*Method{}
	}
	c.cache[sel] = found
	return found
}

// Send sends a message.
func (in *Interp) Send(rcv Object, sel string, args ...Object) Object {
	return in.sendFrom(in.classOf(rcv), rcv, sel, args)
}

func (in *Interp) sendFrom(cls *Class, rcv Object, sel string, args []Object) Object {
	in.step()
	m := cls.lookup(sel)
	if m == nil {
		return in.doesNotUnderstand(rcv, sel, args)
	}
	return in.invoke(m, rcv, args)
}

func (in *Interp) doesNotUnderstand(rcv Object, sel string, args []Object) Object {
	cls := in.classOf(rcv)
	if dnu := cls.lookup("doesNotUnderstand:"); dnu != nil {
		msg := in.newInstance(in.classes["Message"])
		msg.vars[0] = Symbol(sel)
		msg.vars[1] = in.newArray(append([]Object{}, args...))
		return in.invoke(dnu, rcv, []Object{msg})
	}
	panic(&abort{fmt.Sprintf("%s does not understand #%s", in.printName(rcv), sel)})
}

func (in *Interp) invoke(m *Method, rcv Object, args []Object) (result Object) {
	if m.err != nil {
		return in.signalError("SyntaxErrorNotification", fmt.Sprintf("%s>>#%s does not compile: %v", m.class.name, m.selector, m.err))
	}
	if m.primitive != "" {
		if m.prim == nil {
			return in.signalError("Error", "unknown primitive "+m.primitive)
		}
		if v, ok := m.prim(in, rcv, args); ok {
			return v
		}
	}
	in.depth++
	if in.depth > maxDepth {
		in.depth = 0
		panic(&abort{"the stack grew too deep (an endless recursion?)"})
	}
	f := newFrame(m.nTemps, nil, rcv, m, nil)
	f.home = f
	copy(f.vars, args)
	defer func() {
		in.depth--
		f.dead = true
	}()
	if m.nlr {
		defer func() {
			if r := recover(); r != nil {
				if n, ok := r.(*nonLocalReturn); ok && n.home == f {
					result = n.value
					return
				}
				panic(r)
			}
		}()
	}
	v, returned := in.evalSeq(m.ast.Body, f)
	if returned {
		return v
	}
	return rcv
}

// evalSeq runs statements; returned is true after a ^.
func (in *Interp) evalSeq(s *smalltalk.Sequence, f *frame) (Object, bool) {
	var last Object
	for _, st := range s.Statements {
		if r, ok := st.(*smalltalk.Return); ok {
			return in.eval(r.Value, f), true
		}
		last = in.eval(st, f)
	}
	return last, false
}

func (in *Interp) eval(n smalltalk.Node, f *frame) Object {
	switch n := n.(type) {
	case *smalltalk.Variable:
		return in.readVar(f.m.refs[n], f)
	case *smalltalk.Literal:
		// A literal is one object, as in a compiled method: evaluating it
		// again answers the same object.
		if v, ok := in.literals[n]; ok {
			return v
		}
		v := in.literal(n)
		in.literals[n] = v
		return v
	case *smalltalk.Assignment:
		v := in.eval(n.Value, f)
		in.writeVar(f.m.refs[n.Variable], f, v)
		return v
	case *smalltalk.Message:
		return in.evalMessage(n, f)
	case *smalltalk.Cascade:
		rcv, super := in.receiver(n.Receiver, f)
		var v Object
		for _, m := range n.Messages {
			args := in.evalArgs(m.Args, f)
			v = in.dispatch(rcv, super, m.Selector, args, f)
		}
		return v
	case *smalltalk.Block:
		return &Block{node: n, outer: f, home: f.home, m: f.m}
	case *smalltalk.DynamicArray:
		return in.newArray(in.evalArgs(n.Elements, f))
	case *smalltalk.Return:
		v := in.eval(n.Value, f)
		if f.home == f {
			// a ^ reached by a statement of the method body itself is
			// handled by evalSeq; one nested in an expression lands here.
			panic(&nonLocalReturn{home: f, value: v})
		}
		if f.home.dead {
			return in.signalError("BlockCannotReturn", "the block's method has already returned")
		}
		panic(&nonLocalReturn{home: f.home, value: v})
	case *smalltalk.Sequence:
		v, _ := in.evalSeq(n, f)
		return v
	}
	panic(fmt.Sprintf("interp: cannot evaluate %T", n))
}

func (in *Interp) evalArgs(ns []smalltalk.Node, f *frame) []Object {
	if len(ns) == 0 {
		return nil
	}
	out := make([]Object, len(ns))
	for i, a := range ns {
		out[i] = in.eval(a, f)
	}
	return out
}

// receiver evaluates a message's receiver; super is the class the lookup
// starts in for a send to super, nil otherwise.
func (in *Interp) receiver(n smalltalk.Node, f *frame) (Object, *Class) {
	if v, ok := n.(*smalltalk.Variable); ok && f.m.refs[v].kind == vSuper {
		return f.self, f.m.class.super
	}
	return in.eval(n, f), nil
}

func (in *Interp) dispatch(rcv Object, super *Class, sel string, args []Object, f *frame) Object {
	if super != nil {
		return in.sendFrom(super, rcv, sel, args)
	}
	return in.sendFrom(in.classOf(rcv), rcv, sel, args)
}

func (in *Interp) evalMessage(n *smalltalk.Message, f *frame) Object {
	rcv, super := in.receiver(n.Receiver, f)
	if super == nil {
		if v, ok := in.inlined(n, rcv, f); ok {
			return v
		}
	}
	return in.dispatch(rcv, super, n.Selector, in.evalArgs(n.Args, f), f)
}

// inlined runs the control messages Pharo's compiler inlines, when their
// arguments are literal blocks and the receiver fits.
func (in *Interp) inlined(n *smalltalk.Message, rcv Object, f *frame) (Object, bool) {
	lit := func(i int) *smalltalk.Block {
		if i >= len(n.Args) {
			return nil
		}
		b, _ := n.Args[i].(*smalltalk.Block)
		return b
	}
	switch n.Selector {
	case "ifTrue:", "ifFalse:", "ifTrue:ifFalse:", "ifFalse:ifTrue:", "and:", "or:":
		b, ok := rcv.(bool)
		if !ok || lit(0) == nil || (len(n.Args) == 2 && lit(1) == nil) {
			return nil, false
		}
		in.step()
		switch n.Selector {
		case "ifTrue:":
			if b {
				return in.runInline(lit(0), f), true
			}
			return nil, true
		case "ifFalse:":
			if !b {
				return in.runInline(lit(0), f), true
			}
			return nil, true
		case "ifTrue:ifFalse:":
			if b {
				return in.runInline(lit(0), f), true
			}
			return in.runInline(lit(1), f), true
		case "ifFalse:ifTrue:":
			if !b {
				return in.runInline(lit(0), f), true
			}
			return in.runInline(lit(1), f), true
		case "and:":
			if !b {
				return false, true
			}
			return in.runInline(lit(0), f), true
		case "or:":
			if b {
				return true, true
			}
			return in.runInline(lit(0), f), true
		}
	case "ifNil:", "ifNotNil:", "ifNil:ifNotNil:", "ifNotNil:ifNil:":
		if lit(0) == nil || (len(n.Args) == 2 && lit(1) == nil) {
			return nil, false
		}
		in.step()
		isNil := rcv == nil
		var nilB, notB *smalltalk.Block
		switch n.Selector {
		case "ifNil:":
			nilB = lit(0)
		case "ifNotNil:":
			notB = lit(0)
		case "ifNil:ifNotNil:":
			nilB, notB = lit(0), lit(1)
		case "ifNotNil:ifNil:":
			notB, nilB = lit(0), lit(1)
		}
		if isNil {
			if nilB == nil {
				return nil, true
			}
			return in.runInline(nilB, f), true
		}
		if notB == nil {
			return rcv, true
		}
		return in.runInline(notB, f, rcv), true
	case "whileTrue:", "whileFalse:", "whileTrue", "whileFalse":
		cond, ok := n.Receiver.(*smalltalk.Block)
		if !ok || (len(n.Args) == 1 && lit(0) == nil) {
			return nil, false
		}
		want := n.Selector[:9] == "whileTrue"
		for {
			in.step()
			c := in.runInline(cond, f)
			if b, ok := c.(bool); !ok {
				in.Send(c, "mustBeBoolean")
				return nil, true
			} else if b != want {
				return nil, true
			}
			if len(n.Args) == 1 {
				in.runInline(lit(0), f)
			}
		}
	case "to:do:":
		body := lit(1)
		from, ok := rcv.(int64)
		if body == nil || !ok || len(body.Args) != 1 {
			return nil, false
		}
		limit := in.eval(n.Args[0], f)
		to, ok := limit.(int64)
		if !ok {
			return in.dispatch(rcv, nil, n.Selector, []Object{limit, in.eval(n.Args[1], f)}, f), true
		}
		for i := from; i <= to; i++ {
			in.step()
			in.runInline(body, f, i)
		}
		return rcv, true
	case "timesRepeat:":
		k, ok := rcv.(int64)
		if !ok || lit(0) == nil {
			return nil, false
		}
		for i := int64(0); i < k; i++ {
			in.step()
			in.runInline(lit(0), f)
		}
		return rcv, true
	}
	return nil, false
}

// runInline runs a literal block in place, in a frame of its own.
func (in *Interp) runInline(b *smalltalk.Block, f *frame, args ...Object) Object {
	bf := newFrame(f.m.blocks[b], f, f.self, f.m, f.home)
	copy(bf.vars, args)
	v, returned := in.evalSeq(b.Body, bf)
	if returned {
		if f.home.dead {
			return in.signalError("BlockCannotReturn", "the block's method has already returned")
		}
		panic(&nonLocalReturn{home: f.home, value: v})
	}
	return v
}

// Value runs a block with arguments.
func (in *Interp) callBlock(b *Block, args []Object) Object {
	in.step()
	if len(args) != len(b.node.Args) {
		return in.signalError("Error", fmt.Sprintf("wrong number of arguments: the block takes %d, got %d", len(b.node.Args), len(args)))
	}
	bf := newFrame(b.m.blocks[b.node], b.outer, b.outer.self, b.m, b.home)
	copy(bf.vars, args)
	if len(b.node.Body.Statements) == 0 {
		return nil
	}
	v, returned := in.evalSeq(b.node.Body, bf)
	if returned {
		if b.home.dead {
			return in.signalError("BlockCannotReturn", "the block's method has already returned")
		}
		panic(&nonLocalReturn{home: b.home, value: v})
	}
	return v
}

func (in *Interp) readVar(r varRef, f *frame) Object {
	switch r.kind {
	case vTemp:
		for d := r.depth; d > 0; d-- {
			f = f.parent
		}
		return f.vars[r.index]
	case vIvar:
		return in.ivars(f.self)[r.index]
	case vSelf, vSuper:
		return f.self
	case vThisContext:
		return &Context{f: f}
	}
	b := in.shared(r.name, f.m.class)
	if b == nil {
		return in.undeclared(r.name)
	}
	return b.Value
}

func (in *Interp) writeVar(r varRef, f *frame, v Object) {
	switch r.kind {
	case vTemp:
		for d := r.depth; d > 0; d-- {
			f = f.parent
		}
		f.vars[r.index] = v
		return
	case vIvar:
		in.ivars(f.self)[r.index] = v
		return
	}
	b := in.shared(r.name, f.m.class)
	if b == nil {
		b = &Binding{Name: r.name}
		in.globals[r.name] = b
	}
	b.Value = v
}

func (in *Interp) ivars(o Object) []Object {
	switch v := o.(type) {
	case *Instance:
		return v.vars
	case *Class:
		return v.civals
	}
	panic(&abort{"instance variables of an immediate object"})
}

// shared finds a class variable, pool variable or global seen from a
// method of class.
func (in *Interp) shared(name string, class *Class) *Binding {
	c := class
	if c.thisClass != nil {
		c = c.thisClass
	}
	for k := c; k != nil; k = k.super {
		if b, ok := k.classVars[name]; ok {
			return b
		}
		for _, p := range k.pools {
			if pc, ok := in.classes[p]; ok {
				if b, ok := pc.classVars[name]; ok {
					return b
				}
			}
		}
	}
	return in.globals[name]
}

// undeclared answers a name the image does not know: what a test meets
// when it reaches for what the kernel lacks.
func (in *Interp) undeclared(name string) Object {
	if what, ok := lacking[name]; ok {
		panic(&Missing{What: name + " (" + what + ")"})
	}
	panic(&Missing{What: "the global " + name})
}

// lacking names the globals of Pharo the kernel leaves out on purpose.
var lacking = map[string]string{
	"FileSystem": "files", "FileReference": "files", "FileStream": "files", "File": "files", "FileLocator": "files",
	"Socket": "network", "ZnClient": "network", "ZnServer": "network", "ZnUrl": "network", "NetNameResolver": "network",
	"Processor": "processes", "Process": "processes", "Semaphore": "processes", "Mutex": "processes", "Delay": "processes", "SharedQueue": "processes",
	"Random": "random numbers", "World": "UI",
	"UIManager": "UI", "Morph": "UI", "SpPresenter": "UI", "Display": "UI",
}

func (in *Interp) literal(n *smalltalk.Literal) Object {
	switch n.Kind {
	case smalltalk.LitNumber:
		return parseNumber(n.Value)
	case smalltalk.LitString:
		return in.newString(n.Value)
	case smalltalk.LitCharacter:
		r := []rune(n.Value)
		if len(r) == 0 {
			return Char(0)
		}
		return Char(r[0])
	case smalltalk.LitSymbol:
		return Symbol(n.Value)
	case smalltalk.LitArray:
		elems := make([]Object, len(n.Elements))
		for i, e := range n.Elements {
			elems[i] = in.literal(e)
		}
		return in.newArray(elems)
	case smalltalk.LitByteArray:
		elems := make([]Object, len(n.Elements))
		for i, e := range n.Elements {
			elems[i] = parseNumber(e.Value)
		}
		a := in.newInstance(in.classes["ByteArray"])
		a.indexed = elems
		return a
	case smalltalk.LitTrue:
		return true
	case smalltalk.LitFalse:
		return false
	case smalltalk.LitNil:
		return nil
	}
	return Symbol(n.Value)
}

func (in *Interp) newInstance(c *Class) *Instance {
	return &Instance{class: c, vars: make([]Object, len(c.ivarNames))}
}

func (in *Interp) newArray(elems []Object) *Instance {
	a := in.newInstance(in.classes["Array"])
	a.indexed = elems
	return a
}

func (in *Interp) newString(s string) *Instance {
	a := in.newInstance(in.classes["String"])
	a.str = []rune(s)
	return a
}

func (in *Interp) printName(o Object) string {
	c := in.classOf(o)
	if c.thisClass != nil {
		return c.thisClass.name + " class"
	}
	return "a " + c.name
}

// parseNumber reads a number literal: integers (any radix, exponent),
// floats, fractions never (Smalltalk has no fraction literal), scaled
// decimals as fractions.
func parseNumber(text string) Object {
	neg := false
	t := text
	if t[0] == '-' {
		neg, t = true, t[1:]
	}
	base := 10
	if i := indexByte(t, 'r'); i > 0 {
		b, _ := strconv.Atoi(t[:i])
		base, t = b, t[i+1:]
		if len(t) > 0 && t[0] == '-' {
			neg, t = !neg, t[1:]
		}
	}
	// scaled decimal: 1.5s2, 3s
	if i := indexByte(t, 's'); i >= 0 && base == 10 {
		r, ok := new(big.Rat).SetString(t[:i])
		if ok {
			if neg {
				r.Neg(r)
			}
			return normRat(r)
		}
	}
	mant, exp := t, ""
	for i := 0; i < len(t); i++ {
		c := t[i]
		if (c == 'e' || c == 'd' || c == 'q') && base <= 10 || (c == 'e' && base <= 14) {
			if i+1 < len(t) && (t[i+1] == '-' || (t[i+1] >= '0' && t[i+1] <= '9')) {
				mant, exp = t[:i], t[i+1:]
				break
			}
		}
	}
	if dot := indexByte(mant, '.'); dot >= 0 && base == 10 {
		f, _ := strconv.ParseFloat(mant+"e"+orZero(exp), 64)
		if neg {
			f = -f
		}
		return f
	}
	n, ok := new(big.Int).SetString(mant, base)
	if !ok {
		return int64(0)
	}
	if exp != "" {
		e, _ := strconv.Atoi(exp)
		if e < 0 {
			r := new(big.Rat).SetFrac(n, new(big.Int).Exp(big.NewInt(int64(base)), big.NewInt(int64(-e)), nil))
			if neg {
				r.Neg(r)
			}
			return normRat(r)
		}
		n.Mul(n, new(big.Int).Exp(big.NewInt(int64(base)), big.NewInt(int64(e)), nil))
	}
	if neg {
		n.Neg(n)
	}
	return normInt(n)
}

func orZero(s string) string {
	if s == "" {
		return "0"
	}
	return s
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// normInt answers a SmallInteger when the value fits.
func normInt(n *big.Int) Object {
	if n.IsInt64() {
		v := n.Int64()
		if v >= -(1<<60) && v < 1<<60 {
			return v
		}
	}
	return n
}

// normRat answers an integer for a whole fraction.
func normRat(r *big.Rat) Object {
	if r.IsInt() {
		return normInt(new(big.Int).Set(r.Num()))
	}
	return r
}
