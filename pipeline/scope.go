package pipeline

import (
	"fmt"
	"strings"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/smalltalk"
	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// scope is what a method of the class can name: the class's variables as the
// image describes them, plus every name the original method used (it
// compiled, so they exist — inherited variables and pool constants included).
type scope struct {
	ref       refactor.MethodRef
	def       tonel.Definition
	known     map[string]bool
	originals map[string]bool // names the original referenced
	globals   map[string]bool // capitalised names already asked of the image
	// understood are the sends already asked of the image (canUnderstand:).
	understood map[sendKey]bool
	// inheritedLoaded is set once the superclasses' variables and the pool
	// constants are in known.
	inheritedLoaded bool
	// original is the original method parsed; nil when it does not parse
	// (then no capability counts as already used).
	original *smalltalk.Method
	// packageClasses are the classes of the method's package, once asked
	// (packageLoaded); packageName is the package they came from.
	packageClasses map[string]bool
	packageName    string
	packageLoaded  bool
	// methods are the class's methods as its source holds them, both
	// sides (for the prompts: selectors and related sources).
	methods []*tonel.Method
}

func newScope(ref refactor.MethodRef, classSource, original string) (*scope, error) {
	f, err := tonel.ParseFile(ref.Class+".class.st", []byte(classSource))
	if err != nil {
		return nil, refactor.Wrap(refactor.PharoError, err, "reading the definition of %s", ref.Class)
	}
	s := &scope{ref: ref, def: f.Def, known: map[string]bool{}, originals: map[string]bool{}, globals: map[string]bool{}, understood: map[sendKey]bool{}, methods: f.Methods}
	s.addDefinition(f.Def)
	if m, err := smalltalk.ParseMethod(original); err == nil {
		s.original = m
		for _, name := range m.Info().Referenced {
			s.originals[name] = true
		}
	}
	return s, nil
}

// addPool declares a pool's constants (its class variables).
func (s *scope) addPool(def tonel.Definition) {
	for _, v := range def.ClassVars {
		s.known[tonel.VarName(v)] = true
	}
}

// variable reports whether name is a variable of the class (instance,
// class or pool variable), as far as loaded.
func (s *scope) variable(name string) bool { return s.known[name] }

// addDefinition declares one class's variables for the ref's side.
func (s *scope) addDefinition(def tonel.Definition) {
	vars := def.InstVars
	if s.ref.ClassSide {
		vars = def.ClassInstVars
	}
	// Entries may be slot definitions (`#owner => FMOne type: …`): the
	// variable is the name before the arrow.
	for _, v := range append(append([]string{}, vars...), def.ClassVars...) {
		s.known[tonel.VarName(v)] = true
	}
}

func (s *scope) declared(name string) bool {
	return s.known[name] || s.originals[name]
}

// describe renders the class's shape for the prompts.
func (s *scope) describe() string {
	d := s.def
	var b strings.Builder
	fmt.Fprintf(&b, "Class %s, superclass %s", s.ref.Class, orNone(d.Superclass))
	if d.Package != "" {
		fmt.Fprintf(&b, ", package %s", d.Package)
	}
	fmt.Fprintf(&b, "\ninstance variables: %s", list(d.InstVars))
	fmt.Fprintf(&b, "\nclass variables: %s", list(d.ClassVars))
	fmt.Fprintf(&b, "\nclass-side instance variables: %s", list(d.ClassInstVars))
	if len(d.Pools) > 0 {
		fmt.Fprintf(&b, "\npools: %s", list(d.Pools))
	}
	if d.Traits != "" {
		fmt.Fprintf(&b, "\ntraits: %s", d.Traits)
	}
	return b.String()
}

func list(names []string) string {
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, " ")
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
