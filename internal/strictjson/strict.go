// Package strictjson reads a JSON request body into a struct strictly, so
// that every reader of the same bytes sees the same request: one JSON
// object, optionally wrapped in one named key; no key twice at any depth;
// keys exactly the fields' JSON names (encoding/json would match them in
// any case); no trailing data; a value of the wrong type named by its
// field. Its one entry point is Decoder.Decode. A well-formed body is read
// in a single pass (once.go); the others go through the strict passes
// here, which say what is wrong with them.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
)

// encoding/json matches object keys to fields case-insensitively and lets a
// later duplicate key win. A gateway or a log reading the same body may see
// a different request: {"dry_run": true, "Dry_Run": false} is a dry run to
// one reader and a release to the other. Every body is therefore checked on
// its token stream first: no key twice in one object, at any depth.

// maxJSONDepth bounds nesting; the request is two levels deep.
const maxJSONDepth = 32

// KeyError names the offending key and where it is.
type KeyError struct {
	Field   string // the key, prefixed by its enclosing keys: refactor_request.dry_run
	Message string
	// Type is the error's type as pydantic names it: duplicate_key,
	// extra_forbidden, string_type, bool_type or type_error.
	Type string
}

func (e *KeyError) Error() string { return fmt.Sprintf("%q %s", e.Field, e.Message) }

// Decoder reads bodies holding a T, a struct whose fields have JSON
// names, bare or wrapped in the key wrapper. It holds only what it learns
// of T once, so one Decoder serves any number of goroutines.
type Decoder[T any] struct {
	wrapper string
	typ     reflect.Type
	names   []string       // the fields' JSON names
	fields  map[string]int // each JSON name's field index
}

// New learns T's fields; wrapper is the key that may wrap the object ("" for none).
func New[T any](wrapper string) *Decoder[T] {
	typ := reflect.TypeFor[T]()
	d := &Decoder[T]{wrapper: wrapper, typ: typ, fields: map[string]int{}}
	for i := range typ.NumField() {
		if name := jsonName(typ.Field(i).Tag.Get("json")); name != "" && name != "-" {
			d.names = append(d.names, name)
			d.fields[name] = i
		}
	}
	return d
}

// Decode reads body as a T, and reports whether it was wrapped. A refused
// body's error says why; a *KeyError names the key at fault.
func (d *Decoder[T]) Decode(body []byte) (v T, wrapped bool, err error) {
	if v, wrapped, ok := d.decodeOnce(body); ok {
		return v, wrapped, nil
	}
	return d.strictDecode(body)
}

// strictDecode checks the keys, then decodes.
func (d *Decoder[T]) strictDecode(body []byte) (v T, wrapped bool, err error) {
	if err := checkJSONKeys(body); err != nil {
		return v, false, err
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(body, &probe); err != nil || probe == nil {
		return v, false, errors.New("the body is not a JSON object")
	}
	inner := body
	if obj, ok := probe[d.wrapper]; ok && d.wrapper != "" {
		if len(probe) != 1 {
			return v, true, fmt.Errorf("%q must be the only field when present", d.wrapper)
		}
		var keys map[string]json.RawMessage
		if err := json.Unmarshal(obj, &keys); err != nil || keys == nil {
			return v, true, fmt.Errorf("%q must be a JSON object", d.wrapper)
		}
		if err := exactKeys(keys, d.names, d.wrapper); err != nil {
			return v, true, err
		}
		inner, wrapped = obj, true
	} else if err := exactKeys(probe, d.names, "", d.extraKeys()...); err != nil {
		return v, false, err
	}
	dec := json.NewDecoder(bytes.NewReader(inner))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		path := ""
		if wrapped {
			path = d.wrapper
		}
		return v, wrapped, typeError(err, path)
	}
	if dec.More() {
		return v, wrapped, errors.New("trailing data after the JSON object")
	}
	return v, wrapped, nil
}

// extraKeys are the keys beside the fields' names a bare object may hold:
// the wrapper, which strictDecode refuses there with its own message.
func (d *Decoder[T]) extraKeys() []string {
	if d.wrapper == "" {
		return nil
	}
	return []string{d.wrapper}
}

// typeError names the field of a value of the wrong JSON type.
func typeError(err error, path string) error {
	var ute *json.UnmarshalTypeError
	if !errors.As(err, &ute) || ute.Field == "" {
		return fmt.Errorf("the body does not match the request schema: %w", err)
	}
	want := map[reflect.Kind]string{reflect.String: "a string", reflect.Bool: "true or false"}[ute.Type.Kind()]
	if want == "" {
		want = "of type " + ute.Type.String()
	}
	return &KeyError{Field: joinPath(path, ute.Field), Message: fmt.Sprintf("must be %s, not a JSON %s", want, ute.Value), Type: jsonTypeError(ute.Type.Kind())}
}

func jsonTypeError(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "string_type"
	case reflect.Bool:
		return "bool_type"
	}
	return "type_error"
}

func jsonName(tag string) string {
	name, _, _ := strings.Cut(tag, ",")
	return name
}

// checkJSONKeys reads body as exactly one JSON value and refuses a key given
// twice in the same object (compared after unescaping, exactly).
func checkJSONKeys(body []byte) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := walkValue(dec, "", 0); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

func walkValue(dec *json.Decoder, path string, depth int) error {
	if depth > maxJSONDepth {
		return fmt.Errorf("the JSON is nested more than %d levels deep", maxJSONDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("the body is not valid JSON: %w", err)
	}
	switch tok {
	case json.Delim('{'):
		seen := map[string]bool{}
		for dec.More() {
			keyTok, err := dec.Token()
			if err != nil {
				return fmt.Errorf("the body is not valid JSON: %w", err)
			}
			key, _ := keyTok.(string) // the decoder only yields strings here
			if seen[key] {
				return &KeyError{Field: joinPath(path, key), Message: "is given more than once", Type: "duplicate_key"}
			}
			seen[key] = true
			if err := walkValue(dec, joinPath(path, key), depth+1); err != nil {
				return err
			}
		}
	case json.Delim('['):
		for i := 0; dec.More(); i++ {
			if err := walkValue(dec, fmt.Sprintf("%s[%d]", path, i), depth+1); err != nil {
				return err
			}
		}
	default:
		return nil
	}
	if _, err := dec.Token(); err != nil { // the closing delimiter
		return fmt.Errorf("the body is not valid JSON: %w", err)
	}
	return nil
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// exactKeys refuses keys of obj that are not, exactly, one of names (or
// extra); a key differing only in case names the field it resembles.
func exactKeys(obj map[string]json.RawMessage, fieldNames []string, path string, extra ...string) error {
	names := append(slices.Clip(fieldNames), extra...)
	for key := range obj {
		if slices.Contains(names, key) {
			continue
		}
		for _, n := range names {
			if strings.EqualFold(n, key) {
				return &KeyError{Field: joinPath(path, key), Message: fmt.Sprintf("is not a field: keys are case-sensitive (did you mean %q?)", n), Type: "extra_forbidden"}
			}
		}
		return &KeyError{Field: joinPath(path, key), Message: "is not a field of the request", Type: "extra_forbidden"}
	}
	return nil
}
