package api

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"pharo-refactor/wire"
)

// health is liveness: the process answers, with the original's fields, whether
// a run holds the slot, and the state of the image connection.
func (s *Server) health(c echo.Context) error {
	return c.JSON(http.StatusOK, wire.HealthBody{
		Status: "healthy", Version: s.opts.Version, AppName: s.opts.AppName,
		Busy: s.pipe.Busy(), MCP: s.mcp.Health(),
	})
}

// ready is 200 only when the MCP subprocess is up and answered recently and
// a model is configured. An idle connection is probed with a cheap call.
func (s *Server) ready(c echo.Context) error {
	var reasons []string
	if s.stopping.Load() {
		reasons = append(reasons, "shutting down")
	}
	if !s.pipe.ModelConfigured() {
		reasons = append(reasons, "no model is configured")
	}
	h := s.mcp.Health()
	if !h.Up || time.Since(h.LastSuccess) > s.opts.ReadyProbeAfter {
		ctx, cancel := context.WithTimeout(c.Request().Context(), 5*time.Second)
		defer cancel()
		if _, err := s.mcp.ClassExists(ctx, "Object"); err != nil {
			reasons = append(reasons, "the Pharo image does not answer: "+err.Error())
		}
	}
	if len(reasons) > 0 {
		return c.JSON(http.StatusServiceUnavailable, wire.ReadyBody{Ready: false, Reasons: reasons})
	}
	return c.JSON(http.StatusOK, wire.ReadyBody{Ready: true, Reasons: []string{}})
}
