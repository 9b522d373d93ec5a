package interp

// processPrimitives give a Process what an image of one process can:
// a forked process's block runs to its end when it is resumed, on the
// computation's own stack, as the active process, seeing none of the
// handlers of the process that resumed it (each process has a stack of
// its own in Pharo). What would leave it waiting for another process —
// a wait, suspending itself, an error no handler took, which suspends it
// under a debugger — is refused by name (Missing). There is no
// scheduler: nothing runs beside the computation.
var processPrimitives = map[string]primitive{
	// processActive answers the forked process running, nil in the
	// computation's own (the main process, which the kernel makes).
	"processActive": func(in *Interp, r Object, a []Object) (Object, bool) {
		return in.activeProcess, true
	},
	// processRun runs the argument, a block without arguments, to its end
	// as the receiver, a Process: the active process meanwhile, with a
	// handler stack of its own.
	"processRun": func(in *Interp, r Object, a []Object) (Object, bool) {
		proc, ok := asInstance(r)
		b, isBlock := asBlock(a[0])
		if !ok || !isBlock || len(b.node.Args) != 0 {
			return nil, false
		}
		in.runProcess(proc, b)
		return r, true
	},
	// processEnd ends the receiver, the forked process running, where it
	// stands: its ensure: blocks run as the way out passes them.
	"processEnd": func(in *Interp, r Object, a []Object) (Object, bool) {
		proc, ok := asInstance(r)
		if !ok || in.activeProcess == nil || !identical(in.activeProcess, proc) {
			return nil, false
		}
		panic(&processEnd{proc: proc})
	},
}

// processEnd ends a forked process terminated while it runs.
type processEnd struct{ proc *Instance }

func (in *Interp) runProcess(proc *Instance, b *Block) {
	handlers, limit, args, depth, current := in.handlers, in.handlerLimit, len(in.argStack), in.depth, in.current
	outer := in.activeProcess
	in.handlers, in.handlerLimit = nil, 0
	in.activeProcess = proc
	defer func() {
		clear(in.handlers[:cap(in.handlers)])
		in.handlers, in.handlerLimit = handlers, limit
		in.activeProcess = outer
		r := recover()
		if r == nil {
			return
		}
		if in.aborting {
			panic(r) // a limit ends the computation
		}
		clear(in.argStack[args:cap(in.argStack)])
		in.argStack = in.argStack[:args]
		in.depth, in.current = depth, current
		switch v := r.(type) {
		case *processEnd:
			if v.proc == proc {
				return // terminated: its ensure: blocks have run
			}
		case *unhandled:
			panic(&Missing{What: "a second process: an error no handler of a forked process took would suspend it under a debugger (" + in.describe(v.exc) + ")"})
		case *nonLocalReturn:
			in.returning = v.prev
			panic(&Missing{What: "a second process: a ^ in a forked process's block to a method of the process that forked it"})
		case *unwind, *retrying, *resuming:
			panic(&Missing{What: "a second process: a forked process's block ending a handler of the process that forked it"})
		}
		panic(r)
	}()
	in.callBlock(b, nil)
}
