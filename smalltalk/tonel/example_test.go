package tonel_test

import (
	"fmt"

	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

const counterFile = `"
I count.
"
Class {
	#name : 'Counter',
	#superclass : 'Object',
	#instVars : [ 'count' ],
	#category : 'Demo'
}

{ #category : 'accessing' }
Counter >> increment [
	count := count + 1
]
`

// A Tonel class file parses into its definition and its methods; a method
// is replaced in place, the rest of the file kept byte for byte.
func ExampleParseFile() {
	f, err := tonel.ParseFile("Counter.class.st", []byte(counterFile))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f.Def.Name, f.Def.Superclass, f.Def.InstVars)
	if err := f.ReplaceMethod(tonel.InstanceSide, "increment", "increment\n\tcount := count + 2", "accessing"); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f.Sources(tonel.InstanceSide)["increment"])
	// Output:
	// Counter Object [count]
	// increment
	//	count := count + 2
}
