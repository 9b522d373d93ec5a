package pharosim

import (
	"regexp"
)

// Understands answers `CLS canUnderstand: #sel`, or with fromSuper
// `| s | s := CLS superclass. (s notNil and: [ s canUnderstand: #sel ])`:
// whether the class (or its superclass), on side, implements the selector
// or inherits it. The walk goes up the superclass chain, through the
// traits each class uses; each class is the tree's when the tree defines
// it, else the class library's (classlib): the tree wins. Past the root on
// the class side the walk goes on at Class on the instance side (a
// metaclass inherits from Class), again the tree's Class, ClassDescription
// and Behavior when the tree has them. A class neither knows ends the
// walk: it understands nothing more.
func (img *Image) Understands(className string, side Side, selector string, fromSuper bool) (bool, error) {
	img.mu.Lock()
	defer img.mu.Unlock()
	img.refresh()
	if !img.isClass(className) {
		return false, errClassNotFound(className)
	}
	name := className
	if fromSuper {
		name = img.superclassOf(className)
	}
	turned := false
	for range 2 * maxHierarchy {
		if name == "" {
			if side != ClassSide || turned {
				return false, nil
			}
			name, side, turned = "Class", InstanceSide, true
			continue
		}
		found, known := img.provides(name, side, selector, 0)
		if found {
			return true, nil
		}
		if !known {
			name = ""
			continue
		}
		name = img.superclassOf(name)
	}
	return false, nil
}

// IncludesSelector answers `CLS includesSelector: #sel`: whether the class
// itself defines the selector on side (not through a superclass or a
// trait): the tree's methods, and the class library's when the tree only
// extends the class or does not hold it.
func (img *Image) IncludesSelector(className string, side Side, selector string) (bool, error) {
	img.mu.Lock()
	defer img.mu.Unlock()
	img.refresh()
	if !img.isClass(className) {
		return false, errClassNotFound(className)
	}
	c, inTree := img.classes[className]
	if inTree && img.findMethod(c, side, selector) >= 0 {
		return true, nil
	}
	if inTree && c.def != nil {
		return false, nil
	}
	lc, ok := img.lib.Class(className)
	return ok && lc.Defines(side, selector), nil
}

// InheritsFrom answers `CLS inheritsFrom: ANCESTOR` for two class names:
// whether ancestor is a strict superclass of the class, the tree's
// classes first and the class library's second.
func (img *Image) InheritsFrom(className, ancestor string) bool {
	img.mu.Lock()
	defer img.mu.Unlock()
	img.refresh()
	return img.inheritsFrom(className, ancestor)
}

// inheritsFrom is InheritsFrom for a caller holding the lock.
func (img *Image) inheritsFrom(className, ancestor string) bool {
	name := img.superclassOf(className)
	for range maxHierarchy {
		if name == "" {
			return false
		}
		if name == ancestor {
			return true
		}
		name = img.superclassOf(name)
	}
	return false
}

// isClass reports whether a class or trait of that name exists: the
// tree's, or one of the class library.
func (img *Image) isClass(name string) bool {
	if _, ok := img.classes[name]; ok {
		return true
	}
	_, ok := img.lib.Class(name)
	return ok
}

// provides reports whether the class or trait named defines the selector
// on side itself or through the traits it uses, and whether the class is
// known at all. The tree's definition wins; a class the tree only extends
// has the class library's shape and methods besides the tree's.
func (img *Image) provides(name string, side Side, selector string, depth int) (found, known bool) {
	if depth > maxTraitDepth {
		return false, false
	}
	c, inTree := img.classes[name]
	if inTree && img.findMethod(c, side, selector) >= 0 {
		return true, true
	}
	if inTree && c.def != nil {
		for _, t := range traitNameRE.FindAllString(composition(c, side), -1) {
			if f, _ := img.provides(t, side, selector, depth+1); f {
				return true, true
			}
		}
		return false, true
	}
	lc, inLib := img.lib.Class(name)
	if !inLib {
		return false, inTree
	}
	if lc.Defines(side, selector) {
		return true, true
	}
	for _, t := range lc.Traits(side) {
		if f, _ := img.provides(t, side, selector, depth+1); f {
			return true, true
		}
	}
	return false, true
}

// composition is the trait composition a class of the tree uses on side:
// the class side uses the class-side composition when the definition
// gives one, else the class sides of the instance side's traits.
func composition(c *class, side Side) string {
	if side == ClassSide && c.def.def.ClassTraits != "" {
		return c.def.def.ClassTraits
	}
	return c.def.def.Traits
}

// superclassOf is the superclass of a class of the tree, else of the class
// library; "" for a root (`nil`) or a class of unknown shape.
func (img *Image) superclassOf(name string) string {
	if c, ok := img.classes[name]; ok && c.def != nil {
		if s := c.def.def.Superclass; s != "nil" {
			return s
		}
		return ""
	}
	if lc, ok := img.lib.Class(name); ok {
		return lc.Superclass
	}
	return ""
}

// traitNameRE finds the trait names of a composition (`TFoo + TBar - {#x}`,
// `TFoo classTrait`).
var traitNameRE = regexp.MustCompile(`[A-Z][A-Za-z0-9_]*`)

// maxTraitDepth bounds the walk through traits using traits.
const maxTraitDepth = 8
