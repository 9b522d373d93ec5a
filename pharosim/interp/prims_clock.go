package interp

import (
	"fmt"
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
	// clockSleep suspends the computation (the image's one process) for
	// the argument's milliseconds, up to its deadline (past it, the time
	// limit ends the computation) or a valueWithin:onTimeout:'s time
	// (its TimedOut is signalled).
	"clockSleep": func(in *Interp, r Object, a []Object) (Object, bool) {
		ms, ok := a[0].(int64)
		if !ok || ms < 0 {
			return nil, false
		}
		wake := time.Now().Add(time.Duration(min(ms, maxSleep.Milliseconds())) * time.Millisecond)
		for {
			// the deadline or a valueWithin:onTimeout: may come first:
			// the sleep ends there, as the watchdog's signal ends Pharo's
			until := wake
			if !in.deadline.IsZero() && in.deadline.Before(until) {
				until = in.deadline
			}
			if t, ok := in.nextTimeout(); ok && t.Before(until) {
				until = t
			}
			if in.deadline.IsZero() && time.Until(until) > maxSleepWithoutDeadline {
				in.overLimit(fmt.Sprintf("a wait of %d ms with no time limit to end it (an endless wait?)", ms))
			}
			time.Sleep(time.Until(until))
			if !time.Now().Before(wake) {
				return r, true
			}
			in.checkClock() // signals; a handler that resumes sleeps on
		}
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
		in.timeouts = append(in.timeouts, timeout{at: at, tag: a[1]})
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
		in.timeouts = append(in.timeouts, timeout{at: at, tag: a[2], action: b})
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
}

// nextTimeout answers when the first timeout comes.
func (in *Interp) nextTimeout() (time.Time, bool) {
	if len(in.timeouts) == 0 {
		return time.Time{}, false
	}
	first := in.timeouts[0].at
	for _, t := range in.timeouts[1:] {
		if t.at.Before(first) {
			first = t.at
		}
	}
	return first, true
}

// fireTimeout signals the TimedOut of the first timeout come by now, once.
func (in *Interp) fireTimeout(now time.Time) {
	first, ok := in.nextTimeout()
	if !ok || now.Before(first) || in.aborting {
		return
	}
	i := slices.IndexFunc(in.timeouts, func(t timeout) bool { return t.at.Equal(first) })
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
