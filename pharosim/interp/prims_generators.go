package interp

import (
	"fmt"
	"maps"
)

// generatorPrimitives run a Generator's block as a coroutine: the block
// runs on a goroutine of its own, and only one of it and its consumer
// runs at a time, handing control over at each yield: and each next —
// one process, with the generator's stack beside the consumer's as
// Pharo's contexts have it.
var generatorPrimitives = map[string]primitive{
	// generatorResume runs the receiver's block (the argument) until it
	// yields — answering true — or ends — answering false; what leaves
	// the block otherwise (an exception handled by the consumer, a limit)
	// travels on in the consumer.
	"generatorResume": func(in *Interp, r Object, a []Object) (Object, bool) {
		gen, ok := asInstance(r)
		b, isBlock := asBlock(a[0])
		if !ok || !isBlock || len(b.node.Args) != 1 {
			return nil, false
		}
		return in.resumeCoroutine(gen, b, false), true
	},
	// generatorYield hands control back to the consumer of the receiver,
	// whose block is running; it answers when the consumer asks for the
	// next value.
	"generatorYield": func(in *Interp, r Object, a []Object) (Object, bool) {
		gen, ok := asInstance(r)
		if !ok {
			return nil, false
		}
		co := in.coroutines[gen]
		if co == nil || co != in.runningCoroutine {
			return nil, false // not inside the receiver's block
		}
		if co.terminating {
			return nil, true // an ensure: block run by close: nobody asks for its values
		}
		co.toCaller <- coroutineReport{yielded: true}
		if (<-co.toGenerator).terminate {
			co.terminating = true
			panic(&coroutineEnd{})
		}
		return nil, true
	},
	// generatorClose ends the receiver's block where it stands, running
	// its ensure: blocks, as Pharo's unwinding does.
	"generatorClose": func(in *Interp, r Object, a []Object) (Object, bool) {
		gen, ok := asInstance(r)
		if !ok {
			return nil, false
		}
		if co := in.coroutines[gen]; co != nil && !co.finished {
			in.resumeCoroutine(gen, nil, true)
		}
		delete(in.coroutines, gen)
		return r, true
	},
}

// coroutine is a Generator's block running on its own goroutine.
type coroutine struct {
	toGenerator chan coroutineCommand
	toCaller    chan coroutineReport
	// the generator's own part of the interpreter's stacks while its
	// consumer runs: the handlers its block pushed (above the
	// consumer's, which it sees while it runs), the arguments of its
	// primitives under way, the Go stack its goroutine uses
	handlers    []*handler
	limitOffset int
	argStack    []Object
	depth       int
	active      *frame // the innermost activation of its block, while it is suspended
	// base is where the generator's own handlers start while it runs
	base              int
	started, finished bool
	terminating       bool
	previous          *coroutine // the coroutine that resumed it, if any
}

// maxCoroutines bounds the generators a computation may have under way:
// each holds a goroutine and its stack.
const maxCoroutines = 1000

// coroutineBytes is what a generator under way is charged: the smallest
// stack of its goroutine.
const coroutineBytes = 8 << 10

type coroutineCommand struct{ terminate bool }

// coroutineReport is what the generator's goroutine hands back: a value
// yielded, or its end — with what left the block, if anything did.
type coroutineReport struct {
	yielded bool
	escaped any
}

// coroutineEnd unwinds a generator's goroutine that is closed.
type coroutineEnd struct{}

// resumeCoroutine runs gen's block until it yields (true) or ends
// (false); terminate ends it where it stands instead.
func (in *Interp) resumeCoroutine(gen *Instance, b *Block, terminate bool) bool {
	co := in.coroutines[gen]
	if co == nil {
		if terminate || b == nil {
			return false
		}
		co = in.newCoroutine(gen)
	}
	if in.waitsFor(co) {
		in.signalError("Error", "a generator's block asks its own generator to go on (next, reset or close inside its block)")
		return false
	}
	if terminate && !co.started {
		delete(in.coroutines, gen)
		return false
	}
	consumer := in.enterCoroutine(co)
	if !co.started {
		co.started = true
		go in.runCoroutine(co, gen, b)
	}
	co.toGenerator <- coroutineCommand{terminate: terminate}
	report := <-co.toCaller
	in.leaveCoroutine(co, consumer, report.yielded)
	if !report.yielded {
		delete(in.coroutines, gen) // its goroutine has ended
	}
	if report.escaped != nil {
		panic(report.escaped)
	}
	return report.yielded
}

// newCoroutine makes gen's coroutine, its goroutine not started yet.
func (in *Interp) newCoroutine(gen *Instance) *coroutine {
	if len(in.coroutines) >= maxCoroutines {
		in.overLimit(fmt.Sprintf("more than %d generators under way at once (an endless creation?)", maxCoroutines))
	}
	in.charge(coroutineBytes)
	co := &coroutine{toGenerator: make(chan coroutineCommand), toCaller: make(chan coroutineReport)}
	in.coroutines[gen] = co
	return co
}

// waitsFor: co's goroutine is the one running, or waits for it (it
// resumed the one running): handing over to co would wait forever.
func (in *Interp) waitsFor(co *coroutine) bool {
	for running := in.runningCoroutine; running != nil; running = running.previous {
		if running == co {
			return true
		}
	}
	return false
}

// consumerState is what the interpreter's stacks were for the consumer
// while a generator it resumed runs.
type consumerState struct {
	handlers                    []*handler
	handlerLimit                int
	argStack                    []Object
	depth, depthLimit, genDepth int
	active                      *frame
}

// enterCoroutine makes the interpreter's stacks co's: it runs on top of
// its consumer, seeing the consumer's handlers below its own, with an
// argument stack and a Go stack of its own.
func (in *Interp) enterCoroutine(co *coroutine) consumerState {
	c := consumerState{handlers: in.handlers, handlerLimit: in.handlerLimit, argStack: in.argStack,
		depth: in.depth, depthLimit: in.depthLimit, genDepth: co.depth, active: in.active}
	visible := c.handlers[:min(len(c.handlers), c.handlerLimit)]
	co.base = len(visible)
	in.handlers = append(append(make([]*handler, 0, len(visible)+len(co.handlers)), visible...), co.handlers...)
	in.handlerLimit = co.base + co.limitOffset
	if !co.started {
		in.handlerLimit = len(in.handlers)
	}
	in.argStack, in.depth, in.active = co.argStack, co.depth, co.active
	// the generator's own stack, counted against its consumer's while
	// it was suspended, is live again; the consumer's now waits
	in.depthLimit = c.depthLimit + co.depth - c.depth
	co.previous, in.runningCoroutine = in.runningCoroutine, co
	return c
}

// leaveCoroutine gives the interpreter's stacks back to co's consumer,
// keeping co's own part if it only yielded.
func (in *Interp) leaveCoroutine(co *coroutine, c consumerState, yielded bool) {
	if yielded {
		co.handlers = append([]*handler{}, in.handlers[co.base:]...)
		co.limitOffset = in.handlerLimit - co.base
		co.argStack, co.depth, co.active = in.argStack, in.depth, in.active
	} else {
		co.finished = true
		co.handlers, co.argStack, co.depth, co.active = nil, nil, 0, nil
	}
	in.runningCoroutine = co.previous
	in.handlers, in.handlerLimit = c.handlers, c.handlerLimit
	in.argStack, in.depth, in.active = c.argStack, c.depth, c.active
	// a suspended generator's goroutine keeps its stack: the consumer
	// has that much less
	in.depthLimit = c.depthLimit + c.genDepth - co.depth
}

// runCoroutine is the generator's goroutine: it waits for the first
// command, runs the block, and reports its end with what left it.
func (in *Interp) runCoroutine(co *coroutine, gen *Instance, b *Block) {
	var report coroutineReport
	defer func() {
		if r := recover(); r != nil {
			if _, closed := r.(*coroutineEnd); !closed {
				report.escaped = r
			}
		}
		co.toCaller <- report
	}()
	if (<-co.toGenerator).terminate {
		return
	}
	in.callBlock(b, []Object{gen})
}

// endCoroutines ends every generator still suspended when a guarded
// computation ends: as Pharo's collector would drop it, none of its
// ensure: blocks runs, and no goroutine outlives the computation.
func (in *Interp) endCoroutines() {
	if len(in.coroutines) == 0 {
		return
	}
	aborting := in.aborting
	in.aborting = true // nothing of the image runs on the way out
	for gen, co := range maps.Clone(in.coroutines) {
		if co.started && !co.finished {
			func() {
				// what leaves a generator ended so has nobody to reach: the
				// computation is over (a limit skips its ensure: blocks)
				defer func() { _ = recover() }()
				in.resumeCoroutine(gen, nil, true)
			}()
		}
	}
	clear(in.coroutines)
	in.runningCoroutine = nil
	in.aborting = aborting
}
