package interp

import (
	"fmt"
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
		clockPrimitives, randomPrimitives)
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
