package mcpclient

import (
	refactor "github.com/pharo-refactor/refactord"
	"strings"

	"github.com/pharo-refactor/refactord/smalltalk"
)

// The expressions of docs/pharo-interop.md ("Expressions the service sends
// through eval"), built only from validated names and quoted literals. Each builder
// validates its inputs itself so that no caller can skip the check. Every
// expression answers a string, a number, a boolean or nil — never an
// object: the interop server cannot serialize one (it answers success true
// with an error and no result), so a result that is an object, like the
// class `removeSelector:` answers on Pharo 12/13, is wrapped.

// classExpr is `(Smalltalk globals at: #Foo)` or its class side.
func classExpr(r refactor.MethodRef) string {
	e := "(Smalltalk globals at: #" + r.Class + ")"
	if r.ClassSide {
		e += " class"
	}
	return e
}

// protocolExpr reads a method's protocol (portable across Pharo 11–13).
func protocolExpr(r refactor.MethodRef) (string, error) {
	if err := r.Validate(); err != nil {
		return "", err
	}
	return "| p | p := (" + classExpr(r) + " >> " + smalltalk.QuoteSymbol(r.Selector) + ") protocol. " +
		"(p isNil or: [ p isString ]) ifTrue: [ p ] ifFalse: [ p name ]", nil
}

// dryCompileExpr checks that source compiles in the ref's class without
// installing it; the image answers 'OK' or 'ERR|<position>|<message>'.
func dryCompileExpr(r refactor.MethodRef, source string) (string, error) {
	if err := refactor.ValidateClassName(r.Class); err != nil {
		return "", err
	}
	return "| err | [ " + classExpr(r) + " compiler source: " + smalltalk.QuoteString(imageLineEndings(source)) + "; compile ] " +
		"on: Error, (Smalltalk globals at: #SyntaxErrorNotification ifAbsent: [ Error ]) do: [ :e | err := e ]. " +
		"err ifNil: [ 'OK' ] ifNotNil: [ 'ERR|', ((err respondsTo: #location) ifTrue: [ err location printString ] ifFalse: [ '?' ]), '|', err messageText asString ]", nil
}

// InstallExpr compiles source into the ref's class and side, in protocol.
func InstallExpr(r refactor.MethodRef, source, protocol string) (string, error) {
	if err := r.Validate(); err != nil {
		return "", err
	}
	return classExpr(r) + " compile: " + smalltalk.QuoteString(imageLineEndings(source)) +
		" classified: " + smalltalk.QuoteString(protocol), nil
}

// removeExpr removes the ref's method. `removeSelector:` answers the class
// on Pharo 12/13, which cannot be serialized, so the expression answers
// whether the class had the method (true: removed; false: it was absent).
func removeExpr(r refactor.MethodRef) (string, error) {
	if err := r.Validate(); err != nil {
		return "", err
	}
	sel := smalltalk.QuoteSymbol(r.Selector)
	return "| had | had := " + classExpr(r) + " includesSelector: " + sel + ". " +
		classExpr(r) + " removeSelector: " + sel + ". had", nil
}

// understandsExpr asks whether the ref's class, on its side, understands
// the selector — the class, a trait it uses or a superclass implements it
// (Behavior>>canUnderstand:) — or, with fromSuper, whether its superclass
// does, which is where a send to super looks. Read-only; it answers a
// boolean (false for super of a class without a superclass). Beyond the
// expressions of docs/pharo-interop.md, for the checks of a candidate's helpers:
// a helper must not override an inherited method, and a send to self or
// super must reach a method.
//
//	(Smalltalk globals at: #Foo) canUnderstand: #bar
//	| s | s := (Smalltalk globals at: #Foo) superclass. (s notNil and: [ s canUnderstand: #bar ])
func understandsExpr(r refactor.MethodRef, fromSuper bool) (string, error) {
	if err := r.Validate(); err != nil {
		return "", err
	}
	sel := smalltalk.QuoteSymbol(r.Selector)
	if fromSuper {
		return "| s | s := " + classExpr(r) + " superclass. (s notNil and: [ s canUnderstand: " + sel + " ])", nil
	}
	return classExpr(r) + " canUnderstand: " + sel, nil
}

// classExistsExpr asks whether a global of that name exists.
func classExistsExpr(class string) (string, error) {
	if err := refactor.ValidateClassName(class); err != nil {
		return "", err
	}
	return "Smalltalk globals includesKey: #" + class, nil
}

// isTestCaseExpr asks whether a global is a class inheriting from TestCase,
// read-only: it answers true or false (false when either global is absent,
// or the global is not a class). Beyond the expressions of
// docs/pharo-interop.md, for the test gate: run_class_test on anything else raises
// MessageNotUnderstood (#suite).
//
//	| c t | c := Smalltalk globals at: #FooTest ifAbsent: [ nil ]. t := Smalltalk globals at: #TestCase ifAbsent: [ nil ]. (c notNil and: [ t notNil and: [ c isClass and: [ c inheritsFrom: t ] ] ])
func isTestCaseExpr(class string) (string, error) {
	if err := refactor.ValidateClassName(class); err != nil {
		return "", err
	}
	return "| c t | c := Smalltalk globals at: #" + class + " ifAbsent: [ nil ]. " +
		"t := Smalltalk globals at: #TestCase ifAbsent: [ nil ]. " +
		"(c notNil and: [ t notNil and: [ c isClass and: [ c inheritsFrom: t ] ] ])", nil
}

// imageLineEndings converts LF and CRLF to CR, the image's own line ending,
// so that installed sources look like sources written in the image.
func imageLineEndings(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\r")
	return strings.ReplaceAll(s, "\n", "\r")
}
