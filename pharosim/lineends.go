package pharosim

import "strings"

// toLF converts CR and CRLF line endings to LF: the simulator keeps sources
// with LF, as Tonel files hold them.
func toLF(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}

// toCR converts LF and CRLF to CR, the image's own line ending: method
// sources leave the simulator the way they leave a Pharo image.
func toCR(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\r")
	return strings.ReplaceAll(s, "\n", "\r")
}
