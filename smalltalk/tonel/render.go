package tonel

import (
	"fmt"
	"sort"
	"strings"
)

// DefaultCategory is the protocol Pharo gives a method compiled without one.
const DefaultCategory = "as yet unclassified"

// FormatCategory returns the metadata line of a method:
// `{ #category : 'accessing' }`, or `{ #category : #accessing }` in the
// Pharo ≤11 symbol style.
func FormatCategory(category string, symbolStyle bool) string {
	if symbolStyle {
		return "{ #category : " + quoteSymbol(category) + " }"
	}
	return "{ #category : " + quoteString(category) + " }"
}

// MethodHeader returns what precedes ` >> ` in a method definition: `Foo`,
// `Foo class`, or `TFoo classSide` for the class side of a trait.
func MethodHeader(kind Kind, class string, side Side) string {
	switch {
	case side == InstanceSide:
		return class
	case kind == KindTrait:
		return class + " classSide"
	}
	return class + " class"
}

// FormatMethod returns a method as Tonel writes it, without metadata:
// header + ` >> ` + declaration + ` [` + body + "\n]". It fails when the source
// has no method pattern, or when its brackets, strings or comments do not
// balance — Tonel could not read such a body back.
func FormatMethod(header, source string) (string, error) {
	tail, err := methodTail(source)
	if err != nil {
		return "", err
	}
	return header + " >> " + tail, nil
}

// methodTail returns `declaration [` + body + "\n]" for a source, after
// checking that the closing bracket is the one Tonel will find.
func methodTail(source string) (string, error) { return methodTailWith(source, "\n") }

// methodTailWith is methodTail with the closing bracket's line ended by nl.
func methodTailWith(source, nl string) (string, error) {
	decl, body, err := SplitSource(source)
	if err != nil {
		return "", err
	}
	tail := decl + " [" + body + nl + "]"
	closing, serr := findBodyEnd(tail, len(decl)+2)
	if serr != nil {
		return "", fmt.Errorf("tonel: source cannot be stored: %s in the body", serr.msg)
	}
	if closing != len(tail)-1 {
		return "", fmt.Errorf("tonel: source cannot be stored: its body closes a bracket it never opened")
	}
	return tail, nil
}

// Render writes a whole file from scratch the way Pharo 12's Tonel writer
// does (string style): the comment, the definition map with each key on its
// own line, then the methods, class side first and each side sorted by
// selector, each preceded by a blank line and its metadata. Methods need only
// Side, Source and Category (DefaultCategory when empty).
func Render(def Definition, methods []Method) ([]byte, error) {
	var b strings.Builder
	if def.Comment != "" {
		b.WriteString("\"\n" + strings.ReplaceAll(def.Comment, "\"", "\"\"") + "\n\"\n")
	}
	b.WriteString(renderDefinition(def))
	b.WriteString("\n")
	sorted, err := sortForWriting(methods)
	if err != nil {
		return nil, err
	}
	for _, m := range sorted {
		text, err := FormatMethod(MethodHeader(def.Kind, def.Name, m.Side), m.Source)
		if err != nil {
			return nil, fmt.Errorf("rendering %s>>%s: %w", def.Name, m.Selector, err)
		}
		b.WriteString("\n" + FormatCategory(categoryOrDefault(m.Category), false) + "\n" + text + "\n")
	}
	return []byte(b.String()), nil
}

// categoryOrDefault returns the category, or Pharo's default when empty.
func categoryOrDefault(c string) string {
	if c == "" {
		return DefaultCategory
	}
	return c
}

// sortForWriting returns copies of the methods with their selectors filled
// in, class side first, each side sorted by selector.
func sortForWriting(methods []Method) ([]Method, error) {
	sorted := make([]Method, len(methods))
	for i, m := range methods {
		sel, err := Selector(m.Source)
		if err != nil {
			return nil, fmt.Errorf("method %d: %w", i, err)
		}
		m.Selector = sel
		sorted[i] = m
	}
	sort.SliceStable(sorted, func(i, j int) bool { return writesBefore(&sorted[i], &sorted[j]) })
	return sorted, nil
}

// writesBefore is the order of methods in a Tonel file: class side first,
// then by selector (byte order, as Pharo's String < does).
func writesBefore(a, b *Method) bool {
	if a.Side != b.Side {
		return a.Side == ClassSide
	}
	return a.Selector < b.Selector
}

// definitionEntry is one rendered `#key : value`.
type definitionEntry struct {
	key   string
	value string
}

// renderDefinition writes `Class { … }` in the string style: one entry on one
// line, several entries one per line, tab-indented.
func renderDefinition(def Definition) string {
	entries := definitionEntries(def)
	if len(entries) == 1 {
		return def.Kind.String() + " { " + quoteSymbol(entries[0].key) + " : " + entries[0].value + " }"
	}
	parts := make([]string, len(entries))
	for i, e := range entries {
		parts[i] = "\t" + quoteSymbol(e.key) + " : " + e.value
	}
	return def.Kind.String() + " {\n" + strings.Join(parts, ",\n") + "\n}"
}

// definitionEntries lists the non-empty keys in Pharo's order.
func definitionEntries(def Definition) []definitionEntry {
	var out []definitionEntry
	add := func(key, v string) {
		if v != "" {
			out = append(out, definitionEntry{key, quoteString(v)})
		}
	}
	addList := func(key string, names []string) {
		if len(names) > 0 {
			out = append(out, definitionEntry{key, renderList(names)})
		}
	}
	add("name", def.Name)
	add("superclass", def.Superclass)
	add("type", def.Type)
	add("traits", def.Traits)
	add("classTraits", def.ClassTraits)
	addList("instVars", def.InstVars)
	addList("classVars", def.ClassVars)
	addList("pools", def.Pools)
	addList("classInstVars", def.ClassInstVars)
	add("category", def.Category)
	add("package", def.Package)
	add("tag", def.Tag)
	for _, e := range def.Extra {
		out = append(out, definitionEntry{e.Key, e.Raw})
	}
	return out
}

// renderList writes an array of names, one per line as Pharo does.
func renderList(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = "\t\t" + quoteString(n)
	}
	return "[\n" + strings.Join(quoted, ",\n") + "\n\t]"
}
