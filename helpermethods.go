package refactor

// Helper is a method a refactoring adds to the method's class, on the
// method's side, beside the rewritten method: the steps of a Composed
// Method (Extract Method). A candidate brings its helpers as a set with
// the method; the set is checked, validated, released, rolled back and
// reverted as one (the helpers are installed before the method and
// removed after the original is back), and the audit row keeps every
// source.
//
// Its fields are what a Tonel writer needs: `Foo >> selector [`, or
// `Foo class >> selector [` when ClassSide, in category Protocol.
type Helper struct {
	// Selector is the helper's selector, read from Source's pattern; ""
	// while the source does not parse.
	Selector string `json:"selector"`
	// Protocol is the protocol it is classified in (private unless the
	// model says otherwise; an extension method's helpers share its
	// *Package protocol).
	Protocol string `json:"protocol"`
	// ClassSide is the method's side: a helper lives where the method does.
	ClassSide bool `json:"is_class_method"`
	// Source is the whole method, its pattern first, LF line endings.
	Source string `json:"source"`
}

// The bounds of a candidate's helper set: more, or a longer helper, is a
// check error fed back to the refiner.
const (
	MaxHelpers     = 4
	MaxHelperBytes = 8 << 10
)

// DefaultHelperProtocol is a helper's protocol when the model names none.
const DefaultHelperProtocol = "private"

// Ref names the helper as a method of class.
func (h Helper) Ref(class string) MethodRef {
	return MethodRef{Class: class, Selector: h.Selector, ClassSide: h.ClassSide}
}

// HelperList is helpers as JSON clients get it: a list, never null.
func HelperList(helpers []Helper) []Helper {
	if helpers == nil {
		return []Helper{}
	}
	return helpers
}
