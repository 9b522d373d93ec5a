package interp

import "time"

// clockPrimitives are the kernel's only ties to the machine's clock: the
// current instant and the machine's offset from UTC. Everything else about
// dates and times (the calendar, printing, reading) is kernel Smalltalk.
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
}
