package interp

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestClock checks the kernel's Date, Time, DateAndTime and Duration
// against what Pharo answers for the same expressions: printing, reading,
// arithmetic and comparisons. Nothing here reads the machine's clock but
// the last cases, which check only the kind of answer.
func TestClock(t *testing.T) {
	cases := []struct{ expr, want string }{
		// printing, as Pharo prints
		{"(Date year: 2012 month: 6 day: 8) printString", "'8 June 2012'"},
		{"(Date year: 2012 month: 6 day: 8) yyyymmdd", "'2012-06-08'"},
		{"(Date year: 1900 month: 1 day: 1) yyyymmdd", "'1900-01-01'"},
		{"(Date year: 2012 month: 6 day: 8) mmddyyyy", "'6/8/2012'"},
		{"(Time fromSeconds: 52208) printString", "'2:30:08 pm'"},
		{"(Time hour: 0 minute: 5 second: 0) printString", "'12:05 am'"},
		{"(Time hour: 12 minute: 0 second: 0) printString", "'12:00 pm'"},
		{"(Time hour: 9 minute: 3 second: 7) print24", "'09:03:07'"},
		{"(DateAndTime year: 2012 month: 2 day: 14 hour: 16 minute: 40 second: 18 offset: 1 hour) printString", "'2012-02-14T16:40:18+01:00'"},
		{"(DateAndTime year: 2012 month: 2 day: 14 hour: 16 minute: 40 second: 18 offset: (Duration hours: -5 minutes: -30 seconds: 0)) printString", "'2012-02-14T16:40:18-05:30'"},
		{"(DateAndTime year: 2012 month: 2 day: 14 hour: 16 minute: 40 second: 18 nanoSecond: 120000000 offset: 0 hours) printString", "'2012-02-14T16:40:18.12+00:00'"},
		{"1 hour printString", "'0:01:00:00'"},
		{"(Duration days: 2 hours: 3 minutes: 4 seconds: 5) printString", "'2:03:04:05'"},
		{"-90 seconds printString", "'-0:00:01:30'"},
		{"(Duration milliSeconds: 1500) printString", "'0:00:00:01.5'"},
		{"(Time hour: 14 minute: 30 second: 8 nanoSecond: 250000000) printString", "'2:30:08.25 pm'"},
		{"(Time hour: 14 minute: 30 second: 8 nanoSecond: 250000000) print24", "'14:30:08'"},
		{"(Date year: 2004 month: 1 day: 23) printString", "'23 January 2004'"},
		{"String streamContents: [ :s | (Date year: 2004 month: 1 day: 23) printOn: s format: #(3 2 1 $* 2 2) ]", "'04*Jan*23'"},
		{"String streamContents: [ :s | (Date year: 2004 month: 1 day: 3) printOn: s format: #(2 1 3 $/ 1 1 2) ]", "'01/03/2004'"},
		// reading
		{"(Date fromString: '2012-06-08') printString", "'8 June 2012'"},
		{"'8 June 2012' asDate yyyymmdd", "'2012-06-08'"},
		{"'June 8, 2012' asDate yyyymmdd", "'2012-06-08'"},
		{"'6/8/2012' asDate yyyymmdd", "'2012-06-08'"},
		{"'15-APR-82' asDate yyyymmdd", "'1982-04-15'"},
		{"'15.4.82' asDate yyyymmdd", "'1982-04-15'"},
		{"'4/15/82' asDate yyyymmdd", "'1982-04-15'"},
		{"'April 15, 1982' asDate yyyymmdd", "'1982-04-15'"},
		{"'1 January 2068' asDate = '1/1/68' asDate", "true"},
		{"(Time fromString: '8AM') asSeconds", "28800"},
		{"(Time fromString: '14:30:08') = (Time hour: 14 minute: 30 second: 8)", "true"},
		{"(Time fromString: '2:30:08 pm') asSeconds", "52208"},
		{"(Time fromString: '12:15 am') asSeconds", "900"},
		{"(DateAndTime fromString: '2012-02-14T16:40:18+01:00') = (DateAndTime year: 2012 month: 2 day: 14 hour: 16 minute: 40 second: 18 offset: 1 hour)", "true"},
		{"(DateAndTime fromString: '2012-02-14T15:40:18Z') = (DateAndTime year: 2012 month: 2 day: 14 hour: 16 minute: 40 second: 18 offset: 1 hour)", "true"},
		{"(DateAndTime fromString: '2012-02-14T16:40:18.5-0130') printString", "'2012-02-14T16:40:18.5-01:30'"},
		{"(DateAndTime fromString: '2012-02-14T16:40:18+01:00') printString", "'2012-02-14T16:40:18+01:00'"},
		{"[ Date fromString: '2012-02-30' ] on: DateError do: [ :e | e messageText ]", "'day 30 is not in month 2 of 2012'"},
		{"[ Date fromString: 'soon' ] on: Error do: [ :e | e class ]", "DateError"},
		{"'0:01:30:00' asDuration = 90 minutes", "true"},
		// the calendar
		{"(Date year: 2012 month: 6 day: 8) dayOfWeek", "6"},
		{"(Date year: 2012 month: 6 day: 8) dayOfWeekName", "'Friday'"},
		{"(Date year: 2024 month: 3 day: 1) dayOfYear", "61"},
		{"(Date year: 2024 month: 3 day: 1) day", "61"},
		{"(Date year: 2024 month: 3 day: 1) dayOfMonth", "1"},
		{"(DateAndTime year: 2024 month: 3 day: 1) day", "61"},
		{"(Date year: 2000 month: 2 day: 1) daysInMonth", "29"},
		{"(Date year: 1900 month: 2 day: 1) daysInMonth", "28"},
		{"(Date year: 1901 month: 1 day: 1) julianDayNumber", "2415386"},
		{"(DateAndTime year: 2012 month: 6 day: 8 hour: 23 minute: 30 second: 0 offset: -2 hours) asUTC printString", "'2012-06-09T01:30:00+00:00'"},
		{"(DateAndTime year: 2012 month: 6 day: 8 hour: 23 minute: 30 second: 0 offset: -2 hours) asDate printString", "'8 June 2012'"},
		{"(DateAndTime year: 2012 month: 6 day: 8 hour: 23 minute: 30 second: 0 offset: -2 hours) asTime printString", "'11:30 pm'"},
		{"(DateAndTime fromUnixTime: 0) printString", "'1970-01-01T00:00:00+00:00'"},
		{"(DateAndTime fromSeconds: 86400 offset: 2 hours) printString", "'1901-01-02T02:00:00+02:00'"},
		{"(DateAndTime year: 1901 month: 1 day: 2 hour: 2 minute: 0 second: 0 offset: 2 hours) asSeconds", "86400"},
		{"(DateAndTime year: 1970 month: 1 day: 2 hour: 1 minute: 0 second: 0 offset: 1 hour) asUnixTime", "86400"},
		// arithmetic
		{"((Date year: 2012 month: 12 day: 20) addDays: 30) printString", "'19 January 2013'"},
		{"(Date year: 2013 month: 3 day: 1) subtractDate: (Date year: 2012 month: 3 day: 1)", "365"},
		{"((Date year: 2013 month: 3 day: 1) - 12 hours) printString", "'28 February 2013'"},
		{"((Date year: 2013 month: 3 day: 1) + 36 hours) printString", "'2 March 2013'"},
		{"((Date year: 2013 month: 3 day: 1) - (Date year: 2013 month: 2 day: 27)) printString", "'2:00:00:00'"},
		{"((Date year: 2012 month: 1 day: 31) addMonths: 1) printString", "'29 February 2012'"},
		{"((DateAndTime year: 2012 month: 12 day: 31 hour: 23 minute: 59 second: 59 offset: 0 hours) + 1 second) printString", "'2013-01-01T00:00:00+00:00'"},
		{"((DateAndTime year: 2012 month: 3 day: 1 hour: 0 minute: 0 second: 0 offset: 0 hours) - (DateAndTime year: 2012 month: 2 day: 28 hour: 12 minute: 0 second: 0 offset: 0 hours)) printString", "'1:12:00:00'"},
		{"((DateAndTime year: 2012 month: 3 day: 1 hour: 0 minute: 0 second: 0 offset: 0 hours) - 36 hours) printString", "'2012-02-28T12:00:00+00:00'"},
		{"((Time hour: 23 minute: 0 second: 0) + 2 hours) printString", "'1:00 am'"},
		{"(1 hour + 30 minutes) asSeconds", "5400"},
		{"(1 day / 4) printString", "'0:06:00:00'"},
		{"1 day / 1 hour", "24"},
		{"(2 weeks - 1 day) days", "13"},
		// comparisons
		{"(Date year: 2012 month: 6 day: 8) < (Date year: 2012 month: 6 day: 9)", "true"},
		{"(Date year: 2012 month: 6 day: 8) = (Date fromString: '2012-06-08')", "true"},
		{"(Date year: 2012 month: 6 day: 8) = '2012-06-08'", "false"},
		{"(Set new add: (Date year: 2012 month: 6 day: 8); add: '2012-06-08' asDate; yourself) size", "1"},
		{"(DateAndTime year: 2012 month: 6 day: 8 hour: 15 minute: 0 second: 0 offset: 1 hour) = (DateAndTime year: 2012 month: 6 day: 8 hour: 14 minute: 0 second: 0 offset: 0 hours)", "true"},
		{"(DateAndTime year: 2012 month: 6 day: 8 hour: 15 minute: 0 second: 0 offset: 1 hour) < (DateAndTime year: 2012 month: 6 day: 8 hour: 14 minute: 30 second: 0 offset: 0 hours)", "true"},
		{"(Time hour: 9 minute: 0 second: 0) < (Time hour: 10 minute: 0 second: 0)", "true"},
		{"(Time hour: 9 minute: 0 second: 0) max: (Time hour: 10 minute: 0 second: 0)", "10:00 am"},
		{"1 hour = 60 minutes", "true"},
		{"1 hour < 61 minutes", "true"},
		{"1 hour = 3600", "false"},
		// the machine's clock: only the kinds of its answers
		{"Date today class", "Date"},
		{"Time now class", "Time"},
		{"DateAndTime now class", "DateAndTime"},
		{"(DateAndTime now - DateAndTime now) class", "Duration"},
	}
	for _, tc := range cases {
		t.Run(tc.expr, func(t *testing.T) {
			assert.Equal(t, tc.want, evalIn(t, tc.expr))
		})
	}
}
