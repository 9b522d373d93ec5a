package interp

// exceptionPrimitives are the Go primitives of Exception and on:do:
// (see exceptions.go for the handler search and panics.go for how a
// handler's return:, retry and resume: travel).
var exceptionPrimitives = map[string]primitive{
	"signal": func(in *Interp, r Object, a []Object) (Object, bool) {
		exc, ok := asInstance(r)
		if !ok {
			return nil, false
		}
		return in.signal(exc), true
	},
	"onDo": func(in *Interp, r Object, a []Object) (Object, bool) {
		b, ok := asBlock(r)
		if !ok {
			return nil, false
		}
		return in.onDo(b, a[0], a[1]), true
	},
	"exReturn": func(in *Interp, r Object, a []Object) (Object, bool) {
		exc, ok := asInstance(r)
		if !ok || in.state(exc).h == nil {
			return nil, false
		}
		s := in.state(exc)
		in.unwindTo(s.h, a[0])
		return nil, false
	},
	"exRetry": func(in *Interp, r Object, a []Object) (Object, bool) {
		exc, ok := asInstance(r)
		if !ok || in.state(exc).h == nil {
			return nil, false
		}
		s := in.state(exc)
		in.retry(s.h, nil)
		return nil, false
	},
	"exResume": func(in *Interp, r Object, a []Object) (Object, bool) {
		exc, ok := asInstance(r)
		if !ok {
			return nil, false
		}
		in.resume(&resuming{exc: exc, value: a[0]})
		return nil, false
	},
	"exOuter": func(in *Interp, r Object, a []Object) (Object, bool) {
		exc, ok := asInstance(r)
		if !ok {
			return nil, false
		}
		s := in.state(exc)
		if s.h == nil {
			return in.Send(exc, "defaultAction"), true
		}
		v := in.signalFrom(exc, s.hidx+in.handlerMoved(s.h, s.hidx)-1, s.top)
		// the outer handling answered (an outer handler resumed, or no
		// handler was left and the default action answered): the
		// exception is in its handler's hands again, for a resume: or
		// return: after the outer, or pass
		in.states[exc] = s
		return v, true
	},
	"exHandled": func(in *Interp, r Object, a []Object) (Object, bool) {
		exc, ok := asInstance(r)
		if !ok {
			return nil, false
		}
		return in.state(exc).h != nil, true
	},
	"unhandledError": func(in *Interp, r Object, a []Object) (Object, bool) {
		exc, ok := asInstance(r)
		if !ok {
			return nil, false
		}
		if in.sched.running != in.sched.main {
			// Pharo's debugger holds the process where it stands
			in.suspendUnderDebugger()
			return nil, true
		}
		panic(&unhandled{exc: exc})
	},
	"exIsNested": func(in *Interp, r Object, a []Object) (Object, bool) {
		exc, ok := asInstance(r)
		if !ok {
			return nil, false
		}
		return in.isNested(exc), true
	},
	"exRetryUsing": func(in *Interp, r Object, a []Object) (Object, bool) {
		exc, ok := asInstance(r)
		b, isBlock := asBlock(a[0])
		if !ok || !isBlock || len(b.node.Args) != 0 || in.state(exc).h == nil {
			return nil, false
		}
		in.retry(in.state(exc).h, b)
		return nil, false
	},
	"exResignal": func(in *Interp, r Object, a []Object) (Object, bool) {
		exc, ok := asInstance(r)
		if !ok || in.state(exc).h == nil || a[0] == nil {
			return nil, false
		}
		in.resume(&resuming{exc: exc, instead: a[0]})
		return nil, false
	},
}
