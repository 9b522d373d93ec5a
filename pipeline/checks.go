package pipeline

import (
	"context"
	"fmt"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/smalltalk"
	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// check runs the local checks of the candidate's set — the method and its
// helpers — and, when they pass, the image's dry compile of each. It fills
// in the helpers' selectors, side and protocol. An error return means the
// checks themselves could not run.
func (r *run) check(ctx context.Context) ([]refactor.CheckError, error) {
	code := r.res.RefactoredCode
	m, err := smalltalk.ParseMethod(code)
	if err != nil {
		return []refactor.CheckError{parseProblem(err, "")}, nil
	}
	problems, err := r.methodProblems(ctx, m, r.scope.original)
	if err != nil {
		return nil, err
	}
	if err := smalltalk.CheckSelector(m, r.req.Ref.Selector); err != nil {
		problems = append([]refactor.CheckError{{Check: "selector", Message: err.Error()}}, problems...)
	}
	set, helperProblems, err := r.checkHelpers(ctx, m)
	if err != nil {
		return nil, err
	}
	problems = append(problems, helperProblems...)
	if len(problems) > 0 {
		return problems, nil
	}
	if problems, err = r.unresolvedSends(ctx, set); err != nil || len(problems) > 0 {
		return problems, err
	}
	for _, pm := range set {
		ref := refactor.MethodRef{Class: r.req.Ref.Class, Selector: pm.m.Selector, ClassSide: r.req.Ref.ClassSide}
		compileProblems, err := r.dryCompile(ctx, ref, pm.m.Source)
		if err != nil {
			return nil, err
		}
		problems = append(problems, inHelper(compileProblems, pm.helper)...)
	}
	return problems, nil
}

// methodProblems are the checks every method of a set passes: no
// assignment to an argument, no unreachable code the original did not
// have (original nil: none at all), every name declared, no capability the
// original does not use.
func (r *run) methodProblems(ctx context.Context, m, original *smalltalk.Method) ([]refactor.CheckError, error) {
	problems := argumentAssignments(m)
	problems = append(problems, addedUnreachable(m, original)...)
	undeclared, err := r.undeclared(ctx, m)
	if err != nil {
		return nil, err
	}
	problems = append(problems, undeclared...)
	capabilities, err := r.capabilityProblems(ctx, m)
	if err != nil {
		return nil, err
	}
	return append(problems, capabilities...), nil
}

// argumentAssignments refuses stores into an argument.
func argumentAssignments(m *smalltalk.Method) []refactor.CheckError {
	var out []refactor.CheckError
	for _, ref := range smalltalk.ArgumentAssignments(m) {
		out = append(out, refactor.CheckError{Check: "argument_assignment", Line: ref.Line, Col: ref.Col,
			Message: fmt.Sprintf("assigns to %s, which is an argument or pseudo-variable (Pharo refuses: cannot store into)", ref.Name)})
	}
	return out
}

// addedUnreachable refuses statements after a return that the original did
// not have: Pharo compiles them (a warning), but they never run, so a
// candidate that adds them says something it does not do.
func addedUnreachable(m, original *smalltalk.Method) []refactor.CheckError {
	added := m.Info().Unreachable()
	if original != nil && len(added) <= len(original.Info().Unreachable()) {
		return nil
	}
	out := make([]refactor.CheckError, 0, len(added))
	for _, w := range added {
		out = append(out, refactor.CheckError{Check: "unreachable", Line: w.Line, Col: w.Col,
			Message: "statements after a return never run; remove them or move the return"})
	}
	return out
}

// undeclared reports names the candidate uses that nothing declares. Names
// the original used are fine (it compiled); a new lower-case name is looked
// up in the superclasses' variables; a new capitalised one must be a class
// variable of a superclass or a global of the image. With pools in play the
// image's dry compile decides instead.
func (r *run) undeclared(ctx context.Context, m *smalltalk.Method) ([]refactor.CheckError, error) {
	capitalised, lowercase := smalltalk.Undeclared(m, r.scope.declared)
	var out []refactor.CheckError
	if len(lowercase) > 0 {
		if err := r.loadInherited(ctx); err != nil {
			return nil, err
		}
		for _, ref := range lowercase {
			if !r.scope.declared(ref.Name) {
				out = append(out, refactor.CheckError{Check: "undeclared", Line: ref.Line, Col: ref.Col,
					Message: fmt.Sprintf("%s is not declared (not an argument, temporary or variable of %s)", ref.Name, r.req.Ref.Class)})
			}
		}
	}
	if len(r.scope.def.Pools) > 0 || len(capitalised) == 0 {
		return out, nil
	}
	// A capitalised name may be a class variable of a superclass.
	if err := r.loadInherited(ctx); err != nil {
		return nil, err
	}
	lookups := 0
	for _, ref := range capitalised {
		if r.scope.declared(ref.Name) {
			continue
		}
		if lookups++; lookups > maxGlobalLookups {
			break
		}
		exists, err := r.globalExists(ctx, ref.Name)
		if err != nil {
			return nil, err
		}
		if !exists {
			out = append(out, refactor.CheckError{Check: "undeclared", Line: ref.Line, Col: ref.Col,
				Message: fmt.Sprintf("%s is not a class or global of the image", ref.Name)})
		}
	}
	return out, nil
}

const (
	maxGlobalLookups = 16
	maxSuperclasses  = 32
	maxPools         = 16
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

// loadInherited adds the superclasses' variables and the constants of the
// pools the class and its superclasses use to the scope, once.
func (r *run) loadInherited(ctx context.Context) error {
	if r.scope.inheritedLoaded {
		return nil
	}
	pools := append([]string{}, r.scope.def.Pools...)
	super := r.scope.def.Superclass
	for depth := 0; depth < maxSuperclasses && super != "" && super != "nil" && super != "ProtoObject" && super != "Object"; depth++ {
		def, ok, err := r.readDefinition(ctx, super)
		if err != nil {
			return fmt.Errorf("reading superclass %s: %w", super, err)
		}
		if !ok {
			break // an unreadable superclass leaves the decision to the image's compiler
		}
		r.scope.addDefinition(def)
		pools = append(pools, def.Pools...)
		super = def.Superclass
	}
	for i, pool := range pools {
		if i >= maxPools {
			break
		}
		def, ok, err := r.readDefinition(ctx, pool)
		if refactor.IsKind(err, refactor.ClassNotFound) || refactor.IsKind(err, refactor.PharoError) {
			continue // a pool the image cannot show adds no names; the dry compile decides
		}
		if err != nil {
			return fmt.Errorf("reading pool %s: %w", pool, err)
		}
		if ok {
			r.scope.addPool(def)
		}
	}
	r.scope.inheritedLoaded = true
	return nil
}

// readDefinition reads a class's Tonel definition; ok is false when the
// image's answer is not readable Tonel.
func (r *run) readDefinition(ctx context.Context, class string) (tonel.Definition, bool, error) {
	if !smalltalk.IsClassName(class) {
		return tonel.Definition{}, false, nil
	}
	src, err := r.p.image.ClassSource(ctx, class)
	if err != nil {
		return tonel.Definition{}, false, err
	}
	f, err := tonel.ParseFile(class+".class.st", []byte(src))
	if err != nil {
		return tonel.Definition{}, false, nil
	}
	return f.Def, true, nil
}

// dryCompile asks the image whether one method of the set compiles in
// its class.
func (r *run) dryCompile(ctx context.Context, ref refactor.MethodRef, code string) ([]refactor.CheckError, error) {
	errs, err := r.p.image.DryCompile(ctx, ref, code)
	if err != nil {
		return nil, err
	}
	out := make([]refactor.CheckError, 0, len(errs))
	for _, e := range errs {
		ce := refactor.CheckError{Check: "compile", Message: e.Message}
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
