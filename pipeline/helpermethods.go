package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/smalltalk"
)

// The checks of a candidate's helper methods (Composed Method): each helper
// parses, is new on the class's side (it overrides nothing the class has or
// inherits: the image is asked), passes the local checks and the
// capability check like the method, and every send to self or super of the
// set reaches a method — of the class's hierarchy, or a helper of the set.
// Sends the original makes are its own business and are not asked about
// (a template method may send what only subclasses implement).

// maxSendLookups bounds the image questions about the sends of one set.
const maxSendLookups = 32

// maxProtocolBytes bounds a helper's protocol name.
const maxProtocolBytes = 100

// parsedMethod is one method of a candidate's set, parsed: the method
// itself (helper "") or a helper.
type parsedMethod struct {
	helper string // the helper's selector; "" for the method
	m      *smalltalk.Method
}

// checkHelpers parses the candidate's helpers, fills in their selector,
// side and protocol, and answers the set's parsed methods (the method
// first) with the problems of the helpers alone.
func (r *run) checkHelpers(ctx context.Context, method *smalltalk.Method) ([]parsedMethod, []refactor.CheckError, error) {
	set := []parsedMethod{{m: method}}
	helpers := r.res.Helpers
	if len(helpers) > refactor.MaxHelpers {
		return set, []refactor.CheckError{{Check: "helpers",
			Message: fmt.Sprintf("%d helper methods; at most %d may come with a rewrite", len(helpers), refactor.MaxHelpers)}}, nil
	}
	var out []refactor.CheckError
	seen := map[string]bool{method.Selector: true}
	for i := range helpers {
		h := &helpers[i]
		h.ClassSide, h.Selector = r.req.Ref.ClassSide, ""
		label := fmt.Sprintf("%d", i+1)
		if len(h.Source) > refactor.MaxHelperBytes {
			out = append(out, refactor.CheckError{Check: "helpers", Helper: label,
				Message: fmt.Sprintf("helper %d is %d bytes; at most %d", i+1, len(h.Source), refactor.MaxHelperBytes)})
			continue
		}
		m, err := smalltalk.ParseMethod(h.Source)
		if err != nil {
			out = append(out, parseProblem(err, label))
			continue
		}
		h.Selector = m.Selector
		if err := h.Ref(r.req.Ref.Class).Validate(); err != nil {
			out = append(out, refactor.CheckError{Check: "helpers", Helper: label, Message: fmt.Sprintf("helper %d: %v", i+1, err)})
			continue
		}
		var problems []refactor.CheckError
		if h.Protocol, problems = r.helperProtocol(h.Protocol); seen[m.Selector] {
			problems = append(problems, refactor.CheckError{Check: "helpers",
				Message: fmt.Sprintf("#%s is defined twice in the set: each helper needs its own new selector, other than the method's", m.Selector)})
		}
		seen[m.Selector] = true
		local, err := r.methodProblems(ctx, m, nil)
		if err != nil {
			return nil, nil, err
		}
		overwrite, err := r.overwriteProblem(ctx, m.Selector)
		if err != nil {
			return nil, nil, err
		}
		problems = append(append(problems, local...), overwrite...)
		out = append(out, inHelper(problems, m.Selector)...)
		set = append(set, parsedMethod{helper: m.Selector, m: m})
	}
	return set, out, nil
}

func parseProblem(err error, helper string) refactor.CheckError {
	var se *smalltalk.SyntaxError
	if errors.As(err, &se) {
		return refactor.CheckError{Check: "parse", Message: se.Message, Line: se.Line, Col: se.Col, Helper: helper}
	}
	return refactor.CheckError{Check: "parse", Message: err.Error(), Helper: helper}
}

func inHelper(problems []refactor.CheckError, selector string) []refactor.CheckError {
	for i := range problems {
		problems[i].Helper = selector
	}
	return problems
}

// helperProtocol is the protocol a helper is installed in: an extension
// method's own (*Package: its helpers belong to the same package), else
// the model's, private by default.
func (r *run) helperProtocol(asked string) (string, []refactor.CheckError) {
	if strings.HasPrefix(r.res.Protocol, "*") {
		return r.res.Protocol, nil
	}
	if asked == "" {
		return refactor.DefaultHelperProtocol, nil
	}
	bad := len(asked) > maxProtocolBytes || strings.HasPrefix(asked, "*") ||
		strings.ContainsFunc(asked, func(c rune) bool { return unicode.IsControl(c) || c == '\'' || c == '"' })
	if bad {
		return asked, []refactor.CheckError{{Check: "helpers",
			Message: fmt.Sprintf("protocol %q: a helper's protocol is a plain name of at most %d bytes, without quotes and not starting with * (the method's package decides that)", asked, maxProtocolBytes)}}
	}
	return asked, nil
}

// overwriteProblem refuses a helper whose selector the class already
// understands on its side: its own method (from the class source) or one
// it inherits (the image says).
func (r *run) overwriteProblem(ctx context.Context, selector string) ([]refactor.CheckError, error) {
	ref := refactor.MethodRef{Class: r.req.Ref.Class, Selector: selector, ClassSide: r.req.Ref.ClassSide}
	exists := r.scope.method(r.scope.side(), selector) != nil
	if !exists {
		var err error
		if exists, err = r.understands(ctx, selector, false); err != nil {
			return nil, err
		}
	}
	if !exists {
		return nil, nil
	}
	return []refactor.CheckError{{Check: "overwrite", Name: selector,
		Message: fmt.Sprintf("%s already exists in the class or is inherited from a superclass; a helper must be a new method, so choose another selector", ref)}}, nil
}

// understands asks the image, once per question, whether the class (or,
// for super, its superclass) understands selector on the method's side.
func (r *run) understands(ctx context.Context, selector string, fromSuper bool) (bool, error) {
	key := sendKey{selector: selector, super: fromSuper}
	if known, ok := r.scope.understood[key]; ok {
		return known, nil
	}
	ref := refactor.MethodRef{Class: r.req.Ref.Class, Selector: selector, ClassSide: r.req.Ref.ClassSide}
	yes, err := r.p.image.Understands(ctx, ref, fromSuper)
	if err != nil {
		return false, fmt.Errorf("asking the image whether %s understands #%s: %w", ref.Class, selector, err)
	}
	r.scope.understood[key] = yes
	return yes, nil
}

// sendKey is one question about a send: to self, or to super.
type sendKey struct {
	selector string
	super    bool
}

// unresolvedSends refuses every send to self or super in the set that
// nothing implements: not a helper of the set (for self), not a method of
// the class, not one the image says the hierarchy understands. Sends the
// original makes to the same receiver are left alone.
func (r *run) unresolvedSends(ctx context.Context, set []parsedMethod) ([]refactor.CheckError, error) {
	helpers := map[string]bool{}
	for _, pm := range set[1:] {
		helpers[pm.helper] = true
	}
	var originals map[sendKey]bool
	if r.scope.original != nil {
		originals = map[sendKey]bool{}
		for _, s := range sendsToSelf(r.scope.original) {
			originals[s.key] = true
		}
	}
	out := unusedHelpers(set)
	lookups := 0
	for _, pm := range set {
		for _, s := range sendsToSelf(pm.m) {
			if originals[s.key] || (!s.key.super && (helpers[s.key.selector] || r.scope.method(r.scope.side(), s.key.selector) != nil)) {
				continue
			}
			if _, asked := r.scope.understood[s.key]; !asked {
				if lookups++; lookups > maxSendLookups {
					out = append(out, refactor.CheckError{Check: "unresolved_send", Helper: pm.helper,
						Message: fmt.Sprintf("more than %d distinct new sends to self and super to check; send fewer", maxSendLookups)})
					return out, nil
				}
			}
			ok, err := r.understands(ctx, s.key.selector, s.key.super)
			if err != nil {
				return nil, err
			}
			if !ok {
				out = append(out, s.problem(r.req.Ref, pm))
			}
		}
	}
	return out, nil
}

// unusedHelpers refuses a helper that neither the method nor a helper it
// reaches sends to self: it would add a method nothing of the set calls.
func unusedHelpers(set []parsedMethod) []refactor.CheckError {
	byName := map[string]parsedMethod{}
	for _, pm := range set[1:] {
		byName[pm.helper] = pm
	}
	reached := map[string]bool{}
	queue := []parsedMethod{set[0]}
	for len(queue) > 0 {
		pm := queue[0]
		queue = queue[1:]
		for _, s := range sendsToSelf(pm.m) {
			if h, ok := byName[s.key.selector]; ok && !s.key.super && !reached[h.helper] {
				reached[h.helper] = true
				queue = append(queue, h)
			}
		}
	}
	var out []refactor.CheckError
	for _, pm := range set[1:] {
		if !reached[pm.helper] {
			out = append(out, refactor.CheckError{Check: "helpers", Helper: pm.helper, Name: pm.helper,
				Message: fmt.Sprintf("#%s is sent to self by neither the method nor another helper it uses; drop it or send it", pm.helper)})
		}
	}
	return out
}

// selfSend is a send to self or super in a method, where it is.
type selfSend struct {
	key       sendKey
	line, col int
}

func (s selfSend) problem(ref refactor.MethodRef, pm parsedMethod) refactor.CheckError {
	receiver, where := "self", "the class, its superclasses and the helpers of the rewrite"
	if s.key.super {
		receiver, where = "super", "the superclasses of "+ref.Class
	}
	return refactor.CheckError{Check: "unresolved_send", Name: s.key.selector, Helper: pm.helper, Line: s.line, Col: s.col,
		Message: fmt.Sprintf("%s %s: nothing in %s implements #%s; send an existing message, or add the method as a helper", receiver, s.key.selector, where, s.key.selector)}
}

// sendsToSelf lists, once each in source order, the messages m sends to
// self and to super (on m's own side; self class sends are another side's
// business and are left to the validator).
func sendsToSelf(m *smalltalk.Method) []selfSend {
	var out []selfSend
	seen := map[sendKey]bool{}
	visit := func(receiver smalltalk.Node, msg *smalltalk.Message) {
		v, ok := receiver.(*smalltalk.Variable)
		if !ok || (v.Name != "self" && v.Name != "super") {
			return
		}
		key := sendKey{selector: msg.Selector, super: v.Name == "super"}
		if seen[key] {
			return
		}
		seen[key] = true
		line, col := smalltalk.LineCol(m.Source, msg.SelectorPos)
		out = append(out, selfSend{key: key, line: line, col: col})
	}
	smalltalk.Walk(m, func(n smalltalk.Node) bool {
		switch n := n.(type) {
		case *smalltalk.Message:
			if n.Receiver != nil {
				visit(n.Receiver, n)
			}
		case *smalltalk.Cascade:
			for _, part := range n.Messages {
				visit(n.Receiver, part)
			}
		}
		return true
	})
	return out
}
