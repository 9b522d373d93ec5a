package pharosim

import (
	"errors"
	"fmt"
	"strings"

	"github.com/pharo-refactor/refactord/smalltalk"
)

// ExprKind names the expression shapes of docs/pharo-interop.md
// ("Expressions the service sends through eval") that the simulator understands.
type ExprKind int

// The recognised shapes; CLS is `(Smalltalk globals at: #Foo)`, optionally
// followed by `class`.
const (
	ExprProtocol    ExprKind = iota + 1 // | p | p := (CLS >> #sel) protocol. …
	ExprDryCompile                      // | err | [ CLS compiler source: SRC; compile ] on: … do: …
	ExprInstall                         // CLS compile: SRC classified: PROTO
	ExprInstallKeep                     // CLS compile: SRC
	ExprRemove                          // CLS removeSelector: #sel
	ExprClassExists                     // Smalltalk globals includesKey: #Foo
	// ExprRemoveChecked is the remove the service sends: `removeSelector:`
	// answers the class on Pharo 12/13, which cannot be serialized, so it
	// answers whether the method was there instead:
	// | had | had := CLS includesSelector: #sel. CLS removeSelector: #sel. had
	ExprRemoveChecked
	// ExprIsTestCase asks whether a global is a class inheriting from
	// TestCase (read-only; answers a boolean).
	ExprIsTestCase
	// ExprUnderstands asks whether a class understands a selector:
	// CLS canUnderstand: #sel (read-only; answers a boolean).
	ExprUnderstands
	// ExprSuperUnderstands asks it of the superclass, where a send to
	// super looks: | s | s := CLS superclass. (s notNil and: [ s canUnderstand: #sel ])
	ExprSuperUnderstands
)

// Expr is a recognised eval expression with the values it was built from.
type Expr struct {
	Kind      ExprKind
	Class     string
	ClassSide bool
	Selector  string
	Source    string
	Protocol  string
}

// The templates, written as the service writes them, with placeholders: a
// symbol or string literal whose value starts with `$` matches any literal
// of the allowed kind and captures its value. CLS stands for both class
// expressions.
const (
	clsInstance = "(Smalltalk globals at: #'$class')"
	clsClass    = "(Smalltalk globals at: #'$class') class"
)

type templateText struct {
	kind ExprKind
	text string
}

func templateTexts() []templateText {
	return []templateText{
		{ExprProtocol, "| p | p := (CLS >> #'$sel') protocol. (p isNil or: [ p isString ]) ifTrue: [ p ] ifFalse: [ p name ]"},
		{ExprDryCompile, "| err | [ CLS compiler source: '$src'; compile ] on: Error, (Smalltalk globals at: #SyntaxErrorNotification ifAbsent: [ Error ]) do: [ :e | err := e ]. " +
			"err ifNil: [ 'OK' ] ifNotNil: [ 'ERR|', ((err respondsTo: #location) ifTrue: [ err location printString ] ifFalse: [ '?' ]), '|', err messageText asString ]"},
		{ExprInstall, "CLS compile: '$src' classified: '$proto'"},
		{ExprInstallKeep, "CLS compile: '$src'"},
		{ExprRemove, "CLS removeSelector: #'$sel'"},
		{ExprClassExists, "Smalltalk globals includesKey: #'$class'"},
		{ExprRemoveChecked, "| had | had := CLS includesSelector: #'$sel'. CLS removeSelector: #'$sel'. had"},
		{ExprIsTestCase, "| c t | c := Smalltalk globals at: #'$class' ifAbsent: [ nil ]. t := Smalltalk globals at: #TestCase ifAbsent: [ nil ]. " +
			"(c notNil and: [ t notNil and: [ c isClass and: [ c inheritsFrom: t ] ] ])"},
		{ExprUnderstands, "CLS canUnderstand: #'$sel'"},
		{ExprSuperUnderstands, "| s | s := CLS superclass. (s notNil and: [ s canUnderstand: #'$sel' ])"},
	}
}

// template is a parsed template: its shape and its literals in order.
type template struct {
	kind      ExprKind
	classSide bool
	shape     string
	literals  []*smalltalk.Literal
}

// Recognizer matches eval code against the templates. It is immutable once
// built and safe for concurrent use.
type Recognizer struct {
	templates []template
}

// NewRecognizer parses the templates.
func NewRecognizer() (*Recognizer, error) {
	r := &Recognizer{}
	for _, t := range templateTexts() {
		variants := []struct {
			cls  string
			side bool
		}{{clsInstance, false}, {clsClass, true}}
		if !strings.Contains(t.text, "CLS") {
			variants = variants[:1]
		}
		for _, v := range variants {
			seq, err := smalltalk.ParseExpression(strings.ReplaceAll(t.text, "CLS", v.cls))
			if err != nil {
				return nil, fmt.Errorf("template %d does not parse: %w", t.kind, err)
			}
			var lits []*smalltalk.Literal
			shape := shapeOf(seq, &lits)
			r.templates = append(r.templates, template{kind: t.kind, classSide: v.side, shape: shape, literals: lits})
		}
	}
	return r, nil
}

// ErrNotRecognised means the code is none of the templates.
var ErrNotRecognised = errors.New("not one of the recognised expression shapes")

// Recognize parses code and matches it against the templates. A syntax
// error comes back as *smalltalk.SyntaxError; code of any other shape as
// ErrNotRecognised.
func (r *Recognizer) Recognize(code string) (Expr, error) {
	seq, err := smalltalk.ParseExpression(code)
	if err != nil {
		return Expr{}, err
	}
	var lits []*smalltalk.Literal
	shape := shapeOf(seq, &lits)
	for _, t := range r.templates {
		if t.shape != shape {
			continue
		}
		if e, ok := t.bind(lits); ok {
			return e, nil
		}
	}
	return Expr{}, ErrNotRecognised
}

// bind checks the code's literals against the template's: fixed ones must
// be equal, placeholders capture.
func (t template) bind(lits []*smalltalk.Literal) (Expr, bool) {
	e := Expr{Kind: t.kind, ClassSide: t.classSide}
	for i, want := range t.literals {
		got := lits[i]
		name, isPlaceholder := strings.CutPrefix(want.Value, "$")
		if !isPlaceholder {
			if got.Kind != want.Kind || got.Value != want.Value {
				return Expr{}, false
			}
			continue
		}
		if !e.capture(name, got) {
			return Expr{}, false
		}
	}
	return e, true
}

// capture stores a placeholder's value if the literal has an allowed kind.
// A placeholder that appears twice must hold the same value both times.
func (e *Expr) capture(name string, lit *smalltalk.Literal) bool {
	isSymbol, isString := lit.Kind == smalltalk.LitSymbol, lit.Kind == smalltalk.LitString
	switch name {
	case "class":
		return isSymbol && same(&e.Class, lit.Value)
	case "sel":
		return isSymbol && same(&e.Selector, lit.Value)
	case "src":
		e.Source = lit.Value
		return isString
	case "proto":
		e.Protocol = lit.Value
		return isString || isSymbol
	}
	return false
}

// same stores v in *field when it is empty, and reports whether *field
// holds v.
func same(field *string, v string) bool {
	if *field == "" {
		*field = v
	}
	return *field == v
}

// shapeOf prints a node canonically with every string and symbol literal
// replaced by `?`, collecting those literals in order. Two expressions with
// the same shape differ only in such literals.
func shapeOf(n smalltalk.Node, lits *[]*smalltalk.Literal) string {
	var b strings.Builder
	writeShape(&b, n, lits)
	return b.String()
}

func writeShape(b *strings.Builder, n smalltalk.Node, lits *[]*smalltalk.Literal) {
	switch n := n.(type) {
	case nil:
		b.WriteString("_")
	case *smalltalk.Sequence:
		b.WriteString("(seq |")
		for _, t := range n.Temps {
			b.WriteString(" " + t.Name)
		}
		b.WriteString(" |")
		writeShapes(b, n.Statements, lits)
		b.WriteString(")")
	case *smalltalk.Return:
		b.WriteString("(^ ")
		writeShape(b, n.Value, lits)
		b.WriteString(")")
	case *smalltalk.Assignment:
		b.WriteString("(" + n.Variable.Name + " := ")
		writeShape(b, n.Value, lits)
		b.WriteString(")")
	case *smalltalk.Message:
		writeMessageShape(b, n, lits)
	case *smalltalk.Cascade:
		b.WriteString("(cascade ")
		writeShape(b, n.Receiver, lits)
		for _, m := range n.Messages {
			b.WriteString(" ; ")
			writeMessageShape(b, m, lits)
		}
		b.WriteString(")")
	case *smalltalk.Variable:
		b.WriteString(n.Name)
	case *smalltalk.Literal:
		writeLiteralShape(b, n, lits)
	case *smalltalk.Block:
		b.WriteString("[")
		for _, a := range n.Args {
			b.WriteString(" :" + a.Name)
		}
		b.WriteString(" ")
		writeShape(b, n.Body, lits)
		b.WriteString("]")
	case *smalltalk.DynamicArray:
		b.WriteString("{")
		writeShapes(b, n.Elements, lits)
		b.WriteString("}")
	default:
		fmt.Fprintf(b, "<%T>", n)
	}
}

func writeShapes(b *strings.Builder, ns []smalltalk.Node, lits *[]*smalltalk.Literal) {
	for _, s := range ns {
		b.WriteString(" ")
		writeShape(b, s, lits)
		b.WriteString(".")
	}
}

func writeMessageShape(b *strings.Builder, m *smalltalk.Message, lits *[]*smalltalk.Literal) {
	b.WriteString("(")
	writeShape(b, m.Receiver, lits)
	b.WriteString(" " + m.Selector)
	for _, a := range m.Args {
		b.WriteString(" ")
		writeShape(b, a, lits)
	}
	b.WriteString(")")
}

func writeLiteralShape(b *strings.Builder, l *smalltalk.Literal, lits *[]*smalltalk.Literal) {
	if l.Kind == smalltalk.LitString || l.Kind == smalltalk.LitSymbol {
		*lits = append(*lits, l)
		b.WriteString("?")
		return
	}
	fmt.Fprintf(b, "%s:%q", l.Kind, l.Value)
}

// Eval answers a recognised expression the way the image would.
func (img *Image) Eval(e Expr) (any, error) {
	side := sideOf(e.ClassSide)
	switch e.Kind {
	case ExprProtocol:
		return img.Protocol(MethodKey{Class: e.Class, ClassSide: e.ClassSide, Selector: e.Selector})
	case ExprDryCompile:
		return img.DryCompile(e.Class, side, e.Source), nil
	case ExprInstall:
		return img.Compile(e.Class, side, e.Source, e.Protocol)
	case ExprInstallKeep:
		return img.Compile(e.Class, side, e.Source, "")
	case ExprRemove:
		// Pharo 12/13 answer the class, which the server cannot serialize:
		// the method is removed all the same.
		if _, err := img.Remove(e.Class, side, e.Selector); err != nil {
			return nil, err
		}
		receiverClass := e.Class + " class"
		if e.ClassSide {
			receiverClass = "Metaclass"
		}
		return unserializable{class: receiverClass}, nil
	case ExprRemoveChecked:
		return img.Remove(e.Class, side, e.Selector)
	case ExprClassExists:
		return img.HasGlobal(e.Class), nil
	case ExprIsTestCase:
		return img.IsTestCase(e.Class), nil
	case ExprUnderstands, ExprSuperUnderstands:
		return img.Understands(e.Class, side, e.Selector, e.Kind == ExprSuperUnderstands)
	}
	return nil, errArbitraryCode()
}
