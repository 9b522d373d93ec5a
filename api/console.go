package api

import (
	"crypto/subtle"
	"embed"
	"encoding/base64"
	"net/http"
	"path"
	"strings"

	"github.com/labstack/echo/v4"

	refactor "github.com/pharo-refactor/refactord"
)

// The operators' console: one page of plain HTML, CSS and JavaScript
// served from the binary (no CDN: it works offline). Its files hold no
// data. The page asks the operator for an API key when keys are
// configured, keeps it in the tab's sessionStorage (gone when the tab
// closes, never sent to another origin) and sends it as
// `Authorization: Bearer` on every call to the JSON routes — the same
// routes, and the same keys, as any other client: without a valid key the
// page shows no source, no run, nothing of the history.

//go:embed console/index.html console/console.js console/console.css
var consoleFiles embed.FS

// consolePolicy lets the page run only its own script and style and talk
// only to this service; no inline script or style, no frame may hold it,
// no form posts anywhere.
const consolePolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// poolWorkers answers GET /api/v1/workers (only in a pool): the queue's
// depth and the workers, with the run each works on.
func (s *Server) poolWorkers(c echo.Context) error {
	state, err := s.opts.Pool.State(c.Request().Context())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, state)
}

// QueueUIPath is where a pool's queue browser (River UI) is mounted.
const QueueUIPath = "/riverui"

func (s *Server) consolePage(c echo.Context) error { return s.serveConsoleFile(c, "index.html") }

func (s *Server) consoleFile(c echo.Context) error { return s.serveConsoleFile(c, c.Param("file")) }

func (s *Server) serveConsoleFile(c echo.Context, name string) error {
	if name != path.Base(name) {
		return echo.ErrNotFound
	}
	data, err := consoleFiles.ReadFile("console/" + name)
	if err != nil {
		return echo.ErrNotFound
	}
	h := c.Response().Header()
	h.Set("Content-Security-Policy", consolePolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cache-Control", "no-cache")
	return c.Blob(http.StatusOK, docsTypes[path.Ext(name)], data)
}

// wantsHTML reports whether the client is a browser asking for a page
// (its Accept names text/html), not a program asking for JSON.
func wantsHTML(c echo.Context) bool {
	return strings.Contains(c.Request().Header.Get(echo.HeaderAccept), "text/html")
}

// mountQueueUI serves the queue browser under QueueUIPath behind the API
// keys. A browser opening it cannot add a Bearer header to a navigation,
// so the key may also come as HTTP Basic credentials (any user name, the
// key as password): the browser asks for them once and sends them with
// every request of the page.
func (s *Server) mountQueueUI(e *echo.Echo) {
	h := echo.WrapHandler(s.opts.QueueUI)
	e.Any(QueueUIPath, h, s.queueAuth)
	e.Any(QueueUIPath+"/*", h, s.queueAuth)
}

// queueAuth accepts a key as Bearer or as a Basic password, compared in
// constant time against every key.
func (s *Server) queueAuth(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if len(s.opts.APIKeys) == 0 {
			return next(c)
		}
		given, ok := presentedKey(c.Request().Header.Get(echo.HeaderAuthorization))
		match := 0
		for _, k := range s.opts.APIKeys {
			match |= subtle.ConstantTimeCompare([]byte(given), []byte(k))
		}
		if !ok || match != 1 {
			c.Response().Header().Set(echo.HeaderWWWAuthenticate, `Basic realm="refactord queue", charset="UTF-8"`)
			return refactor.Errorf(refactor.Unauthorized, "a valid API key is required: Authorization: Bearer <key>, or Basic with the key as password")
		}
		return next(c)
	}
}

// presentedKey is the key an Authorization header carries: a Bearer token
// or a Basic password.
func presentedKey(header string) (string, bool) {
	if key, ok := strings.CutPrefix(header, "Bearer "); ok {
		return strings.TrimSpace(key), true
	}
	encoded, ok := strings.CutPrefix(header, "Basic ")
	if !ok || len(encoded) > 4096 {
		return "", false
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(encoded))
	if err != nil {
		return "", false
	}
	_, password, ok := strings.Cut(string(raw), ":")
	return password, ok
}
