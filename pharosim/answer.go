package pharosim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

// ImageError is an exception signalled inside the simulated image. The tool
// layer turns it into the error object the real image sends:
// {"description", "stack_trace", "receiver"}.
type ImageError struct {
	// Text, when set, is the whole description, for exceptions whose
	// description is not `Class: messageText` (CodeError prints no space).
	Text     string
	Class    string   // exception class, e.g. "KeyNotFound"
	Message  string   // its messageText
	Receiver string   // class of the object that signalled it, e.g. "SystemDictionary"
	Stack    []string // printed contexts, innermost first
}

// Error returns the description, as Pharo's Exception>>description prints it.
func (e *ImageError) Error() string { return e.Description() }

// Description is `Class: messageText`, or the class alone without a message.
func (e *ImageError) Description() string {
	if e.Text != "" {
		return e.Text
	}
	if e.Message == "" {
		return e.Class
	}
	return e.Class + ": " + e.Message
}

// errClassNotFound is what `Smalltalk globals at: #Foo` signals in Pharo 12.
func errClassNotFound(name string) *ImageError {
	return &ImageError{
		Class:    "KeyNotFound",
		Message:  "key #" + name + " not found in SystemDictionary",
		Receiver: "SystemDictionary",
		Stack: []string{
			"SystemDictionary(Dictionary)>>errorKeyNotFound: #" + name,
			"[ self errorKeyNotFound: key ] in SystemDictionary(Dictionary)>>at:",
			"SystemDictionary(Dictionary)>>at:ifAbsent:",
			"SystemDictionary(Dictionary)>>at:",
		},
	}
}

// errMethodNotFound is what `Foo >> #bar` or `Foo sourceCodeAt: #bar` signals.
func errMethodNotFound(selector string) *ImageError {
	return &ImageError{
		Class:    "KeyNotFound",
		Message:  "key #" + selector + " not found in MethodDictionary",
		Receiver: "MethodDictionary",
		Stack: []string{
			"MethodDictionary(Dictionary)>>errorKeyNotFound: #" + selector,
			"[ self errorKeyNotFound: key ] in MethodDictionary(Dictionary)>>at:",
			"MethodDictionary>>at:ifAbsent:",
			"MethodDictionary(Dictionary)>>at:",
		},
	}
}

// errPackageNotFound is what the package organizer signals for an unknown package.
func errPackageNotFound(name string) *ImageError {
	return &ImageError{
		Class:    "KeyNotFound",
		Message:  "key #" + name + " not found in PackageOrganizer",
		Receiver: "PackageOrganizer",
		Stack: []string{
			"PackageOrganizer>>packageNamed:",
		},
	}
}

// errNotATestCase is what `Foo suite` signals when Foo is not a TestCase:
// run_class_test on such a class raises it on the real image.
func errNotATestCase(class string) *ImageError {
	return &ImageError{
		Class:    "MessageNotUnderstood",
		Message:  class + " class>>doesNotUnderstand: #suite",
		Receiver: class + " class",
		Stack:    []string{class + " class(Object)>>doesNotUnderstand: #suite", "SisServer>>runClassTest:"},
	}
}

// errNotSupported answers tools the simulator registers only so that its
// tool surface matches the real server.
func errNotSupported(tool string) *ImageError {
	return &ImageError{
		Class:    "Error",
		Message:  tool + " is not supported by pharo-sim",
		Receiver: "SisServer",
	}
}

// errArbitraryCode answers eval code that is none of the recognised shapes.
func errArbitraryCode() *ImageError {
	return &ImageError{
		Class: "Error",
		Message: "pharo-sim does not evaluate arbitrary Smalltalk: it understands only the expression " +
			"shapes the service sends (protocol, dry compile, compile:classified:, removeSelector:, " +
			"includesKey:, inheritsFrom: TestCase)",
		Receiver: "UndefinedObject",
	}
}

// stackTrace prints the contexts the way SisServer does: one per line, each
// followed by CR.
func (e *ImageError) stackTrace() string {
	var b strings.Builder
	for _, s := range e.Stack {
		b.WriteString(s)
		b.WriteString("\r")
	}
	return b.String()
}

// errorObject is the error the image side sends when it raised.
type errorObject struct {
	Description string       `json:"description"`
	StackTrace  string       `json:"stack_trace"`
	Receiver    receiverInfo `json:"receiver"`
}

// receiverInfo describes the object that signalled, as SisServer does.
type receiverInfo struct {
	Self      string            `json:"self"`
	Class     string            `json:"class"`
	Variables map[string]string `json:"variables"`
}

// object is the error object of the envelope.
func (e *ImageError) object() errorObject {
	article := "a"
	if e.Receiver != "" && strings.ContainsRune("AEIOU", rune(e.Receiver[0])) {
		article = "an"
	}
	return errorObject{
		Description: e.Description(),
		StackTrace:  e.stackTrace(),
		Receiver:    receiverInfo{Self: article + " " + e.Receiver, Class: e.Receiver, Variables: map[string]string{}},
	}
}

// Envelopes, as the Python server forwards them from the image. The fields
// are in the image's order: success first.

type successEnvelope struct {
	Success bool `json:"success"`
	Result  any  `json:"result"`
}

type failureEnvelope struct {
	Success bool `json:"success"`
	Error   any  `json:"error"`
}

func successAnswer(result any) any {
	if u, ok := result.(unserializable); ok {
		return unserializableEnvelope{Success: true, Error: u.errorObject()}
	}
	return successEnvelope{Success: true, Result: result}
}

// unserializable is a result the image cannot write as JSON (an object
// other than a string, number, boolean, nil, Array or Dictionary).
type unserializable struct {
	class string // the result's class, as the image names it
}

// unserializableEnvelope is what the image side sends for such a result:
// success true, an error, and no result at all.
type unserializableEnvelope struct {
	Success bool        `json:"success"`
	Error   errorObject `json:"error"`
}

func (u unserializable) errorObject() errorObject {
	e := &ImageError{Text: "Result is a " + u.class + " instance which cannot be serialized as JSON", Receiver: "SisServer"}
	return e.object()
}

func imageFailureAnswer(e *ImageError) failureEnvelope {
	return failureEnvelope{Error: e.object()}
}

// connectionErrorAnswer is what the Python server answers when it cannot
// reach the image: `error` is a string here, not an object.
func connectionErrorAnswer(text string) failureEnvelope {
	return failureEnvelope{Error: "Connection error: " + text}
}

// toolResult delivers an envelope like FastMCP does: as JSON text content and
// as structured content. It is never an MCP-level error (isError): the
// envelope's own success field tells.
func toolResult(envelope any) (*mcp.CallToolResult, error) {
	var text bytes.Buffer
	enc := json.NewEncoder(&text)
	enc.SetEscapeHTML(false) // Python's JSON leaves < > & alone; `Foo>>#bar` stays readable
	if err := enc.Encode(envelope); err != nil {
		return nil, fmt.Errorf("encoding the tool answer: %w", err)
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{mcp.NewTextContent(strings.TrimSuffix(text.String(), "\n"))},
		StructuredContent: envelope,
	}, nil
}
