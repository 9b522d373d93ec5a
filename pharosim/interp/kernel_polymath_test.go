package interp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/pharosim/classlib"
	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// TestPolyMathKernelAnswersAsPharo: what PolyMath's test packages
// (PolyMathOrg/PolyMath, its nineteen test packages, with
// PolyMathOrg/vector-matrix) use of the kernel, with the answers Pharo 13
// gives (commit 9b55ea4 of pharo-project/pharo; each group names the
// method whose comment or code holds the answer).
func TestPolyMathKernelAnswersAsPharo(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, expr, want string }{
		// Float class>>machineEpsilon (Kernel: 1.0 timesTwoPower: 1 - precision) and Float class>>epsilon (Math-Operations-Extensions: deprecated, answers it), which PolyMath's iterative processes read
		{"machineEpsilon", "{ Float machineEpsilon. Float machineEpsilon = (2 raisedTo: -52) asFloat. (1.0 + Float machineEpsilon) > 1.0 }", "#(2.220446049250313e-16 true true)"},
		{"epsilon is machineEpsilon, deprecated", "{ Float epsilon = Float machineEpsilon. (Deprecation deprecationsWhile: [ Float epsilon ]) size }", "#(true 1)"},
		// Float class>>halfPi, twoPi, threePi (Float class>>initialize: Pi / 2.0, Pi * 2.0, Pi * 3.0)
		{"Float's multiples of pi", "{ Float halfPi. Float twoPi. Float threePi }", "#(1.5707963267948966 6.283185307179586 9.42477796076938)"},
		// Float>>reciprocalLogBase2 (Ln2 / Ln10 for 10.0) and reciprocalFloorLog: (radix / self, scaled while it overflows)
		{"reciprocalLogBase2 of 10", "10.0 reciprocalLogBase2", "0.30102999566398114"},
		{"reciprocalLogBase2 of 2", "2.0 reciprocalLogBase2", "1.0"},
		{"reciprocalFloorLog: negates the floorLog: of radix / self", "{ 0.001 reciprocalFloorLog: 10. 0.25 reciprocalFloorLog: 2. 0.3 reciprocalFloorLog: 10 }", "#(-4 -3 -1)"},
		{"reciprocalFloorLog: of a denormal scales until radix / self is finite", "1.0e-320 reciprocalFloorLog: 10", "-321"},
		// Float>>ulp (Math-Operations-Extensions)
		{"ulp is the power of two of the last bit", "{ 1.0 ulp. 2.0 ulp. 0.5 ulp. 3.0 ulp }", "#(2.220446049250313e-16 4.440892098500626e-16 1.1102230246251565e-16 4.440892098500626e-16)"},
		{"ulp of an infinity and of zero", "{ Float infinity ulp = Float infinity. 0.0 ulp = Float fmin. Float nan ulp isNaN }", "#(true true true)"},
		// Integer>>anyBitOfMagnitudeFrom:to: (its Smalltalk fallback)
		{"anyBitOfMagnitudeFrom:to: looks at bits start to stop", "{ 2r101100 anyBitOfMagnitudeFrom: 1 to: 2. 2r101100 anyBitOfMagnitudeFrom: 3 to: 3. 2r101100 anyBitOfMagnitudeFrom: 7 to: 20. -12 anyBitOfMagnitudeFrom: 3 to: 4 }", "#(false true false true)"},
		{"anyBitOfMagnitudeFrom:to: of a large integer", "{ (1 bitShift: 100) anyBitOfMagnitudeFrom: 1 to: 100. (1 bitShift: 100) anyBitOfMagnitudeFrom: 101 to: 200 }", "#(false true)"},
		{"anyBitOfMagnitudeFrom:to: refuses an index below 1", "[ 5 anyBitOfMagnitudeFrom: 0 to: 3 ] on: Error do: [ :e | e messageText ]", "'out of range'"},
		// Collection>>errorSizeMismatch, SizeMismatch>>standardMessageText; SequenceableCollection>>with:collect:, with:do:, reverseWith:do:
		{"with:collect: of two sizes signals SizeMismatch", "[ #(1 2) with: #(1) collect: [ :a :b | a ] ] on: SizeMismatch do: [ :e | e messageText ]", "'Collections sizes do not match'"},
		{"with:do: of two sizes signals SizeMismatch", "[ #(1 2) with: #(1 2 3) do: [ :a :b | a ] ] on: SizeMismatch do: [ :e | e class ]", "SizeMismatch"},
		{"reverseWith:do: of two sizes signals SizeMismatch", "[ #(1 2) reverseWith: #() do: [ :a :b | a ] ] on: Error do: [ :e | e class ]", "SizeMismatch"},
		{"SizeMismatch is an Error", "SizeMismatch superclass", "Error"},
		// DomainError class>>signalFrom:to:, signal:from:, signal:to: and its from and to
		{"signalFrom:to: names the interval", "[ DomainError signalFrom: 0 to: 1 ] on: DomainError do: [ :e | { e messageText. e from. e to } ]", "#('Value outside [0 , 1]' 0 1)"},
		{"signalFrom: is open above", "[ DomainError signalFrom: 0 ] on: DomainError do: [ :e | e messageText ]", "'Value outside [0 , infinity)'"},
		{"signalTo: is open below", "[ DomainError signalTo: 1 ] on: DomainError do: [ :e | { e messageText. e from = Float infinity negated } ]", "#('Value outside (-infinity , 1]' true)"},
		{"signal:from:to: keeps the text", "[ DomainError signal: 'no' from: 1 to: 2 ] on: DomainError do: [ :e | { e messageText. e from. e to } ]", "#('no' 1 2)"},
		{"signal:from: bounds it by infinity", "[ DomainError signal: 'no' from: 1 ] on: DomainError do: [ :e | e to = Float infinity ]", "true"},
		// ZeroDivide class>>dividend:
		{"ZeroDivide dividend: makes one", "(ZeroDivide dividend: 3) dividend", "3"},
		{"signalWithDividend: signals it", "[ ZeroDivide signalWithDividend: 4 ] on: ZeroDivide do: [ :e | e dividend ]", "4"},
		// BlockClosure>>memoized and memoizedUsing: (System-Caching)
		{"memoized computes a value once per argument", "| n f | n := 0. f := [ :x | n := n + 1. x * 2 ] memoized. { f value: 3. f value: 3. f value: 4. n }", "#(6 6 8 2)"},
		{"memoizedUsing: fills the cache given", "| d | d := Dictionary new. ([ :x | x + 1 ] memoizedUsing: d) value: 1. d", "a Dictionary(1->2 )"},
		// BlockClosure>>asJob, Job>>run, progress, progress:, title: (Jobs); String>>displayProgressFrom:to:during:
		{"a job runs its block with itself", "[ :job | job title: 'a'; min: 0; max: 10; currentValue: 5. { job title. job progress } ] asJob run", "{'a'. (1/2)}"},
		{"a job's block may take no argument", "[ 3 ] asJob run", "3"},
		{"progress: sets the current value between min and max", "| j | j := [ ] asJob. j min: 10; max: 20; progress: 0.5. j currentValue", "15.0"},
		{"progress is 1 when the bounds leave no room", "| j | j := [ ] asJob. j min: 5; max: 5. j progress", "1"},
		{"Job current is the job running", "{ [ :job | Job current == job ] asJob run. Job current }", "#(true nil)"},
		{"displayProgressFrom:to:during: runs the block as a job", "'Working' displayProgressFrom: 0 to: 10 during: [ :bar | bar value: 4. bar increment. { bar title. bar progress } ]", "{'Working'. (1/2)}"},
		// Object>>closeTo: (Tool-Finder): equality, false when = fails
		{"an object is close to what it equals", "{ true closeTo: true. Object new closeTo: 3. 3 closeTo: nil }", "#(true false false)"},
		// Collection>>exp, ln, log, sin, cos... (Collections-Arithmetic)
		{"a collection's exp and ln", "{ #(0 1) exp. #(1) ln. #(1 100) log }", "#(#(1.0 2.718281828459045) #(0.0) #(0.0 2.0))"},
		{"a collection's trigonometry", "{ #(0) sin. #(0) cos. #(0) tan. #(0) arcTan. #(1) arcSin. #(1) arcCos. #(90) degreeSin. #(0) degreeCos }", "#(#(0.0) #(1.0) #(0.0) #(0.0) #(1.5707963267948966) #(0.0) #(1.0) #(1.0))"},
		// Float>>significandAsInteger: a denormal's counts from emin, an infinity's is its mantissa bits
		{"significandAsInteger", "{ 1.5 significandAsInteger. -2.0 significandAsInteger. Float fmin significandAsInteger. (Float fmin * 3) significandAsInteger. (Float fminNormalized / 2) significandAsInteger. Float infinity significandAsInteger. 0.0 significandAsInteger }", "#(6755399441055744 4503599627370496 1 3 2251799813685248 0 0)"},
		// Object>>copyFrom: takes the instance variables of the same name and the indexed elements both have
		{"copyFrom: copies indexed elements as far as both have them", "| a | a := Array new: 3. a copyFrom: #(1 2). a", "#(1 2 nil)"},
		{"copyFrom: copies named variables", "| p | p := 0 @ 0. p copyFrom: 3 @ 4. p", "(3@4)"},
		// Float>>arcTan is the C library's atan, the nearest Float (PMQuaternionTest>>#testNaturalLogOfQuaternion holds
		// Pharo's 77 sqrt / 3 arcTan); Float>>arcTan: (Math-Operations-Extensions, its examples) is the arc tangent of
		// the quotient, case by case, and answers the Integer 0 for a zero numerator over a positive denominator
		{"arcTan is the nearest Float", "{ (77 sqrt / 3) arcTan. 2 arcTan. -3 arcTan. 0.5 arcTan. 1.0e300 arcTan. 1.0e-300 arcTan }", "#(1.2413720463869884 1.1071487177940904 -1.2490457723982544 0.4636476090008061 1.5707963267948966 1.0e-300)"},
		{"arcTan: is the arc tangent of the quotient", "{ 77 sqrt arcTan: 3. -0.5 arcTan: -0.5. 1.2 arcTan: 1.5. 1.2 arcTan: -1.5 }", "#(1.2413720463869884 -2.356194490192345 0.6747409422235526 2.4668517113662407)"},
		{"arcTan: on the axes", "{ 0.0 arcTan: 1.0. 0 arcTan: -1. -0.0 arcTan: -1. 1 arcTan: 0. -1 arcTan: 0.0 }", "#(0 3.141592653589793 -3.141592653589793 1.5707963267948966 -1.5707963267948966)"},
		// Float>>cos ((self + Halfpi) sin), tan (self sin / self cos), arcSin (from arcTan), arcCos (Halfpi - self arcSin)
		{"cos is the sine a quarter turn on", "{ 0 cos. Float pi cos. 1 cos. 1 tan. 0 tan }", "#(1.0 -1.0 0.5403023058681398 1.557407724654902 0.0)"},
		{"arcSin and arcCos from arcTan", "{ 0.5 arcSin. 1 arcSin. -1 arcSin. 0.5 arcCos. -1 arcCos. 0 arcCos }", "#(0.5235987755982989 1.5707963267948966 -1.5707963267948966 1.0471975511965976 3.141592653589793 1.5707963267948966)"},
		{"arcSin out of [-1, 1] is a DomainError", "[ 2 arcSin ] on: DomainError do: [ :e | { e messageText. e from. e to } ]", "#('Value out of range' -1 1)"},
		// Number>>% (Math-Operations-Extensions, its examples)
		{"% is \\\\", "{ 9 % 4. -9 % 4. 9 % -4 }", "#(1 3 -3)"},
		// Number>>shallowCopy is Object's: a kernel number's copy is itself, a ScaledDecimal's a copy
		{"copying a number", "{ 3 copy. 2.5 copy. (1/3) copy. (2 raisedTo: 100) copy = (2 raisedTo: 100). 1.5s2 copy. 1.5s2 copy == 1.5s2 }", "{3. 2.5. (1/3). true. 1.50s2. false}"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, evalIn(t, c.expr), c.name)
	}
}

// polymathFixtures are what PolyMath's own numbers and collections do
// with the kernel: a method of Fraction reading its variables
// (Math-ArbitraryPrecisionFloat), a Number subclass defining only < and
// / and its printing (PMDualNumber, PMArbitraryPrecisionFloat), an Array
// subclass defining its own withAll: (PMNNStore), an object close to
// another only through closeTo:precision: (PMComplexNumber), methods
// asking thisContext who sent them (PMAccuracy>>findKey).
var polymathFixtures = map[string]string{
	"Fixture/Fraction.extension.st": `Extension { #name : #Fraction }
Fraction >> fixtureParts [ ^ { numerator. denominator } ]
`,
	"Fixture/KernelNumberFixture.class.st": `Class { #name : #KernelNumberFixture, #superclass : #Number, #instVars : [ #value ], #category : #Fixture }
KernelNumberFixture class >> value: x [ ^ self basicNew setValue: x ]
KernelNumberFixture >> setValue: x [ value := x ]
KernelNumberFixture >> value [ ^ value ]
KernelNumberFixture >> < other [ ^ value < other value ]
KernelNumberFixture >> = other [ ^ (other isKindOf: KernelNumberFixture) and: [ value = other value ] ]
KernelNumberFixture >> hash [ ^ value hash ]
KernelNumberFixture >> / other [ ^ KernelNumberFixture value: value / other value ]
KernelNumberFixture >> * other [ ^ KernelNumberFixture value: value * other value ]
KernelNumberFixture >> + other [ ^ KernelNumberFixture value: value + other value ]
KernelNumberFixture >> - other [ ^ KernelNumberFixture value: value - other value ]
KernelNumberFixture >> floor [ ^ value floor ]
KernelNumberFixture >> exp [ ^ KernelNumberFixture value: value exp ]
KernelNumberFixture >> truncated [ ^ value truncated ]
KernelNumberFixture >> printOn: aStream base: b [ aStream nextPutAll: 'N'; nextPutAll: (value printString: b) ]
KernelNumberFixture >> adaptToFraction: r andSend: selector [ ^ (KernelNumberFixture value: r) perform: selector with: self ]
KernelNumberFixture >> adaptToInteger: r andSend: selector [ ^ (KernelNumberFixture value: r) perform: selector with: self ]
`,
	"Fixture/KernelArrayFixture.class.st": `Class { #name : #KernelArrayFixture, #superclass : #Array, #type : #variable, #category : #Fixture }
KernelArrayFixture class >> withAll: aCollection [ ^ #notThisWay ]
`,
	"Fixture/KernelCloseFixture.class.st": `Class { #name : #KernelCloseFixture, #superclass : #Object, #category : #Fixture }
KernelCloseFixture >> closeTo: x precision: p [ ^ p = Float defaultComparisonPrecision ]
`,
	"Fixture/KernelContextFixture.class.st": `Class { #name : #KernelContextFixture, #superclass : #Object, #category : #Fixture }
KernelContextFixture >> outer [ ^ self inner ]
KernelContextFixture >> inner [ ^ self innermost ]
KernelContextFixture >> innermost [ ^ { thisContext printString. thisContext sender selector. thisContext sender sender method selector. thisContext receiver == self. thisContext sender methodClass } ]
KernelContextFixture >> fromBlock [ ^ #(1) collect: [ :x | self whoSent ] ]
KernelContextFixture >> whoSent [ ^ thisContext sender method selector ]
KernelContextFixture >> afterHandler [ [ 1 / 0 ] on: ZeroDivide do: [ :e | e return: 0 ]. ^ self whoSent ]
KernelContextFixture >> afterReturn [ #(1 2) do: [ :x | ^ self whoSentTwice ] ]
KernelContextFixture >> whoSentTwice [ ^ { thisContext sender selector. thisContext sender sender selector } ]
KernelContextFixture >> held [ ^ thisContext ]
KernelContextFixture >> job [ ^ [ 3 ] asJob ]
`,
}

// TestPolyMathFixturesAnswerAsPharo runs the fixtures: what Pharo 13
// answers for each (the method named above each group).
func TestPolyMathFixturesAnswerAsPharo(t *testing.T) {
	t.Parallel()
	var files []*tonel.File
	for path, src := range polymathFixtures {
		f, err := tonel.ParseFile(path, []byte(src))
		require.NoError(t, err, path)
		files = append(files, f)
	}
	program := ReadProgram(files)
	program.PharoDeclares = classlib.Default().Declares
	cases := []struct{ name, expr, want string }{
		// Fraction's instance variables numerator and denominator, read by a method of Fraction
		{"a method of Fraction reads numerator and denominator", "{ (3/4) fixtureParts. (-2/6) fixtureParts }", "#(#(3 4) #(-1 3))"},
		// Magnitude>>>, >=, <= from <, for a Number subclass that defines only < (Number does not redefine them)
		{"a Number subclass compares through its <", "| a b | a := KernelNumberFixture value: 1. b := KernelNumberFixture value: 2. { b > a. a > b. a >= a. b <= a. a <= b. b >= a }", "#(true false true false true true)"},
		{"a Float compared with it goes through its adaptToFraction:andSend:", "{ -0.5 > (KernelNumberFixture value: 0). 0.5 > (KernelNumberFixture value: 0) }", "#(false true)"},
		// Number>>printString, printStringBase:, printOn: all come to printOn:base:
		{"a Number subclass prints through printOn:base:", "| a | a := KernelNumberFixture value: 10. { a printString. a printStringBase: 2. a displayString }", "#('N10' 'N1010' 'N10')"},
		// Number>>//, \\ and quo: from the subclass's /, floor and truncated
		{"a Number subclass divides through its /", "| a b | a := KernelNumberFixture value: 7. b := KernelNumberFixture value: 2. { a // b. a quo: b. (a \\\\ b) value. (a rem: b) value }", "#(3 3 1 1)"},
		// Object>>shallowCopy for a Number subclass (Pharo's Number has no shallowCopy of its own)
		{"a Number subclass's copy is another object", "| a | a := KernelNumberFixture value: 1. { a copy == a. a copy = a }", "#(false true)"},
		// ScaledDecimal>>+ and coerce:, < : with another kind of number, the fraction's arithmetic, kept as it is
		{"a ScaledDecimal with another kind of number", "{ (1.5s2 + (KernelNumberFixture value: 1)) printString. 1.5s2 < (KernelNumberFixture value: 2). (1.5s2 * (KernelNumberFixture value: 2)) class }", "{'N(5/2)'. true. KernelNumberFixture}"},
		// Float>>arcTan: (Math-Operations-Extensions) with a denominator of another kind: case by case, signs from signBit
		{"arcTan: with a package's number", "{ 0 arcTan: (KernelNumberFixture value: -1). 0 arcTan: (KernelNumberFixture value: 2) }", "#(3.141592653589793 0)"},
		// Number>>raisedTo: a number of another kind: (aNumber * self ln) exp
		{"raisedTo: a package's number", "(2 raisedTo: (KernelNumberFixture value: 3)) printString", "'N7.999999999999998'"},
		// ArrayedCollection class>>newFrom: makes new: then puts each element
		{"newFrom: does not go through withAll:", "(KernelArrayFixture newFrom: #(1 2)) asArray", "#(1 2)"},
		// TestAsserter>>assert:closeTo: sends closeTo:precision: with Float defaultComparisonPrecision
		{"assert:closeTo: asks closeTo:precision:", "[ TestCase new assert: KernelCloseFixture new closeTo: 1. #passed ] on: TestFailure do: [ :e | #failed ]", "#passed"},
		{"deny:closeTo: asks closeTo:precision:", "[ TestCase new deny: KernelCloseFixture new closeTo: 1. #passed ] on: TestFailure do: [ :e | #failed ]", "#failed"},
		// Context>>sender, receiver, method, selector, methodClass, printOn: (Receiver>>selector)
		{"thisContext knows who sent its message", "KernelContextFixture new outer", "{'KernelContextFixture>>innermost'. #inner. #outer. true. KernelContextFixture}"},
		{"a method sent from a block: the block's method is its home's", "KernelContextFixture new fromBlock", "#(#fromBlock)"},
		{"after a handler returned, the sender is still the method", "KernelContextFixture new afterHandler", "#afterHandler"},
		{"from inside a block that returns from its method: the block's sender is do:", "KernelContextFixture new afterReturn", "#(#afterReturn #do:)"},
		{"a context prints as Class>>selector", "(KernelContextFixture new held) printString", "'KernelContextFixture>>held'"},
		{"a context held after its method returned is dead, its sender gone (the VM's return of a reified context)", "| c | c := KernelContextFixture new held. { c selector. c sender. c isDead }", "#(#held nil true)"},
		// BlockClosure>>asJob: the job's owner is the sender's receiver
		{"a job is owned by the object that made it", "| f | f := KernelContextFixture new. f job owner == f", "true"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, runInProgram(t, program, c.expr), c.name)
	}
}
