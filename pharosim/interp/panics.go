package interp

// The computation travels up Go's stack by panics of these types, and only
// by them; each is recovered by the one place named beside it. A recover
// anywhere else re-raises what it does not own (see compare.go's runOnce,
// which only looks at what passes).
//
//	type             raised by                                  recovered by
//	*abort           overLimit, doesNotUnderstand without dnu,   guard (sunit.go): the computation ends
//	                 ivars of an immediate object
//	*Missing         undeclared, the primitive missing           guard: the test errors naming what is lacking
//	*unhandled       the primitive unhandledError                guard: the test errors with the exception
//	*nonLocalReturn  returnFrom (a ^ in a block)                 run (eval.go), in the home method's frame only
//	*unwind          unwindTo (return:, a handler's end)         protected (exceptions.go), its on:do: only
//	*retrying        retry (retry, retryUsing:)                  protected, its on:do: only
//	*resuming        resume (resume:, resignalAs:)               runHandler (exceptions.go), its handler only
//	*processEnd      processEnd (a forked process terminated      processRun (prims_processes.go), its process only
//	                 while it runs)
//	errTooBig        copier.shell (compare_copy.go)              copier.copyAll
//
// guard also ends the computation for a *nonLocalReturn, *unwind,
// *retrying or *resuming that no frame took, and for a Go runtime error.

// overLimit ends a computation that went over one of its limits (steps,
// time, stack, memory). Nothing of the image catches it, and the ensure:
// and ifCurtailed: blocks it passes on its way out do not run: each could
// only go over the limit again, and each abort raised on the way walks
// the whole stack that Go still holds (through a deep recursion, that
// made ending it quadratic).
func (in *Interp) overLimit(reason string) {
	in.aborting = true
	panic(&abort{reason})
}

// abort ends a computation that went over its limits; exceptions of the
// image cannot catch it.
type abort struct{ reason string }

// nonLocalReturn is a ^ from a block, travelling to its home method.
type nonLocalReturn struct {
	home  *frame
	value Object
	prev  *nonLocalReturn // the ^ that was travelling when this one began
}

// returnFrom travels a ^ from a block to its home method. in.returning
// names it, so that only the home's frame recovers it: a frame that
// recovered and re-raised whatever passed made unwinding a deep stack
// quadratic (an endless recursion through such methods took 26 s to end).
func (in *Interp) returnFrom(home *frame, v Object) {
	n := &nonLocalReturn{home: home, value: v, prev: in.returning}
	in.returning = n
	panic(n)
}

// blockReturn is a ^ reached inside a block (or an inlined block used
// as a value) whose home method is home: it returns v from home, or
// signals BlockCannotReturn when home has already returned.
func (in *Interp) blockReturn(home *frame, v Object) Object {
	if home.dead {
		return in.signalError("BlockCannotReturn", "the block's method has already returned")
	}
	in.returnFrom(home, v)
	return nil
}

// Missing is what a test touched that the kernel lacks.
type Missing struct {
	What string
	// Why replaces the message when what is missing is no part of the
	// kernel (a class of the image that did not load).
	Why string
}

func (m *Missing) Error() string {
	if m.Why != "" {
		return m.Why
	}
	return "pharo-sim's kernel lacks " + m.What
}

// unwindTo ends the on:do: of h with v.
func (in *Interp) unwindTo(h *handler, v Object) {
	h.ending = true
	panic(&unwind{h: h, value: v})
}

// retry restarts the on:do: of h (with using in place of its protected
// block, if not nil).
func (in *Interp) retry(h *handler, using *Block) {
	h.ending = true
	panic(&retrying{h: h, using: using})
}

// resume makes the signal of r.exc answer (see resuming).
func (in *Interp) resume(r *resuming) {
	in.state(r.exc).resumed = true
	panic(r)
}

// unwind ends the on:do: of h with a value (return:, or a handler block
// that ran to its end).
type unwind struct {
	h     *handler
	value Object
}

// retrying restarts the protected block of h's on:do:, or runs using in
// its place (retryUsing:), under the same handler.
type retrying struct {
	h     *handler
	using *Block
}

// resuming makes the signal (or outer) of exc answer value, or, with
// instead set (resignalAs:), signal instead there in its place.
type resuming struct {
	exc     *Instance
	value   Object
	instead Object
}

// unhandled is an exception no handler took, nor a handler of the
// UnhandledError it raised: it ends the computation.
type unhandled struct{ exc *Instance }
