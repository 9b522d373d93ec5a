package interp

// collectionPrimitives are the Go primitives of the kernel's collections.
var collectionPrimitives = map[string]primitive{
	// tableCompareByIdentity makes the receiver's hashed storage tell its
	// keys apart with == (IdentityDictionary, IdentitySet, IdentityBag).
	"tableCompareByIdentity": func(in *Interp, r Object, a []Object) (Object, bool) {
		o := r.(*Instance)
		o.dict = in.table(r).rebuilt(in, keyComparison{identity: true})
		return r, true
	},
	// tableCompareWith: hashBlock and equalBlock (either may be nil, for
	// hash and =) tell the receiver's keys apart (PluggableDictionary,
	// PluggableSet).
	"tableCompareWith": func(in *Interp, r Object, a []Object) (Object, bool) {
		o := r.(*Instance)
		o.dict = in.table(r).rebuilt(in, keyComparison{hashBlock: a[0], equalBlock: a[1]})
		return r, true
	},
	// tableIsHealthy: every key of the receiver's hashed storage is where
	// its hash now puts it (a key changed after it was added is not).
	"tableIsHealthy": func(in *Interp, r Object, a []Object) (Object, bool) {
		t := in.table(r)
		for h, b := range t.buckets {
			for _, i := range b {
				if t.live[i] && t.hash(in, t.keys[i]) != h {
					return false, true
				}
			}
		}
		return true, true
	},
	// tableRemoveAll empties the receiver's hashed storage, healthy or not.
	"tableRemoveAll": func(in *Interp, r Object, a []Object) (Object, bool) {
		o := r.(*Instance)
		o.dict = newTable().rebuilt(in, in.table(r).compare)
		return r, true
	},
	// tableRehash puts every key where its hash now puts it.
	"tableRehash": func(in *Interp, r Object, a []Object) (Object, bool) {
		o := r.(*Instance)
		t := in.table(r)
		o.dict = t.rebuilt(in, t.compare)
		return r, true
	},
}
