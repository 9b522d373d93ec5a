package interp

import "strings"

// The blocks a method stores or answers (a writer's field accessors, a
// sort block, a callback) run later, not when the method does: a change
// inside one shows only when it runs. So the comparison records the
// arguments such blocks are given while the tests run, and after each
// run of either method calls the blocks the run made with them (with
// arguments made from their names where no test called them).

const (
	// maxBlockArgs bounds the argument tuples kept per block arity.
	maxBlockArgs = 4
	// maxBlocksRun bounds the blocks of one run that are called.
	maxBlocksRun = 4
	// maxBlockSearch bounds the objects looked at for them.
	maxBlockSearch = 1000
)

// storedArgs are the arguments the blocks a method made were given while
// the tests ran, by the blocks' arity.
type storedArgs struct {
	in    *Interp
	seen  map[string]bool
	tuple map[int][][]Object
}

func newStoredArgs(in *Interp) *storedArgs {
	return &storedArgs{in: in, seen: map[string]bool{}, tuple: map[int][][]Object{}}
}

// called keeps a copy of one call's arguments.
func (ba *storedArgs) called(args []Object) {
	n := len(args)
	if len(ba.tuple[n]) >= maxBlockArgs {
		return
	}
	key := ba.in.keyOf(keyLimit, args...)
	if ba.seen[key] {
		return
	}
	ba.seen[key] = true
	if copied, ok := ba.in.newCopier().copyAll(args); ok {
		ba.tuple[n] = append(ba.tuple[n], copied)
	}
}

// blockRun is what a call of a stored block did.
type blockRun struct {
	kind   runKind
	answer Object
	what   string
	args   []Object // what it was given (copies)
}

// runStoredBlocks calls the blocks the run's method made and left in its
// receiver or its answer, with the recorded arguments of their arity.
func (cmp *comparison) runStoredBlocks(r *run) []blockRun {
	var out []blockRun
	for _, b := range cmp.storedBlocks(r) {
		var tuples [][]Object
		if cmp.storedArgs != nil {
			tuples = cmp.storedArgs.tuple[b.code.nargs]
		}
		switch {
		case b.code.nargs == 0:
			tuples = [][]Object{nil}
		case len(tuples) == 0:
			tuples = cmp.namedBlockArgs(b)
		}
		for _, args := range tuples {
			out = append(out, cmp.callStored(b, args))
		}
	}
	return out
}

// storedBlocks finds, breadth first from the receiver and the answer, the
// blocks this run's method made (their home's receiver is the run's).
func (cmp *comparison) storedBlocks(r *run) []*Block {
	var found []*Block
	seen := map[*Instance]bool{}
	queue := []Object{r.rcv, r.answer}
	for n := 0; len(queue) > 0 && n < maxBlockSearch && len(found) < maxBlocksRun; n++ {
		o := queue[0]
		queue = queue[1:]
		switch v := o.(type) {
		case *Block:
			if (v.m == cmp.target || v.m == cmp.cand) && v.outer != nil && identical(v.outer.self, r.rcv) {
				found = append(found, v)
			}
		case *Instance:
			if v == nil || seen[v] {
				continue
			}
			seen[v] = true
			queue = append(append(queue, v.vars...), v.indexed...)
			if v.dict != nil {
				queue = append(queue, v.dict.valueList()...)
			}
		}
	}
	return found
}

// callStored calls one block on a copy of recorded arguments.
func (cmp *comparison) callStored(b *Block, args []Object) blockRun {
	in := cmp.in
	copied, ok := in.newCopier().copyAll(args)
	if !ok {
		return blockRun{kind: failed, what: "the arguments are too large to copy"}
	}
	br := blockRun{args: copied}
	in.guard(cmp.req.StepsPerCall, func() {
		defer func() {
			if p := recover(); p != nil {
				var rr run
				rr.caught(p)
				br.kind, br.what = rr.kind, rr.what
				panic(p)
			}
		}()
		br.answer = in.callBlock(b, copied)
		br.kind = answered
	}, func(detail string) {
		if br.kind == 0 {
			br.kind, br.what = failed, detail
		}
	})
	return br
}

// blocksDiffer answers the first call of the stored blocks of two runs
// that did otherwise (-1: none); len(a) when one run stored more.
func (cmp *comparison) blocksDiffer(a, c []blockRun) int {
	for i := range min(len(a), len(c)) {
		if a[i].kind != c[i].kind || a[i].what != c[i].what {
			return i
		}
		if a[i].kind == answered && cmp.in.sameState(a[i].answer, c[i].answer) != nil {
			return i
		}
	}
	if len(a) != len(c) {
		return min(len(a), len(c))
	}
	return -1
}

// describeBlocks says what a run's i-th stored block call did.
func (cmp *comparison) describeBlocks(runs []blockRun, i int) string {
	if i >= len(runs) {
		return "stored no block that one run stored"
	}
	br := runs[i]
	given := "nothing"
	if len(br.args) > 0 {
		parts := make([]string, len(br.args))
		for j, a := range br.args {
			parts[j] = cmp.print(a)
		}
		given = strings.Join(parts, ", ")
	}
	did := ""
	switch br.kind {
	case answered:
		did = "answered " + cmp.print(br.answer)
	case ranOut:
		did = "ran out of its limits: " + br.what
	default:
		did = "stopped: " + br.what
	}
	return "a block it stored, given " + given + ", " + did
}

// namedBlockArgs makes arguments for a block no test called, as its
// arguments are named (:object, :each, :aString) and used (sent
// at:ifAbsent:, a dictionary): two tuples.
func (cmp *comparison) namedBlockArgs(b *Block) [][]Object {
	if b.node == nil {
		return nil
	}
	g := newGenerator(cmp.in, cmp.target, 0, nil)
	tuples := make([][]Object, 2)
	for _, a := range b.node.Args {
		k, _ := kindOfName(a.Name)
		if b.m != nil && b.m.ast != nil {
			k, _ = kindOfUse(b.m.ast, a.Name)
		}
		var vs []Object
		for _, v := range g.valuesFor(k, 1) {
			if v != nil {
				vs = append(vs, v)
			}
		}
		if len(vs) < 2 {
			return nil
		}
		tuples[0], tuples[1] = append(tuples[0], vs[0]), append(tuples[1], vs[1])
	}
	return tuples
}
