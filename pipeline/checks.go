package pipeline

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"pharo-refactor/smalltalk"
	"pharo-refactor/smalltalk/tonel"
)

// CheckError is one reason a candidate was refused before the validator saw it.
type CheckError struct {
	Check   string `json:"check"` // parse, selector, argument_assignment, undeclared, capability, compile
	Message string `json:"message"`
	Line    int    `json:"line,omitempty"`
	Col     int    `json:"column,omitempty"`
}

func (c CheckError) String() string {
	if c.Line > 0 {
		return fmt.Sprintf("%s (line %d, column %d): %s", c.Check, c.Line, c.Col, c.Message)
	}
	return c.Check + ": " + c.Message
}

// capabilities are globals that reach outside the image's objects: a
// candidate may keep using those the original used, never add one.
func capabilities() []string {
	return []string{
		"Smalltalk", "SmalltalkImage", "OSProcess", "OSSUnixSubprocess", "OSPlatform", "LibC",
		"FFILibrary", "ExternalAddress", "FileSystem", "FileReference", "File", "FileStream",
		"StandardFileStream", "MultiByteFileStream", "FileLocator", "DiskStore", "ZnClient",
		"ZnServer", "ZnEasy", "Socket", "SocketStream", "NetNameResolver", "Compiler",
		"OpalCompiler", "Processor", "Process", "Semaphore", "WorldState", "Author",
	}
}

// capabilitySends are selectors with the same reach: reflection that can
// run or rewrite arbitrary code.
func capabilitySends() []string {
	return []string{
		"perform:", "perform:with:", "perform:with:with:", "perform:with:with:with:",
		"perform:withArguments:", "instVarAt:put:", "instVarNamed:put:", "become:",
		"becomeForward:", "evaluate:", "compile:", "compile:classified:", "removeSelector:",
		"removeFromSystem", "halt",
	}
}

// check runs the local checks and, when they pass, the image's dry compile.
// An error return means the checks themselves could not run.
func (r *run) check(ctx context.Context, code string) ([]CheckError, error) {
	m, err := smalltalk.ParseMethod(code)
	if err != nil {
		var se *smalltalk.SyntaxError
		if errors.As(err, &se) {
			return []CheckError{{Check: "parse", Message: se.Message, Line: se.Line, Col: se.Col}}, nil
		}
		return []CheckError{{Check: "parse", Message: err.Error()}}, nil
	}
	problems := localProblems(m, r.req.Ref.Selector, r.res.OriginalCode)
	undeclared, err := r.undeclared(ctx, m)
	if err != nil {
		return nil, err
	}
	problems = append(problems, undeclared...)
	if len(problems) > 0 {
		return problems, nil
	}
	return r.dryCompile(ctx, code)
}

// localProblems are the checks that need nothing but the two sources.
func localProblems(m *smalltalk.Method, selector, original string) []CheckError {
	var out []CheckError
	if err := smalltalk.CheckSelector(m, selector); err != nil {
		out = append(out, CheckError{Check: "selector", Message: err.Error()})
	}
	for _, ref := range smalltalk.ArgumentAssignments(m) {
		out = append(out, CheckError{Check: "argument_assignment", Line: ref.Line, Col: ref.Col,
			Message: fmt.Sprintf("assigns to %s, which is an argument or pseudo-variable (Pharo refuses: cannot store into)", ref.Name)})
	}
	return append(out, newCapabilities(m, original)...)
}

// newCapabilities reports system-level names the original did not use.
func newCapabilities(m *smalltalk.Method, original string) []CheckError {
	before := map[string]bool{}
	if om, err := smalltalk.ParseMethod(original); err == nil {
		info := om.Info()
		for _, n := range append(append([]string{}, info.Referenced...), info.Sends...) {
			before[n] = true
		}
	}
	info := m.Info()
	var out []CheckError
	for _, name := range info.Referenced {
		if slices.Contains(capabilities(), name) && !before[name] {
			out = append(out, CheckError{Check: "capability", Message: fmt.Sprintf("uses %s, a system-level capability the original did not use", name)})
		}
	}
	for _, sel := range info.Sends {
		if slices.Contains(capabilitySends(), sel) && !before[sel] {
			out = append(out, CheckError{Check: "capability", Message: fmt.Sprintf("sends #%s, reflection the original did not use", sel)})
		}
	}
	return out
}

// undeclared reports names the candidate uses that nothing declares. Names
// the original used are fine (it compiled); a new lower-case name is looked
// up in the superclasses' variables; a new capitalised one must be a global
// of the image. With pools in play the image's dry compile decides instead.
func (r *run) undeclared(ctx context.Context, m *smalltalk.Method) ([]CheckError, error) {
	capitalised, lowercase := smalltalk.Undeclared(m, r.scope.declared)
	var out []CheckError
	if len(lowercase) > 0 {
		if err := r.loadInherited(ctx); err != nil {
			return nil, err
		}
		for _, ref := range lowercase {
			if !r.scope.declared(ref.Name) {
				out = append(out, CheckError{Check: "undeclared", Line: ref.Line, Col: ref.Col,
					Message: fmt.Sprintf("%s is not declared (not an argument, temporary or variable of %s)", ref.Name, r.req.Ref.Class)})
			}
		}
	}
	if len(r.scope.def.Pools) > 0 {
		return out, nil
	}
	for i, ref := range capitalised {
		if i >= maxGlobalLookups {
			break
		}
		exists, err := r.globalExists(ctx, ref.Name)
		if err != nil {
			return nil, err
		}
		if !exists {
			out = append(out, CheckError{Check: "undeclared", Line: ref.Line, Col: ref.Col,
				Message: fmt.Sprintf("%s is not a class or global of the image", ref.Name)})
		}
	}
	return out, nil
}

const (
	maxGlobalLookups = 16
	maxSuperclasses  = 32
)

func (r *run) globalExists(ctx context.Context, name string) (bool, error) {
	if known, ok := r.scope.globals[name]; ok {
		return known, nil
	}
	exists, err := r.p.image.ClassExists(ctx, name)
	if err != nil {
		return false, err
	}
	r.scope.globals[name] = exists
	return exists, nil
}

// loadInherited adds the superclasses' variables to the scope, once.
func (r *run) loadInherited(ctx context.Context) error {
	if r.scope.inheritedLoaded {
		return nil
	}
	super := r.scope.def.Superclass
	for depth := 0; depth < maxSuperclasses && super != "" && super != "nil" && super != "ProtoObject" && super != "Object"; depth++ {
		src, err := r.p.image.ClassSource(ctx, super)
		if err != nil {
			return fmt.Errorf("reading superclass %s: %w", super, err)
		}
		f, err := tonel.ParseFile(super+".class.st", []byte(src))
		if err != nil {
			break // an unreadable superclass leaves the decision to the image's compiler
		}
		r.scope.addDefinition(f.Def)
		super = f.Def.Superclass
	}
	r.scope.inheritedLoaded = true
	return nil
}

// dryCompile asks the image whether the candidate compiles in its class.
func (r *run) dryCompile(ctx context.Context, code string) ([]CheckError, error) {
	errs, err := r.p.image.DryCompile(ctx, r.req.Ref, code)
	if err != nil {
		return nil, err
	}
	out := make([]CheckError, 0, len(errs))
	for _, e := range errs {
		ce := CheckError{Check: "compile", Message: e.Message}
		if e.Position > 0 {
			ce.Line, ce.Col = smalltalk.LineCol(code, runeOffset(code, e.Position-1))
		}
		out = append(out, ce)
	}
	return out, nil
}

// runeOffset turns Pharo's character index into a byte offset.
func runeOffset(s string, chars int) int {
	n := 0
	for i := range s {
		if n == chars {
			return i
		}
		n++
	}
	return len(s)
}

// referencedNames lists the variables a source references; nil when it
// does not parse.
func referencedNames(src string) []string {
	m, err := smalltalk.ParseMethod(src)
	if err != nil {
		return nil
	}
	return m.Info().Referenced
}
