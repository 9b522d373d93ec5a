package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	refactor "github.com/pharo-refactor/refactord"
)

// specHost is the server the spec's routes are matched against: answers
// are checked on copies of their requests addressed to it.
const specHost = "http://soak.invalid"

// spec checks answers against openapi.yaml, the list of what the service
// documents.
type spec struct {
	router routers.Router
}

func loadSpec() (*spec, error) {
	doc, err := openapi3.NewLoader().LoadFromData(refactor.OpenAPI)
	if err != nil {
		return nil, fmt.Errorf("openapi.yaml: %w", err)
	}
	doc.Servers = openapi3.Servers{{URL: specHost}}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("openapi.yaml: %w", err)
	}
	return &spec{router: router}, nil
}

// check answers why the answer is not documented, "" when it is. Bodies
// that are not JSON (metrics, event streams, pages) are checked by status
// and headers only.
func (s *spec) check(method, path string, status int, header http.Header, body []byte) string {
	req, err := http.NewRequest(method, specHost+path, nil)
	if err != nil {
		return err.Error()
	}
	route, params, err := s.router.FindRoute(req)
	if err != nil {
		return fmt.Sprintf("%s %s is not in openapi.yaml", method, path)
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 status,
		Header:                 header,
		Body:                   io.NopCloser(bytes.NewReader(body)),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, ExcludeResponseBody: !strings.Contains(header.Get("Content-Type"), "json")},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		return clip(fmt.Sprintf("%d: %v; body %s", status, err, body), 600)
	}
	return ""
}
