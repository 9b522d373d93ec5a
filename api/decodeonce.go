package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strconv"

	wire "pharo-refactor/wire"
)

// A well-formed request body is read in one pass: every refused client on
// the busy path sends one, and reading it three times over (the key check,
// the wrapper probe, the struct decoder) was most of the work of refusing
// it. decodeOnce walks the body's tokens once, applying the strict rules
// as it goes — one JSON value, no key twice, keys exactly the fields' names,
// the wrapper alone — and sets the fields from scalar tokens. Anything it
// does not take as it is (a rule broken, a nested value, a token of another
// type than its field) it leaves to decodeRefactor's passes, which say
// precisely what is wrong; so it never accepts what they would refuse, and
// a fuzz target holds the two to the same answer.

// requestFields are the JSON names of wire.RefactorRequest's fields and
// their indexes.
var requestFields = fieldIndexes(reflect.TypeOf(wire.RefactorRequest{}))

func fieldIndexes(typ reflect.Type) map[string]int {
	out := map[string]int{}
	for i := range typ.NumField() {
		if name := jsonName(typ.Field(i).Tag.Get("json")); name != "" && name != "-" {
			out[name] = i
		}
	}
	return out
}

// decodeOnce answers the request when body is a well-formed request with
// scalar values; ok false sends the body to the strict passes.
func decodeOnce(body []byte) (req wire.RefactorRequest, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if !openObject(dec) {
		return req, false
	}
	v := reflect.ValueOf(&req).Elem()
	seen := make(map[string]bool, len(requestFields))
	first := true
	for dec.More() {
		key, ok := nextKey(dec)
		if !ok || seen[key] {
			return req, false
		}
		seen[key] = true
		if key == wrapperKey {
			// The wrapper must be the body's only key, holding the request.
			if !first || !openObject(dec) || !readFields(dec, v, map[string]bool{}) || dec.More() {
				return req, false
			}
			break
		}
		i, known := requestFields[key]
		if !known || !setScalar(dec, v.Field(i)) {
			return req, false
		}
		first = false
	}
	if !closes(dec, '}') {
		return req, false
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return req, false // trailing data
	}
	return withClassSide(req), true
}

// readFields reads the keys and scalar values of an opened request object
// up to and including its closing brace.
func readFields(dec *json.Decoder, v reflect.Value, seen map[string]bool) bool {
	for dec.More() {
		key, ok := nextKey(dec)
		if !ok || seen[key] {
			return false
		}
		seen[key] = true
		i, known := requestFields[key]
		if !known || !setScalar(dec, v.Field(i)) {
			return false
		}
	}
	return closes(dec, '}')
}

func openObject(dec *json.Decoder) bool {
	tok, err := dec.Token()
	return err == nil && tok == json.Delim('{')
}

func closes(dec *json.Decoder, d json.Delim) bool {
	tok, err := dec.Token()
	return err == nil && tok == d
}

func nextKey(dec *json.Decoder) (string, bool) {
	tok, err := dec.Token()
	key, ok := tok.(string)
	return key, err == nil && ok
}

// setScalar reads the next value into field when it is a scalar the field
// takes as encoding/json would: a string into a string, a boolean into a
// bool, an integer into an int, null into a pointer (nil) or leaving a
// value alone; a pointer field takes its element's scalar.
func setScalar(dec *json.Decoder, field reflect.Value) bool {
	tok, err := dec.Token()
	if err != nil {
		return false
	}
	if tok == nil {
		if field.Kind() == reflect.Pointer {
			field.SetZero()
		}
		return true
	}
	if field.Kind() == reflect.Pointer {
		elem := reflect.New(field.Type().Elem())
		if !assign(elem.Elem(), tok) {
			return false
		}
		field.Set(elem)
		return true
	}
	return assign(field, tok)
}

func assign(field reflect.Value, tok json.Token) bool {
	switch t := tok.(type) {
	case string:
		if field.Kind() != reflect.String {
			return false
		}
		field.SetString(t)
	case bool:
		if field.Kind() != reflect.Bool {
			return false
		}
		field.SetBool(t)
	case json.Number:
		if !field.CanInt() {
			return false
		}
		n, err := strconv.ParseInt(string(t), 10, 64)
		if err != nil || field.OverflowInt(n) {
			return false
		}
		field.SetInt(n)
	default:
		return false // an object or an array: the strict passes read it
	}
	return true
}
