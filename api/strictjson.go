package api

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

// keyError names the offending key and where it is.
type keyError struct {
	Field   string // the key, prefixed by its enclosing keys: refactor_request.dry_run
	Message string
	Type    string // the original's error type (see wire.FieldError)
}

func (e *keyError) Error() string { return fmt.Sprintf("%q %s", e.Field, e.Message) }

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
				return &keyError{Field: joinPath(path, key), Message: "is given more than once", Type: "duplicate_key"}
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

// exactKeys refuses keys of obj that are not, exactly, the JSON names of
// typ's fields; a key differing only in case names the field it resembles.
func exactKeys(obj map[string]json.RawMessage, typ reflect.Type, path string, extra ...string) error {
	names := append(jsonNames(typ), extra...)
	for key := range obj {
		if slices.Contains(names, key) {
			continue
		}
		for _, n := range names {
			if strings.EqualFold(n, key) {
				return &keyError{Field: joinPath(path, key), Message: fmt.Sprintf("is not a field: keys are case-sensitive (did you mean %q?)", n), Type: "extra_forbidden"}
			}
		}
		return &keyError{Field: joinPath(path, key), Message: "is not a field of the request", Type: "extra_forbidden"}
	}
	return nil
}

func jsonNames(typ reflect.Type) []string {
	var names []string
	for i := range typ.NumField() {
		if name := jsonName(typ.Field(i).Tag.Get("json")); name != "" && name != "-" {
			names = append(names, name)
		}
	}
	return names
}
