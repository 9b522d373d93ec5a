package interp

import (
	"strings"
	"unicode/utf8"
)

// Char is a Character.
type Char rune

// Symbol is a Symbol: immutable, equal by value.
type Symbol string

func str(o Object) string { return string(runesOf(o)) }

func symOf(o Object) string {
	switch v := o.(type) {
	case Symbol:
		return string(v)
	case *Instance:
		return string(v.str)
	}
	return ""
}

func isStringy(o Object) bool {
	switch v := o.(type) {
	case Symbol:
		return true
	case *Instance:
		return v.str != nil || v.class.kind == "string"
	}
	return false
}

// runeCount is the size of a String or a Symbol.
func runeCount(o Object) int {
	switch v := o.(type) {
	case Symbol:
		return utf8.RuneCountInString(string(v))
	case *Instance:
		return len(v.str)
	}
	return 0
}

// classOfString is the class of a string made from r: r's own, or String
// for a Symbol.
func classOfString(in *Interp, r Object) *Class {
	if c, ok := r.(*Instance); ok {
		return c.class
	}
	return in.classes["String"]
}

func runesOf(o Object) []rune {
	switch v := o.(type) {
	case Symbol:
		return []rune(string(v))
	case *Instance:
		return v.str
	}
	return nil
}

func numArgs(sel string) int {
	if sel == "" {
		return 0
	}
	if strings.ContainsRune("+-/\\*~<>=@,%|&?!", rune(sel[0])) {
		return 1
	}
	return strings.Count(sel, ":")
}
