package agents

import (
	"context"
	"sync"
)

// FakeTools is a tiny ImageTools for tests: it records the calls that reach
// it and answers from a table (or with Err).
type FakeTools struct {
	mu      sync.Mutex
	Answers map[string]string
	Err     error
	Calls   []FakeToolCall
}

// FakeToolCall is one call that reached FakeTools.
type FakeToolCall struct {
	Name string
	Args map[string]any
}

// CallTool records the call and answers it.
func (f *FakeTools) CallTool(_ context.Context, name string, args map[string]any) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Calls = append(f.Calls, FakeToolCall{Name: name, Args: args})
	if f.Err != nil {
		return "", f.Err
	}
	return f.Answers[name], nil
}

// Seen returns the names of the calls that reached f.
func (f *FakeTools) Seen() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var names []string
	for _, c := range f.Calls {
		names = append(names, c.Name)
	}
	return names
}
