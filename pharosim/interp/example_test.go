package interp_test

import (
	"fmt"

	"github.com/pharo-refactor/refactord/pharosim/interp"
	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// A test class in Tonel, run by SUnit on the kernel: each test's outcome,
// and why the one that fails does.
func ExampleInterp_RunTestClass() {
	source := `Class {
	#name : #ArithmeticTest,
	#superclass : #TestCase,
	#category : #Example
}

ArithmeticTest >> testFractions [ self assert: (1/3) + (2/3) equals: 1 ]
ArithmeticTest >> testLargeIntegers [ self assert: (2 raisedTo: 100) printString size equals: 31 ]
ArithmeticTest >> testWrongSum [ self assert: 2 + 2 equals: 5 ]
`
	file, err := tonel.ParseFile("ArithmeticTest.class.st", []byte(source))
	if err != nil {
		panic(err)
	}
	in, err := interp.New(interp.ReadProgram([]*tonel.File{file}), interp.Limits{Steps: 1_000_000})
	if err != nil {
		panic(err)
	}
	outcomes, err := in.RunTestClass("ArithmeticTest", 1_000_000)
	if err != nil {
		panic(err)
	}
	names := map[interp.Outcome]string{interp.Passed: "passed", interp.Failed: "failed", interp.Errored: "errored", interp.Skipped: "skipped"}
	for _, o := range outcomes {
		if o.Detail != "" {
			fmt.Printf("%s %s: %s\n", o.Selector, names[o.Outcome], o.Detail)
			continue
		}
		fmt.Println(o.Selector, names[o.Outcome])
	}
	// Output:
	// testFractions passed
	// testLargeIntegers passed
	// testWrongSum failed: Got 4 instead of 5.
}
