package agents

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestToolDeclsAreExactlyTheAllowlist(t *testing.T) {
	t.Parallel()
	want := map[string][]string{
		"get_method_source":          {"class_name", "method_name", "is_class_method"},
		"get_class_source":           {"class_name"},
		"get_class_comment":          {"class_name"},
		"search_implementors":        {"method_name"},
		"search_references":          {"method_name_or_symbol"},
		"search_references_to_class": {"class_name"},
		"search_classes_like":        {"class_name_query"},
	}
	got := map[string][]string{}
	for _, d := range ToolDecls() {
		require.NotNil(t, d.Parameters, d.Name)
		assert.NotEmpty(t, d.Description, d.Name)
		for _, p := range d.Parameters.Properties {
			got[d.Name] = append(got[d.Name], p.Name)
		}
	}
	assert.Equal(t, want, got)
	for _, forbidden := range []string{"eval", "compile", "import_package", "install_project", "run_class_test", "apply_settings"} {
		assert.NotContains(t, ToolNames(), forbidden)
	}
}

func TestCheckToolCall(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		call    ToolCall
		wantErr string
	}{
		{"method source", ToolCall{Name: "get_method_source", Args: map[string]any{"class_name": "Calculator", "method_name": "sum:with:", "is_class_method": false}}, ""},
		{"binary selector", ToolCall{Name: "search_implementors", Args: map[string]any{"method_name": "->"}}, ""},
		{"symbol", ToolCall{Name: "search_references", Args: map[string]any{"method_name_or_symbol": "#total"}}, ""},
		{"query", ToolCall{Name: "search_classes_like", Args: map[string]any{"class_name_query": "Collection"}}, ""},
		{"eval", ToolCall{Name: "eval", Args: map[string]any{"code": "Smalltalk quit"}}, "not available"},
		{"compile", ToolCall{Name: "compile", Args: map[string]any{"code": "x"}}, "not available"},
		{"import_package", ToolCall{Name: "import_package", Args: map[string]any{"package_name": "X", "path": "/tmp"}}, "not available"},
		{"unknown argument", ToolCall{Name: "get_class_comment", Args: map[string]any{"class_name": "Foo", "code": "x"}}, "no argument"},
		{"missing argument", ToolCall{Name: "get_class_comment", Args: map[string]any{}}, "needs the argument"},
		{"code in a class name", ToolCall{Name: "get_class_source", Args: map[string]any{"class_name": "Foo. Smalltalk quit"}}, "not a valid"},
		{"quote in a selector", ToolCall{Name: "search_implementors", Args: map[string]any{"method_name": "foo' , 'bar"}}, "not a valid"},
		{"number as class name", ToolCall{Name: "get_class_comment", Args: map[string]any{"class_name": 42.0}}, "must be a string"},
		{"string as bool", ToolCall{Name: "get_method_source", Args: map[string]any{"class_name": "Foo", "method_name": "bar", "is_class_method": "true"}}, "true or false"},
		{"huge name", ToolCall{Name: "get_class_comment", Args: map[string]any{"class_name": "A" + strings.Repeat("b", 300)}}, "not a valid"},
		{"undecodable arguments", ToolCall{Name: "get_class_comment", ArgsError: "not a JSON object"}, "could not be decoded"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args, err := checkToolCall(tc.call)
			if tc.wantErr == "" {
				require.NoError(t, err)
				assert.NotEmpty(t, args)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.wantErr)
		})
	}
}

func TestRunToolRefusesFencesAndTruncates(t *testing.T) {
	t.Parallel()
	tools := &FakeTools{Answers: map[string]string{"get_class_source": strings.Repeat("x", 5000)}}
	r := &Roles{cfg: Config{Tools: tools, MaxToolResultBytes: 1000, MaxToolCallsPerRound: 2, Budget: Budget{ToolResults: 1500}}}
	ctx := context.Background()
	spend := &toolSpend{left: r.cfg.Budget.ToolResults}

	refused := r.runTool(ctx, ToolCall{Name: "eval", Args: map[string]any{"code": "1"}}, 0, spend)
	assert.True(t, strings.HasPrefix(refused, "refused: "), refused)
	assert.Empty(t, tools.Seen(), "a refused call never reaches the image")

	got := r.runTool(ctx, ToolCall{Name: "get_class_source", Args: map[string]any{"class_name": "Foo"}}, 0, spend)
	assert.True(t, strings.HasPrefix(got, `<image-data label="result of get_class_source">`), got[:60])
	assert.Contains(t, got, "truncated")
	assert.Less(t, len(got), 1200)

	tooMany := r.runTool(ctx, ToolCall{Name: "get_class_source", Args: map[string]any{"class_name": "Foo"}}, 2, spend)
	assert.Contains(t, tooMany, "at most 2 tool calls per round")
	assert.Equal(t, []string{"get_class_source"}, tools.Seen())

	tools.Err = errors.New("KeyNotFound: key #Foo not found")
	failed := r.runTool(ctx, ToolCall{Name: "get_class_comment", Args: map[string]any{"class_name": "Foo"}}, 0, spend)
	assert.Contains(t, failed, "the tool failed")
	assert.Contains(t, failed, "KeyNotFound")

	tools.Err = nil
	rest := r.runTool(ctx, ToolCall{Name: "get_class_source", Args: map[string]any{"class_name": "Foo"}}, 0, spend)
	assert.Contains(t, rest, "truncated", "the second result gets what is left of the budget")
	assert.Less(t, len(rest), 700)
	none := r.runTool(ctx, ToolCall{Name: "get_class_source", Args: map[string]any{"class_name": "Foo"}}, 0, spend)
	assert.Contains(t, none, "used their budget of 1500 bytes")
	assert.True(t, spend.cut)
}
