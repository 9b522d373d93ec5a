// Command pharo-sim is a simulated Pharo image behind the MCP tool surface
// of pharo-smalltalk-interop-mcp-server (see package pharosim).
//
//	pharo-sim serve --dir DIR [--test-oracle FILE] [fault flags]
//	pharo-sim check [--class-library FILE] PATH
//	pharo-sim index -o FILE SRC
//
// Each verb lives in its own file; main only dispatches.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
)

// verb is one sub-command: it gets the arguments after its name and answers
// the process's exit status.
type verb struct {
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
	summary string
}

// verbs lists the sub-commands.
func verbs() map[string]verb {
	return map[string]verb{
		"serve": {serve, "serve --dir DIR [--class-library FILE] [--test-oracle FILE] [fault flags]: MCP over stdio on the Tonel tree at DIR"},
		"index": {index, "index -o FILE [--commit SHA] SRC: write a class-library index of a Pharo Tonel src for serve --class-library"},
		"check": {check, "check [--class-library FILE] PATH: parse every method of a Tonel tree, package folder or .st file, and say per package what the kernel lacks; exit 0 clean, 1 errors, 2 unreadable"},
	}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run dispatches to a verb and answers the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return 0
	}
	v, ok := verbs()[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "pharo-sim: unknown verb %q\n", args[0])
		usage(stderr)
		return 2
	}
	return v.run(args[1:], stdin, stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: pharo-sim VERB [flags]")
	all := verbs()
	names := make([]string, 0, len(all))
	for n := range all {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %s\n", all[n].summary)
	}
	fmt.Fprintln(w, "run 'pharo-sim VERB -h' for a verb's flags")
}
