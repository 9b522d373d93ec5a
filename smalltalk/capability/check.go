package capability

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/pharo-refactor/refactord/smalltalk"
)

// Refusal is one capability a candidate reaches for and may not.
type Refusal struct {
	// Family is a Family ID, FamilyGlobal or FamilyPragma.
	Family string
	// Name is what was refused: a selector (perform:with:), a pragma
	// (<primitive:>), a global (Smalltalk) or thisContext.
	Name      string
	Line, Col int
	// Message names the family and the use, for the refiner and the client.
	Message string
}

// thisContext is the pseudo-variable that reaches the execution stack.
const thisContext = "thisContext"

// lookup maps selectors and globals to their family; built once, read only.
type lookup struct {
	exact    map[string]*Family
	prefixes []prefixFamily
	globals  map[string]*Family
	values   map[string]bool
	titles   map[string]string
	// systemGlobals and systemAccessors reach the system dictionary.
	systemGlobals, systemAccessors map[string]bool
}

type prefixFamily struct {
	prefix string
	family *Family
}

var policy = sync.OnceValue(func() *lookup {
	l := &lookup{exact: map[string]*Family{}, globals: map[string]*Family{}, values: map[string]bool{}, titles: map[string]string{
		FamilyGlobal: "a global that is neither used by the original, a class of the method's package, nor a harmless value class",
		FamilyPragma: "pragmas, which tools and the VM act on",
	}}
	families := Families()
	for i := range families {
		f := &families[i]
		l.titles[f.ID] = f.Title
		for _, s := range f.Selectors {
			l.exact[s] = f
		}
		for _, p := range f.Prefixes {
			l.prefixes = append(l.prefixes, prefixFamily{p, f})
		}
		for _, g := range f.Globals {
			l.globals[g] = f
		}
	}
	for _, v := range ValueClasses() {
		l.values[v] = true
	}
	globals, accessors := SystemDictionary()
	l.systemGlobals, l.systemAccessors = setOf(globals), setOf(accessors)
	return l
})

func setOf(names []string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// isSystemDictionary reports whether n evaluates to the system dictionary:
// Smalltalk, Smalltalk globals, Smalltalk image, x environment.
func (l *lookup) isSystemDictionary(n smalltalk.Node) bool {
	switch n := n.(type) {
	case *smalltalk.Variable:
		return l.systemGlobals[n.Name]
	case *smalltalk.Message:
		if n.Selector == "environment" {
			return true
		}
		return l.systemAccessors[n.Selector] && n.Receiver != nil && l.isSystemDictionary(n.Receiver)
	}
	return false
}

// systemSends calls fn for every message m sends to the system
// dictionary, cascade parts included.
func (l *lookup) systemSends(m *smalltalk.Method, fn func(msg *smalltalk.Message)) {
	smalltalk.Walk(m, func(n smalltalk.Node) bool {
		switch n := n.(type) {
		case *smalltalk.Message:
			if n.Receiver != nil && l.isSystemDictionary(n.Receiver) {
				fn(n)
			}
		case *smalltalk.Cascade:
			if l.isSystemDictionary(n.Receiver) {
				for _, part := range n.Messages {
					fn(part)
				}
			}
		}
		return true
	})
}

// familyOf answers the family of a sensitive selector, or nil.
func (l *lookup) familyOf(selector string) *Family {
	if f, ok := l.exact[selector]; ok {
		return f
	}
	for _, p := range l.prefixes {
		if strings.HasPrefix(selector, p.prefix) {
			return p.family
		}
	}
	return nil
}

// IsValueClass reports whether name is one of the harmless value classes.
func IsValueClass(name string) bool { return policy().values[name] }

// uses is what a method does that the policy cares about, keyed by name.
type uses struct {
	selectors map[string]bool // sent or named as a symbol
	pragmas   map[string]bool
	context   bool // thisContext
	globals   map[string]bool
	system    map[string]bool // selectors sent to the system dictionary
}

func usesOf(m *smalltalk.Method) uses {
	u := uses{selectors: map[string]bool{}, pragmas: map[string]bool{}, globals: map[string]bool{}, system: map[string]bool{}}
	if m == nil {
		return u
	}
	policy().systemSends(m, func(msg *smalltalk.Message) { u.system[msg.Selector] = true })
	smalltalk.Walk(m, func(n smalltalk.Node) bool {
		switch n := n.(type) {
		case *smalltalk.Message:
			u.selectors[n.Selector] = true
		case *smalltalk.Literal:
			if n.Kind == smalltalk.LitSymbol {
				u.selectors[n.Value] = true
			}
		case *smalltalk.Pragma:
			u.pragmas[n.Selector] = true
		case *smalltalk.Variable:
			u.context = u.context || n.Name == thisContext
		}
		return true
	})
	for _, name := range m.Info().Referenced {
		u.globals[name] = true
	}
	return u
}

// Check lists the sensitive selectors (sent or named as symbols), the uses
// of thisContext and the pragmas of candidate that original does not use
// exactly, each once, at its first occurrence. original may be nil (then
// nothing is allowed). Globals are checked by Globals, which needs the
// image.
func Check(candidate, original *smalltalk.Method) []Refusal {
	l := policy()
	before := usesOf(original)
	seen := map[string]bool{}
	var out []Refusal
	add := func(family, name string, offset int, message string) {
		if seen[family+" "+name] {
			return
		}
		seen[family+" "+name] = true
		line, col := smalltalk.LineCol(candidate.Source, offset)
		out = append(out, Refusal{Family: family, Name: name, Line: line, Col: col,
			Message: fmt.Sprintf("%s (%s): %s", family, l.titles[family], message)})
	}
	smalltalk.Walk(candidate, func(n smalltalk.Node) bool {
		switch n := n.(type) {
		case *smalltalk.Message:
			if f := l.familyOf(n.Selector); f != nil && !before.selectors[n.Selector] {
				add(f.ID, n.Selector, n.SelectorPos, fmt.Sprintf("sends %s, which the original does not", smalltalk.QuoteSymbol(n.Selector)))
			}
		case *smalltalk.Literal:
			if n.Kind != smalltalk.LitSymbol {
				return true
			}
			if f := l.familyOf(n.Value); f != nil && !before.selectors[n.Value] {
				add(f.ID, n.Value, n.StartPos, fmt.Sprintf("names the selector %s as a symbol (a symbol can be performed), which the original does not", smalltalk.QuoteSymbol(n.Value)))
			}
		case *smalltalk.Variable:
			if n.Name == thisContext && !before.context {
				add("reflection", thisContext, n.StartPos, "uses thisContext, which the original does not")
			}
		case *smalltalk.Pragma:
			if before.pragmas[n.Selector] {
				return true
			}
			family := FamilyPragma
			if isPrimitivePragma(n.Selector) {
				family = "primitives"
			}
			add(family, "<"+n.Selector+">", n.StartPos, fmt.Sprintf("adds the pragma <%s>, which the original does not have", n.Selector))
		}
		return true
	})
	l.systemSends(candidate, func(msg *smalltalk.Message) {
		if !before.system[msg.Selector] {
			add("system", "Smalltalk "+msg.Selector, msg.SelectorPos,
				fmt.Sprintf("sends Smalltalk %s (a message to the system dictionary), which the original does not", msg.Selector))
		}
	})
	return out
}

func isPrimitivePragma(selector string) bool {
	return slices.ContainsFunc(PrimitivePragmaPrefixes(), func(p string) bool { return strings.HasPrefix(selector, p) })
}

// Globals lists the globals candidate references that need an owner check:
// capitalised names that no argument or temporary declares, for which
// declared is false (instance, class and pool variables), that the original
// does not reference and that are not harmless value classes. Each is
// reported once, at its first use. The caller allows those that are classes
// of the method's package and refuses the rest with GlobalRefusal.
func Globals(candidate, original *smalltalk.Method, declared func(name string) bool) []smalltalk.Ref {
	before := usesOf(original)
	capitalised, _ := smalltalk.Undeclared(candidate, declared)
	var out []smalltalk.Ref
	for _, ref := range capitalised {
		if before.globals[ref.Name] || IsValueClass(ref.Name) {
			continue
		}
		out = append(out, ref)
	}
	return out
}

// GlobalRefusal refuses a global reference; pkg names the method's package
// for the message ("" when unknown).
func GlobalRefusal(ref smalltalk.Ref, pkg string) Refusal {
	l := policy()
	family := FamilyGlobal
	if f, ok := l.globals[ref.Name]; ok {
		family = f.ID
	}
	where := "the method's package"
	if pkg != "" {
		where = "package " + pkg
	}
	msg := fmt.Sprintf("references the global %s, which the original does not; allowed are the globals the original uses, the classes of %s and the harmless value classes", ref.Name, where)
	return Refusal{Family: family, Name: ref.Name, Line: ref.Line, Col: ref.Col,
		Message: fmt.Sprintf("%s (%s): %s", family, l.titles[family], msg)}
}
