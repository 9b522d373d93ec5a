package interp

import (
	"embed"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/pharo-refactor/refactord/smalltalk"
	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

//go:embed kernel/*.st
var kernelFS embed.FS

// Program is the code an interpreter runs beside its kernel: the
// definitions of a tree's classes and traits, and its methods (of its own
// classes, and extensions of the kernel's).
type Program struct {
	Classes []tonel.Definition
	Methods []MethodSource
	// PharoDeclares, when set, tells whether Pharo's class of that name
	// declares the variable (instance, class-instance or class variable).
	// A method that reads a lower-case name nothing declares then signals
	// UndeclaredVariableRead, as Pharo 13 does, unless Pharo's version of
	// a kernel class above it declares the name: then the kernel lacks it.
	// Unset, every such read is taken for a variable the kernel lacks.
	PharoDeclares func(class, variable string) bool
	// PharoHasGlobal, when set, tells whether Pharo's image holds a global
	// of that name. Reading a global that neither it nor the kernel holds
	// signals UndeclaredVariableRead, as Pharo 13 does; one that Pharo
	// holds and the kernel does not is one the kernel lacks.
	PharoHasGlobal func(name string) bool
	// sides are the kernel's methods per class side, counted once (see
	// sizeMethodTables)
	sides map[sideKey]int
}

// MethodSource is one method of a Program.
type MethodSource struct {
	Class     string
	ClassSide bool
	Source    string
	// Package names the package that holds the method (an extension's
	// package is not its class's): a class-side initialize runs when its
	// package loads (initorder.go).
	Package string
	// Category is the method's protocol ("accessing", "*Foo-Ext"); ""
	// when its source names none.
	Category string
	// parsed is the kernel's method parsed once for every interpreter
	// (nil for a program's: its sources may change between runs).
	parsed   *smalltalk.Method
	parseErr error
}

// kernel is the kernel's Tonel source, read once.
var kernel = sync.OnceValues(func() (*Program, error) {
	p := &Program{}
	err := fs.WalkDir(kernelFS, "kernel", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := kernelFS.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := tonel.ParseFile(path, data)
		if err != nil {
			return fmt.Errorf("the kernel's %s: %w", path, err)
		}
		p.add(f)
		// The kernel's folder is no Pharo package: a kernel class is in the
		// package Pharo 13 puts it in, which its definition declares.
		if f.Def.Package != "" && (f.Def.Kind == tonel.KindClass || f.Def.Kind == tonel.KindTrait) {
			p.Classes[len(p.Classes)-1].Package = f.Def.Package
		}
		return nil
	})
	for i := range p.Methods {
		m := &p.Methods[i]
		m.parsed, m.parseErr = smalltalk.ParseMethod(m.Source)
	}
	p.sides = p.methodsPerSide()
	return p, err
})

// sideKey names a class's side in Program.sides.
type sideKey struct {
	class     string
	classSide bool
}

// methodsPerSide counts the methods the program gives each class's side.
func (p *Program) methodsPerSide() map[sideKey]int {
	counts := map[sideKey]int{}
	for _, m := range p.Methods {
		counts[sideKey{m.Class, m.ClassSide}]++
	}
	return counts
}

// KernelNames answers what a program finds in the kernel: the names of the
// classes and traits it defines, with the globals every interpreter adds
// (Smalltalk, Transcript), and the selectors its methods define, on any
// class and either side — but for a method that only names what the
// kernel lacks (`^ self lacks: 'FileReference (files)'`). What a program
// uses beyond them and its own names, the kernel lacks.
func KernelNames() (classes, selectors map[string]bool, err error) {
	k, err := kernel()
	if err != nil {
		return nil, nil, err
	}
	classes = map[string]bool{"Smalltalk": true, "Transcript": true}
	for _, d := range k.Classes {
		classes[d.Name] = true
	}
	selectors = map[string]bool{}
	for _, m := range k.Methods {
		if m.parsed != nil && !onlyNamesALack(m.parsed) {
			selectors[m.parsed.Selector] = true
		}
	}
	return classes, selectors, nil
}

// onlyNamesALack reports whether a kernel method's whole body is
// `^ self lacks: …`: it stands for what the kernel lacks.
func onlyNamesALack(m *smalltalk.Method) bool {
	if m.Body == nil || len(m.Body.Statements) != 1 {
		return false
	}
	ret, ok := m.Body.Statements[0].(*smalltalk.Return)
	if !ok {
		return false
	}
	send, ok := ret.Value.(*smalltalk.Message)
	if !ok || send.Selector != "lacks:" {
		return false
	}
	receiver, ok := send.Receiver.(*smalltalk.Variable)
	return ok && receiver.Name == "self"
}

// ReadProgram reads the classes and methods of Tonel files.
func ReadProgram(files []*tonel.File) *Program {
	p := &Program{}
	for _, f := range files {
		p.add(f)
	}
	return p
}

func (p *Program) add(f *tonel.File) {
	pkg := packageOfFile(f)
	if f.Def.Kind == tonel.KindClass || f.Def.Kind == tonel.KindTrait {
		d := f.Def
		d.Package = pkg
		p.Classes = append(p.Classes, d)
	}
	name := f.Def.Name
	for _, m := range f.Methods {
		if m.Class != "" {
			name = strings.TrimSuffix(strings.TrimSuffix(m.Class, " classSide"), " class")
		}
		p.Methods = append(p.Methods, MethodSource{Class: name, ClassSide: m.Side == tonel.ClassSide, Source: m.Source, Package: pkg, Category: m.Category})
	}
}

// packageOfFile names a Tonel file's package: its folder, as Pharo's Tonel
// reader takes it; for a file read from no folder, what its definition
// declares (#package, else the Pharo 11 #category).
func packageOfFile(f *tonel.File) string {
	if dir := filepath.Base(filepath.Dir(f.Path)); f.Path != "" && dir != "." && dir != string(filepath.Separator) {
		return dir
	}
	if f.Def.Package != "" {
		return f.Def.Package
	}
	return f.Def.Category
}

// New builds an interpreter holding the kernel and then program (whose
// classes replace the kernel's of the same name, whose methods add to or
// replace the kernel's).
func New(program *Program, limits Limits) (*Interp, error) {
	k, err := kernel()
	if err != nil {
		return nil, err
	}
	in := &Interp{globals: map[string]*Binding{}, classes: map[string]*Class{}, hashes: map[*Instance]int64{},
		states: map[*Instance]*excState{}, coroutines: map[*Instance]*coroutine{}, sched: newScheduler(), depthLimit: maxDepth, budget: limits.Steps, deadline: limits.Deadline, memory: limits.Memory}
	if in.budget <= 0 {
		in.budget = 1 << 62
	}
	if in.memory <= 0 {
		in.memory = DefaultMemory
	}
	// what is made while the interpreter is built counts as a computation
	// of its own
	in.charged, in.recountAt, in.heapAtStart = 0, in.memory, heapObjects()
	defs := map[string]tonel.Definition{}
	var order []string
	for _, p := range []*Program{k, program} {
		if p == nil {
			continue
		}
		for _, d := range p.Classes {
			if _, ok := defs[d.Name]; !ok {
				order = append(order, d.Name)
			}
			defs[d.Name] = d
		}
	}
	for _, name := range order {
		in.defineClass(name, defs, map[string]bool{})
	}
	if program != nil {
		in.pharoDeclares = program.PharoDeclares
		in.pharoHasGlobal = program.PharoHasGlobal
		in.programClasses = map[string]bool{}
		for _, d := range program.Classes {
			in.programClasses[d.Name] = true
		}
	}
	in.sizeMethodTables(k, program)
	for _, p := range []*Program{k, program} {
		if p == nil {
			continue
		}
		block := make([]Method, len(p.Methods))
		var c *Class
		for i := range p.Methods {
			m := &p.Methods[i]
			// a file's methods come together: one lookup for them
			if c == nil || c.name != m.Class {
				c = in.classes[m.Class]
			}
			in.addMethod(c, m, &block[i])
		}
	}
	in.applyTraits(defs, order)
	if err := in.findKnown(); err != nil {
		return nil, err
	}
	for _, name := range order {
		c := in.classes[name]
		if c.unloaded != "" {
			// a name the image does not hold: what touches it errors
			// naming why (undeclared)
			continue
		}
		in.globals[name] = &Binding{Name: name, Value: c}
	}
	in.globals["Smalltalk"] = &Binding{Name: "Smalltalk", Value: in.newInstance(in.classes["SmalltalkImage"])}
	in.globals["Transcript"] = &Binding{Name: "Transcript", Value: in.newInstance(in.classes["TranscriptStream"])}
	in.globals["Processor"] = &Binding{Name: "Processor", Value: in.newInstance(in.classes["ProcessorScheduler"])}
	// what the interpreter holds from here on is what its computations
	// leave behind (see startMemory)
	in.heapAtNew = heapObjects()
	in.initializeKernelPools(k)
	in.initializeClasses(program)
	in.budget = limits.Steps
	if in.budget <= 0 {
		in.budget = 1 << 62
	}
	return in, nil
}

// classInitializeSteps bounds each class-side initialize run while loading.
const classInitializeSteps = 10_000_000

// InitializeFailures names each class that did not load (its superclass,
// a trait or a pool it uses is missing: it is no global, and a test that
// touches it errors naming why) and each class whose class-side
// initialize failed while the program loaded, with why; the tests then run
// without what it would have set up.
func (in *Interp) InitializeFailures() []string { return in.initFailures }

// initializeClasses sends initialize to each class on whose class side the
// program defines it, in the order of Pharo's loader (initorder.go): the
// tables and defaults a class's methods read from its class variables are
// set up there. An initialize that fails leaves its class as far as it
// got, as in Pharo, and is named in InitializeFailures; a class that did
// not load is named there already.
func (in *Interp) initializeClasses(program *Program) {
	if program == nil {
		return
	}
	for _, name := range initializeOrder(program) {
		c, ok := in.classes[name]
		if !ok || c.isTrait || c.unloaded != "" {
			continue
		}
		in.guard(classInitializeSteps, func() { in.Send(c, "initialize") }, func(why string) {
			in.initFailures = append(in.initFailures, c.name+" class>>#initialize: "+why)
		})
	}
}

// initializeKernelPools sets the class variables of the kernel's pools
// (SharedPool's subclasses, ChronologyConstants) with their class-side
// initialize, as Pharo's image holds them set.
func (in *Interp) initializeKernelPools(k *Program) {
	pool := in.classes["SharedPool"]
	if pool == nil {
		return
	}
	for _, m := range k.Methods {
		c, ok := in.classes[m.Class]
		if !ok || !m.ClassSide || !c.inheritsFrom(pool) || !isUnarySelector(m.Source, "initialize") {
			continue
		}
		in.guard(classInitializeSteps, func() { in.Send(c, "initialize") }, func(why string) {
			in.initFailures = append(in.initFailures, c.name+" class>>#initialize: "+why)
		})
	}
}

// isUnarySelector tells whether a method's source starts with the header
// of the unary selector.
func isUnarySelector(source, selector string) bool {
	rest, ok := strings.CutPrefix(strings.TrimSpace(source), selector)
	if !ok {
		return false
	}
	if rest == "" {
		return true
	}
	r := rest[0]
	return !(r == '_' || r == ':' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
}

func (in *Interp) defineClass(name string, defs map[string]tonel.Definition, visiting map[string]bool) *Class {
	if c, ok := in.classes[name]; ok {
		return c
	}
	d, ok := defs[name]
	if !ok || visiting[name] {
		return nil
	}
	visiting[name] = true
	var super *Class
	var unloaded string
	if d.Superclass != "" && d.Superclass != "nil" {
		super = in.defineClass(d.Superclass, defs, visiting)
		switch {
		case super == nil:
			unloaded = "its superclass " + d.Superclass + " is missing"
			super = in.defineClass("Object", defs, visiting)
		case super.unloaded != "":
			unloaded = "its superclass " + d.Superclass + " did not load"
		}
	}
	if unloaded == "" {
		unloaded = missingUses(d, defs)
	}
	c := &Class{name: name, super: super, methods: map[string]*Method{}, classVars: map[string]*Binding{}, pools: d.Pools,
		category: d.Category, pkg: d.Package, tag: d.Tag, kind: d.Type, isTrait: d.Kind == tonel.KindTrait, unloaded: unloaded}
	if unloaded != "" {
		in.initFailures = append(in.initFailures, name+" did not load: "+unloaded)
	}
	meta := &Class{name: name + " class", thisClass: c, methods: map[string]*Method{}}
	c.meta = meta
	if super != nil {
		c.ivarNames = append(append([]string{}, super.ivarNames...), c.declareVars(d.InstVars)...)
		meta.super = super.meta
		meta.ivarNames = append(append([]string{}, super.meta.ivarNames...), meta.declareVars(d.ClassInstVars)...)
		if c.kind == "" || c.kind == "normal" {
			c.kind = super.kind
		}
	} else {
		c.ivarNames = c.declareVars(d.InstVars)
		meta.ivarNames = meta.declareVars(d.ClassInstVars)
		if k := in.classes["Class"]; k != nil {
			meta.super = k
		}
	}
	if c.isTrait {
		// a trait inherits from nothing; as an object it is a class (it
		// answers isTrait, its name, its package…)
		c.super = nil
		meta.super = in.classes["Class"]
	}
	for _, v := range d.ClassVars {
		c.classVars[v] = &Binding{Name: v}
	}
	for _, t := range traitUses(d.Traits) {
		c.traitNames = append(c.traitNames, t.name)
	}
	c.civals = make([]Object, len(meta.ivarNames))
	in.classes[name] = c
	if name == "Class" {
		// the metaclasses built before Class inherit from it
		for _, k := range in.classes {
			if k.super == nil && k != c && k.meta.super == nil {
				k.meta.super = c
			}
		}
	}
	return c
}

// missingUses names a trait or a pool of a definition that no definition
// provides ("" when each is there): the class cannot load without it.
func missingUses(d tonel.Definition, defs map[string]tonel.Definition) string {
	for _, t := range traitUses(d.Traits) {
		if _, ok := defs[t.name]; !ok {
			return "its trait " + t.name + " is missing"
		}
	}
	for _, p := range d.Pools {
		if _, ok := defs[p]; !ok {
			return "its pool " + p + " is missing"
		}
	}
	return ""
}

// sizeMethodTables makes each class's method table as large as the
// methods the programs give it: an interpreter is built for every test run,
// and growing thousands of tables one method at a time was most of that.
func (in *Interp) sizeMethodTables(programs ...*Program) {
	counts := map[sideKey]int{}
	for _, p := range programs {
		if p == nil {
			continue
		}
		sides := p.sides
		if sides == nil {
			sides = p.methodsPerSide()
		}
		for k, n := range sides {
			counts[k] += n
		}
	}
	for k, n := range counts {
		c, ok := in.classes[k.class]
		if !ok {
			continue
		}
		if k.classSide {
			c = c.meta
		}
		if len(c.methods) == 0 {
			c.methods = make(map[string]*Method, n)
		}
	}
}

// addMethod adds a method of a program to its class c (nil: a class the
// image does not hold) in the Method into, which it fills.
func (in *Interp) addMethod(c *Class, m *MethodSource, into *Method) {
	if c == nil {
		return
	}
	if m.ClassSide {
		c = c.meta
	}
	var cm *Method
	if m.parsed != nil || m.parseErr != nil {
		cm = prepareIn(into, c, m.Source, m.parsed, m.parseErr)
	} else {
		cm = compile(c, m.Source)
	}
	if cm.selector == "" {
		return
	}
	cm.category = m.Category
	c.methods[cm.selector] = cm
}

// traitUse is one trait of a composition with what it excludes:
// `TFoo`, `TFoo classTrait`, `(TFoo - {#a. #b:})`; aliases (`@ {…}`) are read
// past.
var traitUse = regexp.MustCompile(`\b([A-Z][A-Za-z0-9_]*)(?:\s+classTrait)?\s*((?:[-@]\s*\{[^}]*\}\s*)*)`)

var excluded = regexp.MustCompile(`-\s*\{([^}]*)\}`)

var selectorLiteral = regexp.MustCompile(`#([A-Za-z_][A-Za-z0-9_:]*|[^\s.#}]+)`)

// traitUses reads a trait composition: each trait's name and the selectors
// it excludes.
func traitUses(composition string) []traitUsage {
	var out []traitUsage
	for _, m := range traitUse.FindAllStringSubmatch(composition, -1) {
		u := traitUsage{name: m[1], without: map[string]bool{}}
		for _, ex := range excluded.FindAllStringSubmatch(m[2], -1) {
			for _, sel := range selectorLiteral.FindAllStringSubmatch(ex[1], -1) {
				u.without[sel[1]] = true
			}
		}
		out = append(out, u)
	}
	return out
}

type traitUsage struct {
	name    string
	without map[string]bool
}

// applyTraits copies the methods of the traits a class uses into it, where
// the class defines none of that selector, compiled for the class.
func (in *Interp) applyTraits(defs map[string]tonel.Definition, order []string) {
	done := map[string]bool{}
	var apply func(name string)
	apply = func(name string) {
		if done[name] {
			return
		}
		done[name] = true
		c, d := in.classes[name], defs[name]
		if c == nil {
			return
		}
		for _, t := range traitUses(d.Traits) {
			tc := in.classes[t.name]
			if tc == nil {
				continue
			}
			apply(t.name)
			copyMethods(tc, c, t.without)
			copyMethods(tc.meta, c.meta, nil)
		}
		for _, t := range traitUses(d.ClassTraits) {
			if tc := in.classes[t.name]; tc != nil {
				apply(t.name)
				copyMethods(tc.meta, c.meta, t.without)
			}
		}
	}
	names := append([]string{}, order...)
	sort.Strings(names)
	for _, n := range names {
		apply(n)
	}
}

func copyMethods(from, to *Class, without map[string]bool) {
	for sel, m := range from.methods {
		if _, own := to.methods[sel]; own || without[sel] {
			continue
		}
		copied := prepare(to, m.source, m.ast, m.err)
		copied.category, copied.origin = m.category, from
		if m.origin != nil {
			copied.origin = m.origin
		}
		to.methods[sel] = copied
	}
}

// declareVars answers the names the entries of a definition's variables
// declare, and keeps the definition of each declared as a slot (`#name =>
// ObservableSlot`), whose name alone the entry is not.
func (c *Class) declareVars(entries []string) []string {
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = tonel.VarName(e)
		if strings.Contains(e, "=>") {
			if c.slotDefs == nil {
				c.slotDefs = map[string]string{}
			}
			c.slotDefs[names[i]] = strings.Join(strings.Fields(e), " ")
		}
	}
	return names
}
