package interp

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestClockAnswersAsPharo: what Pharo 13's time tests (System-Time-Tests)
// show its dates, times, durations and time zones answer.
func TestClockAnswersAsPharo(t *testing.T) {
	cases := []struct{ name, expr, want string }{
		{"the default time zone is UTC", "{ TimeZone default abbreviation. TimeZone default offset. (TimeZone abbreviated: 'PST') offset }", "an Array('UTC' 0:00:00:00 -0:08:00:00)"},
		{"a time zone of any offset", "| z | z := TimeZone offset: (Duration minutes: 135) name: 'Epoch Test Time Zone' abbreviation: 'ETZ'. { z offset. z name. z abbreviation }", "an Array(0:02:15:00 'Epoch Test Time Zone' 'ETZ')"},
		{"the local time zone sets the offset of local dates and times", "DateAndTime localTimeZone: (TimeZone offset: 2 hours name: 'x' abbreviation: 'X'). { DateAndTime localOffset. (DateAndTime year: 2000 month: 1 day: 1) printString. DateAndTime now offset }", "an Array(0:02:00:00 '2000-01-01T00:00:00+02:00' 0:02:00:00)"},
		{"the local time zone is the machine's until set", "DateAndTime localOffset = DateAndTime machineOffset", "true"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, runDoIt(t, nil, tc.expr))
		})
	}
}
