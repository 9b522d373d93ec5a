package openai

import (
	"context"
	"sync"
)

// fakeTools is a tiny agents.ImageTools recording the calls that reach it.
type fakeTools struct {
	mu      sync.Mutex
	answers map[string]string
	seen    []string
}

func (f *fakeTools) CallTool(_ context.Context, name string, _ map[string]any) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seen = append(f.seen, name)
	return f.answers[name], nil
}

func (f *fakeTools) Seen() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.seen
}
