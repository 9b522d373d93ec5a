package main

import (
	"context"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/internal/testenv"
)

// contractArg is one argument of a tool in docs/pharo-interop.md's table.
type contractArg struct {
	name     string
	typ      string // JSON schema type
	required bool
}

// contractTools is the tool table of docs/pharo-interop.md ("MCP tools"), kept
// here as data: tool names and argument names must match it exactly.
var contractTools = map[string][]contractArg{
	"eval":                       {{"code", "string", true}},
	"get_method_source":          {{"class_name", "string", true}, {"method_name", "string", true}, {"is_class_method", "boolean", false}},
	"get_class_source":           {{"class_name", "string", true}},
	"get_class_comment":          {{"class_name", "string", true}},
	"search_classes_like":        {{"class_name_query", "string", true}},
	"search_methods_like":        {{"method_name_query", "string", true}},
	"search_implementors":        {{"method_name", "string", true}},
	"search_references":          {{"method_name_or_symbol", "string", true}},
	"search_references_to_class": {{"class_name", "string", true}},
	"search_traits_like":         {{"trait_name_query", "string", true}},
	"list_packages":              {},
	"list_classes":               {{"package_name", "string", true}},
	"list_extended_classes":      {{"package_name", "string", true}},
	"list_methods":               {{"package_name", "string", true}},
	"run_class_test":             {{"class_name", "string", true}},
	"run_package_test":           {{"package_name", "string", true}},
	"export_package":             {{"package_name", "string", true}, {"path", "string", false}},
	"import_package":             {{"package_name", "string", true}, {"path", "string", true}},
	"install_project":            {{"project_name", "string", true}, {"repository_url", "string", true}, {"load_groups", "string", false}},
	// "read_screen, get_settings, apply_settings | … | UI / settings": the
	// table leaves their arguments open; these are the image side's.
	"read_screen":    {{"target_type", "string", false}, {"capture_screenshot", "boolean", false}},
	"get_settings":   {},
	"apply_settings": {{"settings", "object", true}},
}

// simTools are pharo-sim's own tools, beyond the real server's surface
// (docs/pharo-sim.md): the service looks for them and does without them.
var simTools = map[string][]contractArg{
	"compare_method": {{"class_name", "string", true}, {"is_class_method", "boolean", false}, {"method_name", "string", true},
		{"candidate_source", "string", true}, {"helper_sources", "array", false}, {"test_classes", "string", false},
		{"max_inputs", "integer", false}},
}

// declaredArgs answers a tool's arguments, the contract's or pharo-sim's own.
func declaredArgs(tool string) []contractArg {
	if args, ok := contractTools[tool]; ok {
		return args
	}
	return simTools[tool]
}

func TestToolSurfaceMatchesTheContract(t *testing.T) {
	s := startSim(t, nil, "--dir", testenv.SimTree(t))
	listed, err := s.client.ListTools(context.Background(), mcpListTools())
	require.NoError(t, err)

	var names []string
	for _, tool := range listed.Tools {
		names = append(names, tool.Name)
	}
	var want []string
	for name := range contractTools {
		want = append(want, name)
	}
	for name := range simTools {
		want = append(want, name)
	}
	sort.Strings(names)
	sort.Strings(want)
	require.Equal(t, want, names, "tool names")

	for _, tool := range listed.Tools {
		t.Run(tool.Name, func(t *testing.T) {
			args := declaredArgs(tool.Name)
			assert.Equal(t, "object", tool.InputSchema.Type)
			var wantRequired []string
			for _, a := range args {
				prop, ok := tool.InputSchema.Properties[a.name].(map[string]any)
				if !assert.True(t, ok, "argument %s declared", a.name) {
					continue
				}
				assert.Equal(t, a.typ, prop["type"], "type of %s", a.name)
				if a.required {
					wantRequired = append(wantRequired, a.name)
				}
			}
			assert.Len(t, tool.InputSchema.Properties, len(args), "no arguments beyond the contract's")
			assert.ElementsMatch(t, wantRequired, tool.InputSchema.Required, "required arguments")
		})
	}
	// is_class_method: boolean, default false — what mcpclient probes for.
	for _, tool := range listed.Tools {
		if tool.Name == "get_method_source" {
			prop := tool.InputSchema.Properties["is_class_method"].(map[string]any)
			assert.Equal(t, false, prop["default"])
		}
	}
}
