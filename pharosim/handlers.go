package pharosim

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/pharo-refactor/refactord/smalltalk"
)

// The tools' behaviour. Each answers the `result` value or an error; the
// handler wraps both in the envelope.

func (s *Server) eval(a args) (any, error) {
	code := a.str("code")
	e, err := s.rec.Recognize(code)
	var se *smalltalk.SyntaxError
	switch {
	case errors.As(err, &se):
		return nil, codeError(doItReceiver, doItSelectorLabel, code, se)
	case err != nil:
		s.log.Info("eval of an unrecognised expression", "code", clip(code, 200))
		return nil, errArbitraryCode()
	}
	return s.img.Eval(e)
}

func (s *Server) getMethodSource(a args) (any, error) {
	class := strings.Fields(a.str("class_name"))
	if len(class) == 0 {
		return nil, errClassNotFound("")
	}
	key := MethodKey{
		Class:     class[0],
		ClassSide: len(class) == 2 || a.flag("is_class_method"),
		Selector:  a.str("method_name"),
	}
	src, err := s.img.MethodSource(key)
	if err != nil {
		return nil, err
	}
	return toCR(src), nil
}

func (s *Server) getClassSource(a args) (any, error) {
	return s.img.ClassSource(a.str("class_name"))
}

func (s *Server) getClassComment(a args) (any, error) {
	comment, err := s.img.ClassComment(a.str("class_name"))
	if err != nil {
		return nil, err
	}
	return toCR(comment), nil
}

func (s *Server) searchClassesLike(a args) (any, error) {
	return s.img.ClassesLike(a.str("class_name_query")), nil
}

func (s *Server) searchTraitsLike(a args) (any, error) {
	return s.img.TraitsLike(a.str("trait_name_query")), nil
}

func (s *Server) searchMethodsLike(a args) (any, error) {
	return s.img.SelectorsLike(a.str("method_name_query")), nil
}

func (s *Server) searchImplementors(a args) (any, error) {
	return s.img.Implementors(a.str("method_name")), nil
}

func (s *Server) searchReferences(a args) (any, error) {
	return s.img.References(strings.TrimPrefix(a.str("method_name_or_symbol"), "#")), nil
}

// classReference is a search_references_to_class entry, whose keys the
// contract lists in this order.
type classReference struct {
	Package string `json:"package"`
	Class   string `json:"class"`
	Method  string `json:"method"`
}

func (s *Server) searchReferencesToClass(a args) (any, error) {
	refs, err := s.img.ReferencesToClass(a.str("class_name"))
	if err != nil {
		return nil, err
	}
	out := make([]classReference, len(refs))
	for i, r := range refs {
		out[i] = classReference{Package: r.Package, Class: r.Class, Method: r.Method}
	}
	return out, nil
}

func (s *Server) listPackages(args) (any, error) {
	return s.img.PackageNames(), nil
}

func (s *Server) listClasses(a args) (any, error) {
	return s.img.PackageClasses(a.str("package_name"))
}

func (s *Server) listExtendedClasses(a args) (any, error) {
	return s.img.ExtendedClasses(a.str("package_name"))
}

func (s *Server) listMethods(a args) (any, error) {
	return s.img.PackageMethods(a.str("package_name"))
}

// getSettings answers the simulator's own state, since it has no UI
// settings: the tree, its size, whether it watches the disk, and the files
// it could not read and left out.
func (s *Server) getSettings(args) (any, error) {
	return map[string]any{"pharo_sim": s.img.Status()}, nil
}

// runClassTest answers `(Smalltalk globals at: #Foo) suite run` printed
// with fileOutOn:, after the time the oracle says the class takes. A class
// that is not a TestCase has no #suite: MessageNotUnderstood, as in Pharo.
func (s *Server) runClassTest(a args) (any, error) {
	name := a.str("class_name")
	if err := s.img.requireClass(name); err != nil {
		return nil, err
	}
	if !s.img.IsTestCase(name) {
		return nil, errNotATestCase(name)
	}
	return s.runTests(a.ctx, []string{name})
}

func (s *Server) runPackageTest(a args) (any, error) {
	classes, err := s.img.PackageClasses(a.str("package_name"))
	if err != nil {
		return nil, err
	}
	var tests []string
	for _, c := range classes {
		if s.img.IsTestCase(c) {
			tests = append(tests, c)
		}
	}
	return s.runTests(a.ctx, tests)
}

// runTests takes the oracle's time for the classes, then decides their
// tests against the sources as they are at the end of the run. A test that
// hangs holds the call until its context ends (the per-call limit).
func (s *Server) runTests(ctx context.Context, classes []string) (any, error) {
	s.crash.crashIfReached(s.img, s.log, classes)
	if s.img.TestsHang(s.oracle, classes) {
		<-ctx.Done()
		return nil, fmt.Errorf("a test never finished: %w", ctx.Err())
	}
	if err := sleep(ctx, s.oracle.Duration(classes)); err != nil {
		return nil, err
	}
	r, err := s.img.RunTestsFor(ctx, s.oracle, classes)
	if err != nil {
		return nil, err
	}
	return r.Text(), nil
}

// clip shortens s for a log line.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
