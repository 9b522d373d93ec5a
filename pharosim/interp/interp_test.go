package interp

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// evalIn evaluates expr in a fresh interpreter of the kernel and answers
// its printString, or ERROR: and why it ended.
func evalIn(t *testing.T, expr string) string {
	t.Helper()
	p := &Program{Methods: []MethodSource{{Class: "UndefinedObject", Source: "doIt\n\t^ [ " + expr + " ] value printString"}}}
	in2, err := New(p, Limits{Steps: 1_000_000})
	require.NoError(t, err)
	var out string
	in2.guard(1_000_000, func() { out = str(in2.Send(nil, "doIt")) }, func(d string) { out = "ERROR: " + d })
	return out
}

func TestEvaluates(t *testing.T) {
	t.Parallel()
	cases := []struct{ expr, want string }{
		{"3 + 4", "7"},
		{"(1/3) + (2/3)", "1"},
		{"(1/3)", "(1/3)"},
		{"100 factorial printString size", "158"},
		{"0.1 + 0.2", "0.30000000000000004"},
		{"1.0e16", "1.0e16"},
		{"2 ** 10", "1024"},
		{"#(1 2 3) collect: [ :x | x * x ]", "#(1 4 9)"},
		{"(OrderedCollection new add: 1; add: 2; yourself)", "an OrderedCollection(1 2)"},
		{"(1 to: 5) inject: 0 into: [ :a :b | a + b ]", "15"},
		{"'it''s' printString", "'''it''''s'''"},
		{"#foo", "#foo"},
		{"$a", "$a"},
		{"[ 1/0 ] on: ZeroDivide do: [ :e | e return: 42 ]", "42"},
		{"[ nil foo ] on: MessageNotUnderstood do: [ :e | e message selector ]", "#foo"},
		{"[ #(1 2) at: 5 ] on: SubscriptOutOfBounds do: [ :e | 'oob' ]", "'oob'"},
		{"[ Dictionary new at: #k ] on: KeyNotFound do: [ :e | e key ]", "#k"},
		{"[ Warning signal: 'w'. 5 ] on: Warning do: [ :e | e resume: 7 ]", "5"},
		{"[ (Warning signal: 'w') + 1 ] on: Warning do: [ :e | e resume: 7 ]", "8"},
		{"| n | n := 0. [ n := n + 1. n < 3 ifTrue: [ Error signal ]. n ] on: Error do: [ :e | e retry ]", "3"},
		{"| log | log := OrderedCollection new. [ [ Error signal ] ensure: [ log add: 1 ] ] on: Error do: [ :e | log add: 2 ]. log", "an OrderedCollection(2 1)"},
		{"[ [ Error signal: 'x' ] on: ZeroDivide do: [ :e | 1 ] ] on: Error do: [ :e | e messageText ]", "'x'"},
		{"[ [ Error signal: 'x' ] on: Error do: [ :e | e pass ] ] on: Error do: [ :e | 9 ]", "9"},
		{"[ [ Warning signal: 'x' ] on: Warning do: [ :e | e outer + 1 ] ] on: Warning do: [ :e | e resume: 1 ]", "2"},
		{"[ 1/0 ] on: ZeroDivide, MessageNotUnderstood do: [ :e | 3 ]", "3"},
		{"String streamContents: [ :s | s nextPutAll: 'ab'; print: 3 ]", "'ab3'"},
		{"(Dictionary new at: 1 put: 2; yourself) at: 1", "2"},
		{"(Set withAll: #(1 2 2 3)) size", "3"},
		{"(Bag withAll: #(1 2 2 3)) occurrencesOf: 2", "2"},
		{"(1 to: 3) printString", "'(1 to: 3)'"},
		{"(3 @ 4) + 1", "(4@5)"},
		{"FileSystem workingDirectory", "ERROR: pharo-sim's kernel lacks the disk (files)"},
		{"#foo capitalized", "#Foo"},
		// a primitive given what it does not take fails, as in Pharo: its
		// method has no fallback, so primitiveFailed is signalled
		{"Fraction basicNew numerator", "ERROR: unhandled PrimitiveFailed: primitive failed"},
		{"[ Fraction basicNew numerator ] on: PrimitiveFailed do: [ :e | e class ]", "PrimitiveFailed"},
		{"[ :k | k ] value: 1 value: 2", "ERROR: unhandled ArgumentsCountMismatch: This block accepts 1 argument, but was called with 2 arguments."},
		{"| n | n := 0. [ n := n + 1 ] repeat", "ERROR: the step budget ran out (an endless loop?)"},
		{"| a | a := 0. #(1 2 3) do: [ :x | x = 2 ifTrue: [ a := x ] ]. a", "2"},
		{"(2 raisedTo: 100) printString", "'1267650600228229401496703205376'"},
		{"(2 raisedTo: 100) - (2 raisedTo: 100) + 1", "1"},
		{"-7 \\\\ 2", "1"},
		{"-7 // 2", "-4"},
		{"-7 rem: 2", "-1"},
		{"3.7 floor", "3"},
		{"'hello world' substrings", "#('hello' 'world')"},
		{"[:x | x] value: 3", "3"},
		{"[ :x | x ] valueWithArguments: #(1 2)", "ERROR: unhandled ArgumentsCountMismatch: This block accepts 1 argument, but was called with 2 arguments."},
		{"[ :a :b | a ] value: 1", "ERROR: unhandled ArgumentsCountMismatch: This block accepts 2 arguments, but was called with 1 argument."},
		{"[ [ :a | a ] value ] on: ArgumentsCountMismatch do: [ :e | e description ]", "'ArgumentsCountMismatch: This block accepts 1 argument, but was called with 0 arguments.'"},
		// an exception kept after its handler ended is handled no more (it
		// was left with no state at all, and the interpreter failed)
		{"| e | [ Error signal ] on: Error do: [ :ex | e := ex ]. e isNested", "false"},
		{"| e | [ Error signal ] on: Error do: [ :ex | e := ex ]. e return: 3", "3"},
	}
	for _, tc := range cases {
		t.Run(tc.expr, func(t *testing.T) {
			assert.Equal(t, tc.want, evalIn(t, tc.expr))
		})
	}
}

// runDoIt evaluates expr with extra methods compiled into the kernel.
func runDoIt(t *testing.T, extra []MethodSource, expr string) string {
	t.Helper()
	methods := append([]MethodSource{{Class: "UndefinedObject", Source: "doIt\n\t^ [ " + expr + " ] value printString"}}, extra...)
	in, err := New(&Program{Methods: methods}, Limits{Steps: 1_000_000})
	require.NoError(t, err)
	var out string
	in.guard(1_000_000, func() { out = str(in.Send(nil, "doIt")) }, func(d string) { out = "ERROR: " + d })
	return out
}

// TestCompiledMethods: what compiling methods to closures must keep —
// frames reused only when nothing holds them, temporaries of an inlined
// block fresh each turn, returns from inlined blocks in any position,
// identity, quick methods, SmallInteger arithmetic that overflows, and the
// kernel's own methods when a tree redefines SmallInteger's.
func TestCompiledMethods(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		extra []MethodSource
		expr  string
		want  string
	}{
		{"a block per turn keeps its turn's variable", nil,
			"| bs | bs := OrderedCollection new. 1 to: 3 do: [ :i | bs add: [ i ] ]. (bs collect: [ :b | b value ]) asArray", "#(1 2 3)"},
		{"a recursive block reuses no frame in use", nil,
			"| f | f := nil. f := [ :n | n < 2 ifTrue: [ n ] ifFalse: [ (f value: n - 1) + (f value: n - 2) ] ]. f value: 15", "610"},
		{"an inlined block's temporaries are nil each turn", nil,
			"| s | s := 0. 1 to: 3 do: [ :i | | t | t isNil ifTrue: [ s := s + i ]. t := i ]. s", "6"},
		{"a return from a block inside a loop", nil, "#(1 2 3) detect: [ :x | x > 1 ]", "2"},
		{"an inlined conditional as an argument", nil, "(true ifTrue: [ 3 ] ifFalse: [ 4 ]) + 1", "4"},
		{"a return from a block the method passes on",
			[]MethodSource{{Class: "UndefinedObject", Source: "firstOver: n in: c\n\t| x |\n\tx := c do: [ :e | e > n ifTrue: [ ^ e ] ].\n\t^ nil"}},
			"nil firstOver: 1 in: #(1 5 7)", "5"},
		{"a return from an inlined branch assigned",
			[]MethodSource{{Class: "UndefinedObject", Source: "sign: n\n\t| x |\n\tx := n > 0 ifTrue: [ ^ #positive ] ifFalse: [ #other ].\n\t^ x"}},
			"(nil sign: 3) -> (nil sign: -1)", "#positive->#other"},
		{"a return from a whileTrue: in a method",
			[]MethodSource{{Class: "UndefinedObject", Source: "countTo: n\n\t| i |\n\ti := 0.\n\t[ true ] whileTrue: [ i := i + 1. i = n ifTrue: [ ^ i ] ]"}},
			"nil countTo: 4", "4"},
		{"a primitive's arguments after one returned from a block",
			[]MethodSource{{Class: "UndefinedObject", Source: "firstOf: c\n\tc do: [ :x | ^ x * 10 ].\n\t^ nil"}},
			"[ :a :b | a -> b ] value: 1 value: (nil firstOf: #(7 8))", "1->70"},
		{"identity of equal strings", nil, "'a' == 'a' copy", "false"},
		{"identity of symbols and integers", nil, "#a == #a and: [ 3 == 3 ]", "true"},
		{"a quick accessor", nil, "(3 @ 4) y", "4"},
		{"a quick literal method", nil, "false not", "true"},
		{"a quick method on a class", []MethodSource{{Class: "Point", ClassSide: true, Source: "answer\n\t^ 42"}}, "Point answer", "42"},
		{"a sum past SmallInteger", nil, "((1 bitShift: 59) + (1 bitShift: 59)) class", "LargePositiveInteger"},
		{"a difference past SmallInteger", nil, "((1 bitShift: 60) negated - (1 bitShift: 60)) class", "LargeNegativeInteger"},
		{"a tree's SmallInteger>>+ is sent", []MethodSource{{Class: "SmallInteger", Source: "+ other\n\t^ 42"}}, "3 + 4", "42"},
		{"a block that returns after its method returned", []MethodSource{{Class: "UndefinedObject", Source: "escaper\n\t^ [ :x | ^ x ]"}},
			"(nil escaper) value: 1", "ERROR: unhandled BlockCannotReturn: the block's method has already returned"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, runDoIt(t, tc.extra, tc.expr))
		})
	}
}

// TestStreamPrimitivesAgreeWithTheirBodies runs each expression on the
// kernel's streams, whose atEnd, next, peek, peekFor: and nextPut: are
// primitives, and on subclasses that override nothing, where the
// primitives fail and the methods' Smalltalk bodies run: the answers must
// be the same. A subclass that overrides atEnd is obeyed by next.
func TestStreamPrimitivesAgreeWithTheirBodies(t *testing.T) {
	t.Parallel()
	subclass := func(name, super string) tonel.Definition {
		return tonel.Definition{Kind: tonel.KindClass, Name: name, Superclass: super, Category: "Streams-Tests"}
	}
	program := func(doIt string) *Program {
		return &Program{
			Classes: []tonel.Definition{
				subclass("PlainReadStream", "ReadStream"), subclass("PlainWriteStream", "WriteStream"),
				subclass("PlainReadWriteStream", "ReadWriteStream"), subclass("FirstOnlyStream", "ReadStream"),
			},
			Methods: []MethodSource{
				{Class: "FirstOnlyStream", Source: "atEnd\n\t^ position >= 1"},
				{Class: "UndefinedObject", Source: "doIt\n\t^ [ " + doIt + " ] value printString"},
			},
		}
	}
	run := func(t *testing.T, expr string) string {
		in, err := New(program(expr), Limits{Steps: 1_000_000})
		require.NoError(t, err)
		var out string
		in.guard(1_000_000, func() { out = str(in.Send(nil, "doIt")) }, func(d string) { out = "ERROR: " + d })
		return out
	}
	cases := []struct{ expr, want string }{
		{"| s | s := R on: 'ab'. { s next. s next. s next. s atEnd }", "#($a $b nil true)"},
		{"| s | s := R on: 'ab'. { s peek. s peek. s next. s peek. s skip: 1. s peek }", "an Array($a $a $a $b a R nil)"},
		{"| s | s := R on: 'ab'. { s peekFor: $b. s peekFor: $a. s peekFor: $b. s peekFor: $b. s atEnd }", "#(false true true false true)"},
		{"| s | s := R on: 'ab'. { s peekFor: 97. s peekFor: nil. s next }", "#(false false $a)"},
		{"| s | s := R on: #(1 $a nil). { s next. s peekFor: $a. s next. s next. s atEnd }", "#(1 true nil nil true)"},
		{"| s | s := R on: #(1 2 3) asOrderedCollection. { s next. s peek. s next. s peekFor: 3 }", "#(1 2 2 true)"},
		{"| s | s := R on: #abc. { s next. s peek. s upToEnd }", "#($a $b 'bc')"},
		{"| s | s := R on: 'abc'. s next. s position: 3. { s next. s atEnd }", "#(nil true)"},
		{"| w | w := W on: (String new: 2). 1 to: 40 do: [ :i | w nextPut: (Character value: 96 + (i \\\\ 26) + 1) ]. w contents", "'bcdefghijklmnopqrstuvwxyzabcdefghijklmno'"},
		{"| o w | o := String new: 2. w := W on: o. w nextPut: $x; nextPut: $y; nextPut: $z. { o. o size. w contents }", "#('xy' 2 'xyz')"},
		{"| w | w := W on: (Array new: 0). w nextPut: 1; nextPut: nil; nextPut: 'x'. w contents", "#(1 nil 'x')"},
		{"| w | w := W on: String new. [ w nextPut: 3 ] on: Error do: [ :e | e messageText ]", "'Improper store into indexable object'"},
		{"| w | w := W on: (String new: 4). w nextPutAll: 'abc'; reset; nextPut: $z. w contents", "'z'"},
		{"| w | w := W with: 'abc'. w nextPut: $d. w contents", "'abcd'"},
		{"| s | s := RW on: String new. s nextPutAll: 'hi'; reset. { s next. s next. s next. s atEnd }", "#($h $i nil true)"},
		{"| s | s := RW on: String new. s nextPutAll: 'hi'; reset. { s peekFor: $h. s peek }", "#(true $i)"},
	}
	streams := []struct{ name, read, write, readWrite string }{
		{"kernel", "ReadStream", "WriteStream", "ReadWriteStream"},
		{"subclasses", "PlainReadStream", "PlainWriteStream", "PlainReadWriteStream"},
	}
	for _, tc := range cases {
		for _, s := range streams {
			t.Run(s.name+"/"+tc.expr, func(t *testing.T) {
				names := strings.NewReplacer("RW ", s.readWrite+" ", "R ", s.read+" ", "W ", s.write+" ", "a R)", "a "+s.read+")")
				assert.Equal(t, names.Replace(tc.want), run(t, names.Replace(tc.expr)))
			})
		}
	}
	t.Run("an overridden atEnd", func(t *testing.T) {
		assert.Equal(t, "#($a nil nil false true)",
			run(t, "| s | s := FirstOnlyStream on: 'abc'. { s next. s next. s peek. s peekFor: $b. s atEnd }"))
	})
}
