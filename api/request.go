package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	wire "pharo-refactor/wire"
	"reflect"
	"strings"

	"github.com/go-playground/validator/v10"

	refactor "pharo-refactor"
)

// newValidator registers the Smalltalk tags.
func newValidator() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(func(f reflect.StructField) string { return jsonName(f.Tag.Get("json")) })
	_ = v.RegisterValidation("smalltalk_class", func(fl validator.FieldLevel) bool {
		return refactor.IsClassName(fl.Field().String())
	})
	_ = v.RegisterValidation("smalltalk_selector", func(fl validator.FieldLevel) bool {
		return refactor.IsSelector(fl.Field().String())
	})
	return v
}

func jsonName(tag string) string {
	name, _, _ := strings.Cut(tag, ",")
	return name
}

// errBodyTooLarge marks a body over the limit.
var errBodyTooLarge = errors.New("body too large")

// readBody reads at most limit bytes.
func readBody(r *http.Request, limit int64) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading the body: %w", err)
	}
	if int64(len(body)) > limit {
		return nil, errBodyTooLarge
	}
	return body, nil
}

// decodeRefactor parses either body form strictly: a key given twice (at
// any depth), a key that is not exactly a field's name, trailing data and
// wrong types are refused. A well-formed body is read in one pass
// (decodeonce.go); the others go through strictDecode, which says what is
// wrong with them.
func decodeRefactor(body []byte) (wire.RefactorRequest, error) {
	if req, ok := decodeOnce(body); ok {
		return req, nil
	}
	return strictDecode(body)
}

// strictDecode checks the keys, then decodes.
func strictDecode(body []byte) (wire.RefactorRequest, error) {
	if err := checkJSONKeys(body); err != nil {
		return wire.RefactorRequest{}, err
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(body, &probe); err != nil || probe == nil {
		return wire.RefactorRequest{}, errors.New("the body is not a JSON object")
	}
	fields := reflect.TypeOf(wire.RefactorRequest{})
	inner := body
	if wrapped, ok := probe[wrapperKey]; ok {
		if len(probe) != 1 {
			return wire.RefactorRequest{}, errors.New(`"refactor_request" must be the only field when present`)
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(wrapped, &obj); err != nil || obj == nil {
			return wire.RefactorRequest{}, errors.New(`"refactor_request" must be a JSON object`)
		}
		if err := exactKeys(obj, fields, wrapperKey); err != nil {
			return wire.RefactorRequest{}, err
		}
		inner = wrapped
	} else if err := exactKeys(probe, fields, "", wrapperKey); err != nil {
		return wire.RefactorRequest{}, err
	}
	var req wire.RefactorRequest
	dec := json.NewDecoder(bytes.NewReader(inner))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return wire.RefactorRequest{}, fmt.Errorf("the body does not match the request schema: %w", err)
	}
	if dec.More() {
		return wire.RefactorRequest{}, errors.New("trailing data after the JSON object")
	}
	return withClassSide(req), nil
}

// withClassSide reads the class side named as Pharo prints it: "Foo class".
func withClassSide(req wire.RefactorRequest) wire.RefactorRequest {
	if base, ok := strings.CutSuffix(req.ClassName, " class"); ok {
		req.ClassName, req.IsClassMethod = base, true
	}
	return req
}

// wrapperKey wraps the request as the original's clients send it.
const wrapperKey = "refactor_request"

// validateRefactor checks fields and lists every mistake.
func validateRefactor(v *validator.Validate, req wire.RefactorRequest) ([]wire.FieldError, error) {
	err := v.Struct(req)
	if err == nil {
		return nil, nil
	}
	var verrs validator.ValidationErrors
	if !errors.As(err, &verrs) {
		return nil, fmt.Errorf("validating the request: %w", err)
	}
	out := make([]wire.FieldError, 0, len(verrs))
	for _, fe := range verrs {
		out = append(out, wire.FieldError{Field: fe.Field(), Message: fieldMessage(fe)})
	}
	return out, refactor.Errorf(refactor.InvalidRequest, "invalid fields: %s", fieldList(out))
}

func fieldMessage(fe validator.FieldError) string {
	switch fe.Tag() {
	case "required":
		return "is required"
	case "smalltalk_class":
		return refactor.ValidateClassName(fmt.Sprint(fe.Value())).Error()
	case "smalltalk_selector":
		return refactor.ValidateSelector(fmt.Sprint(fe.Value())).Error()
	default:
		return "fails " + fe.Tag()
	}
}

func fieldList(errs []wire.FieldError) string {
	parts := make([]string, len(errs))
	for i, e := range errs {
		parts[i] = e.Field + " " + e.Message
	}
	return strings.Join(parts, "; ")
}
