package interp

import (
	"maps"
	"slices"
	"strings"

	"github.com/pharo-refactor/refactord/smalltalk"
)

// classPrimitives build the image's code while a program runs, as Pharo's
// class installer and compiler do: classes made or changed (named, in a
// package and a tag, with instance, class and class-side instance
// variables), methods compiled from a source string with the project's
// parser, installed, reclassified and removed, classes removed.
//
// It all lives in the interpreter's memory: nothing is written to the
// Tonel tree, the Program the interpreter was built from or the disk, so
// a class a test builds ends with its interpreter (pharo-sim builds one
// per call). Only a class made at run time is changed or removed: the
// kernel's and the image's classes stay as loaded.
//
// A comparison of a method with a candidate turns them off (compilerOff):
// code that compiles or builds classes is then "the compiler", an effect
// the kernel lacks there on purpose, and one side alone reaching for it is
// a difference (compare.go, lackedEffects).
var classPrimitives = map[string]primitive{
	"classInstall": primClassInstall,
	"classRemove":  onClass(primClassRemove),
	"classIsTrait": onClass(func(in *Interp, c *Class, a []Object) (Object, bool) { return c.isTrait, true }),
	"classTraitNames": onClass(func(in *Interp, c *Class, a []Object) (Object, bool) {
		return in.sortedSymbols(slices.Values(c.instanceSide().traitNames)), true
	}),
	"classHasMethodCategory": onClass(func(in *Interp, c *Class, a []Object) (Object, bool) {
		name, ok := a[0].(Symbol)
		if !ok {
			return nil, false
		}
		for _, m := range c.methods {
			if m.category == string(name) {
				return true, true
			}
		}
		return false, true
	}),
	"classIsObsolete":   onClass(func(in *Interp, c *Class, a []Object) (Object, bool) { return c.instanceSide().obsolete, true }),
	"classIsMadeAtRun":  onClass(func(in *Interp, c *Class, a []Object) (Object, bool) { return c.instanceSide().madeAtRun, true }),
	"classPackageName":  onClass(func(in *Interp, c *Class, a []Object) (Object, bool) { return in.packageName(c.instanceSide()), true }),
	"classTagName":      onClass(func(in *Interp, c *Class, a []Object) (Object, bool) { return in.tagName(c.instanceSide()), true }),
	"classProtocols":    onClass(func(in *Interp, c *Class, a []Object) (Object, bool) { return c.protocols, true }),
	"classSetProtocols": onClass(func(in *Interp, c *Class, a []Object) (Object, bool) { c.protocols = a[0]; return c, true }),
	"globalNames": func(in *Interp, r Object, a []Object) (Object, bool) {
		return in.sortedSymbols(maps.Keys(in.globals)), true
	},
	"globalRemove": func(in *Interp, r Object, a []Object) (Object, bool) {
		b, ok := in.globals[symOf(a[0])]
		if !ok {
			return nil, false
		}
		if c, isClass := b.Value.(*Class); isClass && c.name == b.Name {
			return nil, false // a class is removed with removeFromSystem
		}
		delete(in.globals, b.Name)
		in.globalsVersion++
		return b.Value, true
	},
	"compileMethod":  onClass(primCompileMethod),
	"evaluateSource": onClass(primEvaluateSource),
	"installMethod":  onClass(primInstallMethod),
	"removeMethod":   onClass(primRemoveMethod),
	"methodSetProtocol": onMethod(func(in *Interp, m *Method, a []Object) (Object, bool) {
		switch a[0].(type) {
		case nil, Symbol:
			m.category = symOf(a[0])
			return nil, true
		}
		return nil, false
	}),
}

// instanceSide answers the class of a metaclass, the class itself else.
func (c *Class) instanceSide() *Class {
	if c.thisClass != nil {
		return c.thisClass
	}
	return c
}

// packageName answers the name of a class's package, as a Symbol: its
// Tonel package (its folder), else its category; the kernel's classes,
// whose folder is kernel, are in their category's package (Kernel,
// SUnit…).
func (in *Interp) packageName(c *Class) Object {
	switch {
	case c.pkg != "" && (c.category == "" || strings.HasPrefix(c.category, c.pkg)):
		return Symbol(c.pkg)
	case c.category != "":
		return Symbol(c.category)
	}
	return nil
}

// tagName answers the name of a class's tag in its package: its Tonel
// #tag, else what its category adds to the package's name.
func (in *Interp) tagName(c *Class) Object {
	if c.tag != "" {
		return Symbol(c.tag)
	}
	if c.pkg != "" && strings.HasPrefix(c.category, c.pkg+"-") {
		return Symbol(strings.TrimPrefix(c.category, c.pkg+"-"))
	}
	return nil
}

// compilerOff refuses, by name, what the comparison of a method with a
// candidate must not let either side do.
func (in *Interp) compilerOff(what string) {
	if in.noCompiler {
		panic(&Missing{What: "the compiler (" + what + ")"})
	}
}

// codeChanged makes every send find methods anew: a method was added,
// replaced or removed, or a class changed.
func (in *Interp) codeChanged() {
	in.codeEpoch++
	in.flushLookups()
	for _, c := range in.madeClasses {
		c.cache, c.meta.cache = nil, nil
	}
}

// names reads an Array of names (Strings or Symbols); ok is false for
// anything else.
func names(o Object) ([]string, bool) {
	if o == nil {
		return nil, true
	}
	arr, ok := asInstance(o)
	if !ok || arr.indexed == nil && arr.str != nil {
		return nil, false
	}
	out := make([]string, 0, len(arr.indexed))
	for _, v := range arr.indexed {
		if !isStringy(v) || symOf(v) == "" {
			return nil, false
		}
		out = append(out, symOf(v))
	}
	return out, true
}

// primClassInstall is ShiftClassBuilder>>install's work: a: name,
// superclass (nil for none), instance variables, class variables,
// class-side instance variables, package, tag, layout (a Tonel #type:
// nil, #variable, #bytes, #words, #weak), whether it is a trait and
// whether it is installed (a global, Smalltalk's class of that name) or
// only built (ShiftClassBuilder>>build: a new class no global names). A class
// of that name made at run time is changed in place (it keeps its identity,
// its methods and its subclasses, as Pharo's update does); a class of the
// kernel or of the image is never changed: the primitive fails.
func primClassInstall(in *Interp, r Object, a []Object) (Object, bool) {
	name := symOf(a[0])
	super, isClass := a[1].(*Class)
	if name == "" || !isUpper(name) || (a[1] != nil && (!isClass || super.thisClass != nil || super.unloaded != "")) {
		return nil, false
	}
	ivars, ok1 := names(a[2])
	cvars, ok2 := names(a[3])
	civars, ok3 := names(a[4])
	kind, ok4 := a[7].(Symbol)
	trait, ok5 := a[8].(bool)
	installing, ok6 := a[9].(bool)
	if !ok1 || !ok2 || !ok3 || (!ok4 && a[7] != nil) || !ok5 || !ok6 || !isStringy(a[5]) || (a[6] != nil && !isStringy(a[6])) {
		return nil, false
	}
	in.compilerOff("a class installed")
	c := in.classes[name]
	if !installing {
		c = nil // built, not installed: a class of its own
	}
	if c != nil && !c.madeAtRun {
		return nil, false
	}
	if c == nil {
		in.charge(2*instanceBytes + slotBytes*int64(len(ivars)+len(cvars)+len(civars)))
		in.nextHash++
		c = &Class{name: name, methods: map[string]*Method{}, classVars: map[string]*Binding{}, madeAtRun: true, idHash: in.nextHash}
		c.meta = &Class{name: name + " class", thisClass: c, methods: map[string]*Method{}}
		in.madeClasses = append(in.madeClasses, c)
	}
	for k := super; k != nil; k = k.super {
		if k == c {
			return nil, false // a class cannot inherit from itself
		}
	}
	c.super, c.isTrait, c.kind = super, trait, string(kind)
	c.pkg, c.tag = symOf(a[5]), symOf(a[6])
	c.category = c.pkg
	if c.tag != "" {
		c.category = c.pkg + "-" + c.tag
	}
	c.ivarNames, c.meta.ivarNames = slices.Clone(ivars), slices.Clone(civars)
	c.meta.super = in.classes["Class"]
	if super != nil && !trait {
		c.ivarNames = append(slices.Clone(super.ivarNames), ivars...)
		c.meta.ivarNames = append(slices.Clone(super.meta.ivarNames), civars...)
		c.meta.super = super.meta
		if c.kind == "" {
			c.kind = super.kind
		}
	}
	if trait {
		c.super, c.meta.super = nil, in.classes["Class"]
	}
	for v := range c.classVars {
		if !slices.Contains(cvars, v) {
			delete(c.classVars, v)
		}
	}
	for _, v := range cvars {
		if c.classVars[v] == nil {
			c.classVars[v] = &Binding{Name: v}
		}
	}
	civals := make([]Object, len(c.meta.ivarNames))
	copy(civals, c.civals)
	c.civals = civals
	// the methods of the class and its subclasses find their variables anew
	for _, k := range append([]*Class{c}, in.subclassesOf(c)...) {
		for _, side := range []*Class{k, k.meta} {
			for _, m := range side.methods {
				m.compiled, m.body, m.quick = false, nil, nil
			}
		}
	}
	if installing {
		in.classes[name] = c
		if b, ok := in.globals[name]; !ok || b.Value != c {
			in.globals[name] = &Binding{Name: name, Value: c}
			in.globalsVersion++
		}
	}
	in.codeChanged()
	return c, true
}

// isUpper tells whether a name starts with an upper-case letter, as a
// class's must.
func isUpper(name string) bool {
	return name[0] >= 'A' && name[0] <= 'Z'
}

// subclassesOf answers the classes below c that the image names.
func (in *Interp) subclassesOf(c *Class) []*Class {
	var out []*Class
	for _, k := range in.classes {
		for s := k.super; s != nil; s = s.super {
			if s == c {
				out = append(out, k)
				break
			}
		}
	}
	return out
}

// primClassRemove is Class>>removeFromSystem's work for a class made at
// run time: no global names it any more, its superclass no longer lists
// it, and it is obsolete, named AnObsoleteFoo as in Pharo. It keeps its
// identity hash (a collection may hold it). Answers the name it had.
func primClassRemove(in *Interp, c *Class, a []Object) (Object, bool) {
	if c.thisClass != nil || !c.madeAtRun || c.obsolete {
		return nil, false
	}
	in.compilerOff("a class removed")
	name := c.name
	if in.classes[name] == c {
		delete(in.classes, name)
	}
	if b, ok := in.globals[name]; ok && b.Value == c {
		delete(in.globals, name)
		in.globalsVersion++
	}
	if c.idHash == 0 {
		c.idHash = in.identityHash(c).(int64)
	}
	c.obsolete = true
	c.name = "AnObsolete" + name
	c.meta.name = c.name + " class"
	in.codeChanged()
	return Symbol(name), true
}

// primCompileMethod compiles a method's source for a class (either side)
// with the project's parser, without installing it: a: the source, the
// protocol (a Symbol, nil for none). Answers the CompiledMethod; a source
// that does not parse fails the primitive (its Smalltalk signals the
// syntax error).
func primCompileMethod(in *Interp, c *Class, a []Object) (Object, bool) {
	src, ok := asInstance(a[0])
	if !ok || src.str == nil {
		return nil, false
	}
	switch a[1].(type) {
	case nil, Symbol:
	default:
		return nil, false
	}
	in.compilerOff("compile:")
	in.chargeRunes(len(src.str))
	m := compile(c, strings.ReplaceAll(string(src.str), "\r", "\n"))
	if m.err != nil || m.selector == "" {
		return nil, false
	}
	m.category = symOf(a[1])
	return in.methodObject(m), true
}

// primInstallMethod puts a CompiledMethod compiled for the class into its
// method dictionary under its selector (a: the method), in place of the
// one there. Answers the method it replaced, nil when none.
func primInstallMethod(in *Interp, c *Class, a []Object) (Object, bool) {
	o, ok := asInstance(a[0])
	if !ok {
		return nil, false
	}
	m := in.methodByObject[o]
	if m == nil || m.class != c || m.selector == "" {
		return nil, false
	}
	in.compilerOff("a method installed")
	var old Object
	if prev := c.methods[m.selector]; prev != nil {
		old = in.methodObject(prev)
	}
	c.methods[m.selector] = m
	in.codeChanged()
	return old, true
}

// primRemoveMethod removes the method of a selector (a[0]) from the
// class; answers it, nil when it had none.
func primRemoveMethod(in *Interp, c *Class, a []Object) (Object, bool) {
	sel, ok := a[0].(Symbol)
	if !ok {
		return nil, false
	}
	m := c.methods[string(sel)]
	if m == nil {
		return nil, true
	}
	in.compilerOff("a method removed")
	delete(c.methods, string(sel))
	in.codeChanged()
	return in.methodObject(m), true
}

// primEvaluateSource is OpalCompiler>>evaluate:: the source (a[0]), a
// sequence of statements, compiled as a doIt of the class and run with
// the receiver a[1]; it answers the value of its last statement. A source
// that does not parse fails the primitive.
func primEvaluateSource(in *Interp, c *Class, a []Object) (Object, bool) {
	src, ok := asInstance(a[0])
	if !ok || src.str == nil {
		return nil, false
	}
	in.compilerOff("evaluate:")
	in.chargeRunes(len(src.str))
	ast, err := smalltalk.ParseMethod("DoIt\n" + strings.ReplaceAll(string(src.str), "\r", "\n"))
	if err != nil {
		return nil, false
	}
	if n := len(ast.Body.Statements); n > 0 {
		if _, ret := ast.Body.Statements[n-1].(*smalltalk.Return); !ret {
			last := ast.Body.Statements[n-1]
			ast.Body.Statements[n-1] = &smalltalk.Return{Span: smalltalk.Span{StartPos: last.Start(), EndPos: last.End()}, Value: last}
		}
	}
	m := prepare(c, ast.Source, ast, nil)
	m.compileBody()
	return in.invoke(m, a[1], nil), true
}
