package tonel

import (
	"bytes"
	"fmt"
	"strings"
)

// ReplaceMethodInPlace replaces the source of an existing method the way a
// person's editor would in that file: the source, in any line ending, is
// written in the line ending the method already uses (its closing
// bracket's line too), and its category is kept. Every other byte of the
// file stays as it was — other methods, metadata, blank lines, a missing
// final newline. ReplaceMethod, by contrast, writes LF, as the simulated
// image stores what it compiles.
func (f *File) ReplaceMethodInPlace(side Side, selector, source string) error {
	m := f.Method(side, selector)
	if m == nil {
		return fmt.Errorf("tonel: %s: %s: %w", f.Path, f.describe(side, selector), ErrMethodNotFound)
	}
	if err := f.checkSelector(side, selector, source); err != nil {
		return err
	}
	nl := f.lineEndingIn(m.Start, m.End)
	tail, err := methodTailWith(withLineEnding(strings.Trim(source, " \t\r\n\f\v"), nl), nl)
	if err != nil {
		return err
	}
	return f.applyAndCheckPlain([]edit{{m.DeclStart, m.End, tail}}, side, selector, source)
}

// AddMethodInPlace adds a new method where Pharo's writer would put it (as
// AddMethod does), written in the file's own line ending; every other byte
// of the file stays as it was.
func (f *File) AddMethodInPlace(side Side, source, category string) error {
	nl := f.LineEnding()
	at, chunk, err := f.newMethod(side, withLineEnding(strings.Trim(source, " \t\r\n\f\v"), nl), category, nl)
	if err != nil {
		return err
	}
	selector, _ := Selector(source)
	return f.applyAndCheckPlain([]edit{{at, at, nl + nl + chunk}}, side, selector, source)
}

// applyAndCheckPlain is applyAndCheck comparing sources whatever their line
// endings.
func (f *File) applyAndCheckPlain(edits []edit, side Side, selector, source string) error {
	next, err := f.edited(edits)
	if err != nil {
		return err
	}
	if got := next.Method(side, selector); got == nil || plainSource(got.Source) != plainSource(source) {
		return fmt.Errorf("tonel: %s: %s does not read back as written", f.Path, f.describe(side, selector))
	}
	*f = *next
	return nil
}

// LineEnding is the first line ending of the file ("\r\n", "\r" or "\n");
// "\n" when it has none.
func (f *File) LineEnding() string { return f.lineEndingIn(0, len(f.src)) }

// lineEndingIn is the first line ending in src[start:end], else the file's.
func (f *File) lineEndingIn(start, end int) string {
	for _, span := range [][]byte{f.src[start:end], f.src} {
		i := bytes.IndexAny(span, "\r\n")
		switch {
		case i < 0:
			continue
		case span[i] == '\n':
			return "\n"
		case i+1 < len(span) && span[i+1] == '\n':
			return "\r\n"
		default:
			return "\r"
		}
	}
	return "\n"
}

// withLineEnding writes s with every line ending (CRLF, CR or LF) as nl.
func withLineEnding(s, nl string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	if nl == "\n" {
		return s
	}
	return strings.ReplaceAll(s, "\n", nl)
}

// plainSource is a source with LF line endings and no blanks around it,
// for comparing what was asked with what reads back.
func plainSource(s string) string {
	return strings.Trim(withLineEnding(s, "\n"), " \t\n\f\v")
}
