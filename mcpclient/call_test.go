package mcpclient

import (
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
)

func TestDecodeClassifies(t *testing.T) {
	c, err := New(Config{Command: "unused"})
	require.NoError(t, err)
	cases := []struct {
		name       string
		structured string // RawStructuredContent; empty = text only
		text       string
		isError    bool
		wantKind   refactor.Kind // empty = success
		wantResult string
		wantMsg    string
	}{
		{name: "success from text", text: `{"success": true, "result": "foo\r\t^ 1"}`, wantResult: `"foo\r\t^ 1"`},
		{name: "structured wins over text", structured: `{"success": true, "result": 42}`, text: `{"success": true, "result": 1}`, wantResult: `42`},
		{name: "missing class (Pharo 12)", text: `{"success": false, "error": {"description": "KeyNotFound: key #Nope not found in SystemDictionary", "stack_trace": "…"}}`, wantKind: refactor.ClassNotFound, wantMsg: "class Nope not found"},
		{name: "missing class (Pharo 13)", text: `{"success": false, "error": {"description": "KeyNotFound: key #Nope not found in SystemEnvironment"}}`, wantKind: refactor.ClassNotFound},
		{name: "missing method", text: `{"success": false, "error": {"description": "KeyNotFound: key #bar: not found in MethodDictionary"}}`, wantKind: refactor.MethodNotFound, wantMsg: "#bar:"},
		{name: "image raised", text: `{"success": false, "error": {"description": "ZeroDivide", "stack_trace": "SmallInteger>>/"}}`, wantKind: refactor.PharoError, wantMsg: "ZeroDivide"},
		{name: "image unreachable", text: `{"success": false, "error": "Connection error: [Errno 111] Connection refused"}`, wantKind: refactor.PharoUnavailable},
		{name: "other string error", text: `{"success": false, "error": "HTTP 500"}`, wantKind: refactor.PharoError},
		{name: "unserializable result", text: `{"success": true, "result": null, "error": {"description": "Result is a Foo instance which cannot be serialized as JSON"}}`, wantKind: refactor.PharoError, wantMsg: "cannot be serialized"},
		{name: "not an envelope", text: `hello`, wantKind: refactor.PharoError},
		{name: "no success field", text: `{"result": 1}`, wantKind: refactor.PharoError},
		{name: "structured without success: the text is read", structured: `{"result": 1}`, text: `{"success": true, "result": 2}`, wantResult: `2`},
		{name: "structured and text both without success", structured: `{"result": 1}`, text: `{"result": 2}`, wantKind: refactor.PharoError, wantMsg: "success/result"},
		{name: "success without a result", structured: `{"success": true}`, text: `{"success": true}`, wantKind: refactor.PharoError, wantMsg: "no result"},
		{name: "success without a result, text only", text: `{"success": true}`, wantKind: refactor.PharoError, wantMsg: "no result"},
		{name: "a failure wins over a result", structured: `{"success": false, "result": 1, "error": "Connection error: refused"}`, wantKind: refactor.PharoUnavailable},
		{name: "MCP tool error", text: `Error executing tool eval: boom`, isError: true, wantKind: refactor.PharoError, wantMsg: "boom"},
		{name: "MCP tool error, unreachable", text: `Connection error: refused`, isError: true, wantKind: refactor.PharoUnavailable},
		{name: "a quick call over the server's limit", text: `{"success": false, "error": "Connection error: timed out"}`,
			wantKind: refactor.PharoUnavailable, wantMsg: "did not answer eval within the MCP server's time limit"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got json.RawMessage
			err := c.decode("eval", toolAnswer(t, tc.structured, tc.text, tc.isError), &got)
			if tc.wantKind == "" {
				require.NoError(t, err)
				assert.JSONEq(t, tc.wantResult, string(got))
				return
			}
			require.Error(t, err)
			assert.Equal(t, tc.wantKind, refactor.KindOf(err), err.Error())
			assert.Contains(t, err.Error(), tc.wantMsg)
			assert.NotContains(t, err.Error(), "SmallInteger>>/", "stack traces go to the log, not to clients")
		})
	}
}

// TestTestRunOverTheLimitIsNotAnOutage: on a test run, the server's
// "Connection error: timed out" is tests_inconclusive with advice; a
// refused connection stays pharo_unavailable.
func TestTestRunOverTheLimitIsNotAnOutage(t *testing.T) {
	c, err := New(Config{Command: "unused"})
	require.NoError(t, err)
	cases := []struct {
		name, text string
		isError    bool
		want       refactor.Kind
		msg        []string
	}{
		{"timed out", `{"success": false, "error": "Connection error: timed out"}`, false, refactor.TestsInconclusive,
			[]string{"did not finish within the MCP server's time limit", "30 s", "PHARO_MCP_ENV", "TEST_TIMEOUT", "run_tests: false"}},
		{"a read timeout in other words", `{"success": false, "error": "Connection error: The read operation timed out"}`, false, refactor.TestsInconclusive, nil},
		{"timed out, as an MCP tool error", `Error calling tool: Connection error: timed out`, true, refactor.TestsInconclusive, nil},
		{"refused", `{"success": false, "error": "Connection error: [Errno 111] Connection refused"}`, false, refactor.PharoUnavailable,
			[]string{"cannot reach the image"}},
		{"not a TestCase", `{"success": false, "error": {"description": "MessageNotUnderstood: BarTest class>>doesNotUnderstand: #suite"}}`, false, refactor.PharoError,
			[]string{"doesNotUnderstand: #suite"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var text string
			err := c.decode("run_class_test", toolAnswer(t, "", tc.text, tc.isError), &text)
			require.Error(t, err)
			assert.Equal(t, tc.want, refactor.KindOf(err), err.Error())
			for _, m := range tc.msg {
				assert.Contains(t, err.Error(), m)
			}
		})
	}
}

// toolAnswer is a tools/call result as mcp-go's server writes it: the text
// content, the structured content when given, isError.
func toolAnswer(t *testing.T, structured, text string, isError bool) json.RawMessage {
	t.Helper()
	res := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(text)}, IsError: isError}
	if structured != "" {
		res.StructuredContent = json.RawMessage(structured)
	}
	raw, err := json.Marshal(res)
	require.NoError(t, err)
	return raw
}

// The result is decoded into the caller's value: of the type asked for, or
// a pharo_error naming what came instead.
func TestDecodeIntoTheCallersValue(t *testing.T) {
	c, err := New(Config{Command: "unused"})
	require.NoError(t, err)
	envelope := `{"success": true, "result": [{"class": "Foo", "method": "bar", "package": "P"}]}`
	var locs []refactor.Location
	require.NoError(t, c.decode("search_references", toolAnswer(t, envelope, envelope, false), &locs))
	assert.Equal(t, []refactor.Location{{Class: "Foo", Method: "bar", Package: "P"}}, locs)

	var text string
	err = c.decode("get_method_source", toolAnswer(t, envelope, envelope, false), &text)
	assert.Equal(t, refactor.PharoError, refactor.KindOf(err))
	assert.ErrorContains(t, err, "unexpected result")

	var proto *string
	null := `{"success": true, "result": null}`
	require.NoError(t, c.decode("eval", toolAnswer(t, null, null, false), &proto))
	assert.Nil(t, proto)

	err = c.decode("eval", json.RawMessage(`[1, 2]`), &text)
	assert.Equal(t, refactor.PharoError, refactor.KindOf(err))
	assert.ErrorContains(t, err, "other than an MCP tool result")
}
