package smalltalk_test

import (
	"errors"
	"fmt"

	"github.com/pharo-refactor/refactord/smalltalk"
)

// A method's source parses into its selector, arguments and body; Analyze
// lists what the body sends and names.
func ExampleParseMethod() {
	m, err := smalltalk.ParseMethod("sum: a with: b\n\t\"Answer the sum\"\n\t^ a + b")
	if err != nil {
		fmt.Println(err)
		return
	}
	info := smalltalk.Analyze(m)
	fmt.Println(m.Selector, info.Args, info.Sends)
	// Output: sum:with: [a b] [+]
}

// A syntax error says where Pharo would point, in Pharo's words.
func ExampleParseMethod_syntaxError() {
	_, err := smalltalk.ParseMethod("foo\n\t^ (1 + 2")
	var se *smalltalk.SyntaxError
	if errors.As(err, &se) {
		fmt.Println(se.Line, se.Col, se.Message)
	}
	// Output: 2 10 ')' expected
}

// Walk visits every node of a method in source order.
func ExampleWalk() {
	m, _ := smalltalk.ParseMethod("total\n\t^ items inject: 0 into: [ :sum :each | sum + each price ]")
	smalltalk.Walk(m, func(n smalltalk.Node) bool {
		if msg, ok := n.(*smalltalk.Message); ok {
			fmt.Println(msg.Selector)
		}
		return true
	})
	// Output:
	// inject:into:
	// +
	// price
}
