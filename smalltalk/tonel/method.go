package tonel

import (
	"fmt"
	"strings"

	"github.com/pharo-refactor/refactord/smalltalk"
)

// parseMethod reads one method at i: optional metadata, the header
// `Foo [class|classSide] >> declaration [`, the body and its closing `]`.
func (f *File) parseMethod(i int) (*Method, error) {
	m := &Method{Start: i, MetaStart: -1, MetaEnd: -1, catStart: -1, catEnd: -1}
	if f.src[i] == '{' {
		if err := f.parseMetadata(m, i); err != nil {
			return nil, err
		}
		i = skipBlanks(f.src, m.MetaEnd)
	}
	m.Header = i
	arrows, err := f.parseMethodClass(m, i)
	if err != nil {
		return nil, err
	}
	open, err := f.findDeclarationEnd(m, arrows+2)
	if err != nil {
		return nil, err
	}
	m.DeclStart = skipBlanks(f.src, arrows+2)
	m.DeclEnd = open
	for m.DeclEnd > m.DeclStart && isBlank(f.src[m.DeclEnd-1]) {
		m.DeclEnd--
	}
	if err := f.deriveSelector(m); err != nil {
		return nil, err
	}
	m.BodyStart = open + 1
	closing, serr := findBodyEnd(f.text, m.BodyStart)
	if serr != nil {
		return nil, f.bodyError(m, serr)
	}
	m.BodyEnd = bodyEnd(f.src, m.BodyStart, closing)
	m.End = closing + 1
	m.Source = f.text[m.DeclStart:m.DeclEnd] + f.text[m.BodyStart:m.BodyEnd]
	return m, nil
}

// bodyError names the method whose body could not be delimited.
func (f *File) bodyError(m *Method, se *syntaxErr) error {
	name := m.Class + " >> " + m.Selector
	if m.Side == ClassSide {
		name = m.Class + " " + m.sideWord + " >> " + m.Selector
	}
	if se.off == m.BodyStart {
		// The scan ran off the end: point at the method, not past it.
		return &syntaxErr{m.Header, fmt.Sprintf("%s in %s", se.msg, name)}
	}
	return &syntaxErr{se.off, fmt.Sprintf("%s in %s", se.msg, name)}
}

// bodyEnd returns where the body text stops: at the newline before the
// closing `]` when only blanks follow it (Pharo writes `\n]`), else at the `]`.
func bodyEnd(src []byte, start, closing int) int {
	for j := closing - 1; j >= start; j-- {
		switch src[j] {
		case '\n':
			return j
		case ' ', '\t':
		default:
			return closing
		}
	}
	return closing
}

// parseMetadata reads `{ #category : … }` at i into m.
func (f *File) parseMetadata(m *Method, i int) error {
	entries, end, err := parseMap(f.src, i)
	if err != nil {
		return err
	}
	m.MetaStart, m.MetaEnd = i, end
	for _, e := range entries {
		if e.key != "category" {
			continue
		}
		v, err := parseValue(f.text[e.valStart:e.valEnd], e.valStart)
		if err != nil {
			return err
		}
		if v.kind == valArray {
			return &syntaxErr{e.valStart, "#category: a string or symbol expected"}
		}
		m.Category = v.text
		m.catStart, m.catEnd = e.valStart, e.valEnd
		m.catIsSymbol = v.kind == valSymbol
	}
	return nil
}

// parseMethodClass reads `Foo`, `Foo class` or `TFoo classSide` and the `>>`
// after it; it returns the offset of the `>>`.
func (f *File) parseMethodClass(m *Method, i int) (int, error) {
	s := f.text
	end := scanIdent(s, i)
	if end == i {
		return 0, &syntaxErr{i, "method definition expected: `Class >> selector [`"}
	}
	m.Class = s[i:end]
	next := skipBlanks(f.src, end)
	if wordEnd := scanIdent(s, next); wordEnd > next {
		word := s[next:wordEnd]
		if word != "class" && word != "classSide" {
			return 0, &syntaxErr{next, fmt.Sprintf("'>>' expected after %s, found %q", m.Class, word)}
		}
		m.Side, m.sideWord = ClassSide, word
		next = skipBlanks(f.src, wordEnd)
	}
	if !strings.HasPrefix(s[next:], ">>") {
		// Point at the header: the blanks skipped may have left its line.
		return 0, &syntaxErr{i, fmt.Sprintf("'>>' expected after %s", s[i:end])}
	}
	return next, nil
}

// findDeclarationEnd returns the offset of the `[` that opens the body; a
// comment in the declaration may hold brackets.
func (f *File) findDeclarationEnd(m *Method, i int) (int, error) {
	for i < len(f.src) {
		switch f.src[i] {
		case '[':
			return i, nil
		case '"':
			end, ok := smalltalk.QuoteEnd(f.text, i)
			if !ok {
				return 0, &syntaxErr{i, "unterminated comment in method declaration"}
			}
			i = end
			continue
		case ']', '{', '}', '\'', '^', '.':
			return 0, &syntaxErr{m.Header, "'[' expected after method declaration"}
		}
		i++
	}
	return 0, &syntaxErr{m.Header, "'[' expected after method declaration, found end of file"}
}

// deriveSelector sets m.Selector from the declaration, which must hold a
// method pattern and nothing but comments after it.
func (f *File) deriveSelector(m *Method) error {
	decl := f.text[m.DeclStart:m.DeclEnd]
	p, err := parsePattern(decl)
	if err != nil {
		return &syntaxErr{m.Header, "bad method declaration: " + err.Error()}
	}
	rest, err := skipBlanksAndComments(decl, p.end)
	if err != nil || rest != len(decl) {
		return &syntaxErr{m.Header, fmt.Sprintf("bad method declaration %q: unexpected text after the pattern", decl)}
	}
	m.Selector = p.selector
	return nil
}
