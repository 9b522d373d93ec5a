// Package tonel reads and writes Pharo's Tonel source format: one file per
// class, trait, extension or package, each holding an optional comment, a
// STON-like definition map and the methods of that class.
//
// A parsed File keeps its original bytes and the byte spans of everything it
// found, so an unchanged file writes back byte for byte and an edit rewrites
// only the text of the method it touches. Both the Pharo ≤11 symbol style
// (`#name : #Foo`, `{ #category : #accessing }`) and the Pharo 12+ string
// style (`#name : 'Foo'`, `{ #category : 'accessing' }`) are read; edits keep
// the style of the file they touch.
package tonel

import (
	"errors"
	"fmt"
	"strings"
)

// Kind says which definition a file holds.
type Kind int

// The four kinds of Tonel file.
const (
	KindClass     Kind = iota // Foo.class.st: `Class { … }`
	KindTrait                 // TFoo.trait.st: `Trait { … }`
	KindExtension             // Foo.extension.st: `Extension { … }`
	KindPackage               // package.st: `Package { … }`
)

// String returns the keyword that opens the definition ("Class", "Trait", …).
func (k Kind) String() string {
	switch k {
	case KindClass:
		return "Class"
	case KindTrait:
		return "Trait"
	case KindExtension:
		return "Extension"
	case KindPackage:
		return "Package"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// kindFromKeyword maps the word before `{` to a Kind.
func kindFromKeyword(word string) (Kind, bool) {
	switch word {
	case "Class":
		return KindClass, true
	case "Trait":
		return KindTrait, true
	case "Extension":
		return KindExtension, true
	case "Package":
		return KindPackage, true
	}
	return 0, false
}

// Side says whether a method belongs to the instance side or the class side.
type Side int

// The two sides of a class.
const (
	InstanceSide Side = iota
	ClassSide
)

// String returns "instance" or "class".
func (s Side) String() string {
	if s == ClassSide {
		return "class"
	}
	return "instance"
}

// Field is one entry of a definition map whose key this package does not
// model; Raw is the value's text exactly as written.
type Field struct {
	Key string
	Raw string
}

// Definition is the header of a Tonel file: its comment and definition map.
// Values are unquoted whatever the style they were written in; Traits and
// ClassTraits hold the trait composition expression (`TFoo + TBar`).
type Definition struct {
	Kind          Kind
	Comment       string // class comment without the quotes and surrounding newlines
	Name          string
	Superclass    string
	Type          string // `variable`, `bytes`, … ; empty for normal classes
	Traits        string
	ClassTraits   string
	InstVars      []string
	ClassVars     []string
	Pools         []string
	ClassInstVars []string
	Category      string
	Package       string
	Tag           string
	Extra         []Field // keys not listed above, in file order
	// SymbolStyle is true when the definition was written in the Pharo ≤11
	// style (`#name : #Foo`).
	SymbolStyle bool
}

// Method is one method of a file. The offsets are byte offsets into the
// file's bytes as they were when the file was parsed; an edit re-parses the
// file, so Method values taken before an edit describe the old bytes.
type Method struct {
	Class    string // class name as written in the method header
	Side     Side
	Selector string
	Category string // protocol; empty when the method has no metadata
	// Source is what the image holds: the declaration (trimmed) followed by
	// the body.
	Source string

	Start     int // first byte of the method: its metadata, else its header
	MetaStart int // `{` of the metadata, -1 when there is none
	MetaEnd   int // just after the metadata's `}`, -1 when there is none
	Header    int // first byte of `Foo >> …`
	DeclStart int // first byte of the declaration (after `>>` and blanks)
	DeclEnd   int // just after the declaration's last non-blank byte
	BodyStart int // just after the opening `[`
	BodyEnd   int // the newline before the closing `]` (or the `]` itself)
	End       int // just after the closing `]`

	sideWord    string // "class" or "classSide" as written; "" on the instance side
	catStart    int    // span of the category value inside the metadata, -1 if none
	catEnd      int
	catIsSymbol bool
}

// File is one parsed Tonel file. Its methods are in file order.
type File struct {
	Path    string
	Def     Definition
	Methods []*Method

	src    []byte
	text   string // src as a string, for the identifier scanners
	defEnd int    // just after the definition's closing `}`
}

// Kind returns the kind of definition the file holds.
func (f *File) Kind() Kind { return f.Def.Kind }

// Sources returns the sources of the file's methods on side, by selector.
func (f *File) Sources(side Side) map[string]string {
	out := map[string]string{}
	for _, m := range f.Methods {
		if m.Side == side {
			out[m.Selector] = m.Source
		}
	}
	return out
}

// Bytes returns the file's current bytes. The caller must not modify them.
func (f *File) Bytes() []byte { return f.src }

// Method returns the method with that side and selector, or nil.
func (f *File) Method(side Side, selector string) *Method {
	for _, m := range f.Methods {
		if m.Side == side && m.Selector == selector {
			return m
		}
	}
	return nil
}

// Errors an edit can return; test with errors.Is.
var (
	ErrMethodNotFound   = errors.New("method not found")
	ErrMethodExists     = errors.New("method already exists")
	ErrSelectorMismatch = errors.New("source defines a different selector")
)

// ParseError reports unreadable Tonel or method text at a position.
type ParseError struct {
	Path string // empty when parsing bytes that have no file name
	Line int    // 1-based
	Col  int    // 1-based, in runes
	Msg  string
}

// Error formats the error as "PATH:LINE:COL: MSG" (without PATH when empty).
func (e *ParseError) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Col, e.Msg)
}

// VarName answers the variable an entry of #instVars, #classVars or
// #classInstVars declares. A plain entry is the name itself; a slot is
// written `#name => SlotClass …` and declares name.
func VarName(entry string) string {
	entry = strings.TrimSpace(entry)
	if rest, ok := strings.CutPrefix(entry, "#"); ok {
		if end := scanIdent(rest, 0); end > 0 {
			return rest[:end]
		}
		return rest
	}
	if i := strings.IndexAny(entry, " \t\r\n"); i >= 0 {
		return entry[:i]
	}
	return entry
}
