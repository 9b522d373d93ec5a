package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/pharo-refactor/refactord/internal/version"
	"github.com/pharo-refactor/refactord/wire"
)

// versionCmd prints the client's own version; it asks the service nothing.
func (c *cli) versionCmd(_ context.Context, _ options, args []string) error {
	if err := noArgs("version", args); err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "refactorctl %s\n", version.Version)
	return nil
}

func noArgs(name string, args []string) error {
	if len(args) > 0 {
		return usagef("%s takes no arguments, got %q", name, strings.Join(args, " "))
	}
	return nil
}

// healthCmd: exit 0 when the process answers healthy, whatever its image
// connection says (that is what `ready` is for).
func (c *cli) healthCmd(ctx context.Context, o options, args []string) error {
	if err := noArgs("health", args); err != nil {
		return err
	}
	_, data, err := c.newClient(o, nil).getJSON(ctx, "/health", nil)
	if err != nil {
		return err
	}
	if o.json {
		fmt.Fprintf(c.stdout, "%s\n", data)
		return nil
	}
	var h wire.HealthBody
	if err := json.Unmarshal(data, &h); err != nil {
		return fmt.Errorf("/health is not the expected JSON: %w", err)
	}
	fmt.Fprintf(c.stdout, "%s %s: %s\nbusy: %s\nimage: %s\n", h.AppName, h.Version, h.Status, yesNo(h.Busy), c.mcpLine(h))
	if h.Status != "healthy" {
		return fmt.Errorf("the service says %q", h.Status)
	}
	return nil
}

func (c *cli) mcpLine(h wire.HealthBody) string {
	m := h.MCP
	if !m.Up {
		line := fmt.Sprintf("down (%d restarts)", m.Restarts)
		if m.LastError != "" {
			line += ": " + m.LastError
		}
		return line
	}
	line := fmt.Sprintf("up, pid %d, %d restarts", m.PID, m.Restarts)
	if !m.LastSuccess.IsZero() {
		line += fmt.Sprintf(", last answer %s ago", c.deps.now().Sub(m.LastSuccess).Round(time.Second))
	}
	return line
}

func yesNo(b bool) string {
	if b {
		return "yes (a run is in progress)"
	}
	return "no"
}

// readyCmd: exit 0 when ready, 1 with the reasons when not.
func (c *cli) readyCmd(ctx context.Context, o options, args []string) error {
	if err := noArgs("ready", args); err != nil {
		return err
	}
	okStatus := func(s int) bool { return s == http.StatusOK || s == http.StatusServiceUnavailable }
	status, data, err := c.newClient(o, nil).getJSON(ctx, "/ready", okStatus)
	if err != nil {
		return err
	}
	if o.json {
		fmt.Fprintf(c.stdout, "%s\n", data)
	}
	var r wire.ReadyBody
	if err := json.Unmarshal(data, &r); err != nil {
		return fmt.Errorf("/ready is not the expected JSON: %w", err)
	}
	if status == http.StatusOK && r.Ready {
		if !o.json {
			fmt.Fprintln(c.stdout, "ready")
		}
		return nil
	}
	return fmt.Errorf("not ready: %s", strings.Join(r.Reasons, "; "))
}
