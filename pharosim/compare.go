package pharosim

import (
	"context"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/pharo-refactor/refactord/pharosim/interp"
	"github.com/pharo-refactor/refactord/smalltalk"
)

// compare_method is pharo-sim's own tool, beyond the real server's
// surface: it runs a method of the image and a candidate to replace it
// side by side on pharo-sim's interpreter (interp.CompareMethod), on the
// inputs the method's tests give it and on variations of them. Neither
// the candidate nor its helpers enter the image or the disk.

// compareTool declares compare_method.
func (s *Server) compareTool() toolSpec {
	return toolSpec{newTool("compare_method",
		"pharo-sim only: run a method of the image and a candidate to replace it side by side, on the inputs the "+
			"given test classes give the method and on variations of them, and tell whether the candidate answers, "+
			"signals and leaves its receiver and arguments as the method does. Nothing is compiled into the image.",
		required("class_name", "The name of the class defining the method (\"Foo class\" selects the class side)"),
		mcp.WithBoolean("is_class_method", mcp.DefaultBool(false), mcp.Description("Whether the method is on the class side")),
		required("method_name", "The selector of the image's method"),
		required("candidate_source", "The candidate's whole method source, of the same selector"),
		mcp.WithArray("helper_sources", mcp.WithStringItems(),
			mcp.Description("New helper methods the candidate sends, of the same class and side")),
		mcp.WithString("test_classes", mcp.Description("Space-separated TestCase classes whose tests run to record the method's inputs")),
		mcp.WithInteger("max_inputs", mcp.DefaultNumber(interp.DefaultMaxInputs), mcp.Min(1), mcp.Max(interp.MaxMaxInputs),
			mcp.Description("At most this many recorded inputs, this many generated ones and this many follow-ups"))),
		s.compareMethod}
}

// compareAnswer is compare_method's result.
type compareAnswer struct {
	Outcome     string          `json:"outcome"`
	Reason      string          `json:"reason"`
	Activations int             `json:"activations"`
	Recorded    int             `json:"recorded"`
	Generated   int             `json:"generated"`
	Compared    int             `json:"compared"`
	Unstable    int             `json:"unstable"`
	Witness     *compareWitness `json:"witness,omitempty"`
}

type compareWitness struct {
	Input     string `json:"input"`
	Original  string `json:"original"`
	Candidate string `json:"candidate"`
	Aspect    string `json:"aspect"`
}

func (s *Server) compareMethod(a args) (any, error) {
	class := strings.Fields(a.str("class_name"))
	if len(class) == 0 {
		return nil, errClassNotFound("")
	}
	req := CompareRequest{
		Class:       class[0],
		ClassSide:   len(class) == 2 || a.flag("is_class_method"),
		Selector:    a.str("method_name"),
		Candidate:   a.str("candidate_source"),
		TestClasses: strings.Fields(a.str("test_classes")),
		MaxInputs:   a.integer("max_inputs", interp.DefaultMaxInputs),
	}
	if hs, ok := a.values["helper_sources"].([]any); ok {
		for _, h := range hs {
			if src, ok := h.(string); ok {
				req.Helpers = append(req.Helpers, src)
			}
		}
	}
	v, err := s.img.CompareMethod(a.ctx, req)
	if err != nil {
		return nil, err
	}
	out := compareAnswer{Outcome: v.Outcome, Reason: v.Reason, Activations: v.Activations, Recorded: v.Recorded,
		Generated: v.Generated, Compared: v.Compared, Unstable: v.Unstable}
	if w := v.Witness; w != nil {
		out.Witness = &compareWitness{Input: w.Input, Original: w.Original, Candidate: w.Candidate, Aspect: w.Aspect}
	}
	s.log.Info("compared a method with its candidate", "class", classLabel(req.Class, sideOf(req.ClassSide)),
		"selector", req.Selector, "outcome", v.Outcome, "compared", v.Compared, "aspect", aspectOf(v))
	return out, nil
}

func aspectOf(v interp.Verdict) string {
	if v.Witness == nil {
		return ""
	}
	return v.Witness.Aspect
}

// CompareRequest is a compare_method call.
type CompareRequest struct {
	Class       string
	ClassSide   bool
	Selector    string
	Candidate   string
	Helpers     []string
	TestClasses []string
	MaxInputs   int
}

// compareReserve is the share of a call's time a comparison leaves for
// answering, at most maxCompareReserve.
const (
	compareReserve    = 5
	maxCompareReserve = 2 * time.Second
)

// CompareMethod compares a method of the image with a candidate (see
// interp.CompareMethod) on an interpreter of its own: the test classes'
// program, as a test run builds it, with the method's class and whatever
// the candidate names. It answers the image's errors for an unknown class
// or method (as get_method_source does), a test class that is none, and a
// candidate or helper that does not parse.
func (img *Image) CompareMethod(ctx context.Context, req CompareRequest) (interp.Verdict, error) {
	program, err := img.compareProgram(req)
	if err != nil {
		return interp.Verdict{}, err
	}
	var deadline time.Time
	if d, ok := ctx.Deadline(); ok {
		deadline = d.Add(-min(maxCompareReserve, time.Until(d)/compareReserve))
	}
	in, err := interp.New(program, interp.Limits{Steps: interp.DefaultStepsPerCall, Deadline: deadline})
	if err != nil {
		return interp.Verdict{}, err
	}
	for _, failure := range in.InitializeFailures() {
		img.log.Warn("a class did not load, or its class-side initialize failed, while the image's classes loaded", "failure", failure)
	}
	v, err := in.CompareMethod(interp.Comparison{
		Class: req.Class, ClassSide: req.ClassSide, Selector: req.Selector,
		Candidate: req.Candidate, Helpers: req.Helpers, TestClasses: req.TestClasses,
		MaxInputs: req.MaxInputs, StepsPerTest: stepsPerTest, StepsPerCall: interp.DefaultStepsPerCall,
		Deadline: deadline,
	})
	if err != nil {
		return interp.Verdict{}, &ImageError{Class: "Error", Message: err.Error(), Receiver: "SisServer"}
	}
	return v, ctx.Err()
}

// compareProgram checks a comparison's request against the image and
// answers the program it runs on.
func (img *Image) compareProgram(req CompareRequest) (*interp.Program, error) {
	img.mu.Lock()
	defer img.mu.Unlock()
	side := sideOf(req.ClassSide)
	if _, ierr := img.lookupMethod(MethodKey{Class: req.Class, ClassSide: req.ClassSide, Selector: req.Selector}); ierr != nil {
		return nil, ierr
	}
	roots := append([]string{req.Class}, req.TestClasses...)
	for i, src := range append([]string{req.Candidate}, req.Helpers...) {
		m, err := smalltalk.ParseMethod(src)
		if err != nil {
			return nil, codeError(classLabel(req.Class, side), doItSelectorLabel, src, syntaxError(err))
		}
		switch {
		case i == 0 && m.Selector != req.Selector:
			return nil, &ImageError{Class: "Error", Receiver: "SisServer",
				Message: "the candidate defines #" + m.Selector + ", not #" + req.Selector}
		case i > 0 && m.Selector == req.Selector:
			return nil, &ImageError{Class: "Error", Receiver: "SisServer",
				Message: "a helper defines #" + m.Selector + ", the method compared itself"}
		}
		roots = append(roots, capitalizedNames.FindAllString(src, -1)...)
	}
	for _, name := range req.TestClasses {
		if _, ierr := img.freshClass(name); ierr != nil {
			return nil, ierr
		}
		if !img.isTestCase(name) {
			return nil, errNotATestCase(name)
		}
	}
	return img.programFor(roots), nil
}
