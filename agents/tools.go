package agents

import (
	"context"
	"errors"
	"fmt"
	refactor "github.com/pharo-refactor/refactord"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
)

// ImageTools reaches the Pharo image for the reviewer. The roles only ever
// call the read-only tools of the allowlist (ToolDecls) with validated
// arguments; anything else is refused before it gets here.
type ImageTools interface {
	CallTool(ctx context.Context, name string, args map[string]any) (string, error)
}

// argKind says how a tool argument is validated.
type argKind int

const (
	argClassName argKind = iota
	argSelector
	argSelectorOrSymbol
	argQuery
	argBool
)

type toolArg struct {
	name     string
	kind     argKind
	required bool
	desc     string
}

type toolSpec struct {
	name string
	desc string
	args []toolArg
}

// allowlist is the reviewer's read-only view of the image. Names and
// arguments are exactly the MCP server's.
func allowlist() []toolSpec {
	className := toolArg{"class_name", argClassName, true, "a class name, e.g. OrderedCollection"}
	return []toolSpec{
		{"get_method_source", "The source of one method.", []toolArg{
			className,
			{"method_name", argSelector, true, "the selector, e.g. at:put:"},
			{"is_class_method", argBool, false, "true for a class-side method"},
		}},
		{"get_class_source", "A class's definition and all its methods, as Tonel text.", []toolArg{className}},
		{"get_class_comment", "A class's comment.", []toolArg{className}},
		{"search_implementors", "The classes that implement a selector.", []toolArg{
			{"method_name", argSelector, true, "the selector, e.g. printOn:"},
		}},
		{"search_references", "The methods that send a selector or use a symbol.", []toolArg{
			{"method_name_or_symbol", argSelectorOrSymbol, true, "a selector or symbol, e.g. total or #total"},
		}},
		{"search_references_to_class", "The methods that reference a class.", []toolArg{className}},
		{"search_classes_like", "Class names containing a fragment.", []toolArg{
			{"class_name_query", argQuery, true, "a fragment of a class name, e.g. Collection"},
		}},
	}
}

// ToolNames lists the allowlisted tool names, sorted.
func ToolNames() []string {
	var names []string
	for _, t := range allowlist() {
		names = append(names, t.name)
	}
	sort.Strings(names)
	return names
}

// ToolDecls declares the allowlisted tools to a model.
func ToolDecls() []ToolDecl {
	var decls []ToolDecl
	for _, t := range allowlist() {
		params := &Schema{Type: "object"}
		for _, a := range t.args {
			typ := "string"
			if a.kind == argBool {
				typ = "boolean"
			}
			params.Properties = append(params.Properties, Property{a.name, &Schema{Type: typ, Description: a.desc}})
			if a.required {
				params.Required = append(params.Required, a.name)
			}
		}
		decls = append(decls, ToolDecl{Name: t.name, Description: t.desc, Parameters: params})
	}
	return decls
}

var queryRE = regexp.MustCompile(`^[A-Za-z0-9_]+$`)

// checkToolCall validates a call against the allowlist and returns the
// arguments to send. The argument shapes are strict because the MCP server
// may build Smalltalk expressions from them.
func checkToolCall(c ToolCall) (map[string]any, error) {
	if c.ArgsError != "" {
		return nil, fmt.Errorf("the arguments could not be decoded: %s", c.ArgsError)
	}
	spec, ok := findTool(c.Name)
	if !ok {
		return nil, fmt.Errorf("tool %q is not available; the read-only tools are %s", c.Name, strings.Join(ToolNames(), ", "))
	}
	known := make(map[string]toolArg, len(spec.args))
	for _, a := range spec.args {
		known[a.name] = a
	}
	for name := range c.Args {
		if _, ok := known[name]; !ok {
			return nil, fmt.Errorf("tool %s has no argument %q", c.Name, name)
		}
	}
	args := make(map[string]any, len(spec.args))
	for _, a := range spec.args {
		v, present := c.Args[a.name]
		if !present {
			if a.required {
				return nil, fmt.Errorf("tool %s needs the argument %q", c.Name, a.name)
			}
			continue
		}
		checked, err := checkArg(a, v)
		if err != nil {
			return nil, fmt.Errorf("tool %s, argument %q: %w", c.Name, a.name, err)
		}
		args[a.name] = checked
	}
	return args, nil
}

func findTool(name string) (toolSpec, bool) {
	for _, t := range allowlist() {
		if t.name == name {
			return t, true
		}
	}
	return toolSpec{}, false
}

func checkArg(a toolArg, v any) (any, error) {
	if a.kind == argBool {
		b, ok := v.(bool)
		if !ok {
			return nil, errors.New("must be true or false")
		}
		return b, nil
	}
	s, ok := v.(string)
	if !ok {
		return nil, errors.New("must be a string")
	}
	s = strings.TrimSpace(s)
	var valid bool
	switch a.kind {
	case argClassName:
		valid = refactor.IsClassName(s)
	case argSelector:
		valid = refactor.IsSelector(s)
	case argSelectorOrSymbol:
		valid = refactor.IsSelector(strings.TrimPrefix(s, "#"))
	case argQuery:
		valid = len(s) <= 100 && queryRE.MatchString(s)
	}
	if !valid {
		return nil, fmt.Errorf("%q is not a valid %s", truncate(s, 80), a.desc)
	}
	return s, nil
}

// truncate cuts s to at most n bytes on a rune boundary, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n[… truncated: %d of %d bytes shown]", cut, len(s))
}
