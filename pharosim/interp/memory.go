package interp

import (
	"fmt"
	"math/big"
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"time"
)

// DefaultMemory is the memory budget of a test when Limits.Memory is 0.
const DefaultMemory = 128 << 20

// What the objects a computation creates count toward its memory budget,
// in bytes: about what Go holds for them.
const (
	instanceBytes = 96  // an Instance, before its variables
	slotBytes     = 16  // a variable or an indexed slot (an interface)
	runeBytes     = 4   // a character of a String or a Symbol
	entryBytes    = 64  // an entry of a hashed collection's table
	blockBytes    = 48  // a BlockClosure
	frameBytes    = 160 // a frame a block or thisContext holds on to
	bigBytes      = 32  // a large integer or a fraction, before its words
	stateBytes    = 80  // what the interpreter keeps of a signalled exception
	hashBytes     = 48  // an identity hash the interpreter keeps for an object
)

// charge counts n bytes the computation is about to create, before Go
// allocates them. The count only grows — nothing tells when an object
// becomes garbage — so when it passes the budget, recount finds out what
// the computation actually holds.
func (in *Interp) charge(n int64) {
	in.charged += n
	if n < 0 || in.charged > in.recountAt {
		in.recount(n)
	}
}

// recount runs when the bytes a computation created pass its budget: a
// garbage collection tells what it holds (the heap's objects beyond those
// there when it began). When that and the n bytes asked for pass the
// budget, the computation ends, before Go allocates them; else the count
// goes on from what it holds, and the next recount comes after a quarter
// of the budget more at least (a computation holding nearly its budget
// would otherwise collect at each object it makes). So a test that
// creates far more than its budget while holding little runs — computing
// the factorials up to 1,000 twice creates 340 MB of large integers — and
// one that holds more than its budget (by up to a quarter, made since the
// last recount) ends.
func (in *Interp) recount(n int64) {
	if !in.deadline.IsZero() && time.Now().After(in.deadline) {
		// a collection is no time to spend past the time limit
		in.overLimit("the time limit ran out")
	}
	recounted.Store(true)
	if n >= 0 && n <= in.memory {
		runtime.GC()
		held := max(heapObjects()-in.heapAtStart, 0)
		if held+n <= in.memory {
			in.charged = held + n
			in.recountAt = max(in.memory, in.charged+in.memory/4)
			return
		}
	}
	in.overLimit(fmt.Sprintf("memory budget exceeded: the computation holds more than %d MiB (an endless allocation?)", in.memory>>20))
}

// recounted is set when a computation, of any interpreter of the
// process, passed its budget (see startMemory).
var recounted atomic.Bool

// startMemory begins the memory budget of a guarded computation. What
// it holds is measured from the heap's objects now, garbage included: a
// computation after one that passed its budget (whose garbage would count
// as held, and let this one hold as much again) starts after a
// collection; after lighter ones the garbage is what Go's collector lets
// pile up between two collections.
//
// What a computation leaves behind — in class variables, in globals, in
// the identity hashes the interpreter keeps — outlives it, and counts for
// no later one: the interpreter as a whole may hold leftBehind times the
// budget beyond what it held when it was built. Past that (measured by a
// collection, only once the heap's objects, garbage included, are past
// it), every computation it starts ends at once.
func (in *Interp) startMemory() {
	if recounted.Swap(false) {
		runtime.GC()
	}
	in.charged, in.recountAt = 0, in.memory
	in.heapAtStart = heapObjects()
	if most := leftBehind * in.memory; in.heapAtStart-in.heapAtNew > most {
		runtime.GC()
		if in.heapAtStart = heapObjects(); in.heapAtStart-in.heapAtNew > most {
			in.overLimit(fmt.Sprintf("memory budget exceeded: the interpreter holds more than %d MiB, left by earlier tests (in class variables or globals?)", most>>20))
		}
	}
}

// leftBehind bounds what an interpreter holds beyond what it held when it
// was built, in memory budgets (see startMemory).
const leftBehind = 2

// heapObjects is the bytes of the Go heap's objects, live or not yet
// freed.
func heapObjects() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// chargeSlots counts n indexed slots.
func (in *Interp) chargeSlots(n int) { in.charge(slotBytes * int64(n)) }

// chargeRunes counts n characters.
func (in *Interp) chargeRunes(n int) { in.charge(runeBytes * int64(n)) }

// chargeInstance counts a copy of o: its variables, indexed slots and
// characters (a table's entries are counted as they are put, or copied).
func (in *Interp) chargeInstance(o *Instance) {
	in.charge(instanceBytes + slotBytes*int64(len(o.vars)+len(o.indexed)) + runeBytes*int64(len(o.str)))
}

// chargeBits counts a large integer (or the parts of a fraction) of bits
// bits in all.
func (in *Interp) chargeBits(bits int) { in.chargeBig(bits, 0, 0) }

// What Go's math/big allocates besides its answer grows with the
// operands: measured on Go 1.26, a product takes about 4.5 times its
// size in all, a division 14 times the dividend's bytes, a gcd 15 times,
// printing in base 10 33 times the integer's bytes, a square root 37
// times. It is garbage at once, but Go allocates it: an operation on a
// large integer is charged it beforehand, so one that would take the
// process past the budget is refused before it runs.
const (
	productScratch  = 5
	divisionScratch = 16 // a division, a remainder, a gcd, a fraction's normalisation
	printScratch    = 36
	rootScratch     = 40
)

// chargeBig counts a large integer of bits bits about to be made by an
// operation taking scratch times the bytes of operands of operandBits
// bits (below 4,096 bits the scratch is small, and left out).
func (in *Interp) chargeBig(bits, scratch, operandBits int) {
	n := bigBytes + int64(bits+63)/64*8
	if operandBits > 4096 {
		n += int64(scratch) * int64(operandBits) / 8
	}
	in.charge(n)
}

// chargeRats counts a fraction made of x and y: its numerator and
// denominator take at most the bits of both, and normalising it is a gcd.
func (in *Interp) chargeRats(x, y *big.Rat) {
	bits := x.Num().BitLen() + x.Denom().BitLen() + y.Num().BitLen() + y.Denom().BitLen() + 2
	in.chargeBig(bits, divisionScratch, bits)
}

// decimalDigits bounds the digits of an integer of bits bits written in
// base 10 (and the sign).
func decimalDigits(bits int) int { return bits*30103/100000 + 2 }

// chargeSum and chargeProduct count the sum (or difference) and the
// product of integers of x and y bits.
func (in *Interp) chargeSum(x, y int)     { in.chargeBits(max(x, y) + 1) }
func (in *Interp) chargeProduct(x, y int) { in.chargeBig(x+y, productScratch, x+y) }

// chargeNumber counts a number read from a string (no larger than the
// string it was read from, already counted).
func (in *Interp) chargeNumber(o Object) {
	switch v := o.(type) {
	case *big.Int:
		in.chargeBits(v.BitLen())
	case *big.Rat:
		in.chargeBits(v.Num().BitLen() + v.Denom().BitLen())
	}
}
