package api

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/wire"
)

// health is liveness: the process answers, with the original's fields, whether
// a run holds the slot, and the state of the image connection.
func (s *Server) health(c echo.Context) error {
	return c.JSON(http.StatusOK, wire.HealthBody{
		Status: "healthy", Version: s.opts.Version, AppName: s.opts.AppName,
		Busy: s.pipe.Busy(), MCP: s.mcp.Health(),
	})
}

// ready is 200 only when the MCP server runs, the image answered the last
// call that ended (or a call is in flight now), and a model is configured.
// It reads the supervisor's state and never calls the image: the real MCP
// server handles one call at a time, so a probe would wait behind a test
// run. The client's background probe keeps the state fresh while idle.
func (s *Server) ready(c echo.Context) error {
	var reasons []string
	if s.stopping.Load() {
		reasons = append(reasons, "shutting down")
	}
	if !s.pipe.ModelConfigured() {
		reasons = append(reasons, "no model is configured")
	}
	if s.opts.Database != nil {
		ctx, cancel := context.WithTimeout(c.Request().Context(), 2*time.Second)
		err := s.opts.Database.Ping(ctx)
		cancel()
		if err != nil {
			reasons = append(reasons, err.Error())
		}
	}
	if s.opts.Store != nil {
		ctx, cancel := context.WithTimeout(c.Request().Context(), 2*time.Second)
		err := s.opts.Store.Writable(ctx)
		cancel()
		if err != nil {
			reasons = append(reasons, "the audit trail refuses writes ("+refactor.Public(err)+"): runs are refused with store_unavailable")
		}
	}
	h := s.mcp.Health()
	if reason := imageNotReady(h); reason != "" {
		reasons = append(reasons, reason)
	}
	status := http.StatusOK
	if len(reasons) > 0 {
		status = http.StatusServiceUnavailable
	}
	return c.JSON(status, wire.ReadyBody{Ready: len(reasons) == 0, Reasons: append([]string{}, reasons...), MCP: &h})
}

// imageNotReady says why the image connection is not ready, "" when it is.
// A call in flight (however long: a test run may take minutes) means the
// server is up and working — once the image has answered at all: at
// start-up the first probe is in flight whether the image is up, refused
// or hung, and a load balancer must not send runs there until it answers.
func imageNotReady(h refactor.ImageHealth) string {
	switch {
	case !h.Up && h.LastError != "":
		return "the Pharo MCP server is not running: " + h.LastError
	case !h.Up:
		return "the Pharo MCP server is not running"
	case h.InFlight != nil && h.LastSuccess.IsZero():
		return fmt.Sprintf("the Pharo image has not answered yet (its first call, %s, has waited %.1f s)", h.InFlight.Tool, h.InFlight.Seconds)
	case h.InFlight != nil:
		return ""
	case !h.Answering && h.LastError != "":
		return "the Pharo image does not answer: " + h.LastError
	case !h.Answering:
		return fmt.Sprintf("the Pharo image has not answered yet (the MCP server started %s ago)", time.Since(h.StartedAt).Round(time.Millisecond))
	}
	return ""
}
