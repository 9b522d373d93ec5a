package udiff

import (
	"strings"
)

// noNewline marks, inside a line, that the line ends its file without a
// line feed: a line that gains or loses its newline is then a change, as
// for git.
const noNewline = "\x00no newline"

// fileLines splits a file's text at LF, keeping any CR at the end of a line
// (a CRLF file's lines differ from an LF file's); a last line without LF
// carries noNewline.
func fileLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		if t, ok := strings.CutSuffix(l, "\n"); ok {
			lines[i] = t
		} else {
			lines[i] = l + noNewline
		}
	}
	return lines
}

// FilePatch is a patch in git's form that turns the file at path (relative
// to the tree, with / separators) from a into b — `diff --git a/path
// b/path`, `--- a/path`, `+++ b/path`, hunks with ctx lines of context —
// byte for byte: CRs stay in their lines, and a last line without a line
// feed is followed by `\ No newline at end of file`. "" when a equals b.
func FilePatch(path, a, b string, ctx int) string {
	if a == b {
		return ""
	}
	edits := Edits(fileLines(a), fileLines(b))
	var sb strings.Builder
	sb.WriteString("diff --git a/" + path + " b/" + path + "\n--- a/" + path + "\n+++ b/" + path + "\n")
	for _, h := range group(edits, ctx) {
		h.write(&sb, edits)
	}
	return strings.ReplaceAll(sb.String(), noNewline+"\n", "\n\\ No newline at end of file\n")
}
