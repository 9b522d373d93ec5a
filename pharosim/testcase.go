package pharosim

// maxHierarchy bounds a walk up the superclass chain (a tree may hold a
// cycle; Pharo's deepest hierarchies are far shallower).
const maxHierarchy = 100

// IsTestCase answers `c inheritsFrom: TestCase` for the global of that
// name: true for a class of the tree whose superclass chain (through the
// tree's classes, then the class library's) reaches TestCase; false for
// anything else — a trait, a plain class, TestCase itself, an unknown name,
// and a test class of the class library, whose tests pharo-sim cannot run.
func (img *Image) IsTestCase(name string) bool {
	img.mu.Lock()
	defer img.mu.Unlock()
	img.refresh()
	return img.isTestCase(name)
}

// isTestCase is IsTestCase for a caller holding the lock.
func (img *Image) isTestCase(name string) bool {
	c, ok := img.classes[name]
	if !ok || c.def == nil || c.isTrait() {
		return false
	}
	return img.inheritsFrom(name, "TestCase")
}

// printTest prints a test the way SUnit does: `Class>>#selector`, or
// `Class(Super)>>#selector` when the test method is inherited from Super.
// The caller holds the lock.
func (img *Image) printTest(class, selector string) string {
	if owner := img.definingClass(class, selector); owner != "" && owner != class {
		return class + "(" + owner + ")>>#" + selector
	}
	return class + ">>#" + selector
}

// definingClass is the class of the tree, from class up its superclass
// chain, that defines the instance method selector; "" when none does.
func (img *Image) definingClass(class, selector string) string {
	name := class
	for range maxHierarchy {
		c, ok := img.classes[name]
		if !ok {
			return ""
		}
		if img.findMethod(c, InstanceSide, selector) >= 0 {
			return name
		}
		if c.def == nil {
			return ""
		}
		name = c.def.def.Superclass
	}
	return ""
}
