package main

import (
	"regexp"
	"strings"
)

// markerPattern finds the comment every candidate of the soak carries: a
// number that tells the candidates apart, so that the checker knows which
// one a row or the image holds.
var markerPattern = regexp.MustCompile(`soak-[0-9]+`)

// candidateMarkers lists the markers source holds.
func candidateMarkers(source string) []string {
	return markerPattern.FindAllString(source, -1)
}

// normalize is source as the checker compares it: the image hands out CR
// line endings and Tonel keeps LF; trailing blanks of a line say nothing.
func normalize(source string) string {
	source = strings.ReplaceAll(source, "\r\n", "\n")
	source = strings.ReplaceAll(source, "\r", "\n")
	lines := strings.Split(source, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}
