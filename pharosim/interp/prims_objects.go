package interp

// objectPrimitives are the Go primitives of the kernel's objects, classes, blocks and exceptions.
var objectPrimitives = map[string]primitive{}
