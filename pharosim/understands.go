package pharosim

import (
	"regexp"
	"strings"
)

// Understands answers `CLS canUnderstand: #sel`, or with fromSuper
// `| s | s := CLS superclass. (s notNil and: [ s canUnderstand: #sel ])`:
// whether the class (or its superclass), on side, implements the selector
// or inherits it. The walk goes up the tree's superclass chain, through
// the traits each class uses, and on into the kernel classes the tree does
// not hold (Object, ProtoObject, TestCase, Exception, and on the class
// side Class, ClassDescription and Behavior), which the simulator knows
// by their selectors only (kernelSelectors). A class of the image it
// knows nothing of ends the walk: it understands nothing more.
func (img *Image) Understands(className string, side Side, selector string, fromSuper bool) (bool, error) {
	img.mu.Lock()
	defer img.mu.Unlock()
	img.refresh()
	if _, ok := img.classes[className]; !ok && !wellKnownGlobals[className] {
		return false, errClassNotFound(className)
	}
	name := className
	if fromSuper {
		name = img.superclassOf(className)
	}
	for range maxHierarchy {
		if name == "" {
			// Past the root on the class side, a metaclass inherits from Class.
			return side == ClassSide && kernelUnderstands("Class", InstanceSide, selector), nil
		}
		c, ok := img.classes[name]
		if !ok {
			return kernelUnderstands(name, side, selector), nil
		}
		if img.findMethod(c, side, selector) >= 0 || img.traitsUnderstand(c, side, selector, 0) {
			return true, nil
		}
		if c.def == nil {
			// A class the tree only extends is a kernel class.
			return kernelUnderstands(name, side, selector), nil
		}
		name = img.superclassOf(name)
	}
	return false, nil
}

// superclassOf is the superclass of a class of the tree, or of a kernel
// class; "" for a root (`nil`) or a class of unknown shape.
func (img *Image) superclassOf(name string) string {
	if c, ok := img.classes[name]; ok && c.def != nil {
		if s := c.def.def.Superclass; s != "nil" {
			return s
		}
		return ""
	}
	return kernelSuperclass(name)
}

// traitNameRE finds the trait names of a composition (`TFoo + TBar - {#x}`,
// `TFoo classTrait`).
var traitNameRE = regexp.MustCompile(`[A-Z][A-Za-z0-9_]*`)

// traitsUnderstand reports whether a trait the class uses on side (the
// class side uses the class sides of its traits) implements the selector,
// directly or through the traits it uses itself.
func (img *Image) traitsUnderstand(c *class, side Side, selector string, depth int) bool {
	if c.def == nil || depth > maxTraitDepth {
		return false
	}
	composition := c.def.def.Traits
	if side == ClassSide && c.def.def.ClassTraits != "" {
		composition = c.def.def.ClassTraits
	}
	for _, name := range traitNameRE.FindAllString(composition, -1) {
		t, ok := img.classes[name]
		if !ok || !t.isTrait() {
			continue
		}
		if img.findMethod(t, side, selector) >= 0 || img.traitsUnderstand(t, side, selector, depth+1) {
			return true
		}
	}
	return false
}

// maxTraitDepth bounds the walk through traits using traits.
const maxTraitDepth = 8

// kernelUnderstands answers canUnderstand: for a kernel class the tree does
// not hold, from its selectors and those of its superclasses. A well-known
// global without an entry is taken for a direct subclass of Object: what
// it adds is not known. The class side of every class also understands
// what Class and its superclasses (ClassDescription, Behavior, Object)
// define for instances, a metaclass being a subclass of Class.
func kernelUnderstands(name string, side Side, selector string) bool {
	for n := name; n != ""; n = kernelSuperclass(n) {
		if kernelSelectors(n, side)[selector] {
			return true
		}
	}
	return side == ClassSide && kernelUnderstands("Class", InstanceSide, selector)
}

// kernelSuperclass is a kernel class's superclass: "" above ProtoObject.
func kernelSuperclass(name string) string {
	switch name {
	case "ProtoObject", "":
		return ""
	case "TestAsserter", "Exception", "Behavior", "Collection", "Magnitude":
		return "Object"
	case "TestCase":
		return "TestAsserter"
	case "ParametrizedTestCase", "ClassTestCase":
		return "TestCase"
	case "Error", "Notification":
		return "Exception"
	case "ClassDescription":
		return "Behavior"
	case "Class":
		return "ClassDescription"
	}
	if wellKnownGlobals[name] && name != "Object" {
		return "Object"
	}
	if name == "Object" {
		return "ProtoObject"
	}
	return ""
}

// kernelSelectors are the selectors a kernel class itself defines on side
// that a method of the tree commonly sends to self or super: a sample of
// Pharo 12/13's, not all of them.
func kernelSelectors(name string, side Side) map[string]bool {
	if side == ClassSide {
		return nil
	}
	return kernelInstanceSelectors[name]
}

var kernelInstanceSelectors = map[string]map[string]bool{
	"ProtoObject": words(`== ~~ identityHash isNil notNil ifNil: ifNotNil: ifNil:ifNotNil: ifNotNil:ifNil:
		doesNotUnderstand: initialize become: becomeForward: instVarAt: instVarAt:put: pointersTo isKindOf:`),
	"Object": words(`= hash -> class yourself copy shallowCopy deepCopy postCopy veryDeepCopy species
		printString printOn: printString: printStringLimitedTo: displayString displayStringOn: storeString storeOn:
		asString error: assert: assert:description: deny: halt haltIf: haltOnce inspect respondsTo: isMemberOf:
		subclassResponsibility shouldNotImplement shouldBeImplemented notYetImplemented deprecated: value in:
		perform: perform:with: perform:with:with: perform:withArguments: instVarNamed: instVarNamed:put:
		isString isSymbol isNumber isInteger isFloat isFraction isCollection isArray isCharacter isBlock isClass
		isBehavior isDictionary isInterval isText isEmptyOrNil isNotNil at: at:put: basicAt: basicAt:put: size
		basicSize caseOf: caseOf:otherwise: className flag: inform: traceCr traceCr: finalize release
		asOrderedCollection ifNotNil:ifNil:`),
	"TestAsserter": words(`assert: assert:description: assert:equals: assert:closeTo: assert:identicalTo:
		deny: deny:description: deny:equals: deny:identicalTo: should: should:raise: should:raise:description:
		shouldnt: shouldnt:raise: fail fail: skip skip: assertCollection:equals: assertCollection:hasSameElements:
		assertEmpty: denyEmpty: signalFailure:`),
	"TestCase": words(`setUp tearDown run run: debug runCase selector selector: expectedFailures resources
		performTest timeLimit timeLimit:`),
	"Exception": words(`signal signal: messageText messageText: description return return: retry pass outer
		resume resume: retryUsing: signalIn: isResumable`),
	"Error":            words(`isResumable`),
	"Behavior":         words(`new new: basicNew basicNew: name selectors includesSelector: canUnderstand: inheritsFrom: superclass subclasses allSubclasses allInstances instanceVariableNames >> compiledMethodAt: instanceSide classSide`),
	"ClassDescription": words(`comment comment: category category: printOn:`),
	"Class":            words(`name classVariableNames subclass:instanceVariableNames:classVariableNames:package: initialize`),
}

func words(list string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.Fields(list) {
		out[w] = true
	}
	return out
}
