package tonel

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseFile checks that no input panics the reader, that a parsed file
// writes back to the same bytes, that method offsets map into the file, and
// that rewriting a method through the writer reads back the same source.
func FuzzParseFile(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join(corpusRoot, "src", "*", "*.st"))
	broken, _ := filepath.Glob("../../testdata/broken/src/*/*.st")
	for _, p := range append(paths, broken...) {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	for _, s := range []string{
		"", "Class { #name : #Foo }", "\"\"\"\"Class{#name:'x'}Foo>>a[$]]",
		"Class { #name : #Foo }\nFoo >> a [ #( $) ')' ( ) ] ]\n",
		"Trait { #name : 'T' }\nT classSide >> + x [\n\t^ '[' \"]\"\n]\n",
		"Class { #name : 'Q', #category : 'a\\'b\\\\' }\n{ #category : 'drag\\'n\\'drop' }\nQ >> ± x [\n\t^ x\n]\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := ParseFile("fuzz.st", data)
		if err != nil {
			return
		}
		if string(file.Bytes()) != string(data) {
			t.Fatalf("bytes changed on a round trip")
		}
		for i, m := range file.Methods {
			checkMethodOffsets(t, file, m)
			if i < 3 {
				checkRewrite(t, file, i)
			}
		}
		checkAddRemove(t, file, data)
	})
}

// checkAddRemove adds a method and removes it again: the bytes must come
// back exactly, and a refused edit must leave them untouched.
func checkAddRemove(t *testing.T, file *File, data []byte) {
	for _, side := range []Side{ClassSide, InstanceSide} {
		if file.Method(side, "zzFuzzAdded") != nil {
			return
		}
		if err := file.AddMethod(side, "zzFuzzAdded\n\t^ #( $] ']' )", "fuzz"); err != nil {
			if string(file.Bytes()) != string(data) {
				t.Fatalf("a refused add changed the file: %v", err)
			}
			continue
		}
		if err := file.RemoveMethod(side, "zzFuzzAdded"); err != nil {
			t.Fatalf("remove after add: %v", err)
		}
		if string(file.Bytes()) != string(data) {
			t.Fatalf("add then remove changed the file:\n%q\n%q", data, file.Bytes())
		}
	}
}

// checkMethodOffsets verifies that every source byte maps to the same file byte.
func checkMethodOffsets(t *testing.T, file *File, m *Method) {
	for j := 0; j < len(m.Source); j++ {
		if off := m.SourceOffset(j); file.src[off] != m.Source[j] {
			t.Fatalf("%s: source byte %d maps to file byte %d", m.Selector, j, off)
		}
	}
	p := file.MethodPos(m, len(m.Source))
	if p.Line < 1 || p.Col < 1 {
		t.Fatalf("bad position %+v", p)
	}
}

// checkRewrite writes method i back through the writer and re-reads it. A
// body glued to the declaration (`Foo >> a [b]` has the source "ab", as in
// Pharo) defines another selector; such a source is not the method's and is
// skipped.
func checkRewrite(t *testing.T, file *File, i int) {
	m := file.Methods[i]
	if sel, err := Selector(m.Source); err != nil || sel != m.Selector {
		return
	}
	tail, err := methodTail(m.Source)
	if err != nil {
		t.Fatalf("%s: a parsed source cannot be written back: %v", m.Selector, err)
	}
	copied := *file
	if err := copied.apply([]edit{{m.DeclStart, m.End, tail}}); err != nil {
		t.Fatalf("%s: rewrite unreadable: %v", m.Selector, err)
	}
	if got := copied.Methods[i].Source; got != m.Source {
		t.Fatalf("%s: source %q became %q", m.Selector, m.Source, got)
	}
}
