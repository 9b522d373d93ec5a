package pharosim

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// objectOutputSchema is what FastMCP declares for a tool returning
// dict[str, Any].
const objectOutputSchema = `{"type":"object","additionalProperties":true}`

// toolSpec is one MCP tool: its declaration and what it does.
type toolSpec struct {
	tool mcp.Tool
	run  func(a args) (any, error)
}

// newTool declares a tool the way FastMCP declares the Python server's.
func newTool(name, description string, opts ...mcp.ToolOption) mcp.Tool {
	opts = append([]mcp.ToolOption{
		mcp.WithDescription(description),
		mcp.WithRawOutputSchema([]byte(objectOutputSchema)),
	}, opts...)
	tool := mcp.NewTool(name, opts...)
	// FastMCP declares no hints; mcp-go's defaults would call every tool
	// destructive.
	tool.Annotations = mcp.ToolAnnotation{}
	return tool
}

func required(name, description string) mcp.ToolOption {
	return mcp.WithString(name, mcp.Required(), mcp.Description(description))
}

// tools lists every tool of docs/pharo-interop.md, with the real server's names
// and arguments.
func (s *Server) tools() []toolSpec {
	return []toolSpec{
		{newTool("eval", "Evaluate a Pharo Smalltalk expression with PharoSmalltalkInteropServer.",
			required("code", "The Smalltalk code to evaluate")), s.eval},
		{newTool("get_class_source", "Get the source code of a Smalltalk class.",
			required("class_name", "The name of the class to retrieve source for")), s.getClassSource},
		{newTool("get_method_source", "Get the source code of a specific method in a class.",
			required("class_name", "The name of the class containing the method (\"Foo class\" selects the class side)"),
			required("method_name", "The name of the method to retrieve source for"),
			mcp.WithBoolean("is_class_method", mcp.DefaultBool(false), mcp.Description("Whether the method is on the class side"))),
			s.getMethodSource},
		{newTool("get_class_comment", "Get the comment of a Smalltalk class.",
			required("class_name", "The name of the class to retrieve comment for")), s.getClassComment},
		{newTool("search_classes_like", "Find classes matching a pattern.",
			required("class_name_query", "The pattern to search for in class names")), s.searchClassesLike},
		{newTool("search_methods_like", "Find methods matching a pattern.",
			required("method_name_query", "The pattern to search for in method names")), s.searchMethodsLike},
		{newTool("search_implementors", "Get all implementors of a method selector.",
			required("method_name", "The method name to find implementors for")), s.searchImplementors},
		{newTool("search_references", "Get all references to a method selector or symbol.",
			required("method_name_or_symbol", "The method name or symbol to find references for")), s.searchReferences},
		{newTool("search_references_to_class", "Find references to a class.",
			required("class_name", "The name of the class to find references for")), s.searchReferencesToClass},
		{newTool("search_traits_like", "Find traits matching a pattern.",
			required("trait_name_query", "The pattern to search for in trait names")), s.searchTraitsLike},
		{newTool("list_packages", "Get list of all packages."), s.listPackages},
		{newTool("list_classes", "Get list of classes in a package.",
			required("package_name", "The name of the package")), s.listClasses},
		{newTool("list_extended_classes", "Get list of extended classes in a package.",
			required("package_name", "The name of the package")), s.listExtendedClasses},
		{newTool("list_methods", "Get list of methods in a package.",
			required("package_name", "The name of the package")), s.listMethods},
		{newTool("run_class_test", "Run tests for a class.",
			required("class_name", "The class name to run tests for")), s.runClassTest},
		{newTool("run_package_test", "Run tests for a package.",
			required("package_name", "The package name to run tests for")), s.runPackageTest},
		{newTool("export_package", "Export a package in Tonel format.",
			required("package_name", "The name of the package to export"),
			mcp.WithString("path", mcp.DefaultString("/tmp"), mcp.Description("The path where to export the package"))),
			notSupported("export_package")},
		{newTool("import_package", "Import a package from specified path.",
			required("package_name", "The name of the package to import"),
			required("path", "The path of the Tonel repository to import from")),
			notSupported("import_package")},
		{newTool("install_project", "Install a project using Metacello with optional load groups.",
			required("project_name", "The name of the project (its baseline)"),
			required("repository_url", "The repository URL, e.g. github://owner/repo:main/src"),
			mcp.WithString("load_groups", mcp.Description("Comma-separated load groups"))),
			notSupported("install_project")},
		{newTool("read_screen", "Capture the Pharo UI for debugging.",
			mcp.WithString("target_type", mcp.DefaultString("world"), mcp.Description("world, spec or roassal")),
			mcp.WithBoolean("capture_screenshot", mcp.DefaultBool(true), mcp.Description("Whether to save a screenshot"))),
			notSupported("read_screen")},
		{newTool("get_settings", "Get the settings of PharoSmalltalkInteropServer."), s.getSettings},
		{newTool("apply_settings", "Apply settings to PharoSmalltalkInteropServer.",
			mcp.WithObject("settings", mcp.Required(), mcp.Description("The settings to apply"))),
			notSupported("apply_settings")},
		// pharo-sim's own, beyond the real server's surface (compare.go)
		s.compareTool(),
	}
}

// register adds every tool to the MCP server.
func (s *Server) register(m *server.MCPServer) {
	for _, spec := range s.tools() {
		m.AddTool(spec.tool, s.handler(spec))
	}
}

// handler adapts a tool's function to MCP: it checks the arguments against
// the declaration (as FastMCP's validation does) and wraps the outcome in
// the success/result or success/error envelope.
func (s *Server) handler(spec toolSpec) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		a := args{ctx: ctx, tool: spec.tool, values: req.GetArguments()}
		if err := a.validate(); err != nil {
			s.log.Warn("invalid tool arguments", "tool", spec.tool.Name, "error", err)
			return mcp.NewToolResultError(err.Error()), nil
		}
		result, err := spec.run(a)
		if err != nil && ctx.Err() != nil {
			s.log.Debug("a tool call was given up", "tool", spec.tool.Name, "error", err)
			return nil, ctx.Err()
		}
		if err != nil {
			return toolResult(imageFailureAnswer(s.asImageError(spec.tool.Name, err)))
		}
		return toolResult(successAnswer(result))
	}
}

// asImageError turns a failure into the image's error object. Failures that
// are not image exceptions (a file that cannot be written) are logged: they
// are the simulator's own problems.
func (s *Server) asImageError(tool string, err error) *ImageError {
	var ie *ImageError
	if errors.As(err, &ie) {
		s.log.Debug("tool answered an image error", "tool", tool, "description", ie.Description())
		return ie
	}
	s.log.Error("tool failed", "tool", tool, "error", err)
	return &ImageError{Class: "Error", Message: err.Error(), Receiver: "SisServer"}
}

func notSupported(tool string) func(args) (any, error) {
	return func(args) (any, error) { return nil, errNotSupported(tool) }
}

// args are the arguments of one tool call, and its context (cancelled when
// the client gives up or the call runs over its limit).
type args struct {
	ctx    context.Context
	tool   mcp.Tool
	values map[string]any
}

// validate checks required arguments and the types of those given, with the
// wording of FastMCP's (pydantic's) validation errors.
func (a args) validate() error {
	var problems []string
	for _, name := range a.tool.InputSchema.Required {
		if _, ok := a.values[name]; !ok {
			problems = append(problems, name+"\n  Missing required argument")
		}
	}
	for name, v := range a.values {
		prop, declared := a.tool.InputSchema.Properties[name].(map[string]any)
		if !declared {
			problems = append(problems, name+"\n  Unexpected keyword argument")
			continue
		}
		if msg := typeProblem(prop, v); msg != "" {
			problems = append(problems, name+"\n  "+msg)
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return fmt.Errorf("Error executing tool %s: %d validation error%s for call[%s]\n%s",
		a.tool.Name, len(problems), plural(len(problems)), a.tool.Name, strings.Join(problems, "\n"))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// typeProblem reports a value that does not fit the declared type. Booleans
// may come as "true"/"false", as the image side reads them from a query
// string anyway.
func typeProblem(prop map[string]any, v any) string {
	switch prop["type"] {
	case "string":
		if _, ok := v.(string); !ok {
			return "Input should be a valid string"
		}
	case "boolean":
		if _, ok := asBool(v); !ok {
			return "Input should be a valid boolean"
		}
	case "object":
		if _, ok := v.(map[string]any); !ok {
			return "Input should be a valid dictionary"
		}
	case "integer":
		n, ok := asInt(v)
		if !ok {
			return "Input should be a valid integer"
		}
		if lo, ok := asInt(prop["minimum"]); ok && n < lo {
			return fmt.Sprintf("Input should be greater than or equal to %d", lo)
		}
		if hi, ok := asInt(prop["maximum"]); ok && n > hi {
			return fmt.Sprintf("Input should be less than or equal to %d", hi)
		}
	case "array":
		items, ok := v.([]any)
		if !ok {
			return "Input should be a valid list"
		}
		if each, _ := prop["items"].(map[string]any); each["type"] == "string" {
			for _, item := range items {
				if _, ok := item.(string); !ok {
					return "Input should be a valid list of strings"
				}
			}
		}
	}
	return ""
}

// asInt reads a whole number, as JSON brings it (a float64) or as Go
// declares it.
func asInt(v any) (int, bool) {
	switch n := v.(type) {
	case int:
		return n, true
	case int64:
		return int(n), true
	case float64:
		if n != float64(int(n)) {
			return 0, false
		}
		return int(n), true
	}
	return 0, false
}

func asBool(v any) (bool, bool) {
	switch v := v.(type) {
	case bool:
		return v, true
	case string:
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		return b, err == nil
	}
	return false, false
}

// str returns a string argument (validated before the call).
func (a args) str(name string) string {
	v, _ := a.values[name].(string)
	return v
}

// integer returns an integer argument (validated before the call), or
// otherwise when absent.
func (a args) integer(name string, otherwise int) int {
	if n, ok := asInt(a.values[name]); ok {
		return n
	}
	return otherwise
}

// flag returns a boolean argument, false when absent.
func (a args) flag(name string) bool {
	b, _ := asBool(a.values[name])
	return b
}
