package agents

import (
	"context"
	refactor "github.com/pharo-refactor/refactord"
)

// Model is one provider of completions. One Generate is one model call: the
// roles count it, whatever happens at the HTTP level underneath (retries of a
// failed attempt are not extra calls; a corrective retry is).
//
// Implementations are safe for concurrent use and return errors classified
// with the domain's error kinds (ModelUnavailable, ModelBadOutput, Timeout).
type Model interface {
	Generate(ctx context.Context, req Request) (Response, error)
}

// Request is one model call.
type Request struct {
	// Role and Subject ("Calculator>>sum:with:") identify the call for logs
	// and for the scripted model, which answers by them.
	Role    refactor.Role
	Subject string
	// System is the system instruction.
	System string
	// Messages is the conversation so far, oldest first; the last one is a
	// user turn.
	Messages []Message
	// Schema, when set, asks for a JSON answer of this shape. Never set
	// together with Tools (the Gemini API refuses the combination).
	Schema *Schema
	// Tools are the functions the model may call in this turn.
	Tools []ToolDecl
}

// Speaker says who produced a message.
type Speaker string

// The two sides of a conversation.
const (
	SpeakerUser  Speaker = "user"
	SpeakerModel Speaker = "model"
)

// Message is one turn. A user turn carries Text and/or ToolResults; a model
// turn carries Text and/or ToolCalls (as the model returned them, so that
// providers can echo opaque data such as Gemini thought signatures).
type Message struct {
	Speaker     Speaker
	Text        string
	ToolCalls   []ToolCall
	ToolResults []ToolResult
}

// UserText returns a user turn holding text.
func UserText(text string) Message { return Message{Speaker: SpeakerUser, Text: text} }

// ToolDecl declares a function the model may call.
type ToolDecl struct {
	Name        string
	Description string
	Parameters  *Schema
}

// ToolCall is a function call the model asked for.
type ToolCall struct {
	// ID pairs the call with its result (OpenAI requires it; Gemini may
	// leave it empty).
	ID   string
	Name string
	Args map[string]any
	// ArgsError is set when the provider could not decode the arguments;
	// the call is then refused.
	ArgsError string
	// Signature is opaque provider data to send back with the call in the
	// history (Gemini's thought signature).
	Signature []byte
}

// ToolResult answers one ToolCall.
type ToolResult struct {
	CallID  string
	Name    string
	Content string
}

// FinishReason says why the model stopped, normalized across providers.
type FinishReason string

// Normalized finish reasons.
const (
	FinishStop      FinishReason = "stop"
	FinishToolCalls FinishReason = "tool_calls"
	FinishLength    FinishReason = "length"
	FinishSafety    FinishReason = "safety"
	// FinishRecitation: the provider stopped the answer because it repeated
	// existing text (Gemini's RECITATION, common on code). Unlike a safety
	// block it is worth one more try with a note.
	FinishRecitation FinishReason = "recitation"
	FinishOther      FinishReason = "other"
)

// Usage is the token count of one call as the provider reported it.
type Usage struct {
	InputTokens  int64
	OutputTokens int64
}

// Response is a model's answer to one call.
type Response struct {
	Text      string
	ToolCalls []ToolCall
	// FinishReason is normalized; RawFinishReason keeps the provider's own
	// word (e.g. "RECITATION", "prompt blocked: SAFETY") for messages.
	FinishReason    FinishReason
	RawFinishReason string
	Usage           Usage
	// Constrained is set when the provider produced Text under the
	// request's Schema (Gemini responseSchema, OpenAI-compatible
	// json_schema or json_object, a scripted "json" answer): then the whole
	// answer, reasoning blocks aside, must be the object. Otherwise the
	// tolerant reading applies (see Mode).
	Constrained bool
}
