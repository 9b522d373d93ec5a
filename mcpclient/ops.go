package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	refactor "github.com/pharo-refactor/refactord"
)

// MethodSource reads a method's source, normalized to LF.
func (c *Client) MethodSource(ctx context.Context, ref refactor.MethodRef) (string, error) {
	if err := ref.Validate(); err != nil {
		return "", err
	}
	args := map[string]any{"class_name": ref.Class, "method_name": ref.Selector}
	if ref.ClassSide {
		if c.sideByName(ctx) {
			args["class_name"] = classArg(ref, true)
		} else {
			args["is_class_method"] = true
		}
	}
	var src string
	if err := c.call(ctx, "get_method_source", args, &src); err != nil {
		return "", fmt.Errorf("reading %s: %w", ref, err)
	}
	return refactor.NormalizeSource(src), nil
}

// Method reads a method's source and its protocol.
func (c *Client) Method(ctx context.Context, ref refactor.MethodRef) (refactor.Method, error) {
	src, err := c.MethodSource(ctx, ref)
	if err != nil {
		return refactor.Method{}, err
	}
	proto, err := c.Protocol(ctx, ref)
	if err != nil {
		return refactor.Method{}, err
	}
	return refactor.Method{Ref: ref, Source: src, Protocol: proto}, nil
}

// Protocol reads the protocol a method is classified in.
func (c *Client) Protocol(ctx context.Context, ref refactor.MethodRef) (string, error) {
	expr, err := protocolExpr(ref)
	if err != nil {
		return "", err
	}
	var proto *string
	if err := c.evalInto(ctx, expr, &proto); err != nil {
		return "", fmt.Errorf("reading the protocol of %s: %w", ref, err)
	}
	if proto == nil || *proto == "" {
		return "as yet unclassified", nil
	}
	return *proto, nil
}

// DryCompile compiles source in the ref's class without installing it and
// returns the compiler's complaints (none when it compiles).
func (c *Client) DryCompile(ctx context.Context, ref refactor.MethodRef, source string) ([]refactor.CompileError, error) {
	expr, err := dryCompileExpr(ref, source)
	if err != nil {
		return nil, err
	}
	var answer string
	if err := c.evalInto(ctx, expr, &answer); err != nil {
		return nil, fmt.Errorf("dry compile of %s: %w", ref, err)
	}
	return parseDryCompile(answer)
}

func parseDryCompile(answer string) ([]refactor.CompileError, error) {
	if answer == "OK" {
		return nil, nil
	}
	parts := strings.SplitN(answer, "|", 3)
	if len(parts) != 3 || parts[0] != "ERR" {
		return nil, refactor.Errorf(refactor.PharoError, "unexpected dry-compile answer %.200q", answer)
	}
	pos, err := strconv.Atoi(parts[1])
	if err != nil {
		pos = 0 // the image prints '?' when the error has no location
	}
	return []refactor.CompileError{{Position: pos, Message: parts[2]}}, nil
}

// Install compiles source into the ref's class and side, in protocol, and
// checks that the image answered the expected selector.
func (c *Client) Install(ctx context.Context, ref refactor.MethodRef, source, protocol string) error {
	expr, err := InstallExpr(ref, source, protocol)
	if err != nil {
		return err
	}
	var selector *string
	if err := c.evalInto(ctx, expr, &selector); err != nil {
		return fmt.Errorf("installing %s: %w", ref, err)
	}
	if selector == nil || *selector != ref.Selector {
		got := "nil"
		if selector != nil {
			got = *selector
		}
		return refactor.Errorf(refactor.PharoError, "installing %s: the image answered %q instead of the selector", ref, got)
	}
	return nil
}

// Remove removes a method and answers whether it was there; removing an
// absent method is not an error.
func (c *Client) Remove(ctx context.Context, ref refactor.MethodRef) (bool, error) {
	expr, err := removeExpr(ref)
	if err != nil {
		return false, err
	}
	var had *bool // true: removed; false: it was absent
	if err := c.evalInto(ctx, expr, &had); err != nil {
		return false, fmt.Errorf("removing %s: %w", ref, err)
	}
	if had == nil {
		return false, refactor.Errorf(refactor.PharoError, "removing %s: the image answered nil instead of true or false", ref)
	}
	return *had, nil
}

// Understands asks the image whether ref's class (or, with fromSuper, its
// superclass) understands ref's selector on ref's side, implemented there
// or inherited.
func (c *Client) Understands(ctx context.Context, ref refactor.MethodRef, fromSuper bool) (bool, error) {
	expr, err := understandsExpr(ref, fromSuper)
	return c.evalBool(ctx, expr, err, "asking whether "+ref.String()+" is understood")
}

// ClassExists asks the image whether a global of that name exists.
func (c *Client) ClassExists(ctx context.Context, class string) (bool, error) {
	expr, err := classExistsExpr(class)
	return c.evalBool(ctx, expr, err, "looking up class "+class)
}

// IsTestCase asks the image whether a global of that name is a class
// inheriting from TestCase (false when there is none).
func (c *Client) IsTestCase(ctx context.Context, class string) (bool, error) {
	expr, err := isTestCaseExpr(class)
	return c.evalBool(ctx, expr, err, "asking whether "+class+" is a TestCase")
}

// evalBool evaluates an expression that answers a boolean; buildErr is
// the error of building it, if any.
func (c *Client) evalBool(ctx context.Context, expr string, buildErr error, what string) (bool, error) {
	if buildErr != nil {
		return false, buildErr
	}
	var answer bool
	if err := c.evalInto(ctx, expr, &answer); err != nil {
		return false, fmt.Errorf("%s: %w", what, err)
	}
	return answer, nil
}

// ClassComment reads a class comment.
func (c *Client) ClassComment(ctx context.Context, class string) (string, error) {
	if err := refactor.ValidateClassName(class); err != nil {
		return "", err
	}
	var comment *string
	if err := c.call(ctx, "get_class_comment", map[string]any{"class_name": class}, &comment); err != nil {
		return "", fmt.Errorf("reading the comment of %s: %w", class, err)
	}
	if comment == nil {
		return "", nil
	}
	return refactor.NormalizeSource(*comment), nil
}

// ClassSource reads a class as Tonel text.
func (c *Client) ClassSource(ctx context.Context, class string) (string, error) {
	if err := refactor.ValidateClassName(class); err != nil {
		return "", err
	}
	var src string
	if err := c.call(ctx, "get_class_source", map[string]any{"class_name": class}, &src); err != nil {
		return "", fmt.Errorf("reading class %s: %w", class, err)
	}
	return refactor.NormalizeSource(src), nil
}

// RunTests runs a test class and parses the SUnit summary.
func (c *Client) RunTests(ctx context.Context, class string) (refactor.TestReport, error) {
	if err := refactor.ValidateClassName(class); err != nil {
		return refactor.TestReport{}, err
	}
	var text string
	if err := c.call(ctx, "run_class_test", map[string]any{"class_name": class}, &text); err != nil {
		if refactor.IsKind(err, refactor.PharoError) && strings.Contains(err.Error(), "doesNotUnderstand: #suite") {
			return refactor.TestReport{}, refactor.Wrap(refactor.PharoError, err, "running %s: it is not a TestCase", class)
		}
		return refactor.TestReport{}, fmt.Errorf("running %s: %w", class, err)
	}
	rep, err := parseTestReport(text)
	if err != nil {
		// The image answered, but not with tests the service can count:
		// such a run can vouch for nothing, and is no failure of the image.
		return refactor.TestReport{}, refactor.Wrap(refactor.TestsInconclusive, err, "running %s: the report cannot be read as tests that ran", class)
	}
	return rep, nil
}

// References lists the methods that send a selector or use it as a symbol.
func (c *Client) References(ctx context.Context, selector string) ([]refactor.Location, error) {
	return c.search(ctx, "search_references", "method_name_or_symbol", selector)
}

// Implementors lists the methods that implement a selector.
func (c *Client) Implementors(ctx context.Context, selector string) ([]refactor.Location, error) {
	return c.search(ctx, "search_implementors", "method_name", selector)
}

func (c *Client) search(ctx context.Context, tool, arg, selector string) ([]refactor.Location, error) {
	if err := refactor.ValidateSelector(selector); err != nil {
		return nil, err
	}
	var locs []refactor.Location
	if err := c.call(ctx, tool, map[string]any{arg: selector}, &locs); err != nil {
		return nil, fmt.Errorf("%s %s: %w", tool, selector, err)
	}
	return locs, nil
}

// readOnlyTools are the tools a reviewer may call (docs/design.md, "One run").
func readOnlyTools() []string {
	return []string{
		"get_method_source", "get_class_source", "get_class_comment", "search_implementors",
		"search_references", "search_references_to_class", "search_classes_like",
	}
}

// CallTool passes a read-only tool call through and answers the JSON of its
// result. Anything outside readOnlyTools is refused without being sent: the
// model must never reach eval or anything that writes.
func (c *Client) CallTool(ctx context.Context, name string, args map[string]any) (string, error) {
	allowed := false
	for _, t := range readOnlyTools() {
		allowed = allowed || t == name
	}
	if !allowed {
		return "", refactor.Errorf(refactor.InvalidRequest, "tool %q is not allowed", name)
	}
	var result json.RawMessage
	if err := c.call(ctx, name, args, &result); err != nil {
		return "", err
	}
	return string(result), nil
}

func (c *Client) evalInto(ctx context.Context, expr string, into any) error {
	return c.call(ctx, "eval", map[string]any{"code": expr}, into)
}

// sideByName reports whether the server selects the class side by name
// ("Foo class"), having no is_class_method argument.
func (c *Client) sideByName(ctx context.Context) bool {
	s, err := c.current(ctx)
	return err == nil && s.sideByName
}
