package pipeline

import (
	"context"
	"fmt"
	"strings"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// maxNamedTests bounds the test selectors a tests_inconclusive detail
// names.
const maxNamedTests = 3

// checkTestsRan refuses a report that cannot vouch for a release: one in
// which no test ran although the class defines test methods (an image that
// cannot run them answers "No tests ran", which is no pass), or, after the
// compile, one in which no test ran although some did before. A class that
// defines no tests of its own and runs none (an abstract TestCase) passes.
// before is the class's baseline report, nil for the baseline itself.
func (r *run) checkTestsRan(ctx context.Context, class string, rep refactor.TestReport, before *refactor.TestReport) error {
	if rep.Ran > 0 {
		return nil
	}
	if before != nil && before.Ran > 0 {
		return refactor.Errorf(refactor.TestsInconclusive,
			"%d tests of %s ran before the compile and none after (the image answered %q): the tests cannot vouch for the candidate",
			before.Ran, class, rep.Summary)
	}
	src, err := r.p.image.ClassSource(ctx, class)
	if err != nil {
		return fmt.Errorf("reading %s to tell whether its tests ran: %w", class, err)
	}
	tests := definedTests(class, src)
	if len(tests) == 0 {
		return nil
	}
	named := tests[:min(len(tests), maxNamedTests)]
	more := ""
	if len(tests) > len(named) {
		more = ", …"
	}
	return refactor.Errorf(refactor.TestsInconclusive,
		"%s defines %d test methods (%s%s) but the image ran none of them (it answered %q): an image that cannot run them proves nothing",
		class, len(tests), strings.Join(named, ", "), more, rep.Summary)
}

// definedTests lists the instance-side test methods a class's Tonel source
// defines: unary selectors starting with "test", as SUnit's
// TestCase class>>testSelectors picks them. A class that answers
// isAbstract on its own may legitimately run none (SUnit builds an empty
// suite for an abstract class), and source the service cannot read as
// Tonel defines none it can name: both yield none.
func definedTests(class, src string) []string {
	f, err := tonel.ParseFile(class+".class.st", []byte(src))
	if err != nil {
		return nil
	}
	if _, abstract := f.Sources(tonel.ClassSide)["isAbstract"]; abstract {
		return nil
	}
	var out []string
	for _, m := range f.Methods {
		if m.Side == tonel.InstanceSide && strings.HasPrefix(m.Selector, "test") && !strings.ContainsAny(m.Selector, ":") {
			out = append(out, m.Selector)
		}
	}
	return out
}
