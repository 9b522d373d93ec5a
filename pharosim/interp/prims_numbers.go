package interp

// numberPrimitives are the Go primitives of the kernel's numbers.
var numberPrimitives = map[string]primitive{}
