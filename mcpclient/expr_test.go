package mcpclient

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/smalltalk"
)

// stringLiterals lists the string literals of an expression, in order.
func stringLiterals(t testing.TB, expr string) []string {
	seq, err := smalltalk.ParseExpression(expr)
	require.NoError(t, err, expr)
	var out []string
	smalltalk.Walk(seq, func(n smalltalk.Node) bool {
		if lit, ok := n.(*smalltalk.Literal); ok && lit.Kind == smalltalk.LitString {
			out = append(out, lit.Value)
		}
		return true
	})
	return out
}

func TestBuiltExpressionsParse(t *testing.T) {
	refs := []refactor.MethodRef{
		{Class: "Calculator", Selector: "sum:with:"},
		{Class: "Calculator", Selector: "average:", ClassSide: true},
		{Class: "Point", Selector: "+"},
		{Class: "Assoc_2", Selector: "->"},
		{Class: "Foo", Selector: "value"},
	}
	for _, ref := range refs {
		for name, build := range map[string]func() (string, error){
			"protocol": func() (string, error) { return protocolExpr(ref) },
			"dry":      func() (string, error) { return dryCompileExpr(ref, ref.Selector+" ^ 'x'") },
			"install":  func() (string, error) { return InstallExpr(ref, "foo ^ 1", "accessing") },
			"remove":   func() (string, error) { return removeExpr(ref) },
			"self":     func() (string, error) { return understandsExpr(ref, false) },
			"super":    func() (string, error) { return understandsExpr(ref, true) },
			"exists":   func() (string, error) { return classExistsExpr(ref.Class) },
			"testcase": func() (string, error) { return isTestCaseExpr(ref.Class) },
		} {
			expr, err := build()
			require.NoError(t, err, "%s %s", name, ref)
			_, err = smalltalk.ParseExpression(expr)
			assert.NoError(t, err, "%s %s: %s", name, ref, expr)
		}
	}
}

func TestExpressionShapes(t *testing.T) {
	ref := refactor.MethodRef{Class: "Foo", Selector: "at:put:", ClassSide: true}
	e, err := protocolExpr(ref)
	require.NoError(t, err)
	assert.Equal(t, "| p | p := ((Smalltalk globals at: #Foo) class >> #at:put:) protocol. (p isNil or: [ p isString ]) ifTrue: [ p ] ifFalse: [ p name ]", e)
	e, err = InstallExpr(refactor.MethodRef{Class: "Foo", Selector: "bar"}, "bar\n\t^ 'it''s'", "acc'ess")
	require.NoError(t, err)
	assert.Equal(t, "(Smalltalk globals at: #Foo) compile: 'bar\r\t^ ''it''''s''' classified: 'acc''ess'", e)
	e, err = removeExpr(refactor.MethodRef{Class: "Foo", Selector: "+"})
	require.NoError(t, err)
	assert.Equal(t, "| had | had := (Smalltalk globals at: #Foo) includesSelector: #+. (Smalltalk globals at: #Foo) removeSelector: #+. had", e,
		"removeSelector: answers the class on Pharo 12/13: the expression answers a boolean instead")
	e, err = isTestCaseExpr("FooTest")
	require.NoError(t, err)
	assert.Equal(t, "| c t | c := Smalltalk globals at: #FooTest ifAbsent: [ nil ]. t := Smalltalk globals at: #TestCase ifAbsent: [ nil ]. "+
		"(c notNil and: [ t notNil and: [ c isClass and: [ c inheritsFrom: t ] ] ])", e)
	e, err = understandsExpr(refactor.MethodRef{Class: "Foo", Selector: "at:put:", ClassSide: true}, false)
	require.NoError(t, err)
	assert.Equal(t, "(Smalltalk globals at: #Foo) class canUnderstand: #at:put:", e)
	e, err = understandsExpr(refactor.MethodRef{Class: "Foo", Selector: "printOn:"}, true)
	require.NoError(t, err)
	assert.Equal(t, "| s | s := (Smalltalk globals at: #Foo) superclass. (s notNil and: [ s canUnderstand: #printOn: ])", e)
	e, err = classExistsExpr("Foo")
	require.NoError(t, err)
	assert.Equal(t, "Smalltalk globals includesKey: #Foo", e)
}

func TestBuildersRejectBadNames(t *testing.T) {
	bad := []refactor.MethodRef{{Class: "Foo. Smalltalk", Selector: "x"}, {Class: "Foo", Selector: "bar: x ] value"}, {Class: "Foo", Selector: "#foo"}}
	for _, ref := range bad {
		for _, build := range []func() (string, error){
			func() (string, error) { return protocolExpr(ref) },
			func() (string, error) { return InstallExpr(ref, "x", "y") },
			func() (string, error) { return removeExpr(ref) },
			func() (string, error) { return understandsExpr(ref, true) },
		} {
			_, err := build()
			assert.Equal(t, refactor.InvalidRequest, refactor.KindOf(err), "%s", ref)
		}
	}
	_, err := dryCompileExpr(refactor.MethodRef{Class: "Foo bar"}, "x")
	assert.Equal(t, refactor.InvalidRequest, refactor.KindOf(err))
	_, err = isTestCaseExpr("FooTest. Smalltalk")
	assert.Equal(t, refactor.InvalidRequest, refactor.KindOf(err))
}

// FuzzInstallExprLiterals checks that any source and protocol survive
// quoting: the expression parses and its two literals hold exactly them.
func FuzzInstallExprLiterals(f *testing.F) {
	for _, s := range []string{"", "'", "''", "'); Smalltalk at: #X put: 1. ('", "a\nb\r\nc\rd", "日本 😀", "\"", "]"} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, source, protocol string) {
		expr, err := InstallExpr(refactor.MethodRef{Class: "Foo", Selector: "bar"}, source, protocol)
		require.NoError(t, err)
		lits := stringLiterals(t, expr)
		require.Len(t, lits, 2, expr)
		assert.Equal(t, imageLineEndings(source), lits[0])
		assert.Equal(t, protocol, lits[1])
		dry, err := dryCompileExpr(refactor.MethodRef{Class: "Foo"}, source)
		require.NoError(t, err)
		dryLits := stringLiterals(t, dry)
		require.NotEmpty(t, dryLits)
		assert.Equal(t, imageLineEndings(source), dryLits[0])
	})
}
