package interp

import (
	"fmt"
	"time"
)

// maxSleepWithoutDeadline bounds a Delay's wait in a computation that has
// no deadline to end it: a longer one would look like a hang.
const maxSleepWithoutDeadline = time.Minute

// clockPrimitives are the kernel's only ties to the machine's clock: the
// current instant, the machine's offset from UTC and sleeping (a Delay's
// wait). Everything else about dates and times (the calendar, printing,
// reading) is kernel Smalltalk.
var clockPrimitives = map[string]primitive{
	// clockNow answers #(unixSeconds nanoseconds).
	"clockNow": func(in *Interp, r Object, a []Object) (Object, bool) {
		now := time.Now()
		return in.newArray([]Object{now.Unix(), int64(now.Nanosecond())}), true
	},
	// clockLocalOffset answers the machine's offset from UTC now, in seconds.
	"clockLocalOffset": func(in *Interp, r Object, a []Object) (Object, bool) {
		_, offset := time.Now().Zone()
		return int64(offset), true
	},
	// clockSleep suspends the computation (the image's one process) for
	// the argument's milliseconds, up to its deadline: past it, the time
	// limit ends the computation.
	"clockSleep": func(in *Interp, r Object, a []Object) (Object, bool) {
		ms, ok := a[0].(int64)
		if !ok || ms < 0 {
			return nil, false
		}
		if in.deadline.IsZero() && ms > maxSleepWithoutDeadline.Milliseconds() {
			in.overLimit(fmt.Sprintf("a wait of %d ms with no time limit to end it (an endless wait?)", ms))
		}
		if !in.deadline.IsZero() && (ms > time.Until(in.deadline).Milliseconds()) {
			time.Sleep(time.Until(in.deadline))
			in.overLimit("the time limit ran out")
		}
		time.Sleep(time.Duration(ms) * time.Millisecond)
		return r, true
	},
}
