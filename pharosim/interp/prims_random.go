package interp

import "math/big"

// randomPrimitives step Random's generator, PCG32 (O'Neill, "PCG: A Family
// of Simple Fast Space-Efficient Statistically Good Algorithms for Random
// Number Generation", 2014): a 64-bit linear congruential state, each
// output a xorshift of the old state rotated by its top bits. Pharo 13's
// Random is this generator with a fixed increment, seeded by adding the
// increment to the seed and stepping once, and keeps 31 bits of each
// output; so does this one, so that a seed draws Pharo's numbers.
var randomPrimitives = map[string]primitive{
	"pcgSeed": primPCGSeed,
	"pcgNext": primPCGNext,
}

const (
	pcgMultiplier = 6364136223846793005
	pcgIncrement  = 1442695040888963407
)

// pcgStep answers the output for a state and the state after it.
func pcgStep(state uint64) (out uint32, next uint64) {
	next = state*pcgMultiplier + pcgIncrement
	xorshifted := uint32(((state >> 18) ^ state) >> 27)
	rot := uint32(state >> 59)
	return xorshifted>>rot | xorshifted<<((-rot)&31), next
}

// primPCGSeed answers the state a seed gives (the receiver is the Random).
func primPCGSeed(in *Interp, r Object, a []Object) (Object, bool) {
	seed, ok := uint64Of(a[0])
	if !ok {
		return nil, false
	}
	_, state := pcgStep(seed + pcgIncrement)
	return objectOfUint64(state), true
}

// primPCGNext draws from a Random (its instance variable state) and
// advances it.
func primPCGNext(in *Interp, r Object, a []Object) (Object, bool) {
	g, ok := r.(*Instance)
	slot := in.known.slots.randomState
	if !ok || len(g.vars) <= slot || !g.class.includesBehavior(in.classes["Random"]) {
		return nil, false
	}
	state, ok := uint64Of(g.vars[slot])
	if !ok {
		return nil, false
	}
	out, next := pcgStep(state)
	g.vars[slot] = objectOfUint64(next)
	return int64(out & 0x7FFFFFFF), true
}

// uint64Of answers an integer modulo 2^64, as a 64-bit word holds it.
func uint64Of(o Object) (uint64, bool) {
	switch v := o.(type) {
	case int64:
		return uint64(v), true
	case *big.Int:
		m := new(big.Int).And(v, new(big.Int).SetUint64(^uint64(0)))
		return m.Uint64(), true
	}
	return 0, false
}

func objectOfUint64(u uint64) Object {
	return normInt(new(big.Int).SetUint64(u))
}
