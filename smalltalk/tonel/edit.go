package tonel

import (
	"fmt"
	"os"
	"sort"
	"strings"
)

// edit replaces src[start:end] with text.
type edit struct {
	start, end int
	text       string
}

// SymbolStyle reports whether the file writes symbols (`#category : #foo`,
// Pharo ≤11) rather than strings. Method metadata decides; a file without
// categorized methods follows its definition.
func (f *File) SymbolStyle() bool {
	for _, m := range f.Methods {
		if m.catStart >= 0 {
			return m.catIsSymbol
		}
	}
	return f.Def.SymbolStyle
}

// ReplaceMethod replaces the source of an existing method, and its category
// when category is not empty and differs. Only the method's declaration and
// body change (and the category value of its metadata); every other byte of
// the file stays as it was. The new source must define the same selector.
func (f *File) ReplaceMethod(side Side, selector, source, category string) error {
	m := f.Method(side, selector)
	if m == nil {
		return fmt.Errorf("tonel: %s: %s: %w", f.Path, f.describe(side, selector), ErrMethodNotFound)
	}
	if err := f.checkSelector(side, selector, source); err != nil {
		return err
	}
	var edits []edit
	if source != m.Source {
		tail, err := methodTail(source)
		if err != nil {
			return err
		}
		edits = append(edits, edit{m.DeclStart, m.End, tail})
	}
	if category != "" && category != m.Category {
		edits = append(edits, f.categoryEdit(m, category))
	}
	return f.applyAndCheck(edits, side, selector, source)
}

// checkSelector fails unless source defines selector.
func (f *File) checkSelector(side Side, selector, source string) error {
	sel, err := Selector(source)
	if err != nil {
		return err
	}
	if sel != selector {
		return fmt.Errorf("tonel: %s: %s: source defines #%s: %w", f.Path, f.describe(side, selector), sel, ErrSelectorMismatch)
	}
	return nil
}

// categoryEdit rewrites the category of m's metadata, or adds metadata.
func (f *File) categoryEdit(m *Method, category string) edit {
	switch {
	case m.catStart >= 0:
		lit := quoteString(category)
		if m.catIsSymbol {
			lit = quoteSymbol(category)
		}
		return edit{m.catStart, m.catEnd, lit}
	case m.MetaStart >= 0:
		return edit{m.MetaStart, m.MetaEnd, FormatCategory(category, f.SymbolStyle())}
	}
	return edit{m.Header, m.Header, FormatCategory(category, f.SymbolStyle()) + "\n"}
}

// AddMethod inserts a new method where Pharo's writer would put it: class
// side first, each side sorted by selector. Its metadata follows the file's
// style; an empty category means DefaultCategory. Blank lines follow Tonel's
// convention: one blank line before each method.
func (f *File) AddMethod(side Side, source, category string) error {
	at, chunk, err := f.newMethod(side, source, category, "\n")
	if err != nil {
		return err
	}
	selector, _ := Selector(source)
	return f.applyAndCheck([]edit{{at, at, "\n\n" + chunk}}, side, selector, source)
}

// newMethod checks that a method can be added and answers where and what
// to insert (after a blank line), its lines ended by nl.
func (f *File) newMethod(side Side, source, category, nl string) (int, string, error) {
	if f.Def.Kind == KindPackage {
		return 0, "", fmt.Errorf("tonel: %s: a package definition holds no methods", f.Path)
	}
	if scanIdent(f.Def.Name, 0) != len(f.Def.Name) {
		return 0, "", fmt.Errorf("tonel: %s: cannot write methods of a class named %q", f.Path, f.Def.Name)
	}
	selector, err := Selector(source)
	if err != nil {
		return 0, "", err
	}
	if f.Method(side, selector) != nil {
		return 0, "", fmt.Errorf("tonel: %s: %s: %w", f.Path, f.describe(side, selector), ErrMethodExists)
	}
	tail, err := methodTailWith(source, nl)
	if err != nil {
		return 0, "", err
	}
	chunk := FormatCategory(categoryOrDefault(category), f.SymbolStyle()) + nl + f.header(side) + " >> " + tail
	return f.insertionPoint(&Method{Side: side, Selector: selector}), chunk, nil
}

// insertionPoint returns where a new method goes: just after the `]` of the
// last method that sorts before it (or after the definition). Inserting
// "\n\n" + method there is exactly what RemoveMethod takes away again.
func (f *File) insertionPoint(added *Method) int {
	at := f.defEnd
	for _, m := range f.Methods {
		if writesBefore(added, m) {
			break
		}
		at = m.End
	}
	return at
}

// header returns `Foo`, `Foo class` or `TFoo classSide` for a new method,
// spelling the class side the way the file already does.
func (f *File) header(side Side) string {
	if side == ClassSide {
		for _, m := range f.Methods {
			if m.Side == ClassSide {
				return f.Def.Name + " " + m.sideWord
			}
		}
	}
	return MethodHeader(f.Def.Kind, f.Def.Name, side)
}

// RemoveMethod deletes a method with its metadata and the blank line before
// it, so that removing what AddMethod added gives the old bytes back.
func (f *File) RemoveMethod(side Side, selector string) error {
	for i, m := range f.Methods {
		if m.Side != side || m.Selector != selector {
			continue
		}
		from := f.defEnd
		if i > 0 {
			from = f.Methods[i-1].End
		}
		return f.apply([]edit{{from, m.End, ""}})
	}
	return fmt.Errorf("tonel: %s: %s: %w", f.Path, f.describe(side, selector), ErrMethodNotFound)
}

// applyAndCheck applies edits, and keeps them only when the method reads back
// with the source it was given: a mismatch would mean the file no longer
// says what the caller asked for.
func (f *File) applyAndCheck(edits []edit, side Side, selector, source string) error {
	next, err := f.edited(edits)
	if err != nil {
		return err
	}
	m := next.Method(side, selector)
	if m == nil || m.Source != strings.TrimLeft(source, " \t\r\n\f\v") {
		return fmt.Errorf("tonel: %s: %s does not read back as written", f.Path, f.describe(side, selector))
	}
	*f = *next
	return nil
}

// apply rewrites the file's bytes and re-parses them; f is unchanged when
// the result would not parse.
func (f *File) apply(edits []edit) error {
	next, err := f.edited(edits)
	if err != nil {
		return err
	}
	*f = *next
	return nil
}

// edited returns the file re-parsed after the edits, leaving f as it is.
func (f *File) edited(edits []edit) (*File, error) {
	if len(edits) == 0 {
		return f, nil
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	var b strings.Builder
	last := 0
	for _, e := range edits {
		b.Write(f.src[last:e.start])
		b.WriteString(e.text)
		last = e.end
	}
	b.Write(f.src[last:])
	next, err := ParseFile(f.Path, []byte(b.String()))
	if err != nil {
		return nil, fmt.Errorf("tonel: edit would leave the file unreadable: %w", err)
	}
	return next, nil
}

// describe names a method for messages: `Foo>>bar` or `Foo class>>bar`.
func (f *File) describe(side Side, selector string) string {
	if side == ClassSide {
		return f.Def.Name + " class>>" + selector
	}
	return f.Def.Name + ">>" + selector
}

// Save writes the file's bytes to its Path atomically, keeping the mode of
// the file it replaces.
func (f *File) Save() error {
	perm := os.FileMode(0o644)
	if info, err := os.Stat(f.Path); err == nil {
		perm = info.Mode().Perm()
	}
	return WriteFileAtomic(f.Path, f.src, perm)
}
