package mcpclient

import (
	"encoding/json"
	"errors"
	"strings"

	refactor "github.com/pharo-refactor/refactord"
)

// maxAnswerBytes bounds one tool answer, both copies of its envelope (the
// structured content and the text) together; a method or a class source is
// far smaller.
const maxAnswerBytes = 16 << 20

// answer is a tools/call result as the interop server sends it: the
// envelope {"success", "result", "error"} twice, as structured content and
// as the text of a content item (FastMCP fills both). It is decoded in one
// pass: the envelope from the structured content, its result straight into
// the caller's value, the content items passed over undecoded. The text is
// read only when there is no structured content (a server that sends text
// alone) or for an MCP-level error (isError), which is text only.
type answer struct {
	IsError           bool     `json:"isError"`
	StructuredContent envelope `json:"structuredContent"`
	Content           unread   `json:"content"`
}

// envelope is the JSON object every interop tool answers.
type envelope struct {
	Success *bool           `json:"success"`
	Result  result          `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// result decodes an envelope's result into the caller's value, noting that
// there was one.
type result struct {
	into    any
	present bool
}

func (r *result) UnmarshalJSON(data []byte) error {
	r.present = true
	return json.Unmarshal(data, r.into)
}

// unread is a JSON value passed over: checked, not decoded, not copied.
type unread struct{}

func (*unread) UnmarshalJSON([]byte) error { return nil }

// textAnswer is what the text of an answer is read for.
type textAnswer struct {
	IsError bool `json:"isError"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

func (t textAnswer) text() string {
	var b strings.Builder
	for _, c := range t.Content {
		if c.Type == "text" {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// decode reads a tool's answer (the JSON-RPC result of tools/call) into
// into, or classifies its failure.
func (c *Client) decode(tool string, raw json.RawMessage, into any) error {
	if len(raw) > maxAnswerBytes {
		return refactor.Errorf(refactor.PharoError, "%s answered %d bytes, over the %d limit", tool, len(raw), maxAnswerBytes)
	}
	a := answer{StructuredContent: envelope{Result: result{into: into}}}
	err := json.Unmarshal(raw, &a)
	var typeErr *json.UnmarshalTypeError
	if err != nil && !errors.As(err, &typeErr) {
		return refactor.Errorf(refactor.PharoError, "%s answered something other than an MCP tool result: %.200q", tool, raw)
	}
	if a.IsError || a.StructuredContent.Success == nil {
		return c.decodeText(tool, raw, into)
	}
	return c.opened(tool, a.StructuredContent, err, raw)
}

// decodeText reads the envelope from the answer's text.
func (c *Client) decodeText(tool string, raw json.RawMessage, into any) error {
	var t textAnswer
	if err := json.Unmarshal(raw, &t); err != nil {
		return refactor.Errorf(refactor.PharoError, "%s answered something other than an MCP tool result: %.200q", tool, raw)
	}
	text := t.text()
	if t.IsError {
		return c.toolFailure(tool, text)
	}
	env := envelope{Result: result{into: into}}
	err := json.Unmarshal([]byte(text), &env)
	var typeErr *json.UnmarshalTypeError
	if err != nil && !errors.As(err, &typeErr) || env.Success == nil {
		return refactor.Errorf(refactor.PharoError, "%s answered something other than a success/result object: %.200q", tool, text)
	}
	return c.opened(tool, env, err, []byte(text))
}

// opened judges a decoded envelope; decodeErr is the error of decoding it
// (a result of the wrong type), raw what it was decoded from.
func (c *Client) opened(tool string, env envelope, decodeErr error, raw []byte) error {
	if !*env.Success || len(env.Error) > 0 && string(env.Error) != "null" {
		return c.imageFailure(tool, env.Error)
	}
	if !env.Result.present {
		decodeErr = errors.New("the answer has no result")
	}
	if decodeErr != nil {
		return refactor.Wrap(refactor.PharoError, decodeErr, "%s answered an unexpected result: %.200q", tool, raw)
	}
	return nil
}
