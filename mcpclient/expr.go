package mcpclient

import (
	refactor "pharo-refactor"
	"strings"

	"pharo-refactor/smalltalk"
)

// The expressions of pharo-interop.md ("Expressions the service sends through
// eval"), built only from validated names and quoted literals. Each builder
// validates its inputs itself so that no caller can skip the check.

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

// removeExpr removes the ref's method (the image answers nil when absent).
func removeExpr(r refactor.MethodRef) (string, error) {
	if err := r.Validate(); err != nil {
		return "", err
	}
	return classExpr(r) + " removeSelector: " + smalltalk.QuoteSymbol(r.Selector), nil
}

// classExistsExpr asks whether a global of that name exists.
func classExistsExpr(class string) (string, error) {
	if err := refactor.ValidateClassName(class); err != nil {
		return "", err
	}
	return "Smalltalk globals includesKey: #" + class, nil
}

// imageLineEndings converts LF and CRLF to CR, the image's own line ending,
// so that installed sources look like sources written in the image.
func imageLineEndings(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\r")
	return strings.ReplaceAll(s, "\n", "\r")
}
