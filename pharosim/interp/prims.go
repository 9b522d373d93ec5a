package interp

import (
	"fmt"
	"math/big"
	"slices"
	"strings"
)

// primitive is the Go half of a kernel method that names it in
// <primitive: 'name'>. It answers ok false when it fails — a receiver or
// an argument it cannot take — and the method's Smalltalk body runs then
// (the failure code), as with Pharo's primitives.
type primitive func(in *Interp, rcv Object, args []Object) (Object, bool)

// primitives are every primitive by its name. Each area of the kernel
// registers its own in its file, prims_<area>.go, as one map.
var primitives map[string]primitive

func init() {
	all, err := registerPrimitives(objectPrimitives, reflectionPrimitives, blockPrimitives, exceptionPrimitives,
		numberPrimitives, characterPrimitives, stringPrimitives, collectionPrimitives, streamPrimitives,
		clockPrimitives, randomPrimitives, generatorPrimitives, methodPrimitives, processPrimitives, gcPrimitives, contextPrimitives,
		classPrimitives, codeFactPrimitives, blockCodePrimitives)
	if err != nil {
		panic("interp: " + err.Error())
	}
	primitives = all
}

// registerPrimitives merges the areas' primitives into one registry; a
// name registered twice is an error.
func registerPrimitives(areas ...map[string]primitive) (map[string]primitive, error) {
	all := map[string]primitive{}
	var twice []string
	for _, area := range areas {
		for name, p := range area {
			if _, taken := all[name]; taken {
				twice = append(twice, name)
			}
			all[name] = p
		}
	}
	if len(twice) > 0 {
		slices.Sort(twice)
		return nil, fmt.Errorf("two primitives are named %s", strings.Join(twice, ", "))
	}
	return all, nil
}

// The checked views of a primitive's receiver or argument: ok is false
// when the object is not of the kind the primitive takes, and the
// primitive then fails (the method's fallback runs) instead of Go
// panicking on a type assertion.

func asBlock(o Object) (*Block, bool)       { b, ok := o.(*Block); return b, ok }
func asInstance(o Object) (*Instance, bool) { x, ok := o.(*Instance); return x, ok }
func asClass(o Object) (*Class, bool)       { c, ok := o.(*Class); return c, ok }
func asChar(o Object) (Char, bool)          { c, ok := o.(Char); return c, ok }
func asFloat64(o Object) (float64, bool)    { f, ok := o.(float64); return f, ok }
func asFraction(o Object) (*big.Rat, bool)  { q, ok := o.(*big.Rat); return q, ok }

// onClass makes a primitive of one that takes a class (or a metaclass)
// for its receiver: any other receiver fails it.
func onClass(p func(in *Interp, c *Class, a []Object) (Object, bool)) primitive {
	return func(in *Interp, r Object, a []Object) (Object, bool) {
		c, ok := asClass(r)
		if !ok {
			return nil, false
		}
		return p(in, c, a)
	}
}

// onChar makes a primitive of one that takes a Character for its
// receiver: any other receiver fails it.
func onChar(p func(in *Interp, c Char, a []Object) (Object, bool)) primitive {
	return func(in *Interp, r Object, a []Object) (Object, bool) {
		c, ok := asChar(r)
		if !ok {
			return nil, false
		}
		return p(in, c, a)
	}
}
