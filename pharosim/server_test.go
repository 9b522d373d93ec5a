package pharosim

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/internal/testenv"
)

// inProcess starts a Server on a fresh test tree and an initialized
// in-process MCP client to it.
func inProcess(t *testing.T, opts Options) (*client.Client, *Server) {
	t.Helper()
	if opts.Dir == "" {
		opts.Dir = testenv.SimTree(t)
	}
	s, err := New(opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	c, err := client.NewInProcessClient(s.MCPServer())
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, c.Start(ctx))
	t.Cleanup(func() { _ = c.Close() })
	_, err = c.Initialize(ctx, initializeRequest())
	require.NoError(t, err)
	return c, s
}

func initializeRequest() mcp.InitializeRequest {
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "pharosim-test", Version: "1"}
	return req
}

// envelope is a decoded tool answer.
type envelope struct {
	Success bool            `json:"success"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// call calls a tool and decodes its envelope from the text content, after
// checking that the structured content holds the same object.
func call(t *testing.T, c *client.Client, tool string, args map[string]any) (envelope, *mcp.CallToolResult) {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := c.CallTool(context.Background(), req)
	require.NoError(t, err)
	require.Len(t, res.Content, 1)
	text, ok := mcp.AsTextContent(res.Content[0])
	require.True(t, ok, "text content")
	var env envelope
	if res.IsError {
		return env, res
	}
	require.NoError(t, json.Unmarshal([]byte(text.Text), &env), text.Text)
	structured, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	assert.JSONEq(t, text.Text, string(structured), "structured content = text content")
	return env, res
}

func TestArgumentValidation(t *testing.T) {
	t.Parallel()
	c, _ := inProcess(t, Options{})
	cases := []struct {
		name string
		tool string
		args map[string]any
		want string
	}{
		{"missing argument", "get_method_source", map[string]any{"class_name": "Calculator"},
			"Error executing tool get_method_source: 1 validation error for call[get_method_source]\nmethod_name\n  Missing required argument"},
		{"wrong type", "get_class_source", map[string]any{"class_name": 3},
			"Error executing tool get_class_source: 1 validation error for call[get_class_source]\nclass_name\n  Input should be a valid string"},
		{"unknown argument", "list_packages", map[string]any{"package": "x"},
			"Error executing tool list_packages: 1 validation error for call[list_packages]\npackage\n  Unexpected keyword argument"},
		{"bad boolean", "get_method_source", map[string]any{"class_name": "Calculator", "method_name": "sum:with:", "is_class_method": "maybe"},
			"is_class_method\n  Input should be a valid boolean"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, res := call(t, c, tc.tool, tc.args)
			require.True(t, res.IsError)
			text, _ := mcp.AsTextContent(res.Content[0])
			assert.Contains(t, text.Text, tc.want)
		})
	}
}

func TestEvalThroughTheTool(t *testing.T) {
	t.Parallel()
	c, _ := inProcess(t, Options{})
	cases := []struct {
		name     string
		code     string
		success  bool
		contains string
	}{
		{"arbitrary code", "Smalltalk at: #X put: 1", false, "pharo-sim does not evaluate arbitrary Smalltalk"},
		{"runtime error in real Pharo", "1/0", false, "does not evaluate arbitrary Smalltalk"},
		{"syntax error", "(Smalltalk globals at: #Calculator", false, "CodeError:OCSyntaxErrorNotice UndefinedObject>>#DoIt 35:')' expected->"},
		{"class exists", "Smalltalk globals includesKey: #Calculator", true, "true"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env, _ := call(t, c, "eval", map[string]any{"code": tc.code})
			assert.Equal(t, tc.success, env.Success)
			if tc.success {
				assert.Contains(t, string(env.Result), tc.contains)
				return
			}
			assert.Contains(t, string(env.Error), tc.contains)
		})
	}
}

func TestUnsupportedTools(t *testing.T) {
	t.Parallel()
	c, _ := inProcess(t, Options{})
	for tool, args := range map[string]map[string]any{
		"export_package":  {"package_name": "Sample-Shop"},
		"import_package":  {"package_name": "Sample-Shop", "path": "/tmp"},
		"install_project": {"project_name": "X", "repository_url": "github://x/y:main/src"},
		"read_screen":     {},
		"apply_settings":  {"settings": map[string]any{"stack_size": 10}},
	} {
		env, _ := call(t, c, tool, args)
		assert.False(t, env.Success, tool)
		assert.Contains(t, string(env.Error), "not supported by pharo-sim", tool)
	}
}

func TestFaultsFromEnv(t *testing.T) {
	cases := []struct {
		name    string
		env     map[string]string
		want    Faults
		wantErr string
	}{
		{"none", map[string]string{}, Faults{}, ""},
		{"all", map[string]string{EnvExitAfter: "3", EnvDelay: "250ms", EnvFail: "eval=ZeroDivide; get_method_source=KeyNotFound: key #x not found in MethodDictionary", EnvUnreachable: "true"},
			Faults{ExitAfter: 3, Delay: 250 * time.Millisecond, Unreachable: true,
				Fail: map[string]string{"eval": "ZeroDivide", "get_method_source": "KeyNotFound: key #x not found in MethodDictionary"}}, ""},
		{"bad count", map[string]string{EnvExitAfter: "-1"}, Faults{}, EnvExitAfter},
		{"bad delay", map[string]string{EnvDelay: "soon"}, Faults{}, EnvDelay},
		{"bad fail", map[string]string{EnvFail: "eval"}, Faults{}, "TOOL=TEXT"},
		{"bad flag", map[string]string{EnvUnreachable: "sometimes"}, Faults{}, EnvUnreachable},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := FaultsFromEnv(func(k string) string { return tc.env[k] })
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.name != "none", got.Active())
		})
	}
}

func TestInjectedFailures(t *testing.T) {
	t.Parallel()
	faults := Faults{Fail: map[string]string{"get_method_source": "ZeroDivide", "eval": "Error: boom"}}
	c, _ := inProcess(t, Options{Faults: faults})
	env, _ := call(t, c, "get_method_source", map[string]any{"class_name": "Calculator", "method_name": "sum:with:"})
	assert.False(t, env.Success)
	var obj errorObject
	require.NoError(t, json.Unmarshal(env.Error, &obj))
	assert.Equal(t, "ZeroDivide", obj.Description)

	env, _ = call(t, c, "eval", map[string]any{"code": "Smalltalk globals includesKey: #Calculator"})
	require.NoError(t, json.Unmarshal(env.Error, &obj))
	assert.Equal(t, "Error: boom", obj.Description)

	env, _ = call(t, c, "get_class_comment", map[string]any{"class_name": "Calculator"})
	assert.True(t, env.Success, "other tools are untouched")
}

func TestUnreachableImage(t *testing.T) {
	c, _ := inProcess(t, Options{Faults: Faults{Unreachable: true, Delay: time.Millisecond}})
	env, res := call(t, c, "list_packages", nil)
	assert.False(t, res.IsError, "FastMCP does not flag it as an MCP error")
	assert.False(t, env.Success)
	var text string
	require.NoError(t, json.Unmarshal(env.Error, &text), "error is a string here")
	assert.Equal(t, "Connection error: All connection attempts failed", text)
}

func TestExitAfter(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var exits []int
	exit := func(code int) {
		mu.Lock()
		defer mu.Unlock()
		exits = append(exits, code)
	}
	c, _ := inProcess(t, Options{Faults: Faults{ExitAfter: 2}, Exit: exit})
	for i := 0; i < 2; i++ {
		env, _ := call(t, c, "list_packages", nil)
		assert.True(t, env.Success, "call %d is answered", i+1)
	}
	mu.Lock()
	assert.Empty(t, exits)
	mu.Unlock()
	req := mcp.CallToolRequest{}
	req.Params.Name = "list_packages"
	_, err := c.CallTool(context.Background(), req)
	require.Error(t, err, "call 3 is not answered")
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []int{ExitStatus}, exits)
}
