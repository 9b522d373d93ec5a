package interp

import "fmt"

// kernelSlots are where the instance variables Go reads and writes in the
// kernel's objects lie: looked up by name when an interpreter is built,
// so that a kernel definition may order (or add) its variables as it
// likes. A variable missing is an error of New naming the class and the
// variable.
type kernelSlots struct {
	// PositionableStream's, then WriteStream's (the stream primitives)
	streamCollection, streamPosition, streamReadLimit, streamWriteLimit int
	// Message's (doesNotUnderstand:)
	messageSelector, messageArguments int
	// ScaledDecimal's (number literals with a scale)
	scaledFraction, scaledScale int
	// Random's (the generator's primitives)
	randomState int
	// RxMatcher's (the regular expression primitives)
	rxPattern, rxIgnoreCase int
	// CompiledMethod's (the code model's primitives)
	methodClass, methodSelector int
}

// slotContract lists each variable Go uses: the class it is read in and
// the slot its index is kept in. A variable listed for two classes must
// lie at the same index in both (the stream primitives run for
// ReadStream, WriteStream and ReadWriteStream alike).
func (s *kernelSlots) contract() []struct {
	class, variable string
	index           *int
} {
	return []struct {
		class, variable string
		index           *int
	}{
		{"PositionableStream", "collection", &s.streamCollection},
		{"PositionableStream", "position", &s.streamPosition},
		{"PositionableStream", "readLimit", &s.streamReadLimit},
		{"ReadStream", "collection", &s.streamCollection},
		{"ReadStream", "position", &s.streamPosition},
		{"ReadStream", "readLimit", &s.streamReadLimit},
		{"WriteStream", "collection", &s.streamCollection},
		{"WriteStream", "position", &s.streamPosition},
		{"WriteStream", "readLimit", &s.streamReadLimit},
		{"WriteStream", "writeLimit", &s.streamWriteLimit},
		{"ReadWriteStream", "collection", &s.streamCollection},
		{"ReadWriteStream", "position", &s.streamPosition},
		{"ReadWriteStream", "readLimit", &s.streamReadLimit},
		{"ReadWriteStream", "writeLimit", &s.streamWriteLimit},
		{"Message", "selector", &s.messageSelector},
		{"Message", "arguments", &s.messageArguments},
		{"ScaledDecimal", "fraction", &s.scaledFraction},
		{"ScaledDecimal", "scale", &s.scaledScale},
		{"Random", "state", &s.randomState},
		{"RxMatcher", "pattern", &s.rxPattern},
		{"RxMatcher", "ignoreCase", &s.rxIgnoreCase},
		{"CompiledMethod", "methodClass", &s.methodClass},
		{"CompiledMethod", "selector", &s.methodSelector},
	}
}

// findSlots looks up the variables of the contract in the interpreter's
// classes.
func (in *Interp) findSlots() error {
	s := &in.known.slots
	contract := s.contract()
	for _, c := range contract {
		*c.index = -1
	}
	for _, c := range contract {
		class, ok := in.classes[c.class]
		if !ok {
			return fmt.Errorf("the kernel's Go needs the class %s, which is not defined", c.class)
		}
		i := ivarIndex(class, c.variable)
		if i < 0 {
			return fmt.Errorf("the kernel's Go reads the instance variable %s of %s, which %s does not define", c.variable, c.class, c.class)
		}
		if *c.index >= 0 && *c.index != i {
			return fmt.Errorf("the kernel's Go reads the instance variable %s of %s at index %d, where the other stream classes hold it at %d", c.variable, c.class, i+1, *c.index+1)
		}
		*c.index = i
	}
	return nil
}

// ivarIndex answers the index of a class's instance variable, or -1.
func ivarIndex(c *Class, name string) int {
	for i, n := range c.ivarNames {
		if n == name {
			return i
		}
	}
	return -1
}
