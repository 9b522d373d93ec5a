package interp

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/pharo-refactor/refactord/smalltalk"
)

// A comparison runs a method of the image and a candidate to replace it
// side by side, on the inputs the tests gave the method and on variations
// of them, and says whether the candidate behaved the same: the same
// answer, the same exception, the same state of the receiver and the
// arguments afterwards. Tests miss behaviour changes (a moved boundary,
// quo: for /, a swallowed error, a collection changed in place); this
// looks for them. The candidate never enters the image: it runs inside
// this interpreter only, under the limits of a test run.

// Comparison is what to compare.
type Comparison struct {
	Class     string // the class that defines the method
	ClassSide bool
	Selector  string
	// Candidate is the candidate's whole method source, of the same
	// selector; Helpers are new methods it sends, of the same class and
	// side.
	Candidate string
	Helpers   []string
	// TestClasses run first, to record the inputs the method is given.
	TestClasses []string
	// MaxInputs bounds the recorded inputs, and the generated ones.
	MaxInputs int
	// StepsPerTest bounds each test of the recording run, StepsPerCall
	// each run of either method on an input.
	StepsPerTest int64
	StepsPerCall int64
	// Trace, when set, sees each input compared, printed, and what the
	// image's method did on it.
	Trace func(input, original string)
	// Deadline: no run goes past it; the comparison answers with what it
	// compared by then. Zero: none.
	Deadline time.Time
}

// The outcomes of a comparison.
const (
	Same       = "same"
	Changed    = "changed"
	NotChecked = "not_checked"
)

// The aspects of a difference.
const (
	AspectAnswer    = "answer"
	AspectException = "exception"
	AspectReceiver  = "receiver"
	AspectSteps     = "steps"
	AspectBlocks    = "stored blocks"
	// an argument's aspect is "argument N", N counted from 1
)

// Verdict is what a comparison found.
type Verdict struct {
	Outcome string
	// Reason says why nothing was compared (not_checked); empty otherwise.
	Reason string
	// Activations counts the test runs' entries into the method;
	// Recorded the distinct inputs kept from them; Generated the inputs
	// made besides; Compared those both methods ran on; Unstable those
	// on which the candidate differed from the method while the method,
	// run again, disagreed with itself (not compared).
	Activations, Recorded, Generated, Compared, Unstable int
	// Witness is the first difference, for changed.
	Witness *Witness
}

// Witness is an input on which the two methods differ, and how.
type Witness struct {
	Input     string // the receiver and the arguments, printed
	Original  string // what the method of the image did
	Candidate string // what the candidate did
	Aspect    string
}

const (
	// DefaultMaxInputs and MaxMaxInputs bound Comparison.MaxInputs.
	DefaultMaxInputs = 64
	MaxMaxInputs     = 256
	// DefaultStepsPerCall bounds a run of either method on one input.
	DefaultStepsPerCall = 1_000_000
	// printSteps bounds printing one object for a witness.
	printSteps = 100_000
	// printLimit is where a printed object is cut.
	printLimit = 200
)

// CompareMethod compares the method the request names with its candidate.
// It errs when the request cannot be compared: no such class or method,
// a candidate or helper that does not parse or names another selector, a
// test class the interpreter does not hold.
func (in *Interp) CompareMethod(req Comparison) (Verdict, error) {
	c := in.classes[req.Class]
	if c == nil || c.isTrait {
		return Verdict{}, fmt.Errorf("no class %s", req.Class)
	}
	side := c
	if req.ClassSide {
		side = c.meta
	}
	target := side.methods[req.Selector]
	if target == nil {
		return Verdict{}, fmt.Errorf("%s has no method #%s", side.name, req.Selector)
	}
	target.compileBody()
	if target.err != nil {
		return Verdict{}, fmt.Errorf("%s>>#%s does not compile: %v", side.name, req.Selector, target.err)
	}
	cand := compile(side, req.Candidate)
	if cand.err != nil {
		return Verdict{}, fmt.Errorf("the candidate does not parse: %v", cand.err)
	}
	if cand.selector != req.Selector {
		return Verdict{}, fmt.Errorf("the candidate defines #%s, not #%s", cand.selector, req.Selector)
	}
	cand.compileBody()
	var helpers []*Method
	for _, src := range req.Helpers {
		h := compile(side, src)
		if h.err != nil {
			return Verdict{}, fmt.Errorf("a helper does not parse: %v", h.err)
		}
		if h.selector == req.Selector {
			return Verdict{}, fmt.Errorf("a helper defines #%s, the method compared itself", h.selector)
		}
		h.compileBody()
		helpers = append(helpers, h)
	}
	for _, name := range req.TestClasses {
		if in.classes[name] == nil {
			return Verdict{}, fmt.Errorf("no test class %s", name)
		}
	}
	if req.MaxInputs <= 0 {
		req.MaxInputs = DefaultMaxInputs
	}
	req.MaxInputs = min(req.MaxInputs, MaxMaxInputs)
	if req.StepsPerCall <= 0 {
		req.StepsPerCall = DefaultStepsPerCall
	}
	if req.StepsPerTest <= 0 {
		req.StepsPerTest = 20 * DefaultStepsPerCall
	}
	cmp := &comparison{in: in, req: req, class: c, side: side, target: target, cand: cand, helpers: helpers, ran: newBlocksRan()}
	savedDeadline := in.deadline
	defer func() { in.deadline = savedDeadline }()
	return cmp.compare(), nil
}

type comparison struct {
	in      *Interp
	req     Comparison
	class   *Class // the instance side
	side    *Class // the class or metaclass that defines the method
	target  *Method
	cand    *Method
	helpers []*Method
	// storedArgs are the arguments the method's blocks were given while
	// the tests ran (see compare_blocks.go)
	storedArgs *storedArgs
	// stateClasses are made once per class receiver: the shape of its
	// variables after a run (see stateOf)
	stateClasses map[*Class]*Class
	// ran notes which way each run of the original went (see path)
	ran *blocksRan
}

func (cmp *comparison) past() bool {
	return !cmp.req.Deadline.IsZero() && !time.Now().Before(cmp.req.Deadline)
}

func (cmp *comparison) compare() Verdict {
	in := cmp.in
	in.deadline = cmp.req.Deadline
	// a method that reads a class variable may meet it as the tests
	// found it (nil before a lazy initialization) as well as they left it
	var before *world
	if cmp.readsClassState() {
		before, _ = in.takeWorld()
	}
	rec := cmp.record()
	v := Verdict{Activations: rec.activations, Recorded: len(rec.inputs)}
	if cmp.past() {
		v.Outcome, v.Reason = NotChecked, "the time limit came while the tests ran, before any input was compared"
		return v
	}
	w, ok := in.takeWorld()
	if !ok {
		v.Outcome, v.Reason = NotChecked, "the image's class variables hold too much to copy for each run"
		return v
	}
	gen := newGenerator(in, cmp.target, cmp.req.MaxInputs, rec.inputs)
	if len(rec.inputs) > 0 {
		gen.fromRecorded(rec.inputs)
	} else {
		gen.unreached(cmp.class, cmp.req.ClassSide, rec.receivers)
	}
	inputs := append(append([]*input{}, rec.inputs...), cmp.inWorld(before, rec.inputs)...)
	inputs = append(inputs, gen.out...)
	var instant time.Time
	defer in.freezeClock(&instant)()
	t := &tally{paths: map[string]bool{}}
	if cmp.runAll(w, inputs, &instant, &v, t) {
		v.Generated = len(gen.out)
		return v
	}
	// the variations that took the method elsewhere, each varied again at
	// a second place (see generator.followUps); those that took it
	// elsewhere again, once more
	for round, from := 0, 0; round < followUpRounds && !t.timedOut && from < len(t.took); round++ {
		took := t.took[from:]
		from = len(t.took)
		more := gen.followUps(took)
		inputs = append(inputs, more...)
		if cmp.runAll(w, more, &instant, &v, t) {
			v.Generated = len(gen.out)
			return v
		}
	}
	if !t.timedOut {
		more := gen.restOfPlaces()
		inputs = append(inputs, more...)
		if cmp.runAll(w, more, &instant, &v, t) {
			v.Generated = len(gen.out)
			return v
		}
	}
	if v.Compared == 0 && t.exhausted > 0 && !t.timedOut && cmp.req.StepsPerCall < cmp.req.StepsPerTest {
		// every run of the image's method outlasted a call's steps (a
		// benchmark building 100,000 rows): its first inputs again, with
		// the steps a whole test has
		cmp.req.StepsPerCall, t.exhausted = cmp.req.StepsPerTest, 0
		if cmp.runAll(w, inputs[:min(len(inputs), maxLongRuns)], &instant, &v, t) {
			v.Generated = len(gen.out)
			return v
		}
	}
	v.Generated = len(gen.out)
	exhausted, timedOut, lacking, lacks := t.exhausted, t.timedOut, t.lacking, t.lacks
	if v.Compared > 0 && lacking == v.Compared {
		v.Outcome = NotChecked
		who := "both"
		if t.candidateLacked {
			who = "the candidate, or both,"
		}
		v.Reason = "on every input " + who + " stopped at what pharo-sim's kernel lacks (" + clipText(lacks) + "): nothing they do was compared"
		return v
	}
	if v.Compared > 0 {
		v.Outcome = Same
		return v
	}
	v.Outcome = NotChecked
	switch {
	case len(inputs) == 0:
		v.Reason = "no input: no test reached the method and none could be made for it"
	case timedOut:
		v.Reason = "the time limit came before any input was compared"
	case exhausted > 0 && v.Unstable == 0:
		v.Reason = "the method of the image ran out of its limits on every input (an endless loop?)"
	case exhausted == 0:
		v.Reason = "the method of the image answered differently in two runs of every input (it depends on more than its receiver, its arguments and the class variables)"
	default:
		v.Reason = fmt.Sprintf("on every input the method of the image ran out of its limits (%d) or answered differently in two runs (%d)", exhausted, v.Unstable)
	}
	return v
}

const (
	// followUpRounds bounds the rounds of follow-ups (within their
	// budget).
	followUpRounds = 3
	// maxLongRuns bounds the inputs run again with a test's steps.
	maxLongRuns = 2
)

// tally is what the runs of a comparison's inputs came to so far.
type tally struct {
	exhausted int
	timedOut  bool
	// lacking counts the inputs on which both, or one side, met what the
	// kernel lacks; candidateLacked: on one, the candidate only
	lacking         int
	lacks           string
	candidateLacked bool
	// paths are the ways the original went on the inputs so far (see
	// path); took the variations that went a new way
	paths map[string]bool
	took  []*input
}

// path tells which way a run of the original went: how it ended and
// which blocks of the image's own methods ran (the branches taken, the
// loops entered). Another number in the same arithmetic, or a longer
// collection through the same loop, is the same way.
func (cmp *comparison) path(r *run) string {
	return strconv.Itoa(int(r.kind)) + "/" + r.what + "/" + r.way
}

// blocksRan collects the blocks of the image's own methods (not the
// kernel's) that ran in one run, each once.
type blocksRan struct {
	seen map[*blockCode]bool
	own  map[*Method]bool
	ran  []uintptr
}

func newBlocksRan() *blocksRan {
	return &blocksRan{seen: map[*blockCode]bool{}, own: map[*Method]bool{}}
}

// note is called for each block run, m the method it is in.
func (b *blocksRan) note(m *Method, code *blockCode) {
	if b.seen[code] {
		return
	}
	b.seen[code] = true
	own, ok := b.own[m]
	if !ok {
		own = m == nil || !isKernelMethod(m)
		b.own[m] = own
	}
	if own {
		b.ran = append(b.ran, uintptr(unsafe.Pointer(code)))
	}
}

// take answers the blocks that ran as a key and starts again.
func (b *blocksRan) take() string {
	slices.Sort(b.ran)
	var sb strings.Builder
	for _, p := range b.ran {
		sb.WriteString(strconv.FormatUint(uint64(p), 36))
		sb.WriteByte(' ')
	}
	clear(b.seen)
	b.ran = b.ran[:0]
	return sb.String()
}

// isKernelMethod tells whether a method is the kernel's.
func isKernelMethod(m *Method) bool {
	c := m.class
	if c == nil {
		return false
	}
	if c.thisClass != nil {
		c = c.thisClass
	}
	return kernelClassNames()[c.name]
}

// runAll runs both methods on each input until one differs (true, with
// the witness in v) or the inputs or the time run out.
func (cmp *comparison) runAll(w *world, inputs []*input, instant *time.Time, v *Verdict, t *tally) bool {
	for _, inp := range inputs {
		if cmp.past() {
			t.timedOut = true
			return false
		}
		*instant = time.Now()
		a := cmp.runOnce(w, inp, false)
		cmp.trace(inp, a)
		if a.timedOut {
			t.timedOut = true
			return false
		}
		if p := cmp.path(a); !t.paths[p] {
			t.paths[p] = true
			if inp.seed != nil {
				t.took = append(t.took, inp)
			}
		}
		if a.kind == ranOut {
			t.exhausted++
			continue
		}
		c := cmp.runOnce(w, inp, true)
		if c.timedOut {
			t.timedOut = true
			return false
		}
		d := cmp.differ(a, c)
		if d == nil || a.lacked() != c.lacked() && !a.lackedEffect() && !c.lackedEffect() {
			// one side touching a class or method the kernel lacks is no
			// difference either: on a real image that side might do the
			// same; one reaching for files, the network, processes or
			// the UI where the other did not is
			v.Compared++
			if a.lacked() || c.lacked() {
				t.lacking++
				t.lacks = a.what
				if !a.lacked() {
					t.lacks, t.candidateLacked = c.what, true
				}
			}
			continue
		}
		// A difference counts only if the original does the same again:
		// asked only then, since most inputs show none.
		b := cmp.runOnce(w, inp, false)
		if b.timedOut {
			t.timedOut = true
			return false
		}
		if cmp.differ(a, b) != nil {
			v.Unstable++
			continue
		}
		v.Compared++
		v.Outcome = Changed
		v.Witness = cmp.witness(inp, a, c, d)
		return true
	}
	return false
}

// maxEarlyInputs bounds the recorded inputs run again in the world as it
// was before the tests.
const maxEarlyInputs = 8

// inWorld answers copies of the first recorded inputs that run in the
// world w (none for a nil world).
func (cmp *comparison) inWorld(w *world, recorded []*input) []*input {
	if w == nil {
		return nil
	}
	var out []*input
	for _, r := range recorded[:min(len(recorded), maxEarlyInputs)] {
		out = append(out, &input{rcv: r.rcv, args: r.args, key: r.key, world: w})
	}
	return out
}

// readsClassState tells whether the method names a class variable, a
// pool's or a class-side instance variable of its class.
func (cmp *comparison) readsClassState() bool {
	if cmp.target.ast == nil {
		return false
	}
	meta := cmp.class.meta
	found := false
	smalltalk.Walk(cmp.target.ast, func(n smalltalk.Node) bool {
		v, ok := n.(*smalltalk.Variable)
		if !ok || found {
			return !found
		}
		if b := cmp.in.shared(v.Name, cmp.class); b != nil && cmp.in.globals[v.Name] != b {
			found = true
		}
		if cmp.req.ClassSide && meta != nil && slices.Contains(meta.ivarNames, v.Name) {
			found = true
		}
		return !found
	})
	return found
}

// record runs the test classes with the method watched: each activation's
// input is recorded (see recorder), and the receivers of the class's other
// methods are sampled, for a method no test reaches.
func (cmp *comparison) record() *recorder {
	rec := newRecorder(cmp.in, cmp.req.MaxInputs)
	if len(cmp.req.TestClasses) == 0 {
		return rec
	}
	var ws []*wrapped
	defer func() {
		for _, w := range ws {
			w.restore()
		}
	}()
	if w := watch(cmp.target, rec.activation); w != nil {
		ws = append(ws, w)
	}
	cmp.storedArgs = newStoredArgs(cmp.in)
	cmp.in.onBlockCall = func(b *Block, args []Object) {
		if b.m == cmp.target || b.m == cmp.cand {
			cmp.storedArgs.called(args)
		}
	}
	defer func() { cmp.in.onBlockCall = nil }()
	if !cmp.req.ClassSide {
		sels := make([]string, 0, len(cmp.side.methods))
		for sel := range cmp.side.methods {
			sels = append(sels, sel)
		}
		sort.Strings(sels)
		for _, sel := range sels {
			// a receiver entering initialize is not made yet: the
			// receivers a method no test reaches gets are made ones
			if m := cmp.side.methods[sel]; m != cmp.target && sel != "initialize" {
				if w := watch(m, func(rcv Object, _ []Object) { rec.sample(rcv) }); w != nil {
					ws = append(ws, w)
				}
			}
		}
	}
	for _, name := range cmp.req.TestClasses {
		if cmp.past() {
			break
		}
		// a class that cannot build its suite records nothing: the error
		// is the test run's to report, not the comparison's
		_, _ = cmp.in.RunTestClass(name, cmp.req.StepsPerTest)
	}
	return rec
}

// runKind is how a run of a method on an input ended.
type runKind int

const (
	answered  runKind = iota + 1
	signalled         // an exception escaped it, or it touched what the kernel lacks
	ranOut            // a limit: steps, stack, memory, time
	failed            // outside the image's exceptions (the interpreter met what it cannot do)
)

// run is one run of a method on a copy of an input.
type run struct {
	kind   runKind
	answer Object
	exc    *Instance // the exception that escaped
	what   string    // the escaped exception's class, or why it ended
	rcv    Object
	args   []Object
	state  Object // the receiver's state after the run (see stateOf)
	steps  int64  // the steps it took
	// blocks: what the blocks it stored or answered did when called
	blocks []blockRun
	// way: the blocks of the image's own methods that ran (see path),
	// noted for the original only
	way string
	// timedOut: the comparison's deadline ended the run
	timedOut bool
}

// runOnce runs the method (the candidate, if candidate) on a fresh copy
// of an input, in a fresh copy of the world, under the call's limits.
func (cmp *comparison) runOnce(w *world, inp *input, candidate bool) *run {
	in := cmp.in
	if inp.world != nil {
		w = inp.world
	}
	in.restoreWorld(w)
	r := &run{}
	copied, ok := in.newCopier().copyAll(append([]Object{inp.rcv}, inp.args...))
	if !ok {
		r.kind, r.what = failed, "the input is too large to copy"
		return r
	}
	r.rcv, r.args = copied[0], copied[1:]
	if candidate {
		defer cmp.install()()
	}
	in.deadline = cmp.req.Deadline
	if !candidate {
		in.ran = cmp.ran
	}
	// a run builds no class and compiles no method: one side alone
	// reaching for the compiler is a difference (lackedEffects)
	in.noCompiler = true
	defer func() { in.noCompiler = false }()
	in.guard(cmp.req.StepsPerCall, func() {
		defer func() {
			if p := recover(); p != nil {
				r.caught(p)
				panic(p)
			}
		}()
		r.answer = in.invoke(cmp.target, r.rcv, r.args)
		r.kind = answered
	}, func(detail string) {
		if r.kind == 0 {
			r.kind, r.what = failed, detail
		}
	})
	r.steps = cmp.req.StepsPerCall - in.budget
	if !candidate {
		in.ran = nil
		r.way = cmp.ran.take()
	}
	if r.kind == ranOut && cmp.past() {
		r.timedOut = true
	}
	if r.kind == answered {
		r.blocks = cmp.runStoredBlocks(r)
	}
	r.state = cmp.stateOf(r.rcv)
	return r
}

func (cmp *comparison) trace(inp *input, a *run) {
	if cmp.req.Trace != nil {
		cmp.req.Trace(cmp.printInput(inp), cmp.describe(a))
	}
}

// lacked tells whether the run stopped at what the kernel lacks.
func (r *run) lacked() bool {
	return r.kind == signalled && r.exc == nil
}

// lackedEffect tells whether the run stopped at an effect the kernel
// lacks on purpose: files, the network, processes, the UI, the compiler,
// the operating system.
func (r *run) lackedEffect() bool {
	if !r.lacked() {
		return false
	}
	for _, e := range lackedEffects {
		if strings.Contains(r.what, e) {
			return true
		}
	}
	return false
}

// lackedEffects are the words by which the kernel names the effects it
// lacks on purpose (see lacking and the kernel's lacks: methods).
var lackedEffects = []string{"(files", "(network", "(processes", "processes: ", "(UI", "the compiler", "the environment variables", "Smalltalk vm"}

// caught classifies what ended a run.
func (r *run) caught(p any) {
	switch v := p.(type) {
	case *unhandled:
		r.kind, r.exc, r.what = signalled, v.exc, v.exc.class.name
	case *Missing:
		r.kind, r.what = signalled, v.Error()
	case *abort:
		r.kind, r.what = ranOut, v.reason
	}
}

// install puts the candidate and its helpers in the method's place, and
// answers what puts the image's methods back. The method object stays the
// one every send site and lookup cache holds; its contents change.
func (cmp *comparison) install() func() {
	saved := *cmp.target
	*cmp.target = *cmp.cand
	var undo []func()
	for _, h := range cmp.helpers {
		if old := cmp.side.methods[h.selector]; old != nil {
			kept := *old
			*old = *h
			undo = append(undo, func() { *old = kept })
			continue
		}
		cmp.side.methods[h.selector] = h
		sel := h.selector
		undo = append(undo, func() { delete(cmp.side.methods, sel) })
	}
	// the candidate takes the place of the method object every cache
	// holds; only a helper is a method the caches have not met
	if len(undo) > 0 {
		cmp.in.flushLookups()
	}
	return func() {
		*cmp.target = saved
		for _, u := range undo {
			u()
		}
		if len(undo) > 0 {
			cmp.in.flushLookups()
		}
	}
}

// flushLookups empties every class's lookup cache: a helper the candidate
// brings is a new method of its class.
func (in *Interp) flushLookups() {
	for _, c := range in.classes {
		c.cache = nil
		if c.meta != nil {
			c.meta.cache = nil
		}
	}
}

// freezeClock makes the clock's primitive answer *at while a comparison
// runs: both methods see one instant per input. It answers what thaws it.
func (in *Interp) freezeClock(at *time.Time) func() {
	in.frozenClock = at
	return func() { in.frozenClock = nil }
}

// stateOf answers what of a receiver a run's state is: an instance
// itself (a copy of its own), a class's class-side variables and class
// variables as an object whose named variables they are.
func (cmp *comparison) stateOf(rcv Object) Object {
	c, ok := rcv.(*Class)
	if !ok {
		return rcv
	}
	k := c
	if c.thisClass != nil {
		k = c.thisClass
	}
	var names []string
	for n := range k.classVars {
		names = append(names, n)
	}
	sort.Strings(names)
	vals := append([]Object{}, k.civals...)
	for _, n := range names {
		vals = append(vals, k.classVars[n].Value)
	}
	copied, ok := cmp.in.newCopier().copyAll(vals)
	if !ok {
		return nil
	}
	if cmp.stateClasses == nil {
		cmp.stateClasses = map[*Class]*Class{}
	}
	shape := cmp.stateClasses[k]
	if shape == nil {
		shape = &Class{name: k.name + " class", ivarNames: append(append([]string{}, k.meta.ivarNames...), names...)}
		cmp.stateClasses[k] = shape
	}
	return &Instance{class: shape, vars: copied}
}

// difference is where two runs differ.
type difference struct {
	aspect string
	state  *stateDiff // for the receiver and the arguments
	a, b   Object     // the receiver's or argument's state on each side
	block  int        // for stored blocks: the call that differs
}

// differ answers how run c differs from run a, or nil: a limit reached on
// one side only; an exception of another class escaping (or none); an
// answer not equal, of another class, or the receiver on one side only;
// the receiver or an argument left in another state.
func (cmp *comparison) differ(a, c *run) *difference {
	if a.kind != c.kind {
		if c.kind == ranOut || a.kind == ranOut {
			return &difference{aspect: AspectSteps}
		}
		if a.kind == answered || c.kind == answered {
			return &difference{aspect: AspectException}
		}
	}
	switch a.kind {
	case signalled, failed:
		if a.what != c.what || a.kind != c.kind {
			return &difference{aspect: AspectException}
		}
	case answered:
		if i := cmp.blocksDiffer(a.blocks, c.blocks); i >= 0 {
			return &difference{aspect: AspectBlocks, block: i}
		}
		if !cmp.sameAnswer(a, c) {
			// a receiver changed in place says more than the answer
			// that is then another object
			if d := cmp.in.sameState(a.state, c.state); d != nil {
				return &difference{aspect: AspectReceiver, state: d, a: a.state, b: c.state}
			}
			return &difference{aspect: AspectAnswer}
		}
	}
	if d := cmp.in.sameState(a.state, c.state); d != nil {
		return &difference{aspect: AspectReceiver, state: d, a: a.state, b: c.state}
	}
	for i := range a.args {
		if d := cmp.in.sameState(a.args[i], c.args[i]); d != nil {
			return &difference{aspect: fmt.Sprintf("argument %d", i+1), state: d, a: a.args[i], b: c.args[i]}
		}
	}
	return nil
}

// isRef tells whether an object has an identity worth comparing: an
// instance or a class, not a number or a symbol.
func isRef(o Object) bool {
	switch o.(type) {
	case *Instance, *Class:
		return true
	}
	return false
}

// sameAnswer: the receiver answered on both sides or on neither (an
// argument likewise); else answers of the same class, equal in state or
// by the image's =.
func (cmp *comparison) sameAnswer(a, c *run) bool {
	if isRef(a.answer) || isRef(c.answer) {
		if isRef(a.rcv) && identical(a.answer, a.rcv) != identical(c.answer, c.rcv) {
			return false
		}
		for i := range a.args {
			if isRef(a.args[i]) && identical(a.answer, a.args[i]) != identical(c.answer, c.args[i]) {
				return false
			}
		}
		if !sameHeldAnswer(a, c) {
			return false
		}
		if isRef(a.rcv) && identical(a.answer, a.rcv) {
			return true // the receiver's state is compared next
		}
	}
	in := cmp.in
	if in.classOf(a.answer) != in.classOf(c.answer) {
		return false
	}
	if in.sameState(a.answer, c.answer) == nil {
		return true
	}
	equal := false
	in.deadline = time.Time{}
	in.guard(printSteps, func() { equal = truthy(in.Send(a.answer, "=", c.answer)) }, func(string) {})
	return equal
}

// sameHeldAnswer: an answer that is one of the receiver's instance
// variables on one side is the same one on the other (a getter answering
// a copy, or a new collection, is another method).
func sameHeldAnswer(a, c *run) bool {
	x, ok := a.rcv.(*Instance)
	y, ok2 := c.rcv.(*Instance)
	if !ok || !ok2 || x == nil || y == nil || len(x.vars) != len(y.vars) {
		return true
	}
	for i, v := range x.vars {
		if isRef(v) && identical(a.answer, v) != identical(c.answer, y.vars[i]) {
			return false
		}
	}
	return true
}

// witness describes a difference: the input, and what each side did.
func (cmp *comparison) witness(inp *input, a, c *run, d *difference) *Witness {
	cmp.in.deadline = time.Time{} // printing is bounded by its steps alone
	w := &Witness{Input: cmp.printInput(inp), Aspect: d.aspect}
	if d.aspect == AspectBlocks {
		w.Original, w.Candidate = cmp.describeBlocks(a.blocks, d.block), cmp.describeBlocks(c.blocks, d.block)
		if w.Original == w.Candidate && d.block < len(a.blocks) && d.block < len(c.blocks) {
			// answers that print alike differ inside: say where
			if sd := cmp.in.sameState(a.blocks[d.block].answer, c.blocks[d.block].answer); sd != nil && sd.at != nil {
				w.Original += " (its " + sd.at.String() + ": " + cmp.print(sd.a) + ")"
				w.Candidate += " (its " + sd.at.String() + ": " + cmp.print(sd.b) + ")"
			}
		}
		return w
	}
	if d.state == nil {
		w.Original, w.Candidate = cmp.describe(a), cmp.describe(c)
		if w.Original == w.Candidate && a.kind == answered && c.kind == answered {
			// answers that print alike differ inside: say where
			if sd := cmp.in.sameState(a.answer, c.answer); sd != nil && sd.at != nil {
				w.Original += " (its " + sd.at.String() + ": " + cmp.print(sd.a) + ")"
				w.Candidate += " (its " + sd.at.String() + ": " + cmp.print(sd.b) + ")"
			}
		}
		return w
	}
	where := "the receiver"
	if d.aspect != AspectReceiver {
		where = d.aspect
	}
	// the shallowest place whose objects print differently: the
	// receiver's collection rather than the element of it that moved
	at, pa, pb := d.state.at, cmp.print(d.state.a), cmp.print(d.state.b)
	if sa, sb := cmp.print(d.a), cmp.print(d.b); sa != sb {
		at, pa, pb = nil, sa, sb
	} else if d.state.at != nil {
		for _, s := range d.state.at.steps() {
			if sa, sb := cmp.print(s.a), cmp.print(s.b); sa != sb {
				at, pa, pb = s, sa, sb
				break
			}
		}
	}
	if pa == pb {
		pa, pb = cmp.withSizes(d.state.a, d.state.b, pa, pb)
	}
	if path := at.String(); at != nil && path != "" {
		where += "'s " + path
	}
	note := ""
	if d.state.shared {
		note = " (one object there in one run, another in the other)"
	}
	w.Original = "after the call, " + where + ": " + pa + note
	w.Candidate = "after the call, " + where + ": " + pb + note
	return w
}

// describe says what a run did.
func (cmp *comparison) describe(r *run) string {
	switch r.kind {
	case answered:
		if isRef(r.rcv) && identical(r.answer, r.rcv) {
			return "answered its receiver, " + cmp.print(r.answer)
		}
		if x, ok := r.rcv.(*Instance); ok && x != nil && isRef(r.answer) {
			for i, v := range x.vars {
				if identical(r.answer, v) && i < len(x.class.ivarNames) {
					return "answered its own " + x.class.ivarNames[i] + ", " + cmp.print(r.answer)
				}
			}
		}
		return "answered " + cmp.print(r.answer)
	case signalled:
		if r.exc != nil {
			return "signalled " + cmp.describeException(r.exc)
		}
		return "stopped: " + r.what
	case ranOut:
		return "ran out of its limits: " + r.what
	}
	return "failed: " + r.what
}

func (cmp *comparison) describeException(exc *Instance) string {
	in := cmp.in
	text := ""
	in.guard(printSteps, func() { text = str(in.Send(exc, "messageText")) }, func(string) {})
	if text == "" {
		return exc.class.name
	}
	return exc.class.name + ": " + clipText(text)
}

// print prints an object as printString does, cut short; an object whose
// printOn: fails or runs on prints by its class.
func (cmp *comparison) print(o Object) string {
	in := cmp.in
	s := ""
	printed := false
	in.guard(printSteps, func() {
		// limited as Pharo's printString is (at 50,000 characters), here
		// where the witness is cut: a collection of 400,000 elements
		// prints its first ones
		if v, ok := in.Send(o, "printStringLimitedTo:", int64(printLimit+1)).(*Instance); ok && v.str != nil {
			s, printed = string(v.str), true
		}
	}, func(string) {})
	if !printed {
		if c, ok := o.(*Class); ok {
			return c.name
		}
		return article(in.classOf(o).name)
	}
	return clipText(s)
}

// withSizes adds their sizes to the prints of two collections that print
// alike (cut before the elements where they differ).
func (cmp *comparison) withSizes(a, b Object, pa, pb string) (string, string) {
	x, okA := a.(*Instance)
	y, okB := b.(*Instance)
	if !okA || !okB || x == nil || y == nil || !inheritsFrom(x.class, "Collection") || !inheritsFrom(y.class, "Collection") {
		return pa, pb
	}
	var na, nb Object
	cmp.in.guard(printSteps, func() {
		na, nb = cmp.in.Send(x, "size"), cmp.in.Send(y, "size")
	}, func(string) {})
	if na == nil || nb == nil || cmp.in.keyOf(64, na) == cmp.in.keyOf(64, nb) {
		return pa, pb
	}
	return fmt.Sprintf("%s (size %s)", pa, cmp.print(na)), fmt.Sprintf("%s (size %s)", pb, cmp.print(nb))
}

func clipText(s string) string {
	if r := []rune(s); len(r) > printLimit {
		return string(r[:printLimit]) + "…"
	}
	return s
}

// printInput prints an input as the message it is: "a Calculator
// average: #(1 2)".
func (cmp *comparison) printInput(inp *input) string {
	copied, ok := cmp.in.newCopier().copyAll(append([]Object{inp.rcv}, inp.args...))
	if !ok {
		return article(cmp.in.classOf(inp.rcv).name) + " " + cmp.req.Selector
	}
	parts := []string{cmp.printInside(copied[0], inputDepth)}
	sel := cmp.req.Selector
	args := copied[1:]
	switch {
	case len(args) == 0:
		parts = append(parts, sel)
	case !strings.Contains(sel, ":"):
		parts = append(parts, sel, cmp.printInside(args[0], inputDepth))
	default:
		keywords := strings.SplitAfter(sel, ":")
		for i, a := range args {
			if i < len(keywords) {
				parts = append(parts, keywords[i])
			}
			parts = append(parts, cmp.printInside(a, inputDepth))
		}
	}
	return strings.Join(parts, " ")
}

// inputDepth bounds how deep printInside shows the variables of objects
// that print only as their class.
const inputDepth = 2

// printInside prints an object, and where it prints only as its class (a
// ShoppingCart), its variables as well, depth levels down: the refiner
// reads which cart showed the difference (eleven orders, a line of 5).
func (cmp *comparison) printInside(o Object, depth int) string {
	s := cmp.print(o)
	x, ok := o.(*Instance)
	if !ok || x == nil || depth == 0 || len(x.vars) == 0 || s != article(x.class.name) {
		return s
	}
	fields := make([]string, 0, len(x.vars))
	for i, v := range x.vars {
		if i >= len(x.class.ivarNames) {
			break
		}
		fields = append(fields, x.class.ivarNames[i]+": "+cmp.printInside(v, depth-1))
	}
	return clipText(s + " (" + strings.Join(fields, ", ") + ")")
}
