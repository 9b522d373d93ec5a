package tonel

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/pharo-refactor/refactord/smalltalk"
	"unsafe"
)

// ReadFile reads and parses one Tonel file.
func ReadFile(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tonel: %w", err)
	}
	return ParseFile(path, data)
}

// ParseFile parses the bytes of one Tonel file: `.class.st`, `.trait.st`,
// `.extension.st` or `package.st` (the kind comes from the definition, not
// the name). path is used in error messages and by Save. The File keeps data;
// the caller must not modify it afterwards. Errors are *ParseError.
func ParseFile(path string, data []byte) (*File, error) {
	f := &File{Path: path, src: data, text: bytesAsString(data)}
	if err := f.parse(); err != nil {
		var se *syntaxErr
		if errors.As(err, &se) {
			return nil, f.errorAt(se.off, se.msg)
		}
		return nil, err
	}
	return f, nil
}

// bytesAsString answers data as a string without copying it. The File
// never modifies its bytes (an edit makes new ones) and ParseFile's caller
// must not either, so the string and the slice can share memory: a file is
// held once, not twice.
func bytesAsString(data []byte) string {
	if len(data) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(data), len(data))
}

// Text answers the file's current bytes as a string (the same memory as
// Bytes). Strings taken from it stay valid: an edit makes new bytes.
func (f *File) Text() string { return f.text }

// errorAt builds a ParseError at a byte offset of the file.
func (f *File) errorAt(off int, msg string) *ParseError {
	p := f.PosAt(off)
	return &ParseError{Path: f.Path, Line: p.Line, Col: p.Col, Msg: msg}
}

// parse fills the definition and methods from f.src.
func (f *File) parse() error {
	i, err := f.parseComment(skipBlanks(f.src, 0))
	if err != nil {
		return err
	}
	if i, err = f.parseDefinition(skipBlanks(f.src, i)); err != nil {
		return err
	}
	f.defEnd = i
	for i = skipBlanks(f.src, i); i < len(f.src); i = skipBlanks(f.src, i) {
		m, err := f.parseMethod(i)
		if err != nil {
			return err
		}
		f.Methods = append(f.Methods, m)
		i = m.End
	}
	return nil
}

// parseComment reads the optional class comment at i. Pharo writes it as
// `"` newline text newline `"`; those two newlines are not part of it.
func (f *File) parseComment(i int) (int, error) {
	if i >= len(f.src) || f.src[i] != '"' {
		return i, nil
	}
	end, ok := smalltalk.QuoteEnd(f.text, i)
	if !ok {
		return 0, &syntaxErr{i, "unterminated class comment"}
	}
	text := unquote(f.text[i:end])
	text = trimOneNewline(text)
	f.Def.Comment = text
	return end, nil
}

// trimOneNewline drops one line break at each end of s.
func trimOneNewline(s string) string {
	for _, nl := range []string{"\r\n", "\n", "\r"} {
		if strings.HasPrefix(s, nl) {
			s = s[len(nl):]
			break
		}
	}
	for _, nl := range []string{"\r\n", "\n", "\r"} {
		if strings.HasSuffix(s, nl) {
			s = s[:len(s)-len(nl)]
			break
		}
	}
	return s
}

// parseDefinition reads `Class { … }` (or Trait, Extension, Package) at i
// and returns the offset just after its `}`.
func (f *File) parseDefinition(i int) (int, error) {
	s := f.text
	wordEnd := scanIdent(s, i)
	kind, ok := kindFromKeyword(s[i:wordEnd])
	if !ok {
		return 0, &syntaxErr{i, "definition expected: Class, Trait, Extension or Package followed by '{'"}
	}
	f.Def.Kind = kind
	open := skipBlanks(f.src, wordEnd)
	if open >= len(f.src) || f.src[open] != '{' {
		return 0, &syntaxErr{open, fmt.Sprintf("'{' expected after %s", kind)}
	}
	entries, end, serr := parseMap(f.src, open)
	if serr != nil {
		return 0, serr
	}
	if err := f.fillDefinition(entries); err != nil {
		return 0, err
	}
	if f.Def.Name == "" {
		return 0, &syntaxErr{open, fmt.Sprintf("%s definition has no #name", kind)}
	}
	return end, nil
}

// fillDefinition stores the map entries in f.Def.
func (f *File) fillDefinition(entries []mapEntry) error {
	for _, e := range entries {
		raw := f.text[e.valStart:e.valEnd]
		switch e.key {
		case "traits", "classTraits":
			f.setTraits(e.key, raw)
			continue
		}
		target := f.Def.stringField(e.key)
		list := f.Def.listField(e.key)
		if target == nil && list == nil {
			f.Def.Extra = append(f.Def.Extra, Field{Key: e.key, Raw: raw})
			continue
		}
		v, err := parseValue(raw, e.valStart)
		if err != nil {
			return err
		}
		if err := storeValue(e, v, target, list); err != nil {
			return err
		}
		if e.key == "name" {
			f.Def.SymbolStyle = v.kind == valSymbol
		}
	}
	return nil
}

// setTraits keeps a trait composition as written, unquoting it when it is a
// single string (`'TFoo + TBar'` and `TFoo + TBar` mean the same).
func (f *File) setTraits(key, raw string) {
	text := raw
	if v, err := parseValue(raw, 0); err == nil && v.kind != valArray {
		text = v.text
	}
	if key == "traits" {
		f.Def.Traits = text
	} else {
		f.Def.ClassTraits = text
	}
}

// storeValue writes a parsed value into the scalar or list field it belongs to.
func storeValue(e mapEntry, v value, target *string, list *[]string) error {
	if target != nil {
		if v.kind == valArray {
			return &syntaxErr{e.valStart, fmt.Sprintf("#%s: a string or symbol expected, found an array", e.key)}
		}
		*target = v.text
		return nil
	}
	if v.kind != valArray {
		// Old writers put variable names in one space-separated string.
		*list = strings.Fields(v.text)
		return nil
	}
	names := make([]string, 0, len(v.items))
	for _, it := range v.items {
		if it.kind == valArray {
			return &syntaxErr{e.valStart, fmt.Sprintf("#%s: names expected, found a nested array", e.key)}
		}
		names = append(names, it.text)
	}
	*list = names
	return nil
}

// stringField returns the scalar field a key names, or nil.
func (d *Definition) stringField(key string) *string {
	switch key {
	case "name":
		return &d.Name
	case "superclass":
		return &d.Superclass
	case "type":
		return &d.Type
	case "category":
		return &d.Category
	case "package":
		return &d.Package
	case "tag":
		return &d.Tag
	}
	return nil
}

// listField returns the list field a key names, or nil.
func (d *Definition) listField(key string) *[]string {
	switch key {
	case "instVars":
		return &d.InstVars
	case "classVars":
		return &d.ClassVars
	case "pools":
		return &d.Pools
	case "classInstVars":
		return &d.ClassInstVars
	}
	return nil
}
