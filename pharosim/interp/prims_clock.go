package interp

import (
	"slices"
	"time"
)

// maxSleepWithoutDeadline bounds a Delay's wait in a computation that has
// no deadline to end it: a longer one would look like a hang.
const maxSleepWithoutDeadline = time.Minute

// maxSleep bounds the milliseconds of one wait that Go's durations hold.
const maxSleep = 24 * time.Hour

// clockPrimitives are the kernel's only ties to the machine's clock: the
// current instant, the machine's offset from UTC and sleeping (a Delay's
// wait). Everything else about dates and times (the calendar, printing,
// reading) is kernel Smalltalk.
var clockPrimitives = map[string]primitive{
	// clockNow answers #(unixSeconds nanoseconds).
	"clockNow": func(in *Interp, r Object, a []Object) (Object, bool) {
		now := time.Now()
		if in.frozenClock != nil {
			now = *in.frozenClock
		}
		return in.newArray([]Object{now.Unix(), int64(now.Nanosecond())}), true
	},
	// clockLocalOffset answers the machine's offset from UTC now, in seconds.
	"clockLocalOffset": func(in *Interp, r Object, a []Object) (Object, bool) {
		_, offset := time.Now().Zone()
		return int64(offset), true
	},
	// timeoutStart: the TimedOut tagged with the second argument is
	// signalled where the computation stands once the first argument's
	// milliseconds have passed (valueWithin:onTimeout:).
	"timeoutStart": func(in *Interp, r Object, a []Object) (Object, bool) {
		ms, ok := a[0].(int64)
		if !ok || ms < 0 {
			return nil, false
		}
		at := time.Now().Add(time.Duration(min(ms, maxSleep.Milliseconds())) * time.Millisecond)
		in.timeouts = append(in.timeouts, timeout{at: at, tag: a[1], owner: in.sched.running})
		return r, true
	},
	// timeoutStartDoing: the second argument, tagged with the third, is
	// evaluated where the computation stands once the first argument's
	// milliseconds have passed (SUnit's watchdog: TestTookTooMuchTime
	// signalled in the test where it stands, as Pharo's watchdog process
	// signals it in the test's process).
	"timeoutStartDoing": func(in *Interp, r Object, a []Object) (Object, bool) {
		ms, ok := a[0].(int64)
		b, isBlock := asBlock(a[1])
		if !ok || ms < 0 || !isBlock || len(b.node.Args) != 0 {
			return nil, false
		}
		at := time.Now().Add(time.Duration(min(ms, maxSleep.Milliseconds())) * time.Millisecond)
		in.timeouts = append(in.timeouts, timeout{at: at, tag: a[2], action: b, owner: in.sched.running})
		return r, true
	},
	// timeoutStop: the TimedOut tagged with the argument is signalled no
	// more (its block completed, or left).
	"timeoutStop": func(in *Interp, r Object, a []Object) (Object, bool) {
		in.timeouts = slices.DeleteFunc(in.timeouts, func(t timeout) bool { return identical(t.tag, a[0]) })
		return r, true
	},
}

// timeout is a valueWithin:onTimeout: under way: when at comes, TimedOut
// is signalled with tag where the computation stands, as Pharo's watchdog
// process signals it in the process it watches.
type timeout struct {
	at  time.Time
	tag Object
	// action, when set, is evaluated instead of signalling TimedOut
	action *Block
	// owner is the process it is signalled in, when that process runs
	owner *process
}

// fireTimeout signals the TimedOut of the first timeout of the active
// process come by now, once.
func (in *Interp) fireTimeout(now time.Time) {
	if in.aborting {
		return
	}
	i := -1
	for j, t := range in.timeouts {
		if t.owner == in.sched.running && !now.Before(t.at) && (i < 0 || t.at.Before(in.timeouts[i].at)) {
			i = j
		}
	}
	if i < 0 {
		return
	}
	tag, action := in.timeouts[i].tag, in.timeouts[i].action
	in.timeouts = slices.Delete(in.timeouts, i, i+1)
	if action != nil {
		in.callBlock(action, nil)
		return
	}
	timedOut, ok := in.classes["TimedOut"]
	if !ok {
		return
	}
	exc := in.Send(timedOut, "new")
	in.Send(exc, "tag:", tag)
	in.Send(exc, "signal")
}
