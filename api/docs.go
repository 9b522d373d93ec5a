package api

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path"

	"github.com/labstack/echo/v4"
	"go.uber.org/zap"
	"go.yaml.in/yaml/v3"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/wire"
)

// The pages a user of the original expects: GET / (what this is, with
// links), GET /docs (an interactive API page: Swagger UI, served from the
// binary — no CDN, it works offline), GET /redoc (the original's second
// page: here it leads to /docs) and GET /openapi.json (the same document as
// /openapi.yaml).

// docsFiles are the page and Swagger UI's files (scripts/swagger-ui.sh
// refreshes the latter from npm's swagger-ui-dist; LICENSE and NOTICE are
// its licence, served beside it).
//
//go:embed docs/index.html docs/docs.js docs/swagger-ui-bundle.js docs/swagger-ui.css docs/favicon-32x32.png
//go:embed docs/LICENSE docs/NOTICE docs/swagger-ui-bundle.js.LICENSE.txt
var docsFiles embed.FS

// docsPolicy lets the page run only its own files: scripts and styles from
// this service, the document and "Try it out" requests to this service,
// the icons Swagger UI's stylesheet inlines as data: URIs; no frame may
// hold it.
const docsPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"font-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

var docsTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".png":  "image/png",
	".txt":  "text/plain; charset=utf-8",
	"":      "text/plain; charset=utf-8", // LICENSE, NOTICE
}

// root answers GET /: name, version and where everything is.
// A browser opening / (it asks for text/html) is sent to the console.
func (s *Server) root(c echo.Context) error {
	if wantsHTML(c) {
		return c.Redirect(http.StatusFound, "/console")
	}
	links := wire.RootLinks{
		Docs: "/docs", OpenAPIJSON: "/openapi.json", OpenAPIYAML: "/openapi.yaml",
		Health: "/health", Ready: "/ready", Metrics: "/metrics",
		Refactor: "/api/v1/refactor", Refactorings: "/api/v1/refactorings",
		Console: "/console",
	}
	if s.opts.QueueUI != nil {
		links.Queue = QueueUIPath + "/"
	}
	if s.opts.Pool != nil {
		links.Workers = "/api/v1/workers"
	}
	return c.JSON(http.StatusOK, wire.RootBody{Name: s.opts.AppName, Version: s.opts.Version, Links: links})
}

func (s *Server) docsPage(c echo.Context) error { return s.serveDocsFile(c, "index.html") }

func (s *Server) docsFile(c echo.Context) error { return s.serveDocsFile(c, c.Param("file")) }

// redoc: the original served ReDoc there; this service has one page.
func (s *Server) redoc(c echo.Context) error {
	return c.Redirect(http.StatusFound, "/docs")
}

func (s *Server) serveDocsFile(c echo.Context, name string) error {
	data, err := docsFiles.ReadFile("docs/" + name)
	if err != nil || name != path.Base(name) {
		return echo.ErrNotFound
	}
	h := c.Response().Header()
	h.Set("Content-Security-Policy", docsPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-cache") // small, and it changes with the binary
	return c.Blob(http.StatusOK, docsTypes[path.Ext(name)], data)
}

// openapiAsJSON answers GET /openapi.json: /openapi.yaml as JSON.
func (s *Server) openapiAsJSON(c echo.Context) error {
	data := s.openapiJSON()
	if data == nil {
		return refactor.Errorf(refactor.Internal, "the OpenAPI document could not be converted to JSON")
	}
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, data)
}

// convertOpenAPI converts the served document, once (openapiJSON).
func (s *Server) convertOpenAPI() []byte {
	data, err := yamlToJSON(s.opts.OpenAPI)
	if err != nil {
		s.log.Error("the OpenAPI document does not convert to JSON; /openapi.json answers 500", zap.Error(err))
		return nil
	}
	return data
}

// yamlToJSON converts a YAML document to JSON, keeping the order of keys
// (Swagger UI lists the operations in the document's order).
func yamlToJSON(src []byte) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, fmt.Errorf("reading YAML: %w", err)
	}
	var b bytes.Buffer
	if err := writeJSONNode(&b, &doc); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func writeJSONNode(b *bytes.Buffer, n *yaml.Node) error {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) != 1 {
			return errors.New("the YAML holds no document")
		}
		return writeJSONNode(b, n.Content[0])
	case yaml.AliasNode:
		return writeJSONNode(b, n.Alias)
	case yaml.MappingNode:
		b.WriteByte('{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				b.WriteByte(',')
			}
			key, err := json.Marshal(n.Content[i].Value)
			if err != nil {
				return err
			}
			b.Write(key)
			b.WriteByte(':')
			if err := writeJSONNode(b, n.Content[i+1]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case yaml.SequenceNode:
		b.WriteByte('[')
		for i, item := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeJSONNode(b, item); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case yaml.ScalarNode:
		var v any
		if err := n.Decode(&v); err != nil {
			return fmt.Errorf("line %d: %w", n.Line, err)
		}
		data, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("line %d: %w", n.Line, err)
		}
		b.Write(data)
	default:
		return fmt.Errorf("line %d: a YAML node of kind %d has no JSON form", n.Line, n.Kind)
	}
	return nil
}
