package tonel

import "unicode/utf8"

// Pos is a place in a file: a byte offset and its 1-based line and column;
// the column counts runes, so it matches what an editor shows.
type Pos struct {
	Offset int
	Line   int
	Col    int
}

// PosAt returns the position of a byte offset of the file, clamped to the
// file. `\n`, `\r\n` and a lone `\r` each end a line.
func (f *File) PosAt(off int) Pos {
	off = max(0, min(off, len(f.src)))
	line, lineStart := 1, 0
	for i := 0; i < off; i++ {
		switch f.src[i] {
		case '\n':
			line, lineStart = line+1, i+1
		case '\r':
			if i+1 >= len(f.src) || f.src[i+1] != '\n' {
				line, lineStart = line+1, i+1
			}
		}
	}
	return Pos{Offset: off, Line: line, Col: utf8.RuneCount(f.src[lineStart:off]) + 1}
}

// SourceOffset maps a byte offset into m.Source to the byte offset in the
// file: the declaration part maps into the header, the rest into the body.
// Offsets outside the source are clamped to it.
func (m *Method) SourceOffset(off int) int {
	off = max(0, min(off, len(m.Source)))
	declLen := m.DeclEnd - m.DeclStart
	if off < declLen {
		return m.DeclStart + off
	}
	return m.BodyStart + off - declLen
}

// MethodPos returns the file position of a byte offset into m.Source, for
// reporting an error the method parser found at that offset. m must be a
// method of f as currently parsed.
func (f *File) MethodPos(m *Method, off int) Pos {
	return f.PosAt(m.SourceOffset(off))
}
