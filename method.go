package refactor

import (
	"strings"

	"github.com/pharo-refactor/refactord/smalltalk"
)

// MethodRef names one method of the image: a class, a selector and a side.
// Every name the service sends to the image or puts into a prompt comes
// from a validated MethodRef, so nothing a client or a model says can
// become code in the image.
type MethodRef struct {
	Class     string
	Selector  string
	ClassSide bool
}

// String renders the ref as Pharo prints it: `Foo>>bar` or `Foo class>>bar`.
func (r MethodRef) String() string {
	if r.ClassSide {
		return r.Class + " class>>" + r.Selector
	}
	return r.Class + ">>" + r.Selector
}

// Validate checks both names (ValidateClassName, ValidateSelector).
func (r MethodRef) Validate() error {
	if err := ValidateClassName(r.Class); err != nil {
		return err
	}
	return ValidateSelector(r.Selector)
}

// Limits of the names the service accepts. Real Pharo names are far
// shorter; the bound keeps prompts and expressions small.
const (
	maxClassNameLen = 256
	maxSelectorLen  = 256
)

// The accepted shapes are the Smalltalk ones, checked by package
// smalltalk (IsClassName, IsSelector): class names [A-Z][A-Za-z0-9_]*;
// selectors unary, binary or keyword, identifiers ASCII only. The domain
// adds its bounds and says which rule a name breaks.

// ValidateClassName says, as an invalid_request, why name is not a class
// name the service accepts; nil when it is one.
func ValidateClassName(name string) error {
	switch {
	case name == "":
		return Errorf(InvalidRequest, "the class name is empty")
	case len(name) > maxClassNameLen:
		return Errorf(InvalidRequest, "the class name is longer than %d characters", maxClassNameLen)
	case !smalltalk.IsClassName(name):
		return Errorf(InvalidRequest, "%q is not a class name (a capital letter, then letters, digits or _)", name)
	}
	return nil
}

// ValidateSelector says, as an invalid_request, why sel is not a selector
// the service accepts; nil when it is one.
func ValidateSelector(sel string) error {
	switch {
	case sel == "":
		return Errorf(InvalidRequest, "the selector is empty")
	case len(sel) > maxSelectorLen:
		return Errorf(InvalidRequest, "the selector is longer than %d characters", maxSelectorLen)
	case !smalltalk.IsSelector(sel):
		return Errorf(InvalidRequest, "%q is not a selector (unary foo, binary +, keyword at:put:)", sel)
	}
	return nil
}

// IsClassName reports whether ValidateClassName accepts name.
func IsClassName(name string) bool { return ValidateClassName(name) == nil }

// IsSelector reports whether ValidateSelector accepts sel.
func IsSelector(sel string) bool { return ValidateSelector(sel) == nil }

// Method is a method as read from the image: its source (LF line endings)
// and the protocol it is classified in.
type Method struct {
	Ref      MethodRef
	Source   string
	Protocol string
}

// NormalizeSource converts CR and CRLF to LF: the image answers CR line
// endings, sources inside the service are LF.
func NormalizeSource(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}

// SameSource compares two method sources as docs/pharo-interop.md says: after
// normalizing line endings and trailing blanks.
func SameSource(a, b string) bool {
	return canonicalSource(a) == canonicalSource(b)
}

func canonicalSource(s string) string {
	lines := strings.Split(NormalizeSource(s), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}
