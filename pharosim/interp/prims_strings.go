package interp

// stringPrimitives are the Go primitives of the kernel's strings, symbols and characters.
var stringPrimitives = map[string]primitive{}
