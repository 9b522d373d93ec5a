package mcpclient

import (
	"fmt"

	refactor "pharo-refactor"
	"pharo-refactor/smalltalk"
)

// MethodRef names one method of the image: a class, a selector and a side.
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

// Validate checks the names against Smalltalk's grammar. Every expression the
// service sends is built from a validated ref, so nothing a client or a model
// says can become code in the image.
func (r MethodRef) Validate() error {
	if err := ValidateClassName(r.Class); err != nil {
		return err
	}
	if !smalltalk.IsSelector(r.Selector) {
		return refactor.Errorf(refactor.InvalidRequest, "method name %q is not a Smalltalk selector", r.Selector)
	}
	return nil
}

// ValidateClassName checks a class name against `[A-Z][A-Za-z0-9_]*`.
func ValidateClassName(name string) error {
	if !smalltalk.IsClassName(name) {
		return refactor.Errorf(refactor.InvalidRequest, "class name %q is not a Smalltalk class name", name)
	}
	return nil
}

// classArg is the class_name argument for a ref. Servers that dropped
// is_class_method select the class side with "Foo class".
func (r MethodRef) classArg(sideByName bool) string {
	if r.ClassSide && sideByName {
		return fmt.Sprintf("%s class", r.Class)
	}
	return r.Class
}
