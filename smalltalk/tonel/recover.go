package tonel

import (
	"errors"
	"sort"
	"strings"
)

// ParseFileRecovering reads as much of a file as it can, for a checker
// that wants every problem rather than the first. The comment and the
// definition must parse; a method whose text cannot be delimited is
// reported, and reading goes on at the next line that starts a method
// (`{` or `Name >>` at the start of a line). The errors are sorted by line;
// the File holds the methods that were read. Such a File is for reading
// only: an edit re-parses it strictly and fails.
func ParseFileRecovering(path string, data []byte) (*File, []*ParseError) {
	f := &File{Path: path, src: data, text: bytesAsString(data)}
	i, err := f.parseComment(skipBlanks(f.src, 0))
	if err == nil {
		i, err = f.parseDefinition(skipBlanks(f.src, i))
	}
	if err != nil {
		return nil, []*ParseError{f.asParseError(err)}
	}
	f.defEnd = i
	var errs []*ParseError
	for i = skipBlanks(f.src, i); i < len(f.src); i = skipBlanks(f.src, i) {
		m, err := f.parseMethod(i)
		if err != nil {
			// Resuming at the header of a method whose metadata was read
			// finds the same error again: report it once.
			if pe := f.asParseError(err); len(errs) == 0 || *errs[len(errs)-1] != *pe {
				errs = append(errs, pe)
			}
			i = f.nextMethodStart(i)
			continue
		}
		f.Methods = append(f.Methods, m)
		i = m.End
	}
	sort.SliceStable(errs, func(i, j int) bool {
		if errs[i].Line != errs[j].Line {
			return errs[i].Line < errs[j].Line
		}
		return errs[i].Col < errs[j].Col
	})
	return f, errs
}

// asParseError turns an error of the file's parser into a ParseError.
func (f *File) asParseError(err error) *ParseError {
	var se *syntaxErr
	if errors.As(err, &se) {
		return f.errorAt(se.off, se.msg)
	}
	var pe *ParseError
	if errors.As(err, &pe) {
		return pe
	}
	return &ParseError{Path: f.Path, Line: 1, Col: 1, Msg: err.Error()}
}

// nextMethodStart answers the first line after the one holding i that
// starts like a method: metadata `{`, or `Name >>` / `Name class >>`.
func (f *File) nextMethodStart(i int) int {
	for {
		nl := strings.IndexByte(f.text[i:], '\n')
		if nl < 0 {
			return len(f.src)
		}
		i += nl + 1
		if i < len(f.src) && (f.src[i] == '{' || f.looksLikeMethodHeader(i)) {
			return i
		}
	}
}

// looksLikeMethodHeader reports `Name >>`, `Name class >>` or
// `Name classSide >>` at i.
func (f *File) looksLikeMethodHeader(i int) bool {
	end := scanIdent(f.text, i)
	if end == i {
		return false
	}
	next := skipBlanks(f.src, end)
	if w := scanIdent(f.text, next); w > next {
		if word := f.text[next:w]; word != "class" && word != "classSide" {
			return false
		}
		next = skipBlanks(f.src, w)
	}
	return strings.HasPrefix(f.text[next:], ">>")
}
