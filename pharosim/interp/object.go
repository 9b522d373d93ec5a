package interp

import (
	"math"
	"math/big"

	"github.com/pharo-refactor/refactord/smalltalk"
)

// Object is any Smalltalk value. Immediate kinds are Go values: nil
// (UndefinedObject), bool (Boolean), int64 (SmallInteger), *big.Int (a
// large integer), *big.Rat (Fraction), float64 (Float), Char (Character),
// Symbol. Everything else is a *Instance, a *Class or a *Block.
type Object = any

// Instance is an object of a class of the image: named instance
// variables, indexed slots for a variable class (Array, OrderedCollection),
// and a string body for String.
type Instance struct {
	class   *Class
	vars    []Object
	indexed []Object
	str     []rune // a String's characters
	dict    *table // the hashed storage of Dictionary, Set and Bag
	// an OrderedCollection's layout in Pharo's terms, beside its elements
	// (indexed): the size of the array Pharo's would hold them in (its
	// capacity) and the index of the first element in that array; first
	// 0 for one whose layout nothing set, whose capacity is its size
	// (orderedLayout). They fit in the padding of the struct's size class.
	capacity, first int32
}

// Class is a class or a metaclass. A metaclass's single instance is its
// class (thisClass); a class's own variables (class-side instance
// variables) live in classVars of the instance side, cvals.
type Class struct {
	name       string
	super      *Class
	meta       *Class // the metaclass of a class; nil for a metaclass
	thisClass  *Class // the class of a metaclass; nil for a class
	ivarNames  []string
	methods    map[string]*Method
	classVars  map[string]*Binding // shared with subclasses and both sides
	pools      []string
	category   string
	kind       string   // "", "variable", "bytes", "words"…
	civals     []Object // the class object's own instance variables (meta's ivarNames)
	isTrait    bool
	traitNames []string
	cache      map[string]*Method // lookup's answers
	// unloaded says why the class did not load ("its superclass Foo is
	// missing"); "" for a class that loaded
	unloaded string
	// idHash is the identity hash of a class made while a program runs
	// (newAnonymousSubclass) or renamed (setName:), fixed when it is made
	// or renamed; 0 for a class whose hash comes from its name
	idHash int64
	// pkg and tag are the package and the tag of the class (Tonel's
	// #package and #tag, or what the class installer was given)
	pkg, tag string
	// madeAtRun is true for a class the class installer made while a
	// program ran (prims_classes.go); only such a class is changed or
	// removed, and obsolete once removed
	madeAtRun, obsolete bool
	// slotDefs holds, by variable name, the definition of each instance
	// variable declared as a slot of a class of its own (`#name =>
	// ObservableSlot`): what Pharo's printers write for it
	slotDefs map[string]string
	// protocols are the class's Protocols as ClassDescription keeps them,
	// nil until it first asks (made from its methods' categories)
	protocols Object
}

// Binding is a variable shared by name: a global, a class variable.
type Binding struct {
	Name  string
	Value Object
}

// Method is a method ready to run.
type Method struct {
	class     *Class // the class that defines it (where super starts above)
	selector  string
	ast       *smalltalk.Method
	source    string
	primitive string
	prim      primitive // the Go function primitive names
	// noFallback is true for a primitive method without a Smalltalk
	// body: when its primitive fails, primitiveFailed is signalled, as
	// in Pharo, rather than answering the receiver
	noFallback bool
	body       stmt // the compiled body
	// quick answers without a frame for a method that only answers self,
	// an instance variable or a literal
	quick  func(in *Interp, rcv Object) Object
	nTemps int  // method frame: args then temps
	nlr    bool // a block in it returns from the method
	cost   int  // the stack units an activation counts (see maxDepth)
	// compiled is set once the body's closures are made (compileBody)
	compiled bool
	pragmas  []string
	err      error // a method that does not parse
	// category is the method's protocol as its Tonel source gives it, ""
	// when none does (the kernel's methods)
	category string
	// origin is the trait a method was copied from, nil for a class's own
	origin *Class
	// literals are the literal frames of the method and of its blocks
	// that are not inlined: what the walks of the heap reach of it
	// (prims_become.go)
	literals []*literalFrame
}

// Block is a BlockClosure.
type Block struct {
	node  *smalltalk.Block
	code  *blockCode
	outer *frame
	home  *frame
	m     *Method
}

// frame is an activation: a method's, or a block's inside it.
type frame struct {
	vars   []Object
	small  [4]Object // vars when they are few: one allocation per frame
	parent *frame    // the enclosing frame of a block
	self   Object
	m      *Method
	home   *frame // the method frame
	dead   bool   // the method has returned: ^ from a block is an error
	// captured is true once a block or thisContext holds the frame
	captured bool
	// sender is the activation that was running when this one began
	// (thisContext sender); context is the frame's thisContext, made once
	// so that two reads of it are one object
	sender  *frame
	context *Context
	// closure is the block a block activation runs (callBlock), nil for
	// a method's or an inlined block's frame
	closure *Block
	// sendersKept is true once the activations below it are kept
	// from reuse (captureSenders): a walk down stops there
	sendersKept bool
}

// newFrame makes a frame of n variables, reusing a released one when it
// can: a frame per send and per inlined block with names was most of what
// a run allocated.
func (in *Interp) newFrame(n int, parent *frame, self Object, m *Method, home *frame) *frame {
	var f *frame
	if k := len(in.free); k > 0 && n <= len(f.small) {
		f = in.free[k-1]
		// the list's array must not keep the frame (and what it will
		// hold) alive once the frame is done with
		in.free[k-1] = nil
		in.free = in.free[:k-1]
		*f = frame{parent: parent, self: self, m: m, home: home}
	} else {
		f = &frame{parent: parent, self: self, m: m, home: home}
	}
	if parent != nil {
		// an inlined block's frame is part of its enclosing activation
		// (callBlock sets a block activation's own)
		f.sender = parent.sender
	}
	if n <= len(f.small) {
		f.vars = f.small[:n]
	} else {
		f.vars = make([]Object, n)
	}
	return f
}

// retire ends an activation that returned: a frame a context holds
// forgets its sender, which may be reused now (Pharo's dead context has
// none); another is released for reuse.
func (in *Interp) retire(f *frame) {
	if f.captured {
		f.sender = nil
		return
	}
	in.release(f)
}

// maxFreeFrames bounds the frames kept for reuse.
const maxFreeFrames = 4096

// release gives back a frame whose activation has ended, unless a block
// or thisContext may still reach it.
func (in *Interp) release(f *frame) {
	if !f.captured && len(f.vars) <= len(f.small) && len(in.free) < maxFreeFrames {
		in.free = append(in.free, f)
	}
}

// capture marks a frame and the frames it is nested in as reachable from
// an object (a block, thisContext): they are never reused.
func (in *Interp) capture(f *frame) *frame {
	in.captureNesting(f)
	return f
}

// captureSenders marks a frame, the frames it is nested in and every
// activation below it as reachable: thisContext can walk its senders.
func (in *Interp) captureSenders(f *frame) {
	for s := f; s != nil && !s.sendersKept; s = s.sender {
		s.sendersKept = true
		in.captureNesting(s)
	}
}

// captureNesting marks a frame and the frames it is nested in.
func (in *Interp) captureNesting(f *frame) {
	for p := f; p != nil && !p.captured; p = p.parent {
		// a frame held is kept as long as what holds it: its memory
		// counts from now on
		in.charge(frameBytes)
		if len(p.vars) > len(p.small) {
			in.chargeSlots(len(p.vars))
		}
		p.captured = true
	}
}

func identical(a, b Object) bool {
	switch x := a.(type) {
	case *big.Int:
		y, ok := b.(*big.Int)
		return ok && x == y
	case *big.Rat:
		y, ok := b.(*big.Rat)
		return ok && x == y
	case float64:
		// a Float is identical to the Float of the same bits: a NaN to
		// itself, 0.0 not to -0.0
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	case *Context:
		// thisContext is one object per activation
		y, ok := b.(*Context)
		return ok && x.f == y.f
	}
	// every kind of Object is comparable with ==
	return a == b
}

func (in *Interp) identityHash(o Object) Object {
	switch v := o.(type) {
	case *Instance:
		if h, ok := in.hashes[v]; ok {
			return h
		}
		in.charge(hashBytes)
		in.nextHash++
		in.hashes[v] = in.nextHash
		return in.nextHash
	case *Class:
		if v.idHash != 0 {
			return v.idHash
		}
		if index, ok := spurClassIndex[v.name]; ok {
			return index << 8 // ProtoObject>>identityHash: basicIdentityHash bitShift: 8
		}
		return hashString(v.name)
	case Symbol:
		return hashString(string(v))
	case int64:
		return v
	case Char:
		return int64(v)
	case bool:
		if v {
			return int64(1)
		}
		return int64(2)
	case nil:
		return int64(3)
	}
	return int64(7)
}

// spurClassIndex holds the classes whose index in the class table Pharo's
// VM fixes (Spur's compact class indices): a class's identity hash there is
// its index, so Array's and ByteString's, and with them every string's and
// every array's hash, are the same in every Pharo image (a package's test
// may hold one: pharo-ai's AIShinglesSimilarityTest).
var spurClassIndex = map[string]int64{"Array": 51, "ByteString": 52}

// stringHashSeed is ByteString's hash, from which Pharo's String>>hash
// starts for every string, byte or wide, and every symbol.
const stringHashSeed = 52 << 8

// hashString is Pharo's String>>hash (ByteString class>>stringHash:
// initialHash: with ByteString's hash): each code point added, then
// multiplied by 1664525 modulo 2 raised to 28 (hashMultiply).
func hashString(s string) int64 {
	h := int64(stringHashSeed)
	for _, r := range s {
		h = ((h + int64(r)) * 1664525) & 0x0FFFFFFF
	}
	return h
}
