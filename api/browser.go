package api

import (
	"mime"
	"net"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	refactor "github.com/pharo-refactor/refactord"
)

// This service writes into a live image from a loopback port, so any web
// page the developer opens is a potential client. Three checks keep browsers
// out unless an operator lets a page in:
//   - checkHost: on a loopback listener, the Host must be a loopback name or
//     address. A page whose DNS name was rebound to 127.0.0.1 sends its own
//     name, so it cannot read the history or post as a "same-origin" page.
//   - checkOrigin: a request carrying an Origin outside AllowOrigins is
//     refused on the API routes (browsers send Origin on every cross-site
//     POST and every CORS request), and so is one a browser marks as made
//     by another site's page (Sec-Fetch-Site) without an Origin (a no-cors
//     GET such as <script src>). The service's own pages (/docs, on a
//     loopback listener) are of its own origin and let in (ownPage).
//   - requireJSON: a mutating route takes only application/json. A page can
//     send text/plain, form and multipart bodies cross-site without asking;
//     application/json makes the browser ask first (a CORS preflight).

// checkHost refuses a Host that is not loopback when the listener is.
func (s *Server) checkHost(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if !s.opts.LoopbackHosts || isLoopbackHost(c.Request().Host) {
			return next(c)
		}
		return refactor.Errorf(refactor.HostNotAllowed, "this service listens on loopback and answers only requests addressed to a loopback name or address (localhost, 127.0.0.1, [::1]); Host %q is not one", clip(c.Request().Host, 100))
	}
}

// isLoopbackHost reports whether a Host header names this machine's
// loopback: localhost or an address of 127.0.0.0/8 or ::1, with or without
// a port. An empty Host (HTTP/1.0) comes from no browser and is let through.
func isLoopbackHost(host string) bool {
	if host == "" {
		return true
	}
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	} else if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		name = host[1 : len(host)-1]
	}
	if strings.EqualFold(strings.TrimSuffix(name, "."), "localhost") {
		return true
	}
	ip := net.ParseIP(name)
	return ip != nil && ip.IsLoopback()
}

// publicRead: these routes answer any page, without CORS headers (so a
// page cannot read them); nothing in them changes the image or shows its
// source.
func publicRead(path string) bool {
	switch path {
	case "/", "/health", "/ready", "/metrics", "/openapi.yaml", "/openapi.json", "/docs", "/redoc", "/console":
		return true
	}
	return strings.HasPrefix(path, "/docs/") || strings.HasPrefix(path, "/console/")
}

// guardedByOrigin: everything but a plain read of a public route — the API
// routes, every one of which either changes the image or reads the history
// (which holds source), and any route added later.
func guardedByOrigin(r *http.Request) bool {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return !publicRead(r.URL.Path)
	}
	return true
}

// checkOrigin refuses a foreign Origin on guarded routes.
func (s *Server) checkOrigin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if !guardedByOrigin(r) {
			return next(c)
		}
		origins, sent := r.Header[echo.HeaderOrigin]
		if !sent {
			if site := r.Header.Get("Sec-Fetch-Site"); site == "cross-site" || site == "same-site" {
				return refactor.Errorf(refactor.OriginNotAllowed, "a request made by another site's page (Sec-Fetch-Site: %s) is refused: only the origins in CORS_ALLOW_ORIGINS may call this API", site)
			}
			return next(c)
		}
		origin := strings.Join(origins, ", ")
		if len(origins) == 1 && (s.originAllowed(origin) || s.ownPage(r, origin)) {
			return next(c)
		}
		return refactor.Errorf(refactor.OriginNotAllowed, "requests from the web origin %q are refused: only the origins in CORS_ALLOW_ORIGINS may call this API", clip(origin, 200))
	}
}

// ownPage reports whether origin is this service's own address as the
// request names it — a page this service served, i.e. /docs and its "Try
// it out". Only on a loopback listener, where checkHost has made sure the
// Host is a loopback name: there, the only pages of that origin are the
// service's own. Elsewhere a page whose DNS name was rebound to this
// service's address would also send an Origin equal to its Host, so
// another origin than those of CORS_ALLOW_ORIGINS is never let in.
func (s *Server) ownPage(r *http.Request, origin string) bool {
	return s.opts.LoopbackHosts && r.Host != "" && strings.EqualFold(origin, "http://"+r.Host)
}

func (s *Server) originAllowed(origin string) bool {
	for _, o := range s.opts.AllowOrigins {
		if strings.EqualFold(o, origin) {
			return true
		}
	}
	return false
}

// cors answers preflights and sets CORS headers for allowed origins (echo's
// middleware; foreign origins were refused before it on guarded routes).
// Nil when no origin is allowed: then no page gets CORS headers at all.
func (s *Server) cors() echo.MiddlewareFunc {
	if len(s.opts.AllowOrigins) == 0 {
		return nil
	}
	return middleware.CORSWithConfig(middleware.CORSConfig{
		AllowOriginFunc: func(origin string) (bool, error) { return s.originAllowed(origin), nil },
		AllowMethods:    []string{http.MethodGet, http.MethodPost},
		AllowHeaders:    []string{echo.HeaderContentType, echo.HeaderAuthorization, echo.HeaderAccept, echo.HeaderXRequestID, "Prefer"},
		ExposeHeaders: []string{echo.HeaderXRequestID, echo.HeaderRetryAfter, echo.HeaderWWWAuthenticate,
			echo.HeaderLocation, HeaderRefactoringID, "Preference-Applied"},
		MaxAge: 600,
	})
}

// bodyRule says what a mutating route takes.
type bodyRule int

const (
	jsonBody     bodyRule = iota // a JSON body
	noBodyOrJSON                 // no body (then no Content-Type is needed), or a JSON one
)

// requireJSON refuses a body that is not application/json (a charset
// parameter may say utf-8, nothing else).
func (s *Server) requireJSON(rule bodyRule) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			types := r.Header.Values(echo.HeaderContentType)
			if len(types) == 0 && rule == noBodyOrJSON && r.ContentLength == 0 {
				return next(c)
			}
			if err := jsonMediaType(types); err != nil {
				c.Response().Header().Set("Accept-Post", echo.MIMEApplicationJSON)
				return err
			}
			return next(c)
		}
	}
}

func jsonMediaType(types []string) error {
	switch len(types) {
	case 0:
		return refactor.Errorf(refactor.UnsupportedMediaType, "the body must be JSON, sent with Content-Type: application/json")
	case 1:
	default:
		return refactor.Errorf(refactor.UnsupportedMediaType, "one Content-Type header, application/json, is accepted; got %d", len(types))
	}
	if types[0] == echo.MIMEApplicationJSON {
		return nil // what nearly every client sends: no parameters to parse
	}
	mt, params, err := mime.ParseMediaType(types[0])
	if err != nil || mt != echo.MIMEApplicationJSON {
		return refactor.Errorf(refactor.UnsupportedMediaType, "Content-Type %q is not accepted: send application/json", clip(types[0], 100))
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") && !strings.EqualFold(cs, "utf8") {
		return refactor.Errorf(refactor.UnsupportedMediaType, "charset %q is not accepted: JSON is UTF-8", clip(cs, 40))
	}
	return nil
}

// clip shortens what a client sent before it is echoed in a message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
