package interp

import "slices"

// handler is an active on:do:.
type handler struct {
	selector Object // an exception class or an ExceptionSet: it answers handles:
	action   Object // the handler block
	// ending is set when an unwind or a retry for this on:do: is raised:
	// only then does its frame recover what travels through it (a frame
	// that recovered and re-raised whatever passed made unwinding a deep
	// stack quadratic).
	ending bool
	// bottomOf is the process whose stack this handler was put under
	// after it ran (Process>>on:do:): a return from it ends the process
	bottomOf *process
}

// excState is what a signalled exception knows of its handling.
type excState struct {
	h    *handler
	hidx int // the handler's index in Interp.handlers
	// resumed is set when a resume for the handler block running is
	// raised: only then does runHandler recover what travels through it.
	resumed bool
	// top is where the search for a handler began when it was signalled
	// (the handlers visible then are below it)
	top int
}

func (in *Interp) onDo(body *Block, selector, action Object) (result Object) {
	h := &handler{selector: selector, action: action}
	for {
		v, again, using := in.protected(body, h)
		if !again {
			return v
		}
		if using != nil {
			body = using
		}
	}
}

func (in *Interp) protected(body *Block, h *handler) (result Object, again bool, using *Block) {
	idx := len(in.handlers)
	in.handlers = append(in.handlers, h)
	limit := in.handlerLimit
	in.handlerLimit = len(in.handlers)
	depth, active := in.depth, in.active
	defer func() {
		if idx >= len(in.handlers) || in.handlers[idx] != h {
			// a generator's block that yielded since (see handlerMoved)
			moved := in.handlerMoved(h, idx)
			if slices.Index(in.handlers, h) < 0 {
				moved = len(in.handlers) - idx
			}
			limit += moved
			idx += moved
		}
		clear(in.handlers[idx:])
		in.handlers = in.handlers[:idx]
		in.handlerLimit = limit
		if !h.ending {
			return // what travels, if anything, is for another frame
		}
		if r := recover(); r != nil {
			switch u := r.(type) {
			case *unwind:
				if u.h == h {
					h.ending = false
					in.depth, in.active = depth, active
					result, again = u.value, false
					return
				}
			case *retrying:
				if u.h == h {
					h.ending = false
					in.depth, in.active = depth, active
					result, again, using = nil, true, u.using
					return
				}
			}
			panic(r)
		}
	}()
	return in.callBlock(body, nil), false, nil
}

// handlerMoved answers how far h stands from index i now: 0, but for a
// handler of a generator's block that yielded since (its handlers stand
// above whatever its consumer had when it was last resumed).
func (in *Interp) handlerMoved(h *handler, i int) int {
	if i < len(in.handlers) && in.handlers[i] == h {
		return 0
	}
	if j := slices.Index(in.handlers, h); j >= 0 {
		return j - i
	}
	return 0
}

// signal looks for a handler of exc from the innermost visible one out.
func (in *Interp) signal(exc *Instance) Object {
	top := min(len(in.handlers), in.handlerLimit)
	return in.signalFrom(exc, top-1, top)
}

// signalFrom looks for a handler of exc from start down; top is where the
// search began when exc was signalled.
func (in *Interp) signalFrom(exc *Instance, start, top int) Object {
	for i := start; i >= 0; i-- {
		h := in.handlers[i]
		if truthy(in.Send(h.selector, "handles:", exc)) {
			return in.runHandler(exc, h, i, top)
		}
	}
	in.setState(exc, &excState{hidx: -1, top: top})
	if start+1 >= top {
		return in.Send(exc, "defaultAction")
	}
	// passed on (pass, outer, signal again) with no handler left: the
	// default action runs where the exception was signalled, as Pharo's
	// does once pass has let go of its handler context — an error it
	// signals meets every handler of the signal's stack, the one that
	// passed it too (Pharo's search jumps over a handler only from the
	// signal of the exception it handles)
	limit := in.handlerLimit
	in.handlerLimit = top
	defer func() { in.handlerLimit = limit }()
	return in.Send(exc, "defaultAction")
}

func (in *Interp) runHandler(exc *Instance, h *handler, i, top int) (result Object) {
	prev := in.states[exc]
	mine := &excState{h: h, hidx: i, top: top}
	in.setState(exc, mine)
	limit := in.handlerLimit
	in.handlerLimit = i
	depth, active := in.depth, in.active
	defer func() {
		in.handlerLimit = limit + in.handlerMoved(h, i)
		if prev != nil {
			in.states[exc] = prev
		} else {
			delete(in.states, exc)
		}
		if !mine.resumed {
			return // what travels, if anything, is for another frame
		}
		if r := recover(); r != nil {
			if u, ok := r.(*resuming); ok && u.exc == exc {
				in.depth, in.active = depth, active
				result = u.value
				if u.instead != nil {
					// the handlers are as they were at the signal again
					result = in.Send(u.instead, "signal")
				}
				return
			}
			panic(r)
		}
	}()
	var v Object
	if b, ok := h.action.(*Block); ok && len(b.node.Args) == 0 {
		v = in.callBlock(b, nil)
	} else if ok {
		v = in.callBlock(b, []Object{exc})
	} else {
		v = in.Send(h.action, "cull:", exc)
	}
	in.unwindTo(h, v)
	return nil
}

// isNested tells whether a handler outside the one running exc's handler
// block would handle exc too.
func (in *Interp) isNested(exc *Instance) bool {
	s := in.state(exc)
	if s.h == nil {
		return false
	}
	for i := s.hidx - 1; i >= 0; i-- {
		if truthy(in.Send(in.handlers[i].selector, "handles:", exc)) {
			return true
		}
	}
	return false
}

// setState records what exc knows of its handling (charged when exc had
// no record yet).
func (in *Interp) setState(exc *Instance, s *excState) {
	if _, ok := in.states[exc]; !ok {
		in.charge(stateBytes)
	}
	in.states[exc] = s
}

func (in *Interp) state(exc *Instance) *excState {
	if s, ok := in.states[exc]; ok {
		return s
	}
	return &excState{hidx: -1}
}

func truthy(o Object) bool {
	b, _ := o.(bool)
	return b
}

func (in *Interp) signalError(class, text string) Object {
	c := in.classes[class]
	if c == nil {
		c = in.classes["Error"]
	}
	e := in.newInstance(c)
	in.Send(e, "messageText:", in.newString(text))
	return in.Send(e, "signal")
}
