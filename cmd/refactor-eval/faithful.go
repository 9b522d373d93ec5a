package main

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/pharo-refactor/refactord/smalltalk"
)

// The faithful transformations: each rewrites a method without changing
// what it does.
const (
	TrRename    = "renamed_temporaries" // temporaries and block arguments renamed
	TrFormat    = "reformatted"         // whitespace changed outside literals and comments
	TrInline    = "inlined_temporary"   // a temporary assigned once and used once, inlined
	TrNegatedIf = "negated_conditional" // the test negated, the branches swapped
	TrComment   = "comment_added"       // a comment added
)

// FaithfulTransformations lists every transformation, in the order the
// rewrites are made.
var FaithfulTransformations = []string{TrRename, TrFormat, TrInline, TrNegatedIf, TrComment}

// Faithful answers the faithful rewrites of a method's source that apply
// to it, each parsing as a method of the same selector and differing from
// the source. taken says whether a name is used in the method's class
// (instance variables, class variables, globals): a fresh name is none of
// them nor any name of the method.
func Faithful(src string, taken func(string) bool) []Candidate {
	m, err := smalltalk.ParseMethod(src)
	if err != nil {
		return nil
	}
	if taken == nil {
		taken = func(string) bool { return false }
	}
	var out []Candidate
	seen := map[string]bool{src: true}
	add := func(tr, where, s string) {
		if s == "" || seen[s] || !parses(s, m.Selector) {
			return
		}
		seen[s] = true
		out = append(out, Candidate{Kind: KindFaithful, Operator: tr, Where: where, Source: s})
	}
	if s, where := renameLocals(src, m, taken); s != "" {
		add(TrRename, where, s)
	}
	add(TrFormat, "the body on one line, blanks collapsed", reformat(src, m))
	for _, r := range inlineTemps(src, m) {
		add(TrInline, r.where, r.src)
	}
	for _, r := range negateConditionals(src, m) {
		add(TrNegatedIf, r.where, r.src)
	}
	if i := strings.IndexByte(src, '\n'); i > 0 {
		add(TrComment, "a comment after the pattern", src[:i+1]+"\t\"Kept as it was: only this comment is new.\"\n"+src[i+1:])
	}
	return out
}

// renameLocals renames every temporary and block argument to a fresh
// name, in its declaration and every reference that binds to it.
func renameLocals(src string, m *smalltalk.Method, taken func(string) bool) (string, string) {
	used := map[string]bool{}
	smalltalk.Walk(m, func(n smalltalk.Node) bool {
		if v, ok := n.(*smalltalk.Variable); ok {
			used[v.Name] = true
		}
		return true
	})
	fresh := func(name string) string {
		base := "renamed" + string(unicode.ToUpper(rune(name[0]))) + name[1:]
		cand := base
		for i := 2; used[cand] || taken(cand); i++ {
			cand = base + strings.Repeat("X", i-1)
		}
		used[cand] = true
		return cand
	}
	var edits []edit
	var names []string
	type frame map[string]string // old name → new name; "" when not renamed (an argument)
	var visit func(n smalltalk.Node, scopes []frame)
	lookup := func(name string, scopes []frame) string {
		for i := len(scopes) - 1; i >= 0; i-- {
			if to, ok := scopes[i][name]; ok {
				return to
			}
		}
		return ""
	}
	declare := func(vs []*smalltalk.Variable, rename bool) frame {
		f := frame{}
		for _, v := range vs {
			if rename {
				to := fresh(v.Name)
				f[v.Name] = to
				edits = append(edits, edit{v.Start(), v.End(), to})
				names = append(names, v.Name+"→"+to)
			} else {
				f[v.Name] = ""
			}
		}
		return f
	}
	visit = func(n smalltalk.Node, scopes []frame) {
		switch n := n.(type) {
		case nil:
		case *smalltalk.Variable:
			if to := lookup(n.Name, scopes); to != "" {
				edits = append(edits, edit{n.Start(), n.End(), to})
			}
		case *smalltalk.Sequence:
			inner := append(scopes[:len(scopes):len(scopes)], declare(n.Temps, true))
			for _, s := range n.Statements {
				visit(s, inner)
			}
		case *smalltalk.Block:
			inner := append(scopes[:len(scopes):len(scopes)], declare(n.Args, true))
			visit(n.Body, inner)
		case *smalltalk.Return:
			visit(n.Value, scopes)
		case *smalltalk.Assignment:
			visit(n.Variable, scopes)
			visit(n.Value, scopes)
		case *smalltalk.Message:
			visit(n.Receiver, scopes)
			for _, a := range n.Args {
				visit(a, scopes)
			}
		case *smalltalk.Cascade:
			visit(n.Receiver, scopes)
			for _, msg := range n.Messages {
				visit(msg, scopes)
			}
		case *smalltalk.DynamicArray:
			for _, e := range n.Elements {
				visit(e, scopes)
			}
		}
	}
	visit(m.Body, []frame{declare(m.Args, false)})
	if len(names) == 0 {
		return "", ""
	}
	return apply(src, edits...), strings.Join(names, ", ")
}

// reformat puts the body on one line: every run of blanks outside
// strings, symbols, comments and character literals becomes one space.
func reformat(src string, m *smalltalk.Method) string {
	nl := strings.IndexByte(src, '\n')
	if nl < 0 {
		return ""
	}
	body := src[nl+1:]
	var b strings.Builder
	b.WriteString(src[:nl+1])
	b.WriteString("\t")
	space := false
	for i := 0; i < len(body); {
		c := body[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			space = true
			i++
			continue
		case c == '\'' || c == '"':
			end, ok := smalltalk.QuoteEnd(body, i)
			if !ok {
				return ""
			}
			flush(&b, &space)
			b.WriteString(body[i:end])
			i = end
			continue
		case c == '$':
			end, ok := smalltalk.CharLiteralEnd(body, i)
			if !ok {
				return ""
			}
			flush(&b, &space)
			b.WriteString(body[i:end])
			i = end
			continue
		}
		flush(&b, &space)
		b.WriteByte(c)
		i++
	}
	return b.String()
}

func flush(b *strings.Builder, space *bool) {
	if *space && !strings.HasSuffix(b.String(), "\t") {
		b.WriteByte(' ')
	}
	*space = false
}

// rewrite is one rewritten source and what changed.
type rewrite struct{ src, where string }

// inlineTemps inlines, one rewrite each, every temporary that is assigned
// once, by a statement of its own sequence, and read once, by the next
// statement, as the first thing that statement evaluates; the assigned
// expression moves to the use, in parentheses, and the declaration goes.
func inlineTemps(src string, m *smalltalk.Method) []rewrite {
	var out []rewrite
	smalltalk.Walk(m, func(n smalltalk.Node) bool {
		seq, ok := n.(*smalltalk.Sequence)
		if !ok {
			return true
		}
		for ti, t := range seq.Temps {
			writes, reads := references(m, t.Name)
			if len(writes) != 1 || len(reads) != 1 {
				continue
			}
			for i := 0; i+1 < len(seq.Statements); i++ {
				a, ok := seq.Statements[i].(*smalltalk.Assignment)
				if !ok || a.Variable != writes[0] {
					continue
				}
				if _, chained := a.Value.(*smalltalk.Assignment); chained {
					continue
				}
				if first := firstEvaluated(seq.Statements[i+1]); first != reads[0] {
					continue
				}
				value := paren(src, a.Value)
				edits := []edit{
					{a.Start(), seq.Statements[i+1].Start(), ""},
					{reads[0].Start(), reads[0].End(), value},
					removeTemp(src, seq.Temps, ti),
				}
				out = append(out, rewrite{apply(src, edits...), t.Name + " := " + oneLine(text(src, a.Value)) + ", used once, inlined"})
				break
			}
		}
		return true
	})
	return out
}

// references answers the variables of the method named name, written
// and read (declarations aside); the method must not shadow it.
func references(m *smalltalk.Method, name string) (writes, reads []*smalltalk.Variable) {
	declared := 0
	smalltalk.Walk(m, func(n smalltalk.Node) bool {
		switch n := n.(type) {
		case *smalltalk.Assignment:
			if n.Variable.Name == name {
				writes = append(writes, n.Variable)
			}
		case *smalltalk.Sequence:
			for _, v := range n.Temps {
				if v.Name == name {
					declared++
				}
			}
		case *smalltalk.Block:
			for _, v := range n.Args {
				if v.Name == name {
					declared++
				}
			}
		}
		return true
	})
	if declared != 1 {
		return nil, nil
	}
	isWrite := map[*smalltalk.Variable]bool{}
	for _, w := range writes {
		isWrite[w] = true
	}
	walkScoped(m, nil, func(n smalltalk.Node, _ []string) {
		if v, ok := n.(*smalltalk.Variable); ok && v.Name == name && !isWrite[v] {
			reads = append(reads, v)
		}
	})
	return writes, reads
}

// firstEvaluated answers the node a statement evaluates first when that
// is a variable: the receiver at the root of its chain of sends.
func firstEvaluated(n smalltalk.Node) smalltalk.Node {
	for {
		switch x := n.(type) {
		case *smalltalk.Return:
			n = x.Value
		case *smalltalk.Assignment:
			n = x.Value
		case *smalltalk.Message:
			if x.Receiver == nil {
				return nil
			}
			n = x.Receiver
		case *smalltalk.Cascade:
			n = x.Receiver
		case *smalltalk.Variable:
			return x
		default:
			return nil
		}
	}
}

// removeTemp removes the i-th temporary's declaration: its name, or the
// whole `| … |` when it is the only one.
func removeTemp(src string, temps []*smalltalk.Variable, i int) edit {
	t := temps[i]
	if len(temps) == 1 {
		open := strings.LastIndexByte(src[:t.Start()], '|')
		close := t.End() + strings.IndexByte(src[t.End():], '|')
		end := close + 1
		for end < len(src) && (src[end] == ' ' || src[end] == '\t') {
			end++
		}
		if end < len(src) && src[end] == '\n' {
			// the declaration's whole line
			end++
			for open > 0 && (src[open-1] == '\t' || src[open-1] == ' ') {
				open--
			}
		}
		return edit{open, end, ""}
	}
	if i+1 < len(temps) {
		return edit{t.Start(), temps[i+1].Start(), ""}
	}
	return edit{temps[i-1].End(), t.End(), ""}
}

// negateConditionals rewrites, one rewrite each, every ifTrue:ifFalse:
// (or one-branch ifTrue:/ifFalse:) with its test negated and its branches
// swapped.
func negateConditionals(src string, m *smalltalk.Method) []rewrite {
	var out []rewrite
	smalltalk.Walk(m, func(n smalltalk.Node) bool {
		msg, ok := n.(*smalltalk.Message)
		if !ok || msg.Receiver == nil {
			return true
		}
		var keywords string
		switch msg.Selector {
		case "ifTrue:ifFalse:", "ifFalse:ifTrue:":
			keywords = msg.Selector
		case "ifTrue:":
			keywords = "ifFalse:"
		case "ifFalse:":
			keywords = "ifTrue:"
		default:
			return true
		}
		test, how := negated(src, msg.Receiver)
		if test == "" {
			return true
		}
		var send string
		if len(msg.Args) == 2 {
			parts := strings.SplitAfter(keywords, ":")
			send = test + " " + parts[0] + " " + text(src, msg.Args[1]) + " " + parts[1] + " " + text(src, msg.Args[0])
		} else {
			send = test + " " + keywords + " " + text(src, msg.Args[0])
		}
		if msg.Parens > 0 {
			send = "(" + send + ")"
		}
		out = append(out, rewrite{apply(src, edit{msg.Start(), msg.End(), send}),
			fmt.Sprintf("line %d: `%s` %s, branches swapped", lineOf(src, msg.Start()), oneLine(text(src, msg.Receiver)), how)})
		return true
	})
	return out
}

// negated answers a boolean expression's negation: a comparison's
// opposite, isNil/notNil and isEmpty/notEmpty swapped, a `not` dropped,
// else `not` added.
func negated(src string, n smalltalk.Node) (string, string) {
	opposite := map[string]string{"<": ">=", ">=": "<", ">": "<=", "<=": ">", "=": "~=", "~=": "=",
		"isNil": "notNil", "notNil": "isNil", "isEmpty": "notEmpty", "notEmpty": "isEmpty"}
	if msg, ok := n.(*smalltalk.Message); ok && msg.Receiver != nil {
		if to, ok := opposite[msg.Selector]; ok {
			return apply(text(src, msg), edit{msg.SelectorPos - msg.Start(), msg.SelectorPos - msg.Start() + len(msg.Selector), to}),
				"as " + to
		}
		if msg.Selector == "not" {
			return text(src, msg.Receiver), "without its not"
		}
	}
	return paren(src, n) + " not", "with not"
}
