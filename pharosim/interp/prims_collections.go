package interp

// collectionPrimitives are the Go primitives of the kernel's collections.
var collectionPrimitives = map[string]primitive{}
