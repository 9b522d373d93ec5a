package pharosim

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/smalltalk"
)

// Expressions exactly as mcpclient builds them (see docs/pharo-interop.md).
const (
	protocolExpr = "| p | p := ((Smalltalk globals at: #Calculator) >> #sum:with:) protocol. " +
		"(p isNil or: [ p isString ]) ifTrue: [ p ] ifFalse: [ p name ]"
	dryCompileExpr = "| err | [ (Smalltalk globals at: #Calculator) class compiler source: 'foo\r\t^ ''it''''s'''; compile ] " +
		"on: Error, (Smalltalk globals at: #SyntaxErrorNotification ifAbsent: [ Error ]) do: [ :e | err := e ]. " +
		"err ifNil: [ 'OK' ] ifNotNil: [ 'ERR|', ((err respondsTo: #location) ifTrue: [ err location printString ] ifFalse: [ '?' ]), '|', err messageText asString ]"
)

func TestRecognize(t *testing.T) {
	t.Parallel()
	r, err := NewRecognizer()
	require.NoError(t, err)
	cases := []struct {
		name string
		code string
		want Expr
	}{
		{"protocol", protocolExpr, Expr{Kind: ExprProtocol, Class: "Calculator", Selector: "sum:with:"}},
		{"protocol, class side, other spacing",
			"|p|\np:=((Smalltalk globals at:#Calculator) class>>#compute:with:operation:) protocol.\n(p isNil or:[p isString]) ifTrue:[p] ifFalse:[p name].",
			Expr{Kind: ExprProtocol, Class: "Calculator", ClassSide: true, Selector: "compute:with:operation:"}},
		{"dry compile", dryCompileExpr, Expr{Kind: ExprDryCompile, Class: "Calculator", ClassSide: true, Source: "foo\r\t^ 'it''s'"}},
		{"install", "(Smalltalk globals at: #Calculator) compile: 'sum: a with: b\n\t^ a + b' classified: 'calculating'",
			Expr{Kind: ExprInstall, Class: "Calculator", Source: "sum: a with: b\n\t^ a + b", Protocol: "calculating"}},
		{"install, protocol as a symbol", "(Smalltalk globals at: #Calculator) class compile: 'pi ^ 3' classified: #constants",
			Expr{Kind: ExprInstall, Class: "Calculator", ClassSide: true, Source: "pi ^ 3", Protocol: "constants"}},
		{"install keeping the protocol", "(Smalltalk globals at: #Calculator) compile: 'pi ^ 3'",
			Expr{Kind: ExprInstallKeep, Class: "Calculator", Source: "pi ^ 3"}},
		{"remove", "(Smalltalk globals at: #Calculator) removeSelector: #+",
			Expr{Kind: ExprRemove, Class: "Calculator", Selector: "+"}},
		{"class exists", "Smalltalk globals includesKey: #Calculator.",
			Expr{Kind: ExprClassExists, Class: "Calculator"}},
		{"checked remove", "| had | had := (Smalltalk globals at: #Calculator) class includesSelector: #at:put:. (Smalltalk globals at: #Calculator) class removeSelector: #at:put:. had",
			Expr{Kind: ExprRemoveChecked, Class: "Calculator", ClassSide: true, Selector: "at:put:"}},
		{"is a TestCase", "| c t | c := Smalltalk globals at: #FooTest ifAbsent: [ nil ]. t := Smalltalk globals at: #TestCase ifAbsent: [ nil ]. (c notNil and: [ t notNil and: [ c isClass and: [ c inheritsFrom: t ] ] ])",
			Expr{Kind: ExprIsTestCase, Class: "FooTest"}},
		{"understands", "(Smalltalk globals at: #Calculator) class canUnderstand: #sum:with:",
			Expr{Kind: ExprUnderstands, Class: "Calculator", ClassSide: true, Selector: "sum:with:"}},
		{"super understands", "| s | s := (Smalltalk globals at: #Calculator) superclass. (s notNil and: [ s canUnderstand: #printOn: ])",
			Expr{Kind: ExprSuperUnderstands, Class: "Calculator", Selector: "printOn:"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := r.Recognize(tc.code)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestRecognizeRefusesOtherCode(t *testing.T) {
	t.Parallel()
	r, err := NewRecognizer()
	require.NoError(t, err)
	cases := []struct{ name, code string }{
		{"assignment to a global", "Smalltalk at: #X put: 1"},
		{"arithmetic", "1/0"},
		{"empty", ""},
		{"class by a string", "(Smalltalk globals at: 'Calculator') removeSelector: #foo"},
		{"selector by a string", "(Smalltalk globals at: #Calculator) removeSelector: 'foo'"},
		{"source as a symbol", "(Smalltalk globals at: #Calculator) compile: #foo classified: 'x'"},
		{"other temporary name", "| q | q := ((Smalltalk globals at: #Calculator) >> #sum:with:) protocol. (q isNil or: [ q isString ]) ifTrue: [ q ] ifFalse: [ q name ]"},
		{"dry compile with another answer", "| err | [ (Smalltalk globals at: #Calculator) compiler source: 'foo'; compile ] on: Error, (Smalltalk globals at: #SyntaxErrorNotification ifAbsent: [ Error ]) do: [ :e | err := e ]. err ifNil: [ 'YES' ] ifNotNil: [ 'ERR|', ((err respondsTo: #location) ifTrue: [ err location printString ] ifFalse: [ '?' ]), '|', err messageText asString ]"},
		{"extra statement", "(Smalltalk globals at: #Calculator) removeSelector: #foo. Smalltalk quit"},
		{"direct global", "Calculator removeSelector: #foo"},
		{"includesKey with a string", "Smalltalk globals includesKey: 'Calculator'"},
		{"checked remove asking one class and removing from another",
			"| had | had := (Smalltalk globals at: #Calculator) includesSelector: #foo. (Smalltalk globals at: #Invoice) removeSelector: #foo. had"},
		{"checked remove of another selector",
			"| had | had := (Smalltalk globals at: #Calculator) includesSelector: #foo. (Smalltalk globals at: #Calculator) removeSelector: #bar. had"},
		{"TestCase question about another superclass",
			"| c t | c := Smalltalk globals at: #FooTest ifAbsent: [ nil ]. t := Smalltalk globals at: #Object ifAbsent: [ nil ]. (c notNil and: [ t notNil and: [ c isClass and: [ c inheritsFrom: t ] ] ])"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := r.Recognize(tc.code)
			assert.ErrorIs(t, err, ErrNotRecognised)
		})
	}
	_, err = r.Recognize("(Smalltalk globals at: #Calculator")
	var se *smalltalk.SyntaxError
	assert.True(t, errors.As(err, &se), "a syntax error, got %v", err)
}

func TestEvalAnswers(t *testing.T) {
	t.Parallel()
	img, _ := loadTestImage(t)
	cases := []struct {
		name    string
		expr    Expr
		want    any
		wantErr string
	}{
		{"protocol", Expr{Kind: ExprProtocol, Class: "Calculator", Selector: "sum:with:"}, "calculating", ""},
		{"protocol of a missing method", Expr{Kind: ExprProtocol, Class: "Calculator", Selector: "nope"}, nil,
			"KeyNotFound: key #nope not found in MethodDictionary"},
		{"protocol in a missing class", Expr{Kind: ExprProtocol, Class: "Nope", Selector: "nope"}, nil,
			"KeyNotFound: key #Nope not found in SystemDictionary"},
		{"dry compile ok", Expr{Kind: ExprDryCompile, Class: "Calculator", Source: "foo ^ memory"}, "OK", ""},
		{"dry compile error", Expr{Kind: ExprDryCompile, Class: "Calculator", Source: "foo ^ zork"}, "ERR|7|Undeclared variable", ""},
		{"install", Expr{Kind: ExprInstall, Class: "Calculator", Source: "zz ^ 1", Protocol: "x"}, "zz", ""},
		{"install keeping", Expr{Kind: ExprInstallKeep, Class: "Calculator", ClassSide: true, Source: "zz ^ 2"}, "zz", ""},
		{"remove, as the service sends it", Expr{Kind: ExprRemoveChecked, Class: "Calculator", Selector: "zz"}, true, ""},
		{"remove absent", Expr{Kind: ExprRemoveChecked, Class: "Calculator", Selector: "zz"}, false, ""},
		{"bare removeSelector: answers the class", Expr{Kind: ExprRemove, Class: "Calculator", ClassSide: true, Selector: "zz"},
			unserializable{class: "Metaclass"}, ""},
		{"a TestCase", Expr{Kind: ExprIsTestCase, Class: "CalculatorTest"}, true, ""},
		{"not a TestCase", Expr{Kind: ExprIsTestCase, Class: "Calculator"}, false, ""},
		{"not a global", Expr{Kind: ExprIsTestCase, Class: "NopeTest"}, false, ""},
		{"exists", Expr{Kind: ExprClassExists, Class: "Calculator"}, true, ""},
		{"a Pharo global exists", Expr{Kind: ExprClassExists, Class: "OrderedCollection"}, true, ""},
		{"absent", Expr{Kind: ExprClassExists, Class: "Nope"}, false, ""},
		{"understands its own method", Expr{Kind: ExprUnderstands, Class: "SimChild", Selector: "both"}, true, ""},
		{"understands an inherited method", Expr{Kind: ExprUnderstands, Class: "SimChild", Selector: "base"}, true, ""},
		{"understands a trait's method", Expr{Kind: ExprUnderstands, Class: "SimChild", Selector: "greet"}, true, ""},
		{"understands a trait's class-side method", Expr{Kind: ExprUnderstands, Class: "SimChild", ClassSide: true, Selector: "greeting"}, true, ""},
		{"understands an inherited class-side method", Expr{Kind: ExprUnderstands, Class: "SimChild", ClassSide: true, Selector: "registry"}, true, ""},
		{"understands Object's", Expr{Kind: ExprUnderstands, Class: "SimChild", Selector: "printOn:"}, true, ""},
		{"understands Behavior's on the class side", Expr{Kind: ExprUnderstands, Class: "SimChild", ClassSide: true, Selector: "new"}, true, ""},
		{"an instance does not understand new", Expr{Kind: ExprUnderstands, Class: "SimChild", Selector: "new"}, false, ""},
		{"nobody implements it", Expr{Kind: ExprUnderstands, Class: "SimChild", Selector: "zork"}, false, ""},
		{"the other side's method", Expr{Kind: ExprUnderstands, Class: "SimBase", Selector: "registry"}, false, ""},
		{"super does not see the class's own", Expr{Kind: ExprSuperUnderstands, Class: "SimChild", Selector: "both"}, false, ""},
		{"super sees the superclass's", Expr{Kind: ExprSuperUnderstands, Class: "SimChild", Selector: "base"}, true, ""},
		{"a TestCase understands assert:equals:", Expr{Kind: ExprUnderstands, Class: "CalculatorTest", Selector: "assert:equals:"}, true, ""},
		{"understands in a missing class", Expr{Kind: ExprUnderstands, Class: "Nope", Selector: "x"}, nil,
			"KeyNotFound: key #Nope not found in SystemDictionary"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := img.Eval(tc.expr)
			if tc.wantErr != "" {
				var ie *ImageError
				require.ErrorAs(t, err, &ie)
				assert.Equal(t, tc.wantErr, ie.Description())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// exprCode writes an expression the way the service does.
func exprCode(e Expr) string {
	cls := "(Smalltalk globals at: " + smalltalk.QuoteSymbol(e.Class) + ")"
	if e.ClassSide {
		cls += " class"
	}
	switch e.Kind {
	case ExprProtocol:
		return "| p | p := (" + cls + " >> " + smalltalk.QuoteSymbol(e.Selector) + ") protocol. (p isNil or: [ p isString ]) ifTrue: [ p ] ifFalse: [ p name ]"
	case ExprDryCompile:
		return "| err | [ " + cls + " compiler source: " + smalltalk.QuoteString(e.Source) + "; compile ] on: Error, (Smalltalk globals at: #SyntaxErrorNotification ifAbsent: [ Error ]) do: [ :e | err := e ]. err ifNil: [ 'OK' ] ifNotNil: [ 'ERR|', ((err respondsTo: #location) ifTrue: [ err location printString ] ifFalse: [ '?' ]), '|', err messageText asString ]"
	case ExprInstall:
		return cls + " compile: " + smalltalk.QuoteString(e.Source) + " classified: " + smalltalk.QuoteString(e.Protocol)
	case ExprInstallKeep:
		return cls + " compile: " + smalltalk.QuoteString(e.Source)
	case ExprRemove:
		return cls + " removeSelector: " + smalltalk.QuoteSymbol(e.Selector)
	case ExprRemoveChecked:
		sel := smalltalk.QuoteSymbol(e.Selector)
		return "| had | had := " + cls + " includesSelector: " + sel + ". " + cls + " removeSelector: " + sel + ". had"
	case ExprClassExists:
		return "Smalltalk globals includesKey: " + smalltalk.QuoteSymbol(e.Class)
	case ExprIsTestCase:
		return "| c t | c := Smalltalk globals at: " + smalltalk.QuoteSymbol(e.Class) + " ifAbsent: [ nil ]. t := Smalltalk globals at: #TestCase ifAbsent: [ nil ]. " +
			"(c notNil and: [ t notNil and: [ c isClass and: [ c inheritsFrom: t ] ] ])"
	case ExprUnderstands:
		return cls + " canUnderstand: " + smalltalk.QuoteSymbol(e.Selector)
	case ExprSuperUnderstands:
		return "| s | s := " + cls + " superclass. (s notNil and: [ s canUnderstand: " + smalltalk.QuoteSymbol(e.Selector) + " ])"
	}
	return ""
}

// FuzzRecognize: any code is either refused or recognised, never a panic;
// what is recognised, written again the way the service writes it, is
// recognised as the same expression.
func FuzzRecognize(f *testing.F) {
	f.Add(protocolExpr)
	f.Add(dryCompileExpr)
	f.Add("(Smalltalk globals at: #Calculator) class compile: 'pi\r\t^ ''x''' classified: 'constants'")
	f.Add("(Smalltalk globals at: #Calculator) compile: 'pi ^ 3'")
	f.Add("(Smalltalk globals at: #Calculator) removeSelector: #at:put:")
	f.Add("Smalltalk globals includesKey: #'odd name'")
	f.Add("| had | had := (Smalltalk globals at: #Calculator) includesSelector: #foo. (Smalltalk globals at: #Calculator) removeSelector: #foo. had")
	f.Add("| c t | c := Smalltalk globals at: #FooTest ifAbsent: [ nil ]. t := Smalltalk globals at: #TestCase ifAbsent: [ nil ]. (c notNil and: [ t notNil and: [ c isClass and: [ c inheritsFrom: t ] ] ])")
	f.Add("(Smalltalk globals at: #Calculator) canUnderstand: #foo:")
	f.Add("| s | s := (Smalltalk globals at: #Calculator) class superclass. (s notNil and: [ s canUnderstand: #new ])")
	f.Add("Smalltalk at: #X put: 1")
	r, err := NewRecognizer()
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, code string) {
		e, err := r.Recognize(code)
		if err != nil {
			return
		}
		again, err := r.Recognize(exprCode(e))
		require.NoError(t, err, "rewritten: %s", exprCode(e))
		assert.Equal(t, e, again)
	})
}
