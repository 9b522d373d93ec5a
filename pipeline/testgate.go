package pipeline

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	refactor "github.com/pharo-refactor/refactord"
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

// testLeads is what the image says about where the method's tests may
// be: whether its own test classes are TestCases, the senders of its
// selector, and its package's classes (r.scope). Every question is a read,
// so askTestLeads asks them all at once instead of one round trip after
// another; findTests then chooses from the answers in its order, and a
// question it would not have needed costs only that read.
type testLeads struct {
	ownNames   []string
	own        []bool
	ownErrs    []error
	senders    []refactor.Location
	sendersErr error
	packageErr error
}

// askTestLeads asks the image the questions of findTests concurrently,
// beside any other reads given in also (answered in the same wave).
func (r *run) askTestLeads(ctx context.Context, also ...func(context.Context)) *testLeads {
	l := &testLeads{ownNames: []string{r.req.Ref.Class + "Test", r.req.Ref.Class + "Tests"}}
	l.own, l.ownErrs = make([]bool, len(l.ownNames)), make([]error, len(l.ownNames))
	asks := append([]func(context.Context){}, also...)
	for i, name := range l.ownNames {
		asks = append(asks, func(ctx context.Context) { l.own[i], l.ownErrs[i] = r.p.image.IsTestCase(ctx, name) })
	}
	asks = append(asks,
		func(ctx context.Context) { l.senders, l.sendersErr = r.p.image.References(ctx, r.req.Ref.Selector) },
		// The method's package as the image knows it (list_classes, asked
		// once per run): the extension package of a *Pkg method, else the
		// class's.
		func(ctx context.Context) { l.packageErr = r.loadPackageClasses(ctx) })
	atOnce(ctx, asks...)
	return l
}

// atOnce runs the reads concurrently and returns when all have answered.
func atOnce(ctx context.Context, reads ...func(context.Context)) {
	var wg sync.WaitGroup
	for _, read := range reads[1:] {
		wg.Go(func() { read(ctx) })
	}
	reads[0](ctx)
	wg.Wait()
}

// findTests chooses, from leads, the test classes a Pharo developer would
// run after touching the method: the class's own test classes (FooTest,
// FooTests) when the image says they are TestCases, then the TestCases of
// the method's package that send its selector, then those of the packages
// in Options.TestPackages — never a class of another package otherwise.
// At most Options.MaxTestClasses, in that order; within a reason, names
// ending in Test or Tests first, then by name.
func (r *run) findTests(ctx context.Context, leads *testLeads) ([]testClass, error) {
	limit := r.p.opts.MaxTestClasses
	var chosen []testClass
	for i, name := range leads.ownNames {
		if len(chosen) == limit {
			break
		}
		if err := leads.ownErrs[i]; err != nil {
			return nil, fmt.Errorf("looking for the tests of %s: %w", r.req.Ref.Class, err)
		}
		if leads.own[i] {
			chosen = append(chosen, testClass{name, refactor.TestOwnClass})
		}
	}
	if len(chosen) == limit {
		return chosen, nil
	}
	candidates, err := r.senderCandidates(leads, chosen)
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
func (r *run) senderCandidates(leads *testLeads, chosen []testClass) ([]testClass, error) {
	for _, err := range []error{leads.sendersErr, leads.packageErr} {
		if err != nil {
			return nil, fmt.Errorf("looking for the tests of %s: %w", r.req.Ref, err)
		}
	}
	own := r.scope.packageName
	seen := map[string]bool{r.req.Ref.Class: true}
	for _, c := range chosen {
		seen[c.name] = true
	}
	var out []testClass
	for _, s := range leads.senders {
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
