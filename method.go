package refactor

import (
	"strings"
)

// MethodRef names one method of the image: a class, a selector and a side.
// Every name the service sends to the image or puts into a prompt comes
// from a validated MethodRef, so nothing a client or a model says can
// become code in the image.
type MethodRef struct {
	Class     string
	Selector  string
	ClassSide bool
}

// String renders the ref as Pharo prints it: `Foo>>bar` or `Foo class>>bar`.
func (r MethodRef) String() string {
	if r.ClassSide {
		return r.Class + " class>>" + r.Selector
	}
	return r.Class + ">>" + r.Selector
}

// Validate checks both names (ValidateClassName, ValidateSelector).
func (r MethodRef) Validate() error {
	if err := ValidateClassName(r.Class); err != nil {
		return err
	}
	return ValidateSelector(r.Selector)
}

// Limits of the names the service accepts. Real Pharo names are far
// shorter; the bound keeps prompts and expressions small.
const (
	maxClassNameLen = 256
	maxSelectorLen  = 256
)

// The accepted shapes (docs/pharo-interop.md): class names
// [A-Z][A-Za-z0-9_]*; selectors unary (an identifier), binary (a run of
// + - / \ * ~ < > = @ , % | & ? ! and Pharo 13's ± × ÷ ·) or keyword
// (identifiers each followed by a colon). Identifiers are ASCII only.
// They are checked by hand rather than by regular expressions: every
// request is checked, refused ones too, and the expressions were most of
// the cost of validating one (method_test.go holds them and compares).

func isClassNameShape(s string) bool {
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isIdentifierByte(s[i]) {
			return false
		}
	}
	return true
}

func isSelectorShape(s string) bool {
	switch {
	case s == "":
		return false
	case isIdentifierStart(s[0]):
		return isUnaryOrKeyword(s)
	default:
		return isBinarySelector(s)
	}
}

// isUnaryOrKeyword: one identifier, or identifiers each followed by a
// colon.
func isUnaryOrKeyword(s string) bool {
	for i := 0; i < len(s); {
		if !isIdentifierStart(s[i]) {
			return false
		}
		j := i + 1
		for j < len(s) && isIdentifierByte(s[j]) {
			j++
		}
		if j == len(s) {
			return i == 0 // unary; a keyword selector's last part has its colon
		}
		if s[j] != ':' {
			return false
		}
		i = j + 1
	}
	return true
}

func isBinarySelector(s string) bool {
	for _, r := range s {
		switch r {
		case '-', '+', '/', '\\', '*', '~', '<', '>', '=', '@', ',', '%', '|', '&', '?', '!', '±', '×', '÷', '·':
		default:
			return false
		}
	}
	return true
}

func isIdentifierStart(b byte) bool {
	return b == '_' || ('a' <= b && b <= 'z') || ('A' <= b && b <= 'Z')
}

func isIdentifierByte(b byte) bool { return isIdentifierStart(b) || ('0' <= b && b <= '9') }

// ValidateClassName says, as an invalid_request, why name is not a class
// name the service accepts; nil when it is one.
func ValidateClassName(name string) error {
	switch {
	case name == "":
		return Errorf(InvalidRequest, "the class name is empty")
	case len(name) > maxClassNameLen:
		return Errorf(InvalidRequest, "the class name is longer than %d characters", maxClassNameLen)
	case !isClassNameShape(name):
		return Errorf(InvalidRequest, "%q is not a class name (a capital letter, then letters, digits or _)", name)
	}
	return nil
}

// ValidateSelector says, as an invalid_request, why sel is not a selector
// the service accepts; nil when it is one.
func ValidateSelector(sel string) error {
	switch {
	case sel == "":
		return Errorf(InvalidRequest, "the selector is empty")
	case len(sel) > maxSelectorLen:
		return Errorf(InvalidRequest, "the selector is longer than %d characters", maxSelectorLen)
	case !isSelectorShape(sel):
		return Errorf(InvalidRequest, "%q is not a selector (unary foo, binary +, keyword at:put:)", sel)
	}
	return nil
}

// IsClassName reports whether ValidateClassName accepts name.
func IsClassName(name string) bool { return ValidateClassName(name) == nil }

// IsSelector reports whether ValidateSelector accepts sel.
func IsSelector(sel string) bool { return ValidateSelector(sel) == nil }

// Method is a method as read from the image: its source (LF line endings)
// and the protocol it is classified in.
type Method struct {
	Ref      MethodRef
	Source   string
	Protocol string
}

// NormalizeSource converts CR and CRLF to LF: the image answers CR line
// endings, sources inside the service are LF.
func NormalizeSource(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}

// SameSource compares two method sources as docs/pharo-interop.md says: after
// normalizing line endings and trailing blanks.
func SameSource(a, b string) bool {
	return canonicalSource(a) == canonicalSource(b)
}

func canonicalSource(s string) string {
	lines := strings.Split(NormalizeSource(s), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}
