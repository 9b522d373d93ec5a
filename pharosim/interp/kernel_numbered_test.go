package interp

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestNumberedPrimitivesAnswerAsPharosVM: a package's method may name a
// VM primitive by Pharo's number, in its plain form (the receiver) or its
// mirror form (the object first), as Ghost's GHMetaMessages does; a
// primitive that fails runs the method's code, and <primitive: n error:
// ec> declares ec. Pharo's answers: the VM's primitive table (110 ==,
// 111 class, 73 instVarAt:, 75 identityHash, 83 perform:, 100
// perform:withArguments:inSuperclass:, 148 shallowCopy, 160
// adoptInstance:). Message's variable is arguments, as Pharo 13 names it
// (Kernel-CodeModel), which Mocketry's MessageSend subclass reads.
func TestNumberedPrimitivesAnswerAsPharosVM(t *testing.T) {
	t.Parallel()
	methods := []MethodSource{
		{Class: "UndefinedObject", Source: "classOf: anObject\n\t<primitive: 111>\n\t^ #failed"},
		{Class: "UndefinedObject", Source: "object: a identicalTo: b\n\t<primitive: 110>\n\t^ #failed"},
		{Class: "UndefinedObject", Source: "object: anObject instVarAt: i\n\t<primitive: 73>\n\t^ #failed"},
		{Class: "UndefinedObject", Source: "withReceiver: r perform: s withArguments: a inClass: c\n\t<primitive: 100 error: ec>\n\t^ { #failed. ec }"},
		{Class: "UndefinedObject", Source: "setClass: aClass to: anObject\n\t<primitive: 160>\n\t^ #failed"},
		{Class: "UndefinedObject", Source: "copyOf: anObject\n\t<primitive: 148>\n\t^ #failed"},
		{Class: "UndefinedObject", Source: "unknown\n\t<primitive: 9999>\n\t^ #fallback"},
		{Class: "Object", Source: "numberedClass\n\t<primitive: 111>\n\t^ #failed"},
		{Class: "Object", Source: "numberedPerform: aSelector\n\t<primitive: 83>\n\t^ #failed"},
	}
	cases := []struct{ name, expr, want string }{
		{"111 plain", "3 numberedClass", "SmallInteger"},
		{"111 mirror", "nil classOf: 'abc'", "String"},
		{"110 mirror", "{ nil object: #a identicalTo: #a. nil object: 'a' copy identicalTo: 'a' copy }", "#(true false)"},
		{"73 mirror", "nil object: 3 -> 4 instVarAt: 2", "4"},
		{"83 plain", "3 numberedPerform: #negated", "-3"},
		{"100 mirror, a superclass's method", "nil withReceiver: 3 perform: #printString withArguments: #() inClass: Object", "'3'"},
		{"100 fails: the fallback runs, its error code nil", "nil withReceiver: 3 perform: #printString withArguments: #() inClass: String", "#(#failed nil)"},
		{"148 mirror copies", "| a b | a := 1 -> 2. b := nil copyOf: a. { b. b == a }", "{1->2. false}"},
		{"160 mirror adopts", "| p | p := 1 -> 2. nil setClass: Association to: p. p class", "Association"},
		{"160 refuses another layout", "nil setClass: Object to: 1 @ 2", "#failed"},
		{"a number the kernel does not know is named", "nil unknown", "ERROR: unhandled Error: unknown primitive 9999"},
		// ClassDescription>>isTestCase (SUnit-Core): false but for TestCase's class side
		{"isTestCase", "{ Object isTestCase. TestCase isTestCase. Object class isTestCase }", "#(false true false)"},
		{"Message's arguments variable", "| m | m := Message selector: #at:put: arguments: #(1 2). m instVarNamed: 'arguments'", "#(1 2)"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, runDoIt(t, methods, c.expr), c.name)
	}
}
