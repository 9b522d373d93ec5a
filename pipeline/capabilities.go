package pipeline

import (
	"context"
	"strings"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/smalltalk"
	"github.com/pharo-refactor/refactord/smalltalk/capability"
)

// maxPackageLookups bounds the package names tried for list_classes.
const maxPackageLookups = 4

// capabilityProblems refuses what the candidate reaches for that the
// original does not (smalltalk/capability, deny by default): sensitive
// selectors, thisContext, pragmas, and globals that are neither used by the
// original, classes of the method's package, nor harmless value classes.
func (r *run) capabilityProblems(ctx context.Context, m *smalltalk.Method) ([]refactor.CheckError, error) {
	var out []refactor.CheckError
	for _, ref := range capability.Check(m, r.scope.original) {
		out = append(out, refusalError(ref))
	}
	globals := capability.Globals(m, r.scope.original, r.scope.variable)
	if len(globals) == 0 {
		return out, nil
	}
	// Inherited class variables and pool constants are not globals.
	if err := r.loadInherited(ctx); err != nil {
		return nil, err
	}
	if err := r.loadPackageClasses(ctx); err != nil {
		return nil, err
	}
	for _, ref := range globals {
		if r.scope.variable(ref.Name) || ref.Name == r.req.Ref.Class || r.scope.packageClasses[ref.Name] {
			continue
		}
		out = append(out, refusalError(capability.GlobalRefusal(ref, r.scope.packageName)))
	}
	return out, nil
}

func refusalError(ref capability.Refusal) refactor.CheckError {
	return refactor.CheckError{Check: "capability", Message: ref.Message, Line: ref.Line, Col: ref.Col, Capability: ref.Family, Name: ref.Name}
}

// loadPackageClasses asks the image (list_classes) for the classes of the
// method's package, once: the extension package of an extension method
// ("*Pkg" protocol), else the class's package. Pharo 11 definitions carry
// only a category ('Pkg-Core'); its shorter prefixes are tried too. A name
// the image does not know as a package is skipped; when none is known the
// method's package adds no classes.
func (r *run) loadPackageClasses(ctx context.Context) error {
	if r.scope.packageLoaded {
		return nil
	}
	r.scope.packageLoaded = true
	r.scope.packageClasses = map[string]bool{}
	for _, name := range r.packageNames() {
		classes, err := r.p.image.PackageClasses(ctx, name)
		if refactor.IsKind(err, refactor.PharoError) || refactor.IsKind(err, refactor.InvalidRequest) {
			continue // not a package of this image
		}
		if err != nil {
			return err
		}
		r.scope.packageName = name
		for _, c := range classes {
			r.scope.packageClasses[c] = true
		}
		return nil
	}
	return nil
}

// packageNames lists the names the method's package may have, most likely
// first.
func (r *run) packageNames() []string {
	var base string
	switch {
	case strings.HasPrefix(r.res.Protocol, "*"):
		base = strings.TrimPrefix(r.res.Protocol, "*")
	case r.scope.def.Package != "":
		return []string{r.scope.def.Package}
	default:
		base = r.scope.def.Category
	}
	var names []string
	for base != "" && len(names) < maxPackageLookups {
		names = append(names, base)
		i := strings.LastIndex(base, "-")
		if i <= 0 {
			break
		}
		base = base[:i]
	}
	return names
}
