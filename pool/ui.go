package pool

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"

	"riverqueue.com/riverui"
)

// QueueUI is River UI over this pool's queue, served under prefix (the
// jobs of every worker: waiting, running, done, discarded). Its background
// work stops with ctx. The caller puts it behind the API keys.
func (p *Pool) QueueUI(ctx context.Context, prefix string) (http.Handler, error) {
	h, err := riverui.NewHandler(&riverui.HandlerOpts{
		Endpoints: riverui.NewEndpoints(p.river, nil),
		Prefix:    prefix,
		// River UI's own log: its warnings and errors, as river's.
		Logger: slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		return nil, fmt.Errorf("pool: River UI: %w", err)
	}
	if err := h.Start(ctx); err != nil {
		return nil, fmt.Errorf("pool: starting River UI: %w", err)
	}
	return h, nil
}
