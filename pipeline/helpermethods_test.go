package pipeline_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/agents/scripted"
	"github.com/pharo-refactor/refactord/internal/testenv"
	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

var total = refactor.MethodRef{Class: "ShoppingCart", Selector: "total"}

// The sample set (testenv): ShoppingCart>>total with two helpers.
const (
	composedTotal  = testenv.ComposedTotal
	subtotalHelper = testenv.SubtotalHelper
	discountHelper = testenv.DiscountHelper
	taxlessTotal   = testenv.TaxlessTotal
)

func composedAnswer(code string, helpers ...string) scripted.Answer {
	return scripted.Answer{JSON: []byte(testenv.ComposedCode(code, helpers...).Text)}
}

// composedScript: a review, the writer's set, the validator's verdicts,
// and the refiner's sets.
func composedScript(writer scripted.Answer, validator []scripted.Answer, refiner ...scripted.Answer) map[refactor.Role][]scripted.Answer {
	return map[refactor.Role][]scripted.Answer{
		refactor.RoleReviewer: {reviewAnswer()}, refactor.RoleWriter: {writer},
		refactor.RoleValidator: validator, refactor.RoleRefiner: refiner,
	}
}

// methodsOf reads a class file of the rig's image as Tonel, by selector.
func (r *rig) methodsOf(class string) map[string]string {
	r.t.Helper()
	f, err := tonel.ParseFile(class+".class.st", []byte(r.file(class)))
	require.NoError(r.t, err, "the class file parses")
	return f.Sources(tonel.InstanceSide)
}

func TestComposedMethodReleasedThenReverted(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOpts{script: composedScript(composedAnswer(composedTotal, subtotalHelper, discountHelper), []scripted.Answer{approvedAnswer()})})
	before := r.file("ShoppingCart")

	res, err := r.run(total)
	require.NoError(t, err)
	assert.Equal(t, refactor.OutcomeReleased, res.Outcome)
	require.Len(t, res.Helpers, 2)
	assert.Equal(t, refactor.Helper{Selector: "subtotal", Protocol: "private", Source: subtotalHelper}, res.Helpers[0])
	assert.Equal(t, "loyaltyDiscountOn:", res.Helpers[1].Selector)
	assert.True(t, res.Tests.Ran)
	assert.Empty(t, res.Tests.Regressions, "the tests pass with the set")
	assert.Equal(t, 1, r.model.count(refactor.RoleValidator))
	assert.Contains(t, r.model.prompt(refactor.RoleValidator, 0), "new helper method #loyaltyDiscountOn:", "the validator judges the set")

	methods := r.methodsOf("ShoppingCart")
	assert.True(t, refactor.SameSource(composedTotal, methods["total"]))
	assert.True(t, refactor.SameSource(subtotalHelper, methods["subtotal"]))
	assert.True(t, refactor.SameSource(discountHelper, methods["loyaltyDiscountOn:"]))
	assert.Contains(t, r.file("ShoppingCart"), "{ #category : 'private' }\nShoppingCart >> subtotal [")

	row := r.row(res.ID)
	assert.Equal(t, refactor.StatusReleased, row.Status)
	assert.Equal(t, res.Helpers, row.Helpers, "the audit row holds every source")

	slot, err := r.pipe.Reserve()
	require.NoError(t, err)
	rev, err := slot.Revert(context.Background(), res.ID, "test")
	require.NoError(t, err)
	assert.Equal(t, refactor.StatusReleased, rev.Status)
	assert.Equal(t, res.Helpers, rev.Helpers, "the revert's row names the helpers it removed")
	assert.Equal(t, before, r.file("ShoppingCart"), "the revert leaves the file byte-identical")
	assert.Equal(t, refactor.StatusReverted, r.row(res.ID).Status)
}

// A revert refuses when a helper of the set was changed since the release.
func TestRevertRefusesAChangedHelper(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOpts{script: composedScript(composedAnswer(composedTotal, subtotalHelper, discountHelper), []scripted.Answer{approvedAnswer()})})
	res, err := r.run(total, func(q *refactor.Request) { q.RunTests = false })
	require.NoError(t, err)
	edited := "subtotal\n\t\"edited by hand\"\n\t^ 0"
	require.NoError(t, r.image.Install(context.Background(), refactor.MethodRef{Class: "ShoppingCart", Selector: "subtotal"}, edited, "private"))

	slot, err := r.pipe.Reserve()
	require.NoError(t, err)
	_, err = slot.Revert(context.Background(), res.ID, "test")
	assert.Equal(t, refactor.MethodChanged, refactor.KindOf(err), "%v", err)
	assert.True(t, refactor.SameSource(edited, r.methodsOf("ShoppingCart")["subtotal"]), "nothing was reverted")
}

// Each refused set goes back to the refiner without a validator call; the
// refiner's correct set is then validated once and proposed.
func TestHelperSetRefusedBeforeTheValidator(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name                string
		writer              scripted.Answer
		check, helper, what string
	}{
		{"a helper overwrites a method of the class",
			composedAnswer(composedTotal, subtotalHelper, discountHelper, "items\n\n\t^ items copy"),
			"overwrite", "items", "items"},
		{"a helper overwrites an inherited method (the image says so)",
			composedAnswer(composedTotal, subtotalHelper, discountHelper, "printOn: aStream\n\n\taStream nextPutAll: 'a cart'"),
			"overwrite", "printOn:", "printOn:"},
		{"a send to a selector that exists nowhere",
			composedAnswer(composedTotal, discountHelper),
			"unresolved_send", "", "subtotal"},
		{"a helper sends to super what no superclass implements",
			composedAnswer(composedTotal, "subtotal\n\n\t^ super cartSubtotal", discountHelper),
			"unresolved_send", "subtotal", "cartSubtotal"},
		{"a helper with a forbidden capability",
			composedAnswer(composedTotal, "subtotal\n\n\t| sum |\n\tself halt.\n\tsum := 0.\n\titems do: [ :each | sum := sum + (each key price * each value) ].\n\t^ sum", discountHelper),
			"capability", "subtotal", "halt"},
		{"a helper that does not parse",
			composedAnswer(composedTotal, "subtotal\n\n\t^ (items", discountHelper),
			"parse", "1", ""},
		{"a helper nothing of the set sends",
			composedAnswer(composedTotal, subtotalHelper, discountHelper, "unusedStep\n\n\t^ 1"),
			"helpers", "unusedStep", "unusedStep"},
		{"too many helpers",
			composedAnswer(composedTotal, subtotalHelper, discountHelper, "a\n\t^ 1", "b\n\t^ 2", "c\n\t^ 3"),
			"helpers", "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, rigOpts{script: composedScript(tc.writer, []scripted.Answer{approvedAnswer()},
				composedAnswer(composedTotal, subtotalHelper, discountHelper))})
			before := r.file("ShoppingCart")
			res, err := r.run(total, func(q *refactor.Request) { q.DryRun = true })
			require.NoError(t, err)
			assert.Equal(t, refactor.OutcomeProposed, res.Outcome)
			assert.Equal(t, 1, r.model.count(refactor.RoleValidator), "only the refiner's set reached the validator")
			assert.Equal(t, 1, r.model.count(refactor.RoleRefiner))
			require.Len(t, res.Rounds, 2)
			first := res.Rounds[0]
			assert.Nil(t, first.Verdict, "no verdict on a refused set")
			require.NotEmpty(t, first.CheckErrors)
			found := false
			for _, ce := range first.CheckErrors {
				if ce.Check == tc.check && ce.Helper == tc.helper && ce.Name == tc.what {
					found = true
				}
			}
			assert.True(t, found, "a %s error in helper %q naming %q: %+v", tc.check, tc.helper, tc.what, first.CheckErrors)
			assert.Contains(t, r.model.prompt(refactor.RoleRefiner, 0), tc.check, "the refiner hears why")
			assert.Empty(t, res.Rounds[1].CheckErrors)
			assert.Len(t, res.Helpers, 2)
			assert.Equal(t, before, r.file("ShoppingCart"), "a dry run compiles nothing")
		})
	}
}

func TestHelperSetRolledBackOnTestRegression(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOpts{script: composedScript(composedAnswer(taxlessTotal, subtotalHelper, discountHelper), []scripted.Answer{approvedAnswer()}),
		noEquivalence: testGateOnly})
	before := r.file("ShoppingCart")
	res, err := r.run(total)
	require.Error(t, err)
	assert.Equal(t, refactor.TestsRegressed, refactor.KindOf(err), "%v", err)
	assert.True(t, res.RolledBack)
	assert.Contains(t, res.Tests.Regressions, "ShoppingCartTest>>#testTotal")
	assert.Equal(t, before, r.file("ShoppingCart"), "method restored and helpers removed: the file is byte-identical")
	row := r.row(res.ID)
	assert.Equal(t, refactor.StatusRolledBack, row.Status)
	assert.Len(t, row.Helpers, 2)
}

// A release interrupted between installing its helpers and the method is
// settled at the next start to one whole set, and the row says which.
func TestReconcileCompletesAHelperSet(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		kind      refactor.RunKind
		method    string // the method the image holds: original or final
		installed int    // how many of the two helpers the image holds
		want      refactor.Status
		wantSet   bool // the image ends with the new set (method and helpers)
	}{
		{"crash between a helper and the method", refactor.RunKindRefactor, "original", 1, refactor.StatusNotReleased, false},
		{"crash after both helpers", refactor.RunKindRefactor, "original", 2, refactor.StatusNotReleased, false},
		{"method in, a helper missing", refactor.RunKindRefactor, "final", 1, refactor.StatusReleased, true},
		{"revert: method back, helpers not yet removed", refactor.RunKindRevert, "original", 2, refactor.StatusReleased, false},
		{"revert: crash before its compile", refactor.RunKindRevert, "final", 2, refactor.StatusNotReleased, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, rigOpts{})
			ctx := context.Background()
			before := r.file("ShoppingCart")
			original := r.source(total)
			helpers := []refactor.Helper{
				{Selector: "subtotal", Protocol: "private", Source: subtotalHelper},
				{Selector: "loyaltyDiscountOn:", Protocol: "private", Source: discountHelper},
			}
			row := refactor.Run{ID: "crashed", Kind: tc.kind, ClassName: "ShoppingCart", Selector: "total", Status: refactor.StatusRunning}
			from, to := original, composedTotal // a refactoring's write-ahead record
			if tc.kind == refactor.RunKindRevert {
				require.NoError(t, r.audit.Create(ctx, refactor.Run{ID: "released", Kind: refactor.RunKindRefactor, ClassName: "ShoppingCart", Selector: "total", Status: refactor.StatusReleased}))
				row.RevertOf = "released"
				from, to = composedTotal, original
			}
			require.NoError(t, r.audit.Create(ctx, row))
			require.NoError(t, r.audit.BeginRelease(ctx, "crashed", from, "pricing", to, helpers))
			for _, h := range helpers[:tc.installed] {
				require.NoError(t, r.image.Install(ctx, h.Ref("ShoppingCart"), h.Source, h.Protocol))
			}
			if tc.method == "final" {
				require.NoError(t, r.image.Install(ctx, total, composedTotal, "pricing"))
			}

			settled, err := r.pipe.Reconcile(ctx)
			require.NoError(t, err)
			require.Len(t, settled, 1)
			got := r.row("crashed")
			assert.Equal(t, tc.want, got.Status)
			methods := r.methodsOf("ShoppingCart")
			if tc.wantSet {
				assert.True(t, refactor.SameSource(composedTotal, methods["total"]))
				assert.True(t, refactor.SameSource(subtotalHelper, methods["subtotal"]))
				assert.True(t, refactor.SameSource(discountHelper, methods["loyaltyDiscountOn:"]))
				assert.Contains(t, got.Notes, "all 2 helper methods are in the image")
			} else {
				assert.Equal(t, before, r.file("ShoppingCart"), "the original set, byte for byte")
				assert.Contains(t, got.Notes, "none of the 2 helper methods is in the image")
			}
		})
	}
}

// A class-side method's helpers live on the class side: checked, released
// and reverted there.
func TestClassSideHelpers(t *testing.T) {
	t.Parallel()
	compute := refactor.MethodRef{Class: "Calculator", Selector: "compute:with:operation:", ClassSide: true}
	const (
		method = "compute: a with: b operation: aString\n\n\taString = 'divide' ifTrue: [\n\t\tb = 0 ifTrue: [ ^ nil ].\n\t\t^ a / b ].\n" +
			"\t^ self arithmetic: aString on: a and: b"
		helper = "arithmetic: aString on: a and: b\n\n\taString = 'add' ifTrue: [ ^ a + b ].\n\taString = 'subtract' ifTrue: [ ^ a - b ].\n" +
			"\taString = 'multiply' ifTrue: [ ^ a * b ].\n\t^ self error: 'unknown operation ' , aString"
	)
	r := newRig(t, rigOpts{script: composedScript(composedAnswer(method, helper), []scripted.Answer{approvedAnswer()})})
	before := r.file("Calculator")
	res, err := r.run(compute)
	require.NoError(t, err)
	require.Len(t, res.Helpers, 1)
	assert.True(t, res.Helpers[0].ClassSide)
	assert.Empty(t, res.Tests.Regressions)
	assert.Contains(t, r.file("Calculator"), "{ #category : 'private' }\nCalculator class >> arithmetic: aString on: a and: b [")
	assert.Equal(t, 0, strings.Count(r.file("Calculator"), "Calculator >> arithmetic:"), "not on the instance side")

	slot, err := r.pipe.Reserve()
	require.NoError(t, err)
	_, err = slot.Revert(context.Background(), res.ID, "test")
	require.NoError(t, err)
	assert.Equal(t, before, r.file("Calculator"))
}
