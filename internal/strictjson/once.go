package strictjson

import (
	"bytes"
	"reflect"
	"unicode/utf8"
)

// A well-formed request body is read in one pass: every refused client on
// the busy path sends one, and reading it three times over (the key check,
// the wrapper probe, the struct decoder) was most of the work of refusing
// it. decodeOnce scans the body once, applying the strict rules as it goes
// — one JSON object, no key twice, keys exactly the fields' names, the
// wrapper alone — and sets the fields from plain scalars: strings without
// escapes, true, false, null. Anything else (a rule broken, an escape, a
// number, a nested value, a scalar of another type than its field) it
// leaves to the strict passes (strict.go), which say precisely what is
// wrong or read it as encoding/json does; so it never accepts what they
// would refuse, and a fuzz target holds the two to the same answer.

// decodeOnce answers the value when body is a well-formed one of plain
// scalars, and whether it was wrapped; ok false sends the body to the
// strict passes.
func (d *Decoder[T]) decodeOnce(body []byte) (out T, wrapped, ok bool) {
	sc := scan{b: body, fields: d.fields}
	v := reflect.ValueOf(&out).Elem()
	if !sc.object(func(key string, first bool) bool {
		if key != d.wrapper || d.wrapper == "" {
			return sc.field(v, key)
		}
		// The wrapper must be the body's only key, holding the request.
		wrapped = true
		sc.space()
		return first && sc.object(func(key string, _ bool) bool { return sc.field(v, key) }) && sc.closing('}')
	}) {
		return out, false, false
	}
	sc.space()
	if sc.i != len(sc.b) {
		return out, false, false // trailing data
	}
	return out, wrapped, true
}

// scan reads a body byte by byte; every method answers false on what the
// one pass does not take.
type scan struct {
	b      []byte
	i      int
	fields map[string]int // each JSON name's field index
}

func (s *scan) space() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

// next consumes c after blanks.
func (s *scan) next(c byte) bool {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// closing tells whether the next byte after blanks is c, without taking it.
func (s *scan) closing(c byte) bool {
	s.space()
	return s.i < len(s.b) && s.b[s.i] == c
}

// object reads `{ "key": value, … }`; member reads each value after its
// key and colon and answers whether it took it. A key given twice is
// refused here, at any depth.
func (s *scan) object(member func(key string, first bool) bool) bool {
	if !s.next('{') {
		return false
	}
	if s.next('}') {
		return true
	}
	seen := make(map[string]bool, len(s.fields))
	for first := true; ; first = false {
		key, ok := s.str()
		if !ok || seen[key] || !s.next(':') {
			return false
		}
		seen[key] = true
		if !member(key, first) {
			return false
		}
		if s.next('}') {
			return true
		}
		if !s.next(',') {
			return false
		}
	}
}

// str reads a string without escapes or control characters, in UTF-8.
func (s *scan) str() (string, bool) {
	if !s.next('"') {
		return "", false
	}
	start := s.i
	for ; s.i < len(s.b); s.i++ {
		switch c := s.b[s.i]; {
		case c == '"':
			text := s.b[start:s.i]
			s.i++
			return string(text), utf8.Valid(text)
		case c == '\\' || c < 0x20:
			return "", false
		}
	}
	return "", false
}

// field reads the value of the field named key.
func (s *scan) field(v reflect.Value, key string) bool {
	i, known := s.fields[key]
	if !known {
		return false
	}
	f := v.Field(i)
	s.space()
	if s.i >= len(s.b) {
		return false
	}
	switch s.b[s.i] {
	case '"':
		text, ok := s.str()
		return ok && set(f, reflect.String, func(e reflect.Value) { e.SetString(text) })
	case 't':
		return s.word("true") && set(f, reflect.Bool, func(e reflect.Value) { e.SetBool(true) })
	case 'f':
		return s.word("false") && set(f, reflect.Bool, func(e reflect.Value) { e.SetBool(false) })
	case 'n':
		if !s.word("null") {
			return false
		}
		if f.Kind() == reflect.Pointer {
			f.SetZero() // as encoding/json: null empties a pointer, leaves a value alone
		}
		return true
	}
	return false // a number, an object, an array: the strict passes read it
}

// word consumes a literal, which must end there.
func (s *scan) word(w string) bool {
	if !bytes.HasPrefix(s.b[s.i:], []byte(w)) {
		return false
	}
	s.i += len(w)
	return s.i == len(s.b) || !isLetter(s.b[s.i])
}

func isLetter(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// set stores a scalar of kind into field, or into a new element of a
// pointer field; false when the field is of another kind.
func set(field reflect.Value, kind reflect.Kind, store func(reflect.Value)) bool {
	if field.Kind() == reflect.Pointer {
		elem := reflect.New(field.Type().Elem())
		if elem.Elem().Kind() != kind {
			return false
		}
		store(elem.Elem())
		field.Set(elem)
		return true
	}
	if field.Kind() != kind {
		return false
	}
	store(field)
	return true
}
