package interp

import (
	"fmt"
	"slices"
	"time"
)

// Processes are green threads, as the VM's are: each forked process runs
// on a goroutine of its own, and only one of them runs at a time — the
// active process — handing the processor over where Pharo's scheduler
// would: a wait on a Semaphore with no signal counted, a Delay, suspend,
// yield, termination, and a signal or resume that makes ready a process
// of higher priority than the active one (which preempts it). A process
// of higher priority whose Delay ends while a lower one computes takes
// the processor at the next check of the clock, as the VM's timer
// interrupt has it. Each process has its own stack: its own handlers,
// argument stack and activations.
//
// When every process waits and nothing can wake one (no Delay pending,
// no timeout), Pharo would wait forever: the computation ends there,
// naming it. When a computation ends, the processes it left are dropped
// without running their ensure: blocks, as Pharo's collector would drop
// a process nothing refers to.

// maxProcesses bounds the processes a computation may have under way:
// each holds a goroutine and its stack.
const maxProcesses = 1000

// processBytes is what a process under way is charged: the smallest stack
// of its goroutine.
const processBytes = 8 << 10

type processState int

const (
	processNew processState = iota
	processReady
	processRunning
	processWaiting   // on a Semaphore
	processSleeping  // on a Delay
	processSuspended // by suspend, or under a debugger
	processTerminated
	processJoining // waits for the end of a process it terminates
)

var processStateNames = [...]Symbol{"suspended", "ready", "running", "waiting", "waiting", "suspended", "terminated", "waiting"}

// process is a Process of the image as the scheduler has it.
type process struct {
	obj      *Instance // nil for the main process until Processor asks for it
	block    *Block    // nil for the main process
	priority int64
	state    processState
	wake     chan processWake
	started  bool
	// semaphore is the Semaphore the process waits on; wakeAt, when set,
	// the end of its Delay or of its wait's timeout
	semaphore *Instance
	wakeAt    time.Time
	timedOut  bool // its wait ended by its timeout, not a signal
	// interrupted: it was taken off its Semaphore (suspended, or an
	// exception signalled in it) and waits again when it runs
	interrupted bool
	pending     *Instance // an exception to signal in it when it runs
	// granted is the Semaphore whose signal it was handed, until it runs;
	// critical, that it waits in critical:, which gives the signal back
	// if the process is terminated before it runs
	granted  *Instance
	critical bool
	// terminateDeferred: it was terminated while an unwind block of its
	// ran, and ends when that block has
	terminateDeferred bool
	// returnTo is the process waiting for this one's termination to end
	returnTo *process
	saved    processStacks
}

// processWake is what a process is handed with the processor: escape,
// when set, is raised where it stands (its termination, or the end of
// the computation).
type processWake struct{ escape any }

// processStacks are the interpreter's stacks of a process while another
// runs.
type processStacks struct {
	handlers         []*handler
	handlerLimit     int
	argStack         []Object
	depth            int
	depthLimit       int
	active           *frame
	runningCoroutine *coroutine
	returning        *nonLocalReturn
	inUnwind         int
	othersDepth      int // the depth the other processes held when it was saved
}

// scheduler is the Processor as the interpreter has it.
type scheduler struct {
	running *process
	main    *process
	procs   map[*Instance]*process
	ready   []*process // in the order they became ready
	waiting map[*Instance][]*process
	// heldDepth is the stack all processes but the running one hold
	heldDepth int
	// killed is told by each process dropped that its goroutine ended
	killed chan struct{}
}

// processKilled unwinds the goroutine of a process dropped at the end of a
// computation.
type processKilled struct{}

// processEnd ends a process terminated: its ensure: blocks run as the way
// out passes them.
type processEnd struct{ proc *process }

func newScheduler() *scheduler {
	main := &process{priority: 40, state: processRunning, wake: make(chan processWake), started: true}
	return &scheduler{running: main, main: main, procs: map[*Instance]*process{}, waiting: map[*Instance][]*process{}, killed: make(chan struct{})}
}

var processPrimitives = map[string]primitive{
	// processActive answers the active process, nil for the main process
	// until processBeMain: names it.
	"processActive": func(in *Interp, r Object, a []Object) (Object, bool) {
		if p := in.sched.running; p.obj != nil {
			return p.obj, true
		}
		return nil, true
	},
	// processBeMain: names the computation's own process (the image's
	// main process, made by Processor).
	"processBeMain": func(in *Interp, r Object, a []Object) (Object, bool) {
		obj, ok := asInstance(a[0])
		if !ok || in.sched.main.obj != nil {
			return nil, false
		}
		if old := in.sched.procs[obj]; old != nil && old != in.sched.main {
			return nil, false
		}
		in.sched.main.obj = obj
		in.sched.procs[obj] = in.sched.main
		return obj, true
	},
	// processState answers the receiver's state as Process>>state names
	// it, nil for a process the scheduler does not know (never resumed,
	// or left by an earlier computation).
	"processState": func(in *Interp, r Object, a []Object) (Object, bool) {
		obj, ok := asInstance(r)
		if !ok {
			return nil, false
		}
		p := in.sched.procs[obj]
		if p == nil {
			return nil, true
		}
		if p == in.sched.running {
			return Symbol("active"), true
		}
		return processStateNames[p.state], true
	},
	// processResume: makes the receiver ready, with the argument, a block
	// without arguments, to run if it is new, at the priority given;
	// answers false for a terminated process.
	"processResume": func(in *Interp, r Object, a []Object) (Object, bool) {
		obj, ok := asInstance(r)
		b, isBlock := asBlock(a[0])
		prio, isInt := a[1].(int64)
		if !ok || !isInt {
			return nil, false
		}
		p := in.sched.procs[obj]
		if p == nil {
			if !isBlock || len(b.node.Args) != 0 {
				return nil, false
			}
			p = in.newProcess(obj, b, prio)
		}
		switch p.state {
		case processTerminated:
			return false, true
		case processNew, processSuspended:
			in.makeReady(p, false)
		}
		return true, true
	},
	// processSuspend takes the receiver off the processor, or off its
	// Semaphore (it waits again when resumed), until it is resumed.
	"processSuspend": onKnownProcess((*Interp).suspend),
	// processTerminate ends the receiver: the active process unwinds
	// where it stands; another runs its ensure: blocks as the active
	// process while the terminating one waits for it.
	"processTerminate": onKnownProcess((*Interp).terminate),
	// processPriority: changes the receiver's priority; the processor
	// goes to the process of highest priority ready.
	"processPriority": func(in *Interp, r Object, a []Object) (Object, bool) {
		prio, ok := a[0].(int64)
		obj, isInst := asInstance(r)
		if !ok || !isInst {
			return nil, false
		}
		if p := in.sched.procs[obj]; p != nil {
			p.priority = prio
			in.preemptIfOutranked()
		}
		return r, true
	},
	// processSignalException: signals the argument in the receiver when
	// it runs next; one waiting on a Semaphore is woken for it.
	"processSignalException": func(in *Interp, r Object, a []Object) (Object, bool) {
		p := in.knownProcess(r)
		exc, ok := asInstance(a[0])
		if p == nil || !ok || p == in.sched.running || p.state == processTerminated {
			return nil, false
		}
		p.pending = exc
		if p.state == processWaiting || p.state == processSleeping {
			in.takeOffSemaphore(p)
			p.interrupted = true
			in.makeReady(p, false)
		}
		return r, true
	},
	// processAddHandler puts an on:do: of the first argument (an
	// exception class or set) and the second (its handler) under the
	// whole stack of the receiver, a process that has run: it handles
	// what the process's own handlers do not, and its end ends the
	// process.
	"processAddHandler": func(in *Interp, r Object, a []Object) (Object, bool) {
		p := in.knownProcess(r)
		if p == nil || p.state == processTerminated || !p.started {
			return nil, false
		}
		h := &handler{selector: a[0], action: a[1], bottomOf: p}
		if p == in.sched.running {
			in.handlers = slices.Insert(in.handlers, 0, h)
			in.handlerLimit++
			return r, true
		}
		p.saved.handlers = slices.Insert(p.saved.handlers, 0, h)
		p.saved.handlerLimit++
		return r, true
	},
	// processorYield gives the processor to the next process ready at the
	// active one's priority, if any.
	"processorYield": func(in *Interp, r Object, a []Object) (Object, bool) {
		in.yield()
		return r, true
	},
	// processorSleep: the active process waits for the argument's
	// milliseconds (a Delay).
	"processorSleep": func(in *Interp, r Object, a []Object) (Object, bool) {
		ms, ok := a[0].(int64)
		if !ok || ms < 0 {
			return nil, false
		}
		in.sleep(ms)
		return r, true
	},
	// semaphoreSignal hands a signal of the receiver to the first process
	// waiting on it (answering true), false with none waiting.
	"semaphoreSignal": func(in *Interp, r Object, a []Object) (Object, bool) {
		sem, ok := asInstance(r)
		if !ok {
			return nil, false
		}
		queue := in.sched.waiting[sem]
		if len(queue) == 0 {
			return false, true
		}
		p := queue[0]
		in.takeOffSemaphore(p)
		p.granted = sem
		in.makeReady(p, false)
		return true, true
	},
	// semaphoreWait: the active process waits on the receiver for a
	// signal, at most the first argument's milliseconds if it is not nil;
	// the second is true for critical:'s wait.
	// Answers #signalled, #timedOut, or #again when the wait was
	// interrupted (the process was suspended, or an exception signalled
	// in it was resumed) and the process waits again.
	"semaphoreWait": func(in *Interp, r Object, a []Object) (Object, bool) {
		sem, ok := asInstance(r)
		if !ok {
			return nil, false
		}
		ms, timed := a[0].(int64)
		critical, isBool := a[1].(bool)
		if a[0] != nil && (!timed || ms < 0) || !isBool {
			return nil, false
		}
		in.sched.running.critical = critical
		return in.waitOn(sem, timed, ms), true
	},
	// processSuspendingList answers the Semaphore the receiver waits on,
	// nil if it waits on none.
	"processSuspendingList": func(in *Interp, r Object, a []Object) (Object, bool) {
		if p := in.knownProcess(r); p != nil && p.semaphore != nil {
			return p.semaphore, true
		}
		return nil, true
	},
	// semaphoreWaiting answers how many processes wait on the receiver.
	"semaphoreWaiting": func(in *Interp, r Object, a []Object) (Object, bool) {
		sem, ok := asInstance(r)
		if !ok {
			return nil, false
		}
		return int64(len(in.sched.waiting[sem])), true
	},
}

// onKnownProcess is a primitive doing act to the receiver, a process the
// scheduler knows, and answering it.
func onKnownProcess(act func(*Interp, *process)) primitive {
	return func(in *Interp, r Object, a []Object) (Object, bool) {
		p := in.knownProcess(r)
		if p == nil {
			return nil, false
		}
		act(in, p)
		return r, true
	}
}

func (in *Interp) knownProcess(o Object) *process {
	obj, ok := asInstance(o)
	if !ok {
		return nil
	}
	return in.sched.procs[obj]
}

func (in *Interp) newProcess(obj *Instance, b *Block, prio int64) *process {
	if len(in.sched.procs) >= maxProcesses {
		in.overLimit(fmt.Sprintf("more than %d processes under way at once (an endless fork?)", maxProcesses))
	}
	in.charge(processBytes)
	p := &process{obj: obj, block: b, priority: prio, state: processNew, wake: make(chan processWake)}
	in.sched.procs[obj] = p
	return p
}

// makeReady puts p in line for the processor; one of higher priority than
// the active process preempts it at once.
func (in *Interp) makeReady(p *process, front bool) {
	p.state = processReady
	if front {
		in.sched.ready = slices.Insert(in.sched.ready, 0, p)
	} else {
		in.sched.ready = append(in.sched.ready, p)
	}
	in.preemptIfOutranked()
}

// preemptIfOutranked gives the processor to the first process ready of
// higher priority than the active one, which stays first in line at its
// own priority (Pharo's VM does not make a preempted process yield).
func (in *Interp) preemptIfOutranked() {
	next := in.firstReady()
	cur := in.sched.running
	if next == nil || next.priority <= cur.priority || in.aborting {
		return
	}
	in.removeReady(next)
	cur.state = processReady
	in.sched.ready = slices.Insert(in.sched.ready, 0, cur)
	in.handOver(next, processWake{})
}

// firstReady answers the process ready of highest priority that became
// ready first.
func (in *Interp) firstReady() *process {
	var best *process
	for _, p := range in.sched.ready {
		if best == nil || p.priority > best.priority {
			best = p
		}
	}
	return best
}

func (in *Interp) removeReady(p *process) {
	in.sched.ready = slices.DeleteFunc(in.sched.ready, func(q *process) bool { return q == p })
}

func (in *Interp) takeOffSemaphore(p *process) {
	if p.semaphore != nil {
		in.sched.waiting[p.semaphore] = slices.DeleteFunc(in.sched.waiting[p.semaphore], func(q *process) bool { return q == p })
		if len(in.sched.waiting[p.semaphore]) == 0 {
			delete(in.sched.waiting, p.semaphore)
		}
		p.semaphore = nil
	}
	p.wakeAt = time.Time{}
}

func (in *Interp) yield() {
	cur := in.sched.running
	next := in.firstReady()
	if next == nil || next.priority < cur.priority {
		return
	}
	in.removeReady(next)
	cur.state = processReady
	in.sched.ready = append(in.sched.ready, cur)
	in.handOver(next, processWake{})
}

func (in *Interp) sleep(ms int64) {
	cur := in.sched.running
	cur.state = processSleeping
	cur.wakeAt = time.Now().Add(time.Duration(min(ms, maxSleep.Milliseconds())) * time.Millisecond)
	for {
		in.block()
		if cur.wakeAt.IsZero() || !time.Now().Before(cur.wakeAt) {
			cur.wakeAt = time.Time{}
			return
		}
		// woken early (a timeout, or suspended and resumed): it sleeps on
		cur.state = processSleeping
	}
}

func (in *Interp) waitOn(sem *Instance, timed bool, ms int64) Symbol {
	cur := in.sched.running
	cur.state, cur.semaphore, cur.timedOut, cur.interrupted = processWaiting, sem, false, false
	if timed {
		cur.wakeAt = time.Now().Add(time.Duration(min(ms, maxSleep.Milliseconds())) * time.Millisecond)
	}
	in.sched.waiting[sem] = append(in.sched.waiting[sem], cur)
	in.block()
	switch {
	case cur.interrupted:
		cur.interrupted = false
		return "again"
	case cur.timedOut:
		cur.timedOut = false
		return "timedOut"
	}
	return "signalled"
}

// suspend takes p off the processor or off what it waits on.
func (in *Interp) suspend(p *process) {
	switch p.state {
	case processRunning:
		p.state = processSuspended
		in.block()
	case processReady:
		in.removeReady(p)
		p.state = processSuspended
	case processWaiting, processSleeping:
		if p.semaphore != nil {
			in.takeOffSemaphore(p)
			p.interrupted = true
		}
		p.state = processSuspended
	}
}

// terminate ends p.
func (in *Interp) terminate(p *process) {
	switch {
	case p.state == processTerminated:
	case p == in.sched.running:
		if p == in.sched.main {
			panic(&Missing{What: "processes: terminating the process the computation runs in"})
		}
		panic(&processEnd{proc: p})
	case !p.started:
		in.removeReady(p)
		p.state = processTerminated
	default:
		// it unwinds as the active process; the terminating one waits
		in.removeReady(p)
		in.takeOffSemaphore(p)
		if sem := p.granted; sem != nil && p.critical {
			p.granted = nil
			in.Send(sem, "signal")
		}
		cur := in.sched.running
		p.returnTo = cur
		cur.state = processJoining
		if p.saved.inUnwind > 0 {
			// it completes the unwind blocks under way, its wait ended
			p.terminateDeferred = true
			p.wakeAt = time.Time{}
			in.handOver(p, processWake{})
			return
		}
		in.handOver(p, processWake{escape: &processEnd{proc: p}})
	}
}

// block hands the processor on from the active process, which has
// stopped (it waits, sleeps or is suspended), and returns when it is
// handed the processor again.
func (in *Interp) block() {
	next, wake := in.next()
	if next == in.sched.running {
		next.state = processRunning
		if wake.escape != nil {
			panic(wake.escape)
		}
		in.fireTimeout(time.Now())
		return
	}
	in.handOver(next, wake)
}

// next answers the process to run after the active one stopped: the
// first ready, or the first whose Delay or timeout comes, sleeping until
// then. With none, every process waits forever: the main one is handed
// the end of the computation.
func (in *Interp) next() (*process, processWake) {
	for {
		if p := in.firstReady(); p != nil {
			in.removeReady(p)
			return p, processWake{}
		}
		until, ok := in.nextWake()
		if !ok {
			return in.sched.main, processWake{escape: &abort{"every process waits for another (a Semaphore no process will signal, a process suspended that none will resume): Pharo would wait here forever"}}
		}
		if !in.deadline.IsZero() && in.deadline.Before(until) {
			until = in.deadline
		}
		if in.deadline.IsZero() && time.Until(until) > maxSleepWithoutDeadline {
			return in.sched.main, processWake{escape: &abort{"a wait of more than a minute with no time limit to end it, and no process to run meanwhile (an endless wait?)"}}
		}
		time.Sleep(time.Until(until))
		now := time.Now()
		if !in.deadline.IsZero() && now.After(in.deadline) {
			return in.sched.main, processWake{escape: &abort{"the time limit ran out"}}
		}
		in.dropSuspendedWatchdogs(now)
		in.wakeSleepers(now)
	}
}

// dropSuspendedWatchdogs forgets the watchdogs (timeouts with an action:
// SUnit's) come due while the process they watch is suspended — a test
// held in a debugger is not too long, as Pharo's watchdog checks before
// it barks.
func (in *Interp) dropSuspendedWatchdogs(now time.Time) {
	in.timeouts = slices.DeleteFunc(in.timeouts, func(t timeout) bool {
		return t.action != nil && t.owner != nil && t.owner.state == processSuspended && !now.Before(t.at)
	})
}

// nextWake answers when a waiting process wakes next: its Delay's end,
// its wait's timeout, or a timeout it owns (valueWithin:onTimeout:, the
// watchdog of SUnit) that interrupts its wait.
func (in *Interp) nextWake() (time.Time, bool) {
	var first time.Time
	consider := func(t time.Time) {
		if !t.IsZero() && (first.IsZero() || t.Before(first)) {
			first = t
		}
	}
	for _, p := range in.sched.procs {
		if p.state == processWaiting || p.state == processSleeping {
			consider(p.wakeAt)
		}
	}
	if in.sched.main.state == processWaiting || in.sched.main.state == processSleeping {
		consider(in.sched.main.wakeAt)
	}
	for _, t := range in.timeouts {
		if o := t.owner; o != nil && (o.state == processWaiting || o.state == processSleeping) {
			consider(t.at)
		}
	}
	return first, !first.IsZero()
}

// wakeSleepers makes ready the processes whose Delay or timeout has come.
func (in *Interp) wakeSleepers(now time.Time) {
	due := func(p *process) bool {
		if p.state != processWaiting && p.state != processSleeping {
			return false
		}
		if !p.wakeAt.IsZero() && !now.Before(p.wakeAt) {
			return true
		}
		return slices.ContainsFunc(in.timeouts, func(t timeout) bool { return t.owner == p && !now.Before(t.at) })
	}
	var woken []*process
	for _, p := range in.sched.procs {
		if due(p) {
			woken = append(woken, p)
		}
	}
	if due(in.sched.main) && in.sched.main.obj == nil {
		woken = append(woken, in.sched.main)
	}
	slices.SortStableFunc(woken, func(a, b *process) int { return a.wakeAt.Compare(b.wakeAt) })
	for _, p := range woken {
		if p.state == processWaiting {
			p.timedOut = !p.wakeAt.IsZero() && !now.Before(p.wakeAt)
			p.interrupted = !p.timedOut
			in.takeOffSemaphore(p)
		}
		p.state = processReady
		in.sched.ready = append(in.sched.ready, p)
	}
}

// checkProcesses, with the clock, gives the processor to a process of
// higher priority whose Delay has ended (the VM's timer interrupt).
func (in *Interp) checkProcesses(now time.Time) {
	if len(in.sched.procs) == 0 {
		return
	}
	in.dropSuspendedWatchdogs(now)
	in.wakeSleepers(now)
	in.preemptIfOutranked()
}

// handOver gives the processor to next, with wake, and waits until the
// active process is handed it again.
func (in *Interp) handOver(next *process, wake processWake) {
	cur := in.sched.running
	in.saveStacks(cur)
	in.start(next, wake)
	w := <-cur.wake
	in.resumed(cur, w)
}

// start hands the processor to p with w, starting its goroutine if it is
// new.
func (in *Interp) start(p *process, w processWake) {
	in.sched.running = p
	if !p.started {
		p.started = true
		go in.runProcess(p)
	}
	p.wake <- w
}

// resumed makes the interpreter's stacks p's again, now that it runs.
func (in *Interp) resumed(p *process, w processWake) {
	in.restoreStacks(p)
	p.state = processRunning
	p.granted = nil
	if w.escape != nil {
		panic(w.escape)
	}
	if exc := p.pending; exc != nil {
		p.pending = nil
		in.Send(exc, "signal")
	}
	in.fireTimeout(time.Now())
}

func (in *Interp) saveStacks(p *process) {
	p.saved = processStacks{handlers: in.handlers, handlerLimit: in.handlerLimit, argStack: in.argStack,
		depth: in.depth, depthLimit: in.depthLimit, active: in.active, runningCoroutine: in.runningCoroutine,
		returning: in.returning, inUnwind: in.inUnwind, othersDepth: in.sched.heldDepth}
	in.sched.heldDepth += in.depth
}

// restoreStacks gives p its stacks back; the stack the other processes
// took meanwhile is that much less for it.
func (in *Interp) restoreStacks(p *process) {
	s := p.saved
	in.sched.heldDepth -= s.depth
	in.handlers, in.handlerLimit, in.argStack = s.handlers, s.handlerLimit, s.argStack
	in.depth, in.active, in.runningCoroutine, in.returning = s.depth, s.active, s.runningCoroutine, s.returning
	in.inUnwind = s.inUnwind
	in.depthLimit = s.depthLimit - (in.sched.heldDepth - s.othersDepth)
	p.saved = processStacks{}
}

// runProcess is a forked process's goroutine: it runs the process's block
// when first handed the processor, then hands it on.
func (in *Interp) runProcess(p *process) {
	w := <-p.wake
	escaped := in.runBlockOf(p, w)
	p.state = processTerminated
	in.clearStacks()
	switch v := escaped.(type) {
	case nil:
	case *processKilled:
		in.sched.killed <- struct{}{}
		return
	case *processEnd:
		if v.proc != p {
			escaped = &Missing{What: "processes: a process's termination reached another's stack"}
		} else {
			escaped = nil
		}
	}
	if escaped != nil {
		// what ends the computation (a limit, something the kernel lacks)
		// ends it in its main process
		in.sched.ready = slices.DeleteFunc(in.sched.ready, func(q *process) bool { return q == in.sched.main })
		in.start(in.sched.main, processWake{escape: escaped})
		return
	}
	if to := p.returnTo; to != nil {
		p.returnTo = nil
		in.start(to, processWake{})
		return
	}
	next, wake := in.next()
	in.start(next, wake)
}

// runBlockOf runs p's block and answers what left it other than its end.
func (in *Interp) runBlockOf(p *process, w processWake) (escaped any) {
	defer func() {
		r := recover()
		switch v := r.(type) {
		case nil, *processKilled, *processEnd, *abort, *Missing:
			escaped = r
		case *unhandled:
			escaped = &Missing{What: "processes: an error no handler of a forked process took (" + in.describe(v.exc) + ")"}
		case *nonLocalReturn:
			escaped = &Missing{What: "processes: a ^ in a forked process's block to a method of the process that forked it"}
		case *unwind:
			if v.h.bottomOf == p {
				escaped = nil // the handler under its stack took what ended it
				break
			}
			escaped = &Missing{What: "processes: a forked process's block ending a handler of the process that forked it"}
		case *retrying, *resuming:
			escaped = &Missing{What: "processes: a forked process's block ending a handler of the process that forked it"}
		default:
			escaped = r
		}
	}()
	in.handlers, in.handlerLimit, in.argStack = nil, 0, nil
	in.depth, in.active, in.runningCoroutine, in.returning = 0, nil, nil, nil
	in.inUnwind = 0
	in.depthLimit = maxDepth - in.sched.heldDepth
	p.state = processRunning
	if w.escape != nil {
		panic(w.escape)
	}
	in.callBlock(p.block, nil)
	return nil
}

func (in *Interp) clearStacks() {
	in.handlers, in.handlerLimit, in.argStack = nil, 0, nil
	in.depth, in.active, in.runningCoroutine, in.returning = 0, nil, nil, nil
	in.inUnwind = 0
}

// suspendUnderDebugger stops the active forked process at an exception
// no handler took, as Pharo's debugger holds it; it goes on, the
// exception's default action answering nil, if it is resumed.
func (in *Interp) suspendUnderDebugger() {
	in.sched.running.state = processSuspended
	in.block()
}

// endProcesses drops the processes a computation left, their goroutines
// unwound without running their ensure: blocks, and makes the
// computation's own process the only one again.
func (in *Interp) endProcesses() {
	s := in.sched
	if len(s.procs) > 0 && s.running == s.main {
		aborting := in.aborting
		in.aborting = true // nothing of the image runs on the way out
		for obj, p := range s.procs {
			if p == s.main {
				continue
			}
			if p.started && p.state != processTerminated {
				s.running = p
				p.wake <- processWake{escape: &processKilled{}}
				<-s.killed
			}
			// the image sees it ended
			if i := ivarIndex(obj.class, "state"); i >= 0 {
				obj.vars[i] = Symbol("terminated")
			}
		}
		in.aborting = aborting
	}
	s.reset()
}

// reset makes the scheduler as new, keeping what it allocated: a
// computation's only process is its own again.
func (s *scheduler) reset() {
	clear(s.procs)
	clear(s.waiting)
	clear(s.ready)
	s.ready = s.ready[:0]
	*s.main = process{priority: 40, state: processRunning, wake: s.main.wake, started: true}
	s.running, s.heldDepth = s.main, 0
}
