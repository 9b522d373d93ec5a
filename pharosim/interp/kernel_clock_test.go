package interp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestClockAnswersAsPharo: what Pharo 13's time tests (System-Time-Tests)
// show its dates, times, durations and time zones answer.
func TestClockAnswersAsPharo(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, expr, want string }{
		{"the default time zone is UTC", "{ TimeZone default abbreviation. TimeZone default offset. (TimeZone abbreviated: 'PST') offset }", "an Array('UTC' 0:00:00:00 -0:08:00:00)"},
		{"a time zone of any offset", "| z | z := TimeZone offset: (Duration minutes: 135) name: 'Epoch Test Time Zone' abbreviation: 'ETZ'. { z offset. z name. z abbreviation }", "an Array(0:02:15:00 'Epoch Test Time Zone' 'ETZ')"},
		{"the local time zone sets the offset of local dates and times", "DateAndTime localTimeZone: (TimeZone offset: 2 hours name: 'x' abbreviation: 'X'). { DateAndTime localOffset. (DateAndTime year: 2000 month: 1 day: 1) printString. DateAndTime now offset }", "an Array(0:02:00:00 '2000-01-01T00:00:00+02:00' 0:02:00:00)"},
		{"an offset's seconds print unpadded", "(DateAndTime year: 1997 month: 4 day: 26 hour: 1 minute: 2 second: 3 offset: (Duration hours: 1 minutes: 2 seconds: 3)) printString", "'1997-04-26T01:02:03+01:02:3'"},
		{"a date and time's asNanoSeconds counts from its midnight", "(DateAndTime year: 2004 month: 2 day: 29 hour: 13 minute: 33 second: 0 offset: 2 hours) asNanoSeconds", "48780000000000"},
		{"ISO 8601 with a date only and an offset", "{ '2014-02-19Z' asDateAndTime printString. '2014-02-19T+07:00' asDateAndTime printString. '2014-02-19 -05:00' asDateAndTime printString }", "#('2014-02-19T00:00:00+00:00' '2014-02-19T00:00:00+07:00' '2014-02-19T00:00:00-05:00')"},
		{"ISO 8601 with hhmm, a space before the offset, and words after", "{ '2012-01-15T0000+00:00' asDateAndTime printString. '2012-07-26 16:38:48 +02' asDateAndTime offset printString. (DateAndTime readFrom: '2016-02-03 19:23:48 +0131 By: someone' readStream) printString }", "#('2012-01-15T00:00:00+00:00' '0:02:00:00' '2016-02-03T19:23:48+01:31')"},
		{"a duration times a fraction drops the part of a nanosecond", "{ (1 nanoSecond * 1.99) printString. (1 nanoSecond * 2) printString }", "#('0:00:00:00.000000001' '0:00:00:00.000000002')"},
		{"the whole milli-, micro- and nanoseconds within a second", "| d | d := 1002003004 nanoSeconds. { d wholeMilliseconds. d wholeMicroseconds. d wholeNanoseconds. 1 second wholeMilliseconds }", "#(2 3 4 0)"},
		{"a duration reads with a plus sign", "'+0:01:02:55' asDuration printString", "'0:01:02:55'"},
		{"store strings", "{ (Duration days: 1 hours: 2 minutes: 3 seconds: 4 nanoSeconds: 5) storeString. (Date year: 2004 month: 1 day: 23) storeString. (Time hour: 12 minute: 34 second: 56) storeString }", "#('(Duration seconds: 93784 nanoSeconds: 5)' '''23 January 2004'' asDate' '''12:34:56 pm'' asTime')"},
		{"a time zone prints its abbreviation", "(TimeZone offset: 135 minutes name: 'Epoch Test Time Zone' abbreviation: 'ETZ') printString", "'a TimeZone(ETZ)'"},
		{"a timespan", "| jan01 t | jan01 := DateAndTime year: 2005 month: 1 day: 1 offset: 0 hours. t := Timespan starting: jan01 duration: 7 days. { t printString. t end printString. t dayOfWeekName. t workDates size. (t includes: jan01 + 7 days) }", "#('a Timespan(2005-01-01T00:00:00+00:00D7:00:00:00)' '2005-01-07T23:59:59.999999999+00:00' 'Saturday' 5 false)"},
		{"timespans intersect and unite", "| a b | a := Timespan starting: (DateAndTime year: 2005 month: 1 day: 1 offset: 0 hours) duration: 7 days. b := Timespan starting: (DateAndTime year: 2004 month: 12 day: 31 offset: 0 hours) duration: 7 days. { (a intersection: b) duration. (a union: b) duration. (a intersection: a next) }", "an Array(6:00:00:00 8:00:00:00 nil)"},
		{"a week starts on the image's start day", "Week startDay: #Sunday. { (Week starting: (DateAndTime year: 1900 month: 12 day: 31 offset: 0 hours)) printString. (Week starting: (Date year: 1998 month: 7 day: 4)) index }", "#('a Week starting: 1900-12-30T00:00:00+00:00' 5)"},
		{"ISO weeks start on Monday", "(Week year: 2013 week: 1) start yyyymmdd", "'2012-12-31'"},
		{"months and years", "| m | m := Month year: 1998 month: 7. { m printString. m duration printString. m next index. m previous index. m name. (Year year: 1901) printString. (Year year: 2008) isLeapYear. (Month readFrom: 'July 1998' readStream) = m }", "#('July 1998' '31:00:00:00' 8 6 #July 'a Year (1901)' true true)"},
		{"a year's first Thursday", "(Year year: 2013) firstThursday yyyymmdd", "'2013-01-03'"},
		{"dates read by a pattern", "{ Date readFrom: '29.11.13' pattern: 'd.m.y'. Date readFrom: '4d\\2m\\2345y' readStream pattern: 'd\\d\\\\m\\m\\\\y\\y'. Date readFrom: '2.11.10000' pattern: 'd.mm.y'. Date readFrom: '11.2013.2' pattern: 'dd.yyyy.m'. Date readFrom: 'a4.2.2345' pattern: 'ad.m.y' }", "an Array(29 November 2013 4 February 2345 2 November 10000 11 February 2013 4 February 2345)"},
		{"a pattern's widths, days, months and what follows are checked", "#( #('4.02.2345' 'dd.mm.yyyy') #('02.11.13' 'dd.mm.yyyy') #('02.11.113' 'dd.mm.yy') #('0.11.2013' 'd.mm.yyyy') #('02.13.2013' 'dd.mm.yyyy') #('04.02.2013trailing' 'd.m.y') #('4.2.2345' 'ad.m.y') ) collect: [ :each | [ Date readFrom: each first pattern: each last ] on: DateError do: [ :e | #error ] ]", "#(#error #error #error #error #error #error #error)"},
		{"only an offset may follow a time of day", "#('1 invalid' '1 pm is the afternoon' '1,3,6' '0:invalid') collect: [ :each | [ Time readFrom: each readStream ] on: Error do: [ :e | #error ] ]", "#(#error #error #error #error)"},
		{"a time of day with am or pm and an offset after it", "{ Time readFrom: '8AM' readStream. Time readFrom: '1:59:30 pm' readStream. Time readFrom: '14:30 +01:00' readStream }", "an Array(8:00 am 1:59:30 pm 2:30 pm)"},
		{"a date is one day at any offset", "| d | d := Date year: 2004 month: 1 day: 23. { (d translateTo: -8 hours) equals: (d translateTo: 10 hours). (d translateTo: 10 hours) isAfter: (d translateTo: -8 hours). d previous printString. d next printString }", "#(true false '22 January 2004' '24 January 2004')"},
		// Timespan>>translateTo: (a date starting at midnight at another offset), Timespan>>offset (its start's offset);
		// the STON form STONWriterTest>>#testDate expects, Date['2012-01-01+01:00'], reads it
		{"a date translated carries the offset", "| d | d := (Date year: 2012 month: 1 day: 1) translateTo: 1 hour. { d offset printString. d start printString. d printString. d translateToUTC offset printString. d translateToUTC start printString }", "#('0:01:00:00' '2012-01-01T00:00:00+01:00' '1 January 2012' '0:00:00:00' '2012-01-01T00:00:00+00:00')"},
		{"a schedule's events", "| s | s := Schedule starting: (DateAndTime year: 2003 month: 1 day: 4 hour: 20 minute: 30 second: 0 offset: 0 hours) duration: 52 weeks. s schedule: { 1 day. 6 days }. { s dateAndTimes size. (s dateAndTimes collect: [ :each | each dayOfWeekName ]) asSet size. s includes: (DateAndTime year: 2003 month: 6 day: 15 hour: 20 minute: 30 second: 0 offset: 0 hours) }", "#(104 2 true)"},
		{"to:by:do: answers the schedule, its end left out", "| seen s | seen := OrderedCollection new. s := DateAndTime epoch to: DateAndTime epoch + 10 days by: 5 days do: [ :each | seen add: each day ]. { s duration printString. seen asArray }", "#('10:00:00:00' #(1 6))"},
		{"a duration reads as human words", "{ 0 seconds humanReadablePrintString. 1 second negated humanReadablePrintString. 1002003004 nanoSeconds humanReadablePrintString. (Duration days: 2 hours: 4 minutes: 8 seconds: 16) humanReadablePrintString }", "#('0 seconds' '- 1 second' '1 second 2 milliseconds 3 microseconds 4 nanoseconds' '2 days 4 hours 8 minutes 16 seconds')"},
		{"a duration modulo a number counts nanoseconds", "{ (11.5 seconds \\\\ 3) asNanoSeconds. (11.5 seconds \\\\ 3 seconds) printString. (Duration microSeconds: -3775000) nanoSeconds. 1 year days. (1/2) asSeconds printString }", "#(1 '0:00:00:02.5' -775000000 365 '0:00:00:00.5')"},
		{"ticks", "| t | t := DateAndTime epoch. { t ticks. (Duration days: 1 hours: 2 minutes: 3 seconds: 4 nanoSeconds: 5) ticks. (Time hour: 12 minute: 34 second: 56) ticks. (DateAndTime basicNew ticks: #(2415386 0 0) offset: 0 hours; yourself) = t }", "#(#(2415386 0 0) #(1 7384 5) #(0 45296 0) true)"},
		{"midnight of a Julian day at an offset", "| d | d := DateAndTime julianDayNumber: 2456385 offset: 2 hours. { d dayOfWeek. d asTimeUTC printString. d asUTC julianDayNumber }", "#(3 '10:00 pm' 2456384)"},
		{"what a date's class knows of the calendar", "{ Date dayOfWeek: #Friday. Date firstWeekdayOfMonth: 'January' year: 2004. (Date asMonth: 9 inYear: 2018) printString. (Date year: 2004 month: 1 day: 23) printFormat: #(1 2 3 $/ 1 1). (Date year: 2004 month: 1 day: 23) daysLeftInYear }", "#(6 5 'September 2018' '23/1/2004' 343)"},
		{"a time of day outside the day is a TimeError", "{ [ Time seconds: 86400 ] on: TimeError do: [ :e | #error ]. [ Time seconds: -1 nanoSeconds: 0 ] on: TimeError do: [ :e | #error ]. [ Time new ticks: #(0 0 1000000000) ] on: TimeError do: [ :e | #error ]. [ Time hour: 24 minute: 0 second: 0 ] on: TimeError do: [ :e | #error ]. [ (Time hour: 12 minute: 34 second: 56) addSeconds: 86400 ] on: TimeError do: [ :e | #error ]. (Time seconds: 86399) print24 }", "#(#error #error #error #error #error '23:59:59')"},
		{"a time of day plus a duration goes round the clock", "((Time hour: 23 minute: 0 second: 0) + 2 hours) print24", "'01:00:00'"},
		{"DOS timestamps", "DateAndTime localTimeZone: TimeZone default. { ('2012-05-21T15:02:44' asDateAndTime asDosTimestamp) printStringHex. (DateAndTime fromDosTimestamp: 16r40B57856) printString }", "#('40B57856' '2012-05-21T15:02:44+00:00')"},
		{"fuzzy reading: a year or a year and a month is its first day", "DateAndTime localTimeZone: TimeZone default. { (DateAndTime fuzzyReadFrom: '2008' readStream) printString. (DateAndTime fuzzyReadFrom: '2008-08' readStream) printString. (DateAndTime fuzzyReadFrom: '2006-08-28T00:00:00.123456789000' readStream) printString }", "#('2008-01-01T00:00:00+00:00' '2008-08-01T00:00:00+00:00' '2006-08-28T00:00:00.123456789+00:00')"},
		{"a stopwatch keeps one timespan a run", "| sw r | sw := Stopwatch new. r := OrderedCollection new. r add: sw printString. sw activate; activate. r add: sw isActive; add: sw timespans size. sw suspend; suspend. r add: sw isSuspended. sw activate; reActivate. r add: sw timespans size; add: sw start <= sw end. sw reset. r add: sw timespans size; add: sw duration printString. r asArray", "#('a Stopwatch(suspended:0:00:00:00)' true 1 true 3 true 0 '0:00:00:00')"},
		{"reading with a default offset", "{ (DateAndTime readFrom: '2013-03-04T23:47:52' readStream defaultOffset: 3 hours) printString. (DateAndTime readFrom: '2013-03-04T23:47:52Z' readStream defaultOffset: 3 hours) printString }", "#('2013-03-04T23:47:52+03:00' '2013-03-04T23:47:52+00:00')"},
		{"a fraction of a second by its digits", "{ (Time hour: 1 minute: 23 second: 45 nano: 67809) = (Time fromString: '01:23:45.67809'). (Time hour: 1 minute: 23 second: 45 nano: 67809) nanoSecond }", "#(true 678090000)"},
		{"the basic date printer prints ISO 8601", "{ String streamContents: [ :s | BasicDatePrinter default printDate: (Date year: 1973 month: 6 day: 2) format: #() on: s ]. String streamContents: [ :s | BasicDatePrinter new printHMS: (Time hour: 15 minute: 2 second: 44) separatedBy: $: on: s ] }", "#('1973-06-02' '15:02:44')"},
		{"printing with a leading space", "{ String streamContents: [ :s | (DateAndTime year: 2012 month: 1 day: 1 hour: 6 minute: 30 second: 15 offset: 1 hour) printOn: s withLeadingSpace: false ]. String streamContents: [ :s | (DateAndTime year: 2012 month: 1 day: 1 offset: 0 hours) printOn: s withLeadingSpace: true ]. String streamContents: [ :s | (DateAndTime year: -5 month: 1 day: 1 offset: 0 hours) printOn: s withLeadingSpace: true ] }", "#('2012-01-01T06:30:15+01:00' ' 2012-01-01T00:00:00+00:00' '-0005-01-01T00:00:00+00:00')"},
		{"whole seconds, file names, separate date and time", "| t | t := DateAndTime year: 2012 month: 5 day: 21 hour: 15 minute: 2 second: 44 nanoSecond: 600000000 offset: 2 hours. { t rounded printString. t truncated printString. t withoutOffset printString. t asFileNameCompatibleString. String streamContents: [ :s | t printSeparateDateAndTimeOn: s ]. t secondsSinceMidnightUTC }", "#('2012-05-21T15:02:45+02:00' '2012-05-21T15:02:44+02:00' '2012-05-21T13:02:44.6+00:00' '2012-05-21.15-02-44' '21 May 2012 3:02:44.6 pm' 46964)"},
		{"a date and time read as a date and a time of day", "DateAndTime localTimeZone: TimeZone default. (DateAndTime readSeparateDateAndTimeFrom: ' 2012-05-21 3:02:44 pm' readStream) printString", "'2012-05-21T15:02:44+00:00'"},
		{"the millisecond clock moves forward", "| t | t := Time millisecondClockValue. { (Time millisecondsSince: t) >= 0. (Time millisecondsToRun: [ 3 + 4 ]) >= 0. Time microsecondClockValue > (t * 1000 - 1) }", "#(true true true)"},
		{"days of ISO weeks, the next and previous month", "{ Date year: 2013 week: 1 day: 1. Date year: 2013 week: 32 day: 7. (Date year: 2018 month: 9 day: 28) onNextMonth. (Date year: 2018 month: 9 day: 28) onPreviousMonth }", "an Array(31 December 2012 11 August 2013 28 October 2018 28 August 2018)"},
		{"the local time zone is the machine's until set", "DateAndTime localOffset = DateAndTime machineOffset", "true"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, runDoIt(t, nil, tc.expr))
		})
	}
}

// TestLocalTimeZoneBelongsToOneImage: setting the local time zone (here an
// offset no place uses, so it cannot be the machine's) changes
// that image's notion of the local offset only, never another image's nor
// the machine's.
func TestLocalTimeZoneBelongsToOneImage(t *testing.T) {
	t.Parallel()
	setOne := "DateAndTime localTimeZone: (TimeZone offset: (Duration hours: 13 minutes: 17 seconds: 0) name: 'No place' abbreviation: 'NOP'). { DateAndTime localOffset printString. DateAndTime now offset printString. DateAndTime machineOffset = DateAndTime localOffset }"
	require.Equal(t, "#('0:13:17:00' '0:13:17:00' false)", runDoIt(t, nil, setOne))
	assert.Equal(t, "true", runDoIt(t, nil, "DateAndTime localOffset = DateAndTime machineOffset"))
}
