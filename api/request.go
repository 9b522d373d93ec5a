package api

import (
	"bytes"
	"errors"
	"fmt"
	wire "github.com/pharo-refactor/refactord/wire"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strings"

	"github.com/go-playground/validator/v10"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/internal/strictjson"
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
	size := bytes.MinRead
	if r.ContentLength > 0 && r.ContentLength <= limit {
		size = int(r.ContentLength) + 1 // the body and room to see EOF: one allocation
	}
	body := make([]byte, 0, size)
	src := io.LimitedReader{R: r.Body, N: limit + 1}
	for {
		if len(body) == cap(body) {
			body = slices.Grow(body, bytes.MinRead)
		}
		n, err := src.Read(body[len(body):cap(body)])
		body = body[:len(body)+n]
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading the body: %w", err)
		}
	}
	if int64(len(body)) > limit {
		return nil, errBodyTooLarge
	}
	return body, nil
}

// requestDecoder reads either body form of a refactor request strictly
// (package strictjson says how); it is built once and only read after.
var requestDecoder = strictjson.New[wire.RefactorRequest](wrapperKey)

// decodeRefactor parses either body form strictly: a key given twice (at
// any depth), a key that is not exactly a field's name, trailing data and
// wrong types are refused. It reports whether the body was wrapped.
func decodeRefactor(body []byte) (req wire.RefactorRequest, wrapped bool, err error) {
	req, wrapped, err = requestDecoder.Decode(body)
	if err != nil {
		return req, wrapped, err
	}
	return normalizeNames(req), wrapped, nil
}

// normalizeNames trims the blanks a client (or a copy from an editor) put
// around the names, and reads the class side as Pharo prints it: "Foo
// class". Validation then sees the names as they will be used.
func normalizeNames(req wire.RefactorRequest) wire.RefactorRequest {
	req.ClassName, req.MethodName = strings.TrimSpace(req.ClassName), strings.TrimSpace(req.MethodName)
	if words := strings.Fields(req.ClassName); len(words) == 2 && words[1] == "class" {
		req.ClassName, req.IsClassMethod = words[0], true
	}
	return req
}

// wrapperKey wraps the request as the original's clients send it.
const wrapperKey = "refactor_request"

// validateRefactor checks fields and lists every mistake.
func validateRefactor(v *validator.Validate, req wire.RefactorRequest, wrapped bool) ([]wire.FieldError, error) {
	var out []wire.FieldError
	add := func(field, message, typ string) {
		path := field
		if wrapped {
			path = wrapperKey + "." + path
		}
		out = append(out, fieldError(field, path, message, typ))
	}
	err := v.Struct(req)
	var verrs validator.ValidationErrors
	if err != nil && !errors.As(err, &verrs) {
		return nil, fmt.Errorf("validating the request: %w", err)
	}
	for _, fe := range verrs {
		typ := "value_error"
		if fe.Tag() == "required" {
			typ = "missing"
		}
		add(fe.Field(), fieldMessage(fe), typ)
	}
	// The ways to run exclude each other: name both fields of a pair.
	if req.Verify && req.DryRun {
		add("verify", "cannot be true with dry_run: a verify run compiles and tests the change, a dry run compiles nothing", "value_error")
		add("dry_run", "cannot be true with verify", "value_error")
	}
	if req.Verify && !req.WantsTests() {
		add("verify", "cannot be true with run_tests false: a verify run is its tests", "value_error")
		add("run_tests", "cannot be false with verify", "value_error")
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, refactor.Errorf(refactor.InvalidRequest, "invalid fields: %s", fieldList(out))
}

// fieldError names a field both ways: field and message, and the original
// service's loc (["body", keys…]), msg and type. path is the field's keys
// joined by dots.
func fieldError(field, path, message, typ string) wire.FieldError {
	loc := append([]string{"body"}, strings.Split(path, ".")...)
	return wire.FieldError{Field: field, Message: message, Loc: loc, Msg: message, Type: typ}
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
