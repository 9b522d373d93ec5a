package pipeline

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	refactor "pharo-refactor"
)

// defaultMaxTestClasses bounds the test classes around one release when
// Options.MaxTestClasses is not set.
const defaultMaxTestClasses = 10

// candidatesPerClass bounds how many sender classes are asked whether they
// are TestCases, per test class the release may run: a package's domain
// classes send the selector too, and each question is one call.
const candidatesPerClass = 3

// testClass is a test class chosen to guard the release, and why.
type testClass struct {
	name   string
	reason refactor.TestReason
}

// findTests chooses the test classes a Pharo developer would run after
// touching the method: the class's own test classes (FooTest, FooTests)
// when the image says they are TestCases, then the TestCases of the
// method's package that send its selector, then those of the packages in
// Options.TestPackages — never a class of another package otherwise.
// At most Options.MaxTestClasses, in that order; within a reason, names
// ending in Test or Tests first, then by name.
func (r *run) findTests(ctx context.Context) ([]testClass, error) {
	limit := r.p.opts.MaxTestClasses
	var chosen []testClass
	for _, name := range []string{r.req.Ref.Class + "Test", r.req.Ref.Class + "Tests"} {
		if len(chosen) == limit {
			break
		}
		is, err := r.p.image.IsTestCase(ctx, name)
		if err != nil {
			return nil, fmt.Errorf("looking for the tests of %s: %w", r.req.Ref.Class, err)
		}
		if is {
			chosen = append(chosen, testClass{name, refactor.TestOwnClass})
		}
	}
	if len(chosen) == limit {
		return chosen, nil
	}
	candidates, err := r.senderCandidates(ctx, chosen)
	if err != nil {
		return nil, err
	}
	asked := 0
	for _, c := range candidates {
		if len(chosen) == limit || asked == candidatesPerClass*limit {
			break
		}
		asked++
		is, err := r.p.image.IsTestCase(ctx, c.name)
		if err != nil {
			return nil, fmt.Errorf("looking for the tests of %s: %w", r.req.Ref, err)
		}
		if is {
			chosen = append(chosen, c)
		}
	}
	return chosen, nil
}

// senderCandidates lists the classes of the method's package (and of the
// configured packages) that send the selector, once each, in the order they
// are asked.
func (r *run) senderCandidates(ctx context.Context, chosen []testClass) ([]testClass, error) {
	senders, err := r.p.image.References(ctx, r.req.Ref.Selector)
	if err != nil {
		return nil, fmt.Errorf("looking for the tests of %s: %w", r.req.Ref, err)
	}
	// The method's package as the image knows it (list_classes, asked once
	// per run): the extension package of a *Pkg method, else the class's.
	if err := r.loadPackageClasses(ctx); err != nil {
		return nil, fmt.Errorf("looking for the tests of %s: %w", r.req.Ref, err)
	}
	own := r.scope.packageName
	seen := map[string]bool{r.req.Ref.Class: true}
	for _, c := range chosen {
		seen[c.name] = true
	}
	var out []testClass
	for _, s := range senders {
		class := strings.TrimSuffix(s.Class, " class")
		if seen[class] || refactor.ValidateClassName(class) != nil {
			continue
		}
		var reason refactor.TestReason
		switch {
		case own != "" && s.Package == own:
			reason = refactor.TestSenderInPackage
		case matchesAny(r.p.opts.TestPackages, s.Package):
			reason = refactor.TestSenderConfigured
		default:
			continue
		}
		seen[class] = true
		out = append(out, testClass{class, reason})
	}
	slices.SortFunc(out, func(a, b testClass) int {
		return cmp.Or(
			cmp.Compare(reasonRank(a.reason), reasonRank(b.reason)),
			-cmpBool(isTestClassName(a.name), isTestClassName(b.name)),
			cmp.Compare(a.name, b.name))
	})
	return out, nil
}

func reasonRank(r refactor.TestReason) int {
	if r == refactor.TestSenderInPackage {
		return 0
	}
	return 1
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	default:
		return -1
	}
}

func isTestClassName(class string) bool {
	return strings.HasSuffix(class, "Test") || strings.HasSuffix(class, "Tests")
}

// matchesAny reports whether pkg is one of patterns: a package name, or a
// prefix ending in `*` ("MyApp-*").
func matchesAny(patterns []string, pkg string) bool {
	for _, p := range patterns {
		if prefix, ok := strings.CutSuffix(p, "*"); ok && strings.HasPrefix(pkg, prefix) || p == pkg {
			return true
		}
	}
	return false
}
