package interp

import (
	"fmt"
	"math"
	"math/big"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/pharo-refactor/refactord/smalltalk"
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
	// depth is the stack in use, in units (see maxDepth), on the running
	// goroutine; depthLimit is maxDepth less what the other goroutines of
	// the computation hold (a generator's consumer, suspended generators:
	// see resumeCoroutine), so that all their stacks together stay
	// within maxDepth
	depth, depthLimit int
	// active is the activation running, the innermost method or block
	// frame: thisContext's sender chain (prims_contexts.go)
	active   *frame
	nextHash int64
	hashes   map[*Instance]int64
	states   map[*Instance]*excState
	known    knownClasses
	free     []*frame // frames released for reuse
	// argStack holds the arguments of primitive calls: a primitive reads
	// them while it runs and keeps none, so they need no slice of their own.
	argStack []Object
	// returning is the ^ travelling to its home method, if any
	returning *nonLocalReturn
	// aborting is true while a computation that went over a limit ends
	aborting bool
	// memory is the memory budget of a guarded computation, charged what
	// it has created so far (see charge), recountAt the count at which
	// what it holds is measured next, heapAtStart the bytes of the Go
	// heap's objects when it began, heapAtNew when the interpreter was
	// built
	memory, charged, recountAt, heapAtStart, heapAtNew int64
	// timeouts are the valueWithin:onTimeout: under way and the watchdog
	// of SUnit's execution environment (prims_clock.go)
	timeouts []timeout
	// coroutines are the Generators whose blocks are under way, by
	// generator; runningCoroutine is the one running, nil for the
	// computation's own stack (prims_generators.go)
	coroutines       map[*Instance]*coroutine
	runningCoroutine *coroutine
	// inUnwind counts the ensure: and ifCurtailed: blocks running on the
	// active process's stack
	inUnwind int
	// sched is the Processor: the processes of the computation and
	// which one runs (prims_processes.go)
	sched *scheduler
	// initFailures says which class-side initialize failed while the
	// program loaded, and why (Pharo would show it at load).
	initFailures []string
	// globalsVersion changes whenever a name is added to globals, so
	// that a comparison's world puts them back only when a run added one
	globalsVersion int
	// methodObjects are the CompiledMethods that stand for methods, one
	// per method (prims_methods.go)
	methodObjects map[*Method]*Instance
	// blockCodeObjects are the CompiledBlocks of the blocks of methods'
	// sources, one per block, and blockCodeByObject the block each stands
	// for (prims_blockcode.go)
	blockCodeObjects  map[*smalltalk.Block]*Instance
	blockCodeByObject map[*Instance]sourceBlock
	// onBlockCall, when set, sees every block called and its arguments
	// (a comparison records what a method's blocks are given)
	onBlockCall func(b *Block, args []Object)
	// ran, when set, collects the blocks of the image's own methods that
	// ran, inlined ones too (see blocksRan)
	ran *blocksRan
	// frozenClock, when set, is the instant the clock answers (both sides
	// of a comparison's input see one)
	frozenClock *time.Time
	// madeValues are the values comparisons made from expressions, each
	// made once
	madeValues map[string]Object
	// pharoDeclares and programClasses tell a variable nothing declares
	// from one Pharo's class has and the kernel's lacks (see
	// Program.PharoDeclares).
	pharoDeclares  func(class, variable string) bool
	pharoHasGlobal func(name string) bool
	programClasses map[string]bool
	// interned are the symbols made from strings (asSymbol) and the
	// symbol literals of the methods compiled so far: with the
	// selectors and the class names, the symbols Pharo's table would
	// hold (Symbol class>>findInterned:), at most maxInterned of them
	interned map[string]struct{}
	// methodByObject is the method each CompiledMethod of methodObjects
	// stands for: it stays that method once replaced or removed
	methodByObject map[*Instance]*Method
	// codeEpoch changes whenever a method is added, replaced or removed
	// or a class changes while a program runs (prims_classes.go): a send
	// site's cache holds only for the epoch it was filled in
	codeEpoch int
	// madeClasses are the classes made while the program ran
	madeClasses []*Class
	// noCompiler is true while a comparison runs: compiling, installing
	// and removing code is then what the kernel lacks (compilerOff)
	noCompiler bool
}

// Limits bound a computation.
type Limits struct {
	Steps    int64
	Deadline time.Time
	// Memory is the memory budget of a test (of any guarded
	// computation), in bytes of the objects it creates as the
	// interpreter counts them; 0 means DefaultMemory.
	Memory int64
}

// maxDepth bounds the Go stack a computation may use, in units: a method
// activation counts its method's cost, a block's evaluation its block's
// (see nestingCost), a primitive's invocation 1 — every way Smalltalk code
// nests (perform:, value:, deepCopy, on:do:, ensure:, printing, = and hash
// all go through those). Past it the computation ends as an endless
// recursion, before Go's stack limit kills the process. Measured at the
// limit: from 18 MB of Go stack (a plain recursive method, about 470
// bytes a unit) to 73 MB (a method whose recursive send is nested 100
// deep, about 1.8 KB a unit).
//
// The counter is raised before and lowered after each of them, without a
// deferred call; a place that recovers a panic and carries on (the home
// method of a ^, on:do:, a resumed handler, a test's guard) puts back the
// depth it had. While a panic travels the depth stays where it was: an
// ensure: block run on the way runs on top of the stack Go still holds.
// A Generator's block runs on a goroutine of its own: the stacks of all
// the computation's goroutines count together (depthLimit).
const maxDepth = 40000

// tooDeep ends a computation whose stack grew past maxDepth. The depth is
// left where it is.
func (in *Interp) tooDeep() {
	in.overLimit("the stack grew too deep (an endless recursion?)")
}

func (in *Interp) step() {
	in.budget--
	if in.budget < 0 {
		in.overLimit("the step budget ran out (an endless loop?)")
	}
	if in.budget&0xfff == 0 && (!in.deadline.IsZero() || len(in.timeouts) > 0 || len(in.sched.procs) > 0) {
		in.checkClock()
	}
}

// checkClock ends a computation past its deadline, and signals the
// TimedOut of a valueWithin:onTimeout: whose time has come
// (prims_clock.go).
func (in *Interp) checkClock() {
	now := time.Now()
	if !in.deadline.IsZero() && now.After(in.deadline) {
		in.overLimit("the time limit ran out")
	}
	in.checkProcesses(now)
	in.fireTimeout(now)
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
		if k.smallFloat == nil || k.boxedFloat == nil {
			return k.float
		}
		if immediateFloat(v) {
			return k.smallFloat
		}
		return k.boxedFloat
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
// once, and where the variables Go reads lie in the kernel's objects.
type knownClasses struct {
	undefined, trueClass, falseClass, smallInteger, largePositive, largeNegative *Class
	fraction, float, character, symbol, metaclass, block, context                *Class
	// smallFloat and boxedFloat are the classes of a Float (Pharo 13's
	// SmallFloat64 and BoxedFloat64; see immediateFloat)
	smallFloat, boxedFloat                                  *Class
	string, array, readStream, writeStream, readWriteStream *Class
	// orderedCollection is OrderedCollection, whose add: runs in place
	// unless a subclass overrides addLast: (growAddUnlessOverridden)
	orderedCollection *Class
	// fastInts is true while SmallInteger's comparisons and sums are the
	// kernel's primitives: send sites then compute them without a lookup.
	fastInts bool
	// slots are the kernel objects' variables Go reads (contract.go)
	slots kernelSlots
}

func (in *Interp) findKnown() error {
	c := in.classes
	in.known = knownClasses{c["UndefinedObject"], c["True"], c["False"], c["SmallInteger"], c["LargePositiveInteger"],
		c["LargeNegativeInteger"], c["Fraction"], c["Float"], c["Character"], c["Symbol"], c["Metaclass"], c["BlockClosure"], c["Context"],
		c["SmallFloat64"], c["BoxedFloat64"], c["String"], c["Array"], c["ReadStream"], c["WriteStream"], c["ReadWriteStream"], c["OrderedCollection"], false, kernelSlots{}}
	if si := in.known.smallInteger; si != nil {
		in.known.fastInts = true
		for sel, prim := range fastIntPrimitives {
			if m := si.lookup(sel); m == nil || m.primitive != prim {
				in.known.fastInts = false
			}
		}
	}
	return in.findSlots()
}

// immediateFloat tells a Float that 64-bit Pharo keeps immediate, of class
// SmallFloat64, from a BoxedFloat64, as Spur's memory manager does
// (isSmallFloatValue:): its 11-bit exponent field, less an offset of 896,
// fits in 8 bits (1 to 255), or it is a zero, or that field is 896 itself
// with a mantissa. The infinities, NaN, subnormals and magnitudes past
// about 3.4e38 or below about 1.2e-38 are boxed.
func immediateFloat(f float64) bool {
	const offset = 896
	bits := math.Float64bits(f)
	exp := bits >> 52 & 0x7FF
	mantissa := bits & (1<<52 - 1)
	switch {
	case exp > offset:
		return exp <= 255+offset
	case mantissa == 0:
		return exp == 0
	default:
		return exp == offset
	}
}

// Context is thisContext: an activation, read through prims_contexts.go.
type Context struct{ f *frame }

// lookup finds the method a message to an instance of c runs, its body
// compiled; the answers are cached (the classes do not change while a run
// lasts).
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
	if found != nil {
		found.compileBody()
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
		msg.vars[in.known.slots.messageSelector] = Symbol(sel)
		msg.vars[in.known.slots.messageArguments] = in.newArray(append([]Object{}, args...))
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
		in.depth++
		if in.depth > in.depthLimit {
			in.tooDeep()
		}
		v, ok := m.prim(in, rcv, args)
		in.depth--
		if ok {
			return v
		}
		if m.noFallback {
			return in.Send(rcv, "primitiveFailed")
		}
	}
	if m.quick != nil {
		return m.quick(in, rcv)
	}
	f := in.methodFrame(m, rcv)
	copy(f.vars, args)
	return in.run(f)
}

// invokePushed invokes a method with one argument passed on the
// argument stack.
func (in *Interp) invokePushed(m *Method, rcv, arg Object) Object {
	base := len(in.argStack)
	in.argStack = append(in.argStack, arg)
	return in.invokeFromStack(m, rcv, base)
}

// invokeFromStack invokes a method with the arguments pushed from base on;
// they are popped when it returns (a run that unwinds past it leaves them,
// and whoever pushed below truncates to its own base).
func (in *Interp) invokeFromStack(m *Method, rcv Object, base int) Object {
	top := len(in.argStack)
	v := in.invoke(m, rcv, in.argStack[base:top:top])
	clear(in.argStack[base:top])
	in.argStack = in.argStack[:base]
	return v
}

// methodFrame makes the frame of a method's activation.
func (in *Interp) methodFrame(m *Method, rcv Object) *frame {
	f := in.newFrame(m.nTemps, nil, rcv, m, nil)
	f.home = f
	return f
}

// plain tells whether a method runs its body without trying a primitive
// first: a send site then evaluates its arguments into the new frame.
func (m *Method) plain() bool { return m.err == nil && m.primitive == "" }

// run runs a method's body in its frame, its arguments in place.
func (in *Interp) run(f *frame) (result Object) {
	m, rcv := f.m, f.self
	saved := in.depth
	in.depth += m.cost
	if in.depth > in.depthLimit {
		in.tooDeep()
	}
	f.sender, in.active = in.active, f
	defer func() { f.dead = true }()
	if m.nlr {
		defer func() {
			if n := in.returning; n == nil || n.home != f {
				return // no ^ travels to this method: what unwinds passes by
			}
			if r := recover(); r != nil {
				if n, ok := r.(*nonLocalReturn); ok && n.home == f {
					in.returning = n.prev
					in.depth = saved
					in.active = f.sender
					result = n.value
					return
				}
				panic(r)
			}
		}()
	}
	v, returned := m.body(in, f)
	in.depth = saved
	in.active = f.sender
	in.retire(f)
	if returned {
		return v
	}
	return rcv
}

// runInline runs a literal block in place: in a frame of its own when it
// has names, else in the frame it appears in.
func (in *Interp) runInline(b *blockCode, f *frame, args ...Object) (Object, bool) {
	if in.ran != nil {
		in.ran.note(f.m, b)
	}
	if !b.own {
		return b.body(in, f)
	}
	bf := in.newFrame(b.size, f, f.self, f.m, f.home)
	copy(bf.vars, args)
	v, returned := b.body(in, bf)
	in.release(bf)
	return v, returned
}

// callBlock runs a block with arguments.
func (in *Interp) callBlock(b *Block, args []Object) Object {
	in.step()
	if in.onBlockCall != nil {
		in.onBlockCall(b, args)
	}
	if in.ran != nil {
		in.ran.note(b.m, b.code)
	}
	bc := b.code
	if len(args) != bc.nargs {
		return in.signalError("Error", fmt.Sprintf("wrong number of arguments: the block takes %d, got %d", bc.nargs, len(args)))
	}
	// the block's activation, a context: its own frame, or one that only
	// stands for it as the sender of what the block sends (a block with
	// no names of its own runs in the frame it was made in)
	bf, act := b.outer, b.outer
	active := in.active
	if bc.own {
		bf = in.newFrame(bc.size, b.outer, b.outer.self, b.m, b.home)
		copy(bf.vars, args)
		act = bf
	} else {
		act = in.newFrame(0, b.outer, b.outer.self, b.m, b.home)
	}
	act.sender, act.closure, in.active = active, b, act
	in.depth += bc.cost
	if in.depth > in.depthLimit {
		in.tooDeep()
	}
	v, returned := bc.body(in, bf)
	in.depth -= bc.cost
	in.active = active
	act.dead = true
	in.retire(act)
	if returned {
		return in.blockReturn(b.home, v)
	}
	return v
}

func (in *Interp) ivars(o Object) []Object {
	switch v := o.(type) {
	case *Instance:
		if n := len(v.class.ivarNames); len(v.vars) < n {
			// its class, made at run time, was given more variables
			// since: the instance gets them, nil, as Pharo migrates it
			in.chargeSlots(n - len(v.vars))
			v.vars = append(v.vars, make([]Object, n-len(v.vars))...)
		}
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
func (in *Interp) undeclared(name string, from *Class) Object {
	if c, ok := in.classes[name]; ok && c.unloaded != "" {
		panic(&Missing{What: "the class " + name, Why: "the class " + name + " did not load: " + c.unloaded})
	}
	if what, ok := lacking[name]; ok {
		panic(&Missing{What: name + " (" + what + ")"})
	}
	if r := []rune(name); len(r) > 0 && unicode.IsLower(r[0]) {
		if in.pharoDeclares != nil && !in.pharoDeclaresAbove(name, from) {
			// undeclared in Pharo too: Pharo 13 signals it when read
			return in.signalUndeclaredRead(name)
		}
		// a lower-case name is no global: an instance variable Pharo's
		// class has and the kernel's lacks, most likely
		panic(&Missing{What: "the variable " + name + " read by a method of " + from.name})
	}
	if in.pharoHasGlobal != nil && !in.pharoHasGlobal(name) {
		// no global of Pharo's either: Pharo 13 signals it when read
		return in.signalUndeclaredRead(name)
	}
	panic(&Missing{What: "the global " + name})
}

// pharoDeclaresAbove reports whether Pharo's version of a kernel class
// from which the reading method's class inherits (or the class itself)
// declares the variable.
func (in *Interp) pharoDeclaresAbove(name string, from *Class) bool {
	c := from
	if c.thisClass != nil {
		c = c.thisClass
	}
	for k := c; k != nil; k = k.super {
		if !in.programClasses[k.name] && in.pharoDeclares(k.name, name) {
			return true
		}
	}
	return false
}

// signalUndeclaredRead signals Pharo's UndeclaredVariableRead for a read
// of a variable nothing declares; the read answers what a handler resumes
// it with.
func (in *Interp) signalUndeclaredRead(name string) Object {
	e := in.newInstance(in.classes["UndeclaredVariableRead"])
	in.Send(e, "messageText:", in.newString("Attempt to read undeclared variable "+name))
	in.Send(e, "variable:", Symbol(name))
	return in.Send(e, "signal")
}

// lacking names the globals of Pharo the kernel leaves out on purpose.
var lacking = map[string]string{
	"FileStream": "files", "File": "files", "FileLocator": "files",
	"Socket": "network", "ZnClient": "network", "ZnServer": "network", "ZnUrl": "network", "NetNameResolver": "network",
	"Process": "processes", "SharedQueue": "processes",
	"World":     "UI",
	"UIManager": "UI", "Morph": "UI", "SpPresenter": "UI", "Display": "UI",
}

// internalLineEndings makes every line ending a carriage return, as
// Pharo's code loading does to a method's source (Tonel files have
// linefeeds): a string literal spanning lines holds CRs in Pharo.
func internalLineEndings(s string) string {
	if !strings.ContainsRune(s, '\n') {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\r"), "\n", "\r")
}

func (in *Interp) literal(n *smalltalk.Literal) Object {
	switch n.Kind {
	case smalltalk.LitNumber:
		return in.literalNumber(n.Value)
	case smalltalk.LitString:
		return in.newString(internalLineEndings(n.Value))
	case smalltalk.LitCharacter:
		r := []rune(internalLineEndings(n.Value))
		if len(r) == 0 {
			return Char(0)
		}
		return Char(r[0])
	case smalltalk.LitSymbol:
		in.intern(n.Value)
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
			elems[i] = in.literalNumber(e.Value)
		}
		in.chargeSlots(len(elems))
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

// newInstance makes an instance of c, its variables nil; its memory is
// charged.
func (in *Interp) newInstance(c *Class) *Instance {
	in.charge(instanceBytes + slotBytes*int64(len(c.ivarNames)))
	return &Instance{class: c, vars: make([]Object, len(c.ivarNames))}
}

// newArray makes an Array of elems (made already: they come from what the
// computation holds).
func (in *Interp) newArray(elems []Object) *Instance {
	in.chargeSlots(len(elems))
	a := in.newInstance(in.classes["Array"])
	a.indexed = elems
	return a
}

func (in *Interp) newString(s string) *Instance {
	in.chargeRunes(utf8.RuneCountInString(s))
	a := in.newInstance(in.classes["String"])
	a.str = []rune(s)
	return a
}

func (in *Interp) printName(o Object) string {
	c := in.classOf(o)
	if c.thisClass != nil {
		return behaviorName(c.thisClass) + " class"
	}
	return "a " + behaviorName(c)
}

// literalNumber reads a number literal as Pharo's compiler does: through
// the reader Number class>>readFrom: uses, a scale making a ScaledDecimal.
func (in *Interp) literalNumber(text string) Object {
	v, n, scale := readNumberPrefix([]rune(text), 10, readNumber)
	if n == 0 {
		return int64(0)
	}
	if scale >= 0 {
		return in.scaled(v, scale)
	}
	return v
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
