package interp

import "slices"

// gcPrimitives stand for Pharo's garbage collector where a program can
// see it: the objects only weak references hold (a WeakArray's slots, a
// weak class's indexed slots) are taken, their slots emptied, and an
// ephemeron whose key nothing else holds is mourned — its key kept alive
// for its finalization, as Pharo's collector does for the finalization
// registry's entries. What the computation reaches is found by the walk
// becomeForward: makes (prims_become.go); Go's own collector frees the
// memory.
var gcPrimitives = map[string]primitive{
	// gcCollect empties the weak slots whose objects nothing else holds
	// and answers the ephemerons to mourn.
	"gcCollect": func(in *Interp, r Object, a []Object) (Object, bool) {
		return in.newArray(in.collectWeak()), true
	},
}

func (in *Interp) collectWeak() []Object {
	w := forwarder{in: in, weak: true, seenInstances: map[*Instance]bool{}, seenFrames: map[*frame]bool{}, seenClasses: map[*Class]bool{}}
	w.walkRoots()
	// an ephemeron's key reached otherwise keeps it; the ephemerons whose
	// key only ephemerons hold are mourned — all of them at once, where
	// Pharo's collector mourns one a collection — and what they hold
	// lives on for that
	var mourned []Object
	for {
		var due []*Instance
		for _, e := range w.ephemerons {
			key, ok := e.vars[0].(*Instance)
			if ok && !w.seenInstances[key] && !slices.ContainsFunc(mourned, func(m Object) bool { return identical(m, e) }) {
				due = append(due, e)
			}
		}
		if len(due) == 0 {
			break
		}
		for _, e := range due {
			mourned = append(mourned, e)
			w.visit(e.vars[0])
		}
		w.drain()
	}
	for _, holder := range w.weakHolders {
		for i, o := range holder.indexed {
			if x, ok := o.(*Instance); ok && !w.seenInstances[x] {
				holder.indexed[i] = nil
			}
		}
	}
	return mourned
}
