package pharosim

// globalVariables are the globals of a Pharo image that are not classes
// (the class library holds the classes): code may name them, so they are
// declared for the dry compile, and `Smalltalk globals includesKey:`
// answers true for them.
var globalVariables = map[string]bool{
	"Smalltalk": true, "Transcript": true, "Processor": true, "Undeclared": true,
	"Sensor": true, "Display": true, "World": true,
}

// isGlobal reports whether `Smalltalk globals includesKey:` is true: a
// class of the tree or of the class library, or a global variable.
func (img *Image) isGlobal(name string) bool {
	return globalVariables[name] || img.isClass(name)
}
