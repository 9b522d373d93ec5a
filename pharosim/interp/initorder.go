package interp

import (
	"sort"

	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// The order in which loading a program runs its classes' class-side
// initialize is Pharo's loader's (Monticello's MCPackageLoader, which
// Metacello, Iceberg and the Tonel reader all load through): a package's
// definitions are sorted by MCDependencySorter — by sort key (a class's
// name; a method's `Class.meta.selector`), each one waiting until what it
// requires (a class its superclass and pools, a method its class) is
// provided — and then, in that order, each class-side initialize method
// sends initialize to its class (MCMethodDefinition>>postloadOver:). So a
// class whose name sorts before its superclass's, in the same package, is
// initialized first; a superclass of another package was initialized when
// that package loaded. Packages load one after another, each after the
// packages its classes' superclasses and pools come from.

// loaderItem is one definition as MCDependencySorter sees it.
type loaderItem struct {
	key      string   // MCDefinition>>sortKey
	requires []string // names that must be provided first
	provides string   // the class a class definition provides; "" for a method
	class    string   // for a class-side initialize: the class it initializes
}

// dependencySorter orders loaderItems as MCDependencySorter does.
type dependencySorter struct {
	provided map[string]bool
	waiting  map[string]map[string]loaderItem // requirement → items by key
	ordered  []loaderItem
}

func newDependencySorter(external map[string]bool) *dependencySorter {
	return &dependencySorter{provided: external, waiting: map[string]map[string]loaderItem{}}
}

// addAll adds the items in the order of their keys (MCDependencySorter>>addAll:).
func (s *dependencySorter) addAll(items []loaderItem) {
	sorted := append([]loaderItem(nil), items...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].key < sorted[j].key })
	for _, it := range sorted {
		s.add(it)
	}
}

// add orders the item, or makes it wait for each requirement not yet
// provided; providing its class releases what waited for it.
func (s *dependencySorter) add(it loaderItem) {
	missing := false
	for _, r := range it.requires {
		if !s.provided[r] {
			missing = true
			if s.waiting[r] == nil {
				s.waiting[r] = map[string]loaderItem{}
			}
			s.waiting[r][it.key] = it
		}
	}
	if missing {
		return
	}
	s.ordered = append(s.ordered, it)
	if it.provides == "" {
		return
	}
	s.provided[it.provides] = true
	released := s.waiting[it.provides]
	delete(s.waiting, it.provides)
	items := make([]loaderItem, 0, len(released))
	for _, w := range released {
		items = append(items, w)
	}
	s.addAll(items)
}

// initializeOrder answers the classes whose class-side initialize the
// program defines, in the order Pharo's loader sends it.
func initializeOrder(program *Program) []string {
	defsByPackage := map[string][]tonel.Definition{}
	packageOf := map[string]string{}
	for _, d := range program.Classes {
		defsByPackage[d.Package] = append(defsByPackage[d.Package], d)
		packageOf[d.Name] = d.Package
	}
	initsByPackage := map[string][]loaderItem{}
	seen := map[string]bool{}
	for _, m := range program.Methods {
		if !m.ClassSide || seen[m.Class] || !isUnarySelector(m.Source, "initialize") {
			continue
		}
		seen[m.Class] = true
		initsByPackage[m.Package] = append(initsByPackage[m.Package],
			loaderItem{key: m.Class + ".meta.initialize", requires: []string{m.Class}, class: m.Class})
	}
	var order []string
	for _, pkg := range packageLoadOrder(defsByPackage, initsByPackage, packageOf) {
		inPackage := map[string]bool{}
		for _, d := range defsByPackage[pkg] {
			inPackage[d.Name] = true
		}
		external := map[string]bool{}
		items := append([]loaderItem(nil), initsByPackage[pkg]...)
		for _, it := range items {
			if !inPackage[it.class] {
				external[it.class] = true // an extension's initialize: its class is in the image
			}
		}
		for _, d := range defsByPackage[pkg] {
			if d.Kind != tonel.KindClass {
				external[d.Name] = true // a trait: no class requires it (MCClassDefinition>>requirements)
				continue
			}
			item := loaderItem{key: d.Name, provides: d.Name}
			for _, r := range append([]string{d.Superclass}, d.Pools...) {
				if inPackage[r] && r != d.Name {
					item.requires = append(item.requires, r)
				}
			}
			items = append(items, item)
		}
		s := newDependencySorter(external)
		s.addAll(items)
		for _, it := range s.ordered {
			if it.provides == "" {
				order = append(order, it.class)
			}
		}
	}
	return order
}

// packageLoadOrder answers the program's packages, each after the
// packages its classes' superclasses and pools come from (as a baseline
// declares them), otherwise by name; packages that need each other load
// by name.
func packageLoadOrder(defs map[string][]tonel.Definition, inits map[string][]loaderItem, packageOf map[string]string) []string {
	needs := map[string]map[string]bool{}
	all := map[string]bool{}
	for pkg := range inits {
		all[pkg] = true
	}
	for pkg, ds := range defs {
		all[pkg] = true
		for _, d := range ds {
			for _, r := range append([]string{d.Superclass}, d.Pools...) {
				if other, ok := packageOf[r]; ok && other != pkg {
					if needs[pkg] == nil {
						needs[pkg] = map[string]bool{}
					}
					needs[pkg][other] = true
				}
			}
		}
	}
	names := make([]string, 0, len(all))
	for pkg := range all {
		names = append(names, pkg)
	}
	sort.Strings(names)
	var order []string
	done := map[string]bool{}
	for len(order) < len(names) {
		next := ""
		for _, pkg := range names {
			if done[pkg] {
				continue
			}
			if next == "" {
				next = pkg // a cycle: the first by name
			}
			ready := true
			for other := range needs[pkg] {
				ready = ready && done[other]
			}
			if ready {
				next = pkg
				break
			}
		}
		done[next] = true
		order = append(order, next)
	}
	return order
}
