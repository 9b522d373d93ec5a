package mcpclient

import refactor "github.com/pharo-refactor/refactord"

// classArg is the class_name argument for a ref. Servers that dropped
// is_class_method select the class side with "Foo class".
func classArg(r refactor.MethodRef, sideByName bool) string {
	if r.ClassSide && sideByName {
		return r.Class + " class"
	}
	return r.Class
}
