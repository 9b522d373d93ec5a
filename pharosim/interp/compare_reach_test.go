package interp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pharo-refactor/refactord/smalltalk/tonel"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reachFixture: a shop whose tests are thin in the ways real tests are —
// one customer with no orders, one ordinary amount, no stream, a rate
// set only through its setter — so that each mutant below passes them.
const reachFixture = `Class {
	#name : #Till,
	#superclass : #Object,
	#instVars : [ #customer, #rate, #log, #stock ],
	#category : #Reach
}

Till >> initialize [ log := OrderedCollection new. stock := Dictionary new. rate := 0 ]
Till >> customer: aCustomer [ customer := aCustomer ]
Till >> rate: aNumber [ rate := aNumber ]
Till >> stock [ ^ stock ]
Till >> put: aName count: anInteger [ stock at: aName put: anInteger ]
Till >> discountOn: anAmount [
	customer orders size > 10 ifTrue: [ ^ anAmount * 10 / 100 ].
	^ 0 ]
Till >> charge: anAmount kind: aString [
	aString = 'card' ifTrue: [ ^ anAmount + rate ].
	^ anAmount ]
Till >> scarce [ ^ (stock keys select: [ :each | (stock at: each) < 3 ]) asSortedCollection asArray ]
Till >> log [ ^ log ]
Till >> printTotal: aNumber on: aStream [ aStream nextPutAll: 'total '; print: aNumber ]
Till >> sameAs: aTill [ ^ self == aTill ifTrue: [ #same ] ifFalse: [ rate = aTill rateForCompare ] ]
Till >> rateForCompare [ ^ rate ]
Till >> taxOn: anAmount [ ^ anAmount * rate / 100 ]
`

const reachCustomer = `Class {
	#name : #Patron,
	#superclass : #Object,
	#instVars : [ #orders ],
	#category : #Reach
}

Patron >> initialize [ orders := OrderedCollection new ]
Patron >> orders [ ^ orders ]
`

const reachFresh = `Class {
	#name : #Fresh,
	#superclass : #Object,
	#instVars : [ #a, #b ],
	#category : #Reach
}

Fresh >> initialize [ a := 1. b := 2 ]
Fresh >> sum [ ^ a + b ]
`

const reachReader = `Class {
	#name : #Peeker,
	#superclass : #Object,
	#instVars : [ #buffer, #source ],
	#category : #Reach
}

Peeker class >> on: aStringOrStream [ ^ self new source: (aStringOrStream isString ifTrue: [ aStringOrStream readStream ] ifFalse: [ aStringOrStream ]) ]
Peeker >> source: aStream [ source := aStream ]
Peeker >> peek [ ^ buffer ifNil: [ buffer := source next ] ]
Peeker >> next [ ^ buffer ifNil: [ source next ] ifNotNil: [ :b | buffer := nil. b ] ]
`

const reachSheet = `Class {
	#name : #Sheet,
	#superclass : #Object,
	#instVars : [ #rows ],
	#category : #Reach
}

Sheet >> rows: aCollection [ rows := aCollection ]
Sheet >> rowCount [ ^ rows ifNil: [ 0 ] ifNotNil: [ rows size ] ]
`

const reachRates = `Class {
	#name : #Rates,
	#superclass : #Object,
	#classVars : [ #Rate ],
	#category : #Reach
}

Rates class >> rate [ ^ Rate ifNil: [ Rate := 20 ] ]
`

const reachGauge = `Class {
	#name : #Gauge,
	#superclass : #Object,
	#instVars : [ #level ],
	#category : #Reach
}

Gauge >> level: aNumber [ level := aNumber ]
Gauge >> clampedBetween: low and: high [
	level < low ifTrue: [ ^ low ].
	level > high ifTrue: [ ^ high ].
	^ level ]
`

const reachScanner = `Class {
	#name : #Scanner,
	#superclass : #Object,
	#instVars : [ #stream ],
	#category : #Reach
}

Scanner class >> on: aString [ ^ self new setStream: aString readStream ]
Scanner >> setStream: aStream [ stream := aStream ]
Scanner >> exponent [
	| n negative |
	n := 0.
	negative := stream peekFor: $-.
	[ stream atEnd ] whileFalse: [ n := n * 10 + stream next digitValue ].
	^ negative ifTrue: [ n negated ] ifFalse: [ n ] ]
`

const reachTable = `Class {
	#name : #Table,
	#superclass : #Object,
	#instVars : [ #rows ],
	#category : #Reach
}

Table >> fill [ rows := OrderedCollection new. 1 to: 400000 do: [ :each | rows add: each ] ]
`

const reachTests = `Class {
	#name : #TillTest,
	#superclass : #TestCase,
	#category : #Reach
}

TillTest >> testDiscount [ | t | t := Till new. t customer: Patron new. self assert: (t discountOn: 50) equals: 0 ]
TillTest >> testCharge [ | t | t := Till new. self assert: (t charge: 10 kind: 'cash') equals: 10 ]
TillTest >> testScarce [ | t | t := Till new. t put: 'pen' count: 7. self assert: t scarce isEmpty ]
TillTest >> testLog [ self assert: Till new log isEmpty ]
TillTest >> testSame [ | t | t := Till new. self assert: (t sameAs: Till new) ]
TillTest >> testTax [ | t | t := Till new. t rate: 10. self assert: (t taxOn: 100) equals: 10 ]
TillTest >> testFresh [ self assert: Fresh new sum equals: 3 ]
TillTest >> testRate [ self assert: Rates rate equals: 20 ]
TillTest >> testGauge [ self assert: ((Gauge new level: 50) clampedBetween: 0 and: 40) equals: 40 ]
TillTest >> testScanner [ self assert: (Scanner on: '12') exponent equals: 12 ]
TillTest >> testPeeker [ | p | p := Peeker on: 'ab'. p peek. self assert: p next equals: $a. p peek. self assert: p next equals: $b ]
`

func newReachFixture(t *testing.T) *Interp {
	t.Helper()
	return interpOf(t, map[string]string{"Till": reachFixture, "Patron": reachCustomer, "Fresh": reachFresh,
		"Peeker": reachReader, "Sheet": reachSheet, "Rates": reachRates, "TillTest": reachTests,
		"Gauge": reachGauge, "Scanner": reachScanner, "Table": reachTable})
}

// compareOn compares a candidate of class ("Foo class": its class side)
// with the method it replaces, on TillTest's inputs.
func compareOn(t *testing.T, in *Interp, class, candidate string) Verdict {
	t.Helper()
	name, classSide := strings.CutSuffix(class, " class")
	side := in.classes[name]
	if classSide {
		side = side.meta
	}
	v, err := in.CompareMethod(Comparison{Class: name, ClassSide: classSide, Selector: compile(side, candidate).selector,
		Candidate: candidate, TestClasses: []string{"TillTest"}})
	require.NoError(t, err)
	return v
}

// TestComparisonReachesWhatThinTestsLeaveOut: each candidate passes
// TillTest and differs from the original only on an input those tests
// never make; the comparison makes it.
func TestComparisonReachesWhatThinTestsLeaveOut(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, class, candidate, input string
	}{
		{"a collection one level down grown past the method's literal (eleven orders)", "Till",
			"discountOn: anAmount\n\tcustomer orders size >= 10 ifTrue: [ ^ anAmount * 10 / 100 ].\n\t^ 0", "discountOn:"},
		{"two places at once: the branch a string literal takes, with a negative amount", "Till",
			"charge: anAmount kind: aString\n\taString = 'card' ifTrue: [ ^ (anAmount + rate) abs ].\n\t^ anAmount", "'card'"},
		{"a dictionary's values at the method's literal", "Till",
			"scarce\n\t^ (stock keys select: [ :each | (stock at: each) <= 3 ]) asSortedCollection asArray", "scarce"},
		{"an answer that was the receiver's own collection, now a copy", "Till",
			"log\n\t^ log copy", "log"},
		{"a stream made for an argument named so", "Till",
			"printTotal: aNumber on: aStream\n\taStream nextPutAll: 'total: '; print: aNumber", "printTotal:"},
		{"an argument that is the receiver itself", "Till",
			"sameAs: aTill\n\t^ self == aTill ifTrue: [ true ] ifFalse: [ rate = aTill rateForCompare ]", "sameAs:"},
		{"an instance variable varied to values the class holds elsewhere", "Till",
			"taxOn: anAmount\n\t^ anAmount * rate // 100", "taxOn:"},
		{"initialize on what basicNew made", "Fresh",
			"initialize\n\ta := 1", "Fresh"},
		{"an instance variable the tests always fill, nil as new leaves it", "Peeker",
			"next\n\t^ buffer ifNil: [ nil ] ifNotNil: [ :b | buffer := nil. b ]", "Peeker"},
		{"a stream for an argument named a string or a stream", "Peeker class",
			"on: aStringOrStream\n\t^ self new source: (aStringOrStream isString ifTrue: [ aStringOrStream readStream ] ifFalse: [ nil ])", "Stream"},
		{"a class variable as the tests found it, before its lazy initialization", "Rates class",
			"rate\n\t^ Rate ifNil: [ Rate := 21 ]", "Rates"},
		{"a method no test reaches, on a receiver whose nil variable it uses as a collection", "Sheet",
			"rowCount\n\t^ (rows ifNil: [ 0 ] ifNotNil: [ rows size ]) negated", "Sheet"},
		{"a level below a negative lower bound: every number moved below zero in order", "Gauge",
			"clampedBetween: low and: high\n\tlevel < low ifTrue: [ ^ low abs ].\n\tlevel > high ifTrue: [ ^ high ].\n\t^ level", "clampedBetween:"},
		{"a negative level between negative bounds", "Gauge",
			"clampedBetween: low and: high\n\tlevel < low ifTrue: [ ^ low ].\n\tlevel > high ifTrue: [ ^ high ].\n\t^ level abs", "clampedBetween:"},
		{"a method longer than a call's steps, run with a test's", "Table",
			"fill\n\trows := OrderedCollection new. 1 to: 400001 do: [ :each | rows add: each ]", "Table"},
		{"a stream whose next character is one the method looks for", "Scanner",
			"exponent\n\t| n negative |\n\tn := 0.\n\tnegative := stream peek = $-.\n\t[ stream atEnd ] whileFalse: [ n := n * 10 + stream next digitValue ].\n\t^ negative ifTrue: [ n negated ] ifFalse: [ n ]", "Scanner"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v := compareOn(t, newReachFixture(t), tc.class, tc.candidate)
			require.Equal(t, Changed, v.Outcome, "%+v", v)
			require.NotNil(t, v.Witness)
			assert.Contains(t, v.Witness.Input, tc.input)
			assert.NotEqual(t, v.Witness.Original, v.Witness.Candidate)
		})
	}
}

// TestComparisonKeepsFaithfulRewritesOfTheFixture: the same methods
// rewritten without changing what they do are the same on all those
// inputs.
func TestComparisonKeepsFaithfulRewritesOfTheFixture(t *testing.T) {
	t.Parallel()
	cases := []struct{ class, candidate string }{
		{"Till", "discountOn: anAmount\n\t^ customer orders size > 10 ifTrue: [ anAmount * 10 / 100 ] ifFalse: [ 0 ]"},
		{"Till", "charge: anAmount kind: aString\n\taString = 'card' ifFalse: [ ^ anAmount ].\n\t^ anAmount + rate"},
		{"Till", "scarce\n\t^ (stock keys reject: [ :each | (stock at: each) >= 3 ]) asSortedCollection asArray"},
		{"Till", "log\n\t| l |\n\tl := log.\n\t^ l"},
		{"Till", "printTotal: aNumber on: aStream\n\taStream nextPutAll: 'total '.\n\taStream print: aNumber"},
		{"Till", "taxOn: anAmount\n\t^ (anAmount * rate) / 100"},
		{"Fresh", "initialize\n\tb := 2.\n\ta := 1"},
		{"Rates class", "rate\n\tRate isNil ifTrue: [ Rate := 20 ].\n\t^ Rate"},
		{"Gauge", "clampedBetween: low and: high\n\tlevel < low ifTrue: [ ^ low ].\n\t^ level > high ifTrue: [ high ] ifFalse: [ level ]"},
		{"Scanner", "exponent\n\t| n sign |\n\tn := 0.\n\tsign := (stream peekFor: $-) ifTrue: [ -1 ] ifFalse: [ 1 ].\n\t[ stream atEnd ] whileFalse: [ n := n * 10 + stream next digitValue ].\n\t^ n * sign"},
	}
	for _, tc := range cases {
		t.Run(tc.candidate, func(t *testing.T) {
			t.Parallel()
			v := compareOn(t, newReachFixture(t), tc.class, tc.candidate)
			assert.Equal(t, Same, v.Outcome, "%+v %+v", v, v.Witness)
		})
	}
}

// TestComparisonSaysWhenTheKernelLacksWhatTheMethodUses: a method that
// stops at a class pharo-sim lacks on every input is not_checked, never
// same: nothing it does was compared.
func TestComparisonSaysWhenTheKernelLacksWhatTheMethodUses(t *testing.T) {
	t.Parallel()
	in := newReachFixture(t)
	cand := "archive\n\t^ (FileLocator home / 'till') abs"
	in.classes["Till"].methods["archive"] = compile(in.classes["Till"], "archive\n\t^ FileLocator home / 'till'")
	v, err := in.CompareMethod(Comparison{Class: "Till", Selector: "archive", Candidate: cand})
	require.NoError(t, err)
	assert.Equal(t, NotChecked, v.Outcome, "%+v", v)
	assert.Contains(t, v.Reason, "lacks")

	// a rewrite that alone reaches for a class the kernel lacks is no
	// behaviour change: a real image might answer the same; one that
	// alone reaches for the files is
	in.classes["Till"].methods["archiveName"] = compile(in.classes["Till"], "archiveName\n\t^ 'till'")
	cases := []struct{ candidate, outcome string }{
		{"archiveName\n\t^ (GZipWriteStream on: String new) ifNil: [ 'till' ] ifNotNil: [ :z | 'till' ]", NotChecked},
		{"archiveName\n\t('till' asFileReference) ensureDelete.\n\t^ 'till'", Changed},
	}
	for _, tc := range cases {
		v, err = in.CompareMethod(Comparison{Class: "Till", Selector: "archiveName", Candidate: tc.candidate})
		require.NoError(t, err)
		assert.Equal(t, tc.outcome, v.Outcome, "%s: %+v %+v", tc.candidate, v, v.Witness)
	}
}

// storedFixture: a writer whose tests never call what addColumn: stores.
const storedFixture = `Class {
	#name : #Columns,
	#superclass : #Object,
	#instVars : [ #columns, #out ],
	#category : #Reach
}

Columns >> initialize [ columns := OrderedCollection new. out := WriteStream on: String new ]
Columns >> addColumn: aSelector [ columns add: [ :row | out nextPutAll: (row perform: aSelector) printString ] ]
Columns >> write: aRow [ columns do: [ :each | each value: aRow ] ]
Columns >> contents [ ^ out contents ]
Columns >> addKey: aKey [ columns add: [ :row | out nextPutAll: (row at: aKey ifAbsent: [ '' ]) asString ] ]
`

const storedTests = `Class {
	#name : #ColumnsTest,
	#superclass : #TestCase,
	#category : #Reach
}

ColumnsTest >> testWrite [ | c | c := Columns new. c addColumn: #abs; addColumn: #negated. c write: -3. self assert: c contents equals: '33' ]
`

// TestComparisonRunsTheBlocksAMethodStores: a change inside a block the
// method stores shows only when the block runs; the comparison runs it,
// with the arguments the tests gave it.
func TestComparisonRunsTheBlocksAMethodStores(t *testing.T) {
	t.Parallel()
	in := interpOf(t, map[string]string{"Columns": storedFixture, "ColumnsTest": storedTests})
	cases := []struct {
		candidate string
		outcome   string
	}{
		{"addColumn: aSelector\n\tcolumns add: [ :row | out nextPutAll: (row perform: aSelector) displayString ]", Same},
		{"addColumn: aSelector\n\tcolumns add: [ :row | out nextPutAll: (row perform: aSelector) negated printString ]", Changed},
		{"addColumn: aSelector\n\tcolumns add: [ :row | row perform: aSelector ]", Changed},
		// no test calls what addKey: stores: its row is made as the block
		// uses it (sent at:ifAbsent:, a dictionary), one without the key
		{"addKey: aKey\n\tcolumns add: [ :row | out nextPutAll: (row at: aKey ifAbsent: [ String new ]) asString ]", Same},
		{"addKey: aKey\n\tcolumns add: [ :row | out nextPutAll: (row at: aKey ifAbsent: [ ]) asString ]", Changed},
	}
	for _, tc := range cases {
		sel := strings.SplitN(tc.candidate, " ", 2)[0]
		v, err := in.CompareMethod(Comparison{Class: "Columns", Selector: sel, Candidate: tc.candidate, TestClasses: []string{"ColumnsTest"}})
		require.NoError(t, err)
		assert.Equal(t, tc.outcome, v.Outcome, "%s: %+v", tc.candidate, v)
		if tc.outcome == Changed {
			require.NotNil(t, v.Witness)
			assert.Equal(t, AspectBlocks, v.Witness.Aspect)
			assert.Contains(t, v.Witness.Original, "a block it stored, given ")
			if strings.HasPrefix(tc.candidate, "addColumn:") {
				assert.Contains(t, v.Witness.Original, "given -3", "the arguments the tests gave the block")
			}
			assert.NotEqual(t, v.Witness.Original, v.Witness.Candidate)
		}
	}
}

// TestComparisonOnTheSampleShop: ShoppingCart's totals with // for / in
// a loyalty discount. The shop's tests pass them: a discount shows a
// remainder only for a customer of more than 5 (or 10) orders whose
// subtotal is not a multiple of 20 (or 10), which no test makes. The
// comparison opens the branch with the orders, then makes a line's
// quantity odd there.
func TestComparisonOnTheSampleShop(t *testing.T) {
	t.Parallel()
	tree, err := tonel.ReadTree("../../examples/sample-image/src")
	require.NoError(t, err)
	var files []*tonel.File
	for _, p := range tree.Packages {
		files = append(files, p.Files...)
	}
	in, err := New(ReadProgram(files), Limits{Steps: DefaultStepsPerCall})
	require.NoError(t, err)
	total := "total\n\t| t d x |\n\tt := 0.\n\titems do: [ :each | t := t + (each key price * each value) ].\n\td := 0.\n" +
		"\tcustomer notNil ifTrue: [\n\t\tcustomer orders size > 10\n\t\t\tifTrue: [ d := t * 10 %s 100 ]\n\t\t\tifFalse: [\n" +
		"\t\t\t\tcustomer orders size > 5\n\t\t\t\t\tifTrue: [ d := t * 5 %s 100 ]\n\t\t\t\t\tifFalse: [ d := 0 ] ] ].\n" +
		"\tt := t - d.\n\tx := t * self class taxRate / 100.\n\tt := t + x.\n\t^ t"
	cases := []struct {
		name, candidate, outcome string
	}{
		{"// in the discount of more than 10 orders", fmt.Sprintf(total, "//", "/"), Changed},
		{"// in the discount of more than 5 orders", fmt.Sprintf(total, "/", "//"), Changed},
		{"the same arithmetic, bracketed", fmt.Sprintf(total, "/", "/"), Same},
	}
	for _, tc := range cases {
		v, err := in.CompareMethod(Comparison{Class: "ShoppingCart", Selector: "total", Candidate: tc.candidate,
			TestClasses: []string{"ShoppingCartTest", "InvoiceTest", "OrderProcessorTest", "CustomerTest"}})
		require.NoError(t, err)
		assert.Equal(t, tc.outcome, v.Outcome, "%s: %+v %+v", tc.name, v, v.Witness)
	}
}
