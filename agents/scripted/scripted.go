package scripted

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/agents"
)

// Wildcard is the key whose answers serve every subject without its own.
const Wildcard = "*"

// MaxFileBytes bounds a script file.
const MaxFileBytes = 8 << 20

const maxDelay = 10 * time.Minute

// File is a parsed script file (see the package documentation).
type File struct {
	Repeat  bool                                  `json:"repeat"`
	Answers map[string]map[refactor.Role][]Answer `json:"answers"`
}

// Answer is one scripted answer.
type Answer struct {
	Text         string          `json:"text,omitempty"`
	JSON         json.RawMessage `json:"json,omitempty"`
	ToolCall     *ToolCall       `json:"tool_call,omitempty"`
	Error        string          `json:"error,omitempty"`
	FinishReason string          `json:"finish_reason,omitempty"`
	DelayMS      int             `json:"delay_ms,omitempty"`
	Usage        *Usage          `json:"usage,omitempty"`
}

// ToolCall is a scripted function call.
type ToolCall struct {
	Name string         `json:"name"`
	Args map[string]any `json:"args"`
}

// Usage is a scripted token count.
type Usage struct {
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
}

// Model answers from a File.
type Model struct {
	file File

	mu      sync.Mutex
	cursors map[cursor]int
	calls   int
}

var _ agents.Model = (*Model)(nil)

type cursor struct {
	subject string
	role    refactor.Role
}

// Load reads and checks a script file.
func Load(path string) (*Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("scripted model: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("scripted model: reading %s: %w", path, err)
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("scripted model: %s is over %d bytes", path, MaxFileBytes)
	}
	m, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// Parse reads and checks a script from JSON. Unknown fields are errors, so
// that a typo does not silently drop an answer.
func Parse(data []byte) (*Model, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f File
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("scripted model: %w", err)
	}
	if dec.More() {
		return nil, errors.New("scripted model: trailing data after the JSON object")
	}
	return New(f)
}

// New checks f and returns a Model answering from it.
func New(f File) (*Model, error) {
	if len(f.Answers) == 0 {
		return nil, errors.New(`scripted model: "answers" is empty`)
	}
	for key, byRole := range f.Answers {
		if err := checkEntry(key, byRole); err != nil {
			return nil, fmt.Errorf("scripted model: %w", err)
		}
	}
	return &Model{file: f, cursors: make(map[cursor]int)}, nil
}

func checkEntry(key string, byRole map[refactor.Role][]Answer) error {
	if key != Wildcard && !strings.Contains(key, ">>") {
		return fmt.Errorf(`key %q is neither "*" nor "Class>>selector"`, key)
	}
	for role, answers := range byRole {
		if !knownRole(role) {
			return fmt.Errorf("%s: unknown role %q (reviewer, writer, validator, refiner)", key, role)
		}
		for i, a := range answers {
			if err := a.check(); err != nil {
				return fmt.Errorf("%s, %s answer %d: %w", key, role, i+1, err)
			}
		}
	}
	return nil
}

func knownRole(r refactor.Role) bool {
	for _, k := range refactor.AllRoles() {
		if r == k {
			return true
		}
	}
	return false
}

func (a Answer) check() error {
	kinds := 0
	for _, set := range []bool{a.Text != "", len(a.JSON) > 0, a.ToolCall != nil, a.Error != ""} {
		if set {
			kinds++
		}
	}
	fr, ok := finishReasons[a.FinishReason]
	switch {
	case !ok:
		return fmt.Errorf("unknown finish_reason %q", a.FinishReason)
	case kinds > 1:
		return errors.New(`give only one of "text", "json", "tool_call", "error"`)
	case kinds == 0 && fr != agents.FinishSafety && fr != agents.FinishRecitation:
		return errors.New(`give one of "text", "json", "tool_call", "error"`)
	case a.ToolCall != nil && a.ToolCall.Name == "":
		return errors.New("tool_call has no name")
	case a.DelayMS < 0 || time.Duration(a.DelayMS)*time.Millisecond > maxDelay:
		return fmt.Errorf("delay_ms %d is outside 0..%d", a.DelayMS, maxDelay.Milliseconds())
	}
	return nil
}

var finishReasons = map[string]agents.FinishReason{
	"":           "",
	"stop":       agents.FinishStop,
	"length":     agents.FinishLength,
	"safety":     agents.FinishSafety,
	"recitation": agents.FinishRecitation,
	"other":      agents.FinishOther,
}

// Generate returns the next scripted answer for the request's subject and
// role, after its delay.
func (m *Model) Generate(ctx context.Context, req agents.Request) (agents.Response, error) {
	a, n, err := m.next(req)
	if err != nil {
		return agents.Response{}, err
	}
	if err := agents.Sleep(ctx, time.Duration(a.DelayMS)*time.Millisecond); err != nil {
		return agents.Response{}, agents.ClassifyError(ctx, "scripted model", 0, "", err)
	}
	if a.Error != "" {
		return agents.Response{}, refactor.Errorf(refactor.ModelUnavailable, "scripted model: %s", a.Error)
	}
	return a.response(req, n), nil
}

// next takes the answer for req under the lock and numbers the call.
func (m *Model) next(req agents.Request) (Answer, int, error) {
	answers, ok := m.list(req.Subject, req.Role)
	if !ok {
		return Answer{}, 0, refactor.Errorf(refactor.ModelUnavailable, "scripted model: no %s answers for %s (nor for %q)", req.Role, req.Subject, Wildcard)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	c := cursor{req.Subject, req.Role}
	i := m.cursors[c]
	if i >= len(answers) {
		if !m.file.Repeat {
			return Answer{}, 0, refactor.Errorf(refactor.ModelUnavailable, "scripted model: all %d %s answers for %s are used up", len(answers), req.Role, req.Subject)
		}
		i = 0
	}
	m.cursors[c] = i + 1
	m.calls++
	return answers[i], m.calls, nil
}

func (m *Model) list(subject string, role refactor.Role) ([]Answer, bool) {
	if a := m.file.Answers[subject][role]; len(a) > 0 {
		return a, true
	}
	a := m.file.Answers[Wildcard][role]
	return a, len(a) > 0
}

func (a Answer) response(req agents.Request, n int) agents.Response {
	resp := agents.Response{Text: a.Text, FinishReason: agents.FinishStop}
	if len(a.JSON) > 0 {
		// A "json" answer stands for a schema-constrained one: the text is
		// the value and nothing else. A "text" answer is read tolerantly.
		resp.Constrained = true
		var compact bytes.Buffer
		if json.Compact(&compact, a.JSON) == nil {
			resp.Text = compact.String()
		} else {
			resp.Text = string(a.JSON)
		}
	}
	if a.ToolCall != nil {
		resp.ToolCalls = []agents.ToolCall{{ID: "scripted-" + strconv.Itoa(n), Name: a.ToolCall.Name, Args: a.ToolCall.Args}}
		resp.FinishReason = agents.FinishToolCalls
	}
	if fr := finishReasons[a.FinishReason]; fr != "" {
		resp.FinishReason = fr
		resp.RawFinishReason = a.FinishReason
	}
	resp.Usage = a.usage(req, resp)
	return resp
}

// usage is the scripted count, or an estimate of about four bytes a token
// so that demo runs report plausible numbers.
func (a Answer) usage(req agents.Request, resp agents.Response) agents.Usage {
	if a.Usage != nil {
		return agents.Usage{InputTokens: a.Usage.InputTokens, OutputTokens: a.Usage.OutputTokens}
	}
	in := len(req.System)
	for _, msg := range req.Messages {
		in += len(msg.Text)
		for _, r := range msg.ToolResults {
			in += len(r.Content)
		}
	}
	return agents.Usage{InputTokens: int64(in+3) / 4, OutputTokens: int64(len(resp.Text)+3) / 4}
}
