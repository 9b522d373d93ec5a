package interp

import (
	"iter"
	"maps"
	"slices"
	"sort"
)

// reflectionPrimitives are the Go primitives of classes and of the
// globals: instantiation, names, selectors, layouts, Smalltalk at:.
var reflectionPrimitives = map[string]primitive{
	"basicNew":     primBasicNew,
	"basicNewSize": primBasicNewSize,
	"className":    primClassName,
	"superclass":   onClass(primSuperclass),
	"includesSelector": onClass(func(in *Interp, c *Class, a []Object) (Object, bool) {
		_, ok := c.methods[symOf(a[0])]
		return ok, true
	}),
	"canUnderstand": onClass(func(in *Interp, c *Class, a []Object) (Object, bool) {
		return c.lookup(symOf(a[0])) != nil, true
	}),
	"selectors":     onClass(primSelectors),
	"instanceClass": onClass(func(in *Interp, c *Class, a []Object) (Object, bool) { return c.thisClass, true }),
	"isMeta":        onClass(func(in *Interp, c *Class, a []Object) (Object, bool) { return c.thisClass != nil, true }),
	"category":      onClass(func(in *Interp, c *Class, a []Object) (Object, bool) { return in.newString(c.category), true }),
	"instVarNames": onClass(func(in *Interp, c *Class, a []Object) (Object, bool) {
		var out []Object
		for _, n := range c.ivarNames {
			out = append(out, Symbol(n))
		}
		return in.newArray(out), true
	}),
	"subclasses":           onClass(primSubclasses),
	"newAnonymousSubclass": onClass(primNewAnonymousSubclass),
	"classGetName": onClass(func(in *Interp, c *Class, a []Object) (Object, bool) {
		if c.thisClass != nil || c.name == "" {
			return nil, c.thisClass == nil
		}
		return Symbol(c.name), true
	}),
	"classSetName": onClass(primClassSetName),
	"hasPragma": onClass(func(in *Interp, c *Class, a []Object) (Object, bool) {
		m := c.lookup(symOf(a[0]))
		if m == nil {
			return false, true
		}
		for _, p := range m.pragmas {
			if p == symOf(a[1]) {
				return true, true
			}
		}
		return false, true
	}),
	"globalAt": func(in *Interp, r Object, a []Object) (Object, bool) {
		if b, ok := in.globals[symOf(a[0])]; ok {
			return b.Value, true
		}
		return nil, false
	},
	"globalIncludes": func(in *Interp, r Object, a []Object) (Object, bool) {
		_, ok := in.globals[symOf(a[0])]
		return ok, true
	},
	"globalAtPut": func(in *Interp, r Object, a []Object) (Object, bool) {
		if _, ok := in.globals[symOf(a[0])]; !ok {
			in.charge(entryBytes)
		}
		in.globals[symOf(a[0])] = &Binding{Name: symOf(a[0]), Value: a[1]}
		in.globalsVersion++
		return a[1], true
	},
	"classIsVariable": classKindIn("variable", "bytes", "words", "weak", "string"),
	"classIsBytes":    classKindIn("bytes", "string"),
	"classIsWords":    classKindIn("words"),
	"classIsWeak":     classKindIn("weak"),
	// The kind a class's definition declares (Tonel's #type: variable,
	// bytes, weak, ephemeron, compiledMethod, immediate…), nil for one
	// with named variables only: the kernel's classLayout names its layout
	// class after it.
	"classLayoutType": onClass(func(in *Interp, c *Class, a []Object) (Object, bool) {
		if c.kind == "" || c.kind == "normal" {
			return nil, true
		}
		return Symbol(c.kind), true
	}),
	// The definition of an instance variable declared as a slot of a class
	// of its own, as the class's definition writes it; nil for a plain one.
	"classSlotDefinition": onClass(func(in *Interp, c *Class, a []Object) (Object, bool) {
		def, ok := c.slotDefs[symOf(a[0])]
		if !ok {
			return nil, true
		}
		return in.newString(def), true
	}),
	// The pools a class names, in the order its definition names them, as
	// Pharo's sharedPools keeps them.
	"classSharedPoolNames": onClass(func(in *Interp, c *Class, a []Object) (Object, bool) {
		names := make([]Object, len(c.pools))
		for i, n := range c.pools {
			names[i] = Symbol(n)
		}
		return in.newArray(names), true
	}),
	"classVarNames": func(in *Interp, r Object, a []Object) (Object, bool) {
		c, ok := r.(*Class)
		if !ok {
			return nil, false
		}
		return in.sortedSymbols(maps.Keys(c.classVars)), true
	},
}

func primBasicNew(in *Interp, r Object, a []Object) (Object, bool) {
	c, ok := r.(*Class)
	if !ok || c.thisClass != nil {
		return nil, false
	}
	o := in.newInstance(c)
	switch c.kind {
	case "string":
		o.str = []rune{}
	case "variable", "bytes", "words", "weak":
		o.indexed = []Object{}
	case "hashed":
		o.dict = newTable()
	}
	return o, true
}

func primBasicNewSize(in *Interp, r Object, a []Object) (Object, bool) {
	c, ok := r.(*Class)
	n, ok2 := a[0].(int64)
	if !ok || !ok2 || n < 0 || n > 1<<26 {
		return nil, false
	}
	if c.kind == "string" {
		in.chargeRunes(int(n))
	} else if c.kind != "hashed" {
		in.chargeSlots(int(n))
	}
	o := in.newInstance(c)
	switch c.kind {
	case "string":
		o.str = make([]rune, n)
	case "bytes":
		o.indexed = make([]Object, n)
		for i := range o.indexed {
			o.indexed[i] = int64(0)
		}
	case "hashed":
		o.dict = newTable()
	default:
		o.indexed = make([]Object, n)
	}
	return o, true
}

// primClassName answers a class's name as Pharo does: a Symbol for a
// class, a String ('Foo class') for a metaclass.
func primClassName(in *Interp, r Object, a []Object) (Object, bool) {
	c, ok := r.(*Class)
	if !ok {
		return nil, false
	}
	if c.thisClass != nil {
		return in.newString(behaviorName(c.thisClass) + " class"), true
	}
	if c.name == "" {
		return in.newString(behaviorName(c)), true
	}
	return Symbol(c.name), true
}

// behaviorName is a class's name, or for an anonymous class (made by
// newAnonymousSubclass, not named since) Behavior>>name's answer: 'a
// subclass of ' and its superclass's name.
func behaviorName(c *Class) string {
	if c.name == "" && c.super != nil {
		return "a subclass of " + behaviorName(c.super)
	}
	return c.name
}

func primSuperclass(in *Interp, c *Class, a []Object) (Object, bool) {
	if c.super == nil {
		return nil, true
	}
	return c.super, true
}

func primSelectors(in *Interp, c *Class, a []Object) (Object, bool) {
	return in.sortedSymbols(maps.Keys(c.methods)), true
}

// sortedSymbols answers an Array of names as Symbols, in order.
func (in *Interp) sortedSymbols(names iter.Seq[string]) *Instance {
	sorted := slices.Sorted(names)
	out := make([]Object, len(sorted))
	for i, n := range sorted {
		out[i] = Symbol(n)
	}
	return in.newArray(out)
}

func primSubclasses(in *Interp, c *Class, a []Object) (Object, bool) {
	var names []string
	for n, k := range in.classes {
		if k.super == c {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	out := make([]Object, len(names))
	for i, n := range names {
		out[i] = in.classes[n]
	}
	return in.newArray(out), true
}

// primNewAnonymousSubclass makes a subclass of a class that no global
// names and that is no subclass its superclass knows of, as Pharo's
// anonymous class installer does: it has the superclass's layout, no
// methods of its own and no name (Behavior>>name answers 'a subclass of
// Foo') until setName: gives it one.
func primNewAnonymousSubclass(in *Interp, super *Class, a []Object) (Object, bool) {
	if super.thisClass != nil || super.isTrait || super.unloaded != "" {
		return nil, false
	}
	in.charge(instanceBytes + slotBytes*int64(len(super.meta.ivarNames)))
	in.nextHash++
	c := &Class{super: super, methods: map[string]*Method{}, classVars: map[string]*Binding{},
		kind: super.kind, ivarNames: slices.Clone(super.ivarNames), idHash: in.nextHash}
	c.meta = &Class{thisClass: c, super: super.meta, methods: map[string]*Method{},
		ivarNames: slices.Clone(super.meta.ivarNames)}
	c.civals = make([]Object, len(c.meta.ivarNames))
	// its lookups are flushed when code changes (codeChanged)
	in.madeClasses = append(in.madeClasses, c)
	return c, true
}

// primClassSetName is Class>>setName:: the class is named, and keeps the
// identity hash it had (a hashed collection may hold it).
func primClassSetName(in *Interp, c *Class, a []Object) (Object, bool) {
	var name string
	switch v := a[0].(type) {
	case Symbol:
		name = string(v)
	case *Instance:
		if v.str == nil {
			return nil, false
		}
		name = string(v.str)
	default:
		return nil, false
	}
	if c.thisClass != nil || name == "" {
		return nil, false
	}
	if c.idHash == 0 {
		c.idHash = in.identityHash(c).(int64)
	}
	c.name = name
	c.meta.name = name + " class"
	return c, true
}

// classKindIn answers whether a class's layout (its Tonel #type) is one of
// kinds: a String's is "string", bytes as Pharo's ByteString.
func classKindIn(kinds ...string) primitive {
	return func(in *Interp, r Object, a []Object) (Object, bool) {
		c, ok := r.(*Class)
		if !ok {
			return nil, false
		}
		for _, k := range kinds {
			if c.kind == k {
				return true, true
			}
		}
		return false, true
	}
}
