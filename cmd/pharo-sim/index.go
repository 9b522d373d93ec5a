package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/pharo-refactor/refactord/pharosim/classlib"
)

// index generates a class-library index from a Pharo Tonel source tree
// (e.g. a checkout of github.com/pharo-project/pharo: its src folder), for
// `serve --class-library FILE`. The source commit is recorded: given with
// --commit, else asked of git when the tree is in a git checkout.
func index(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("pharo-sim index", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "the index file to write, gzip-compressed (required)")
	commit := fs.String("commit", "", "the source's commit (default: git rev-parse HEAD in SRC, else \"unknown\")")
	label := fs.String("label", "Pharo", "what the source is, e.g. \"Pharo 12\"")
	repo := fs.String("repository", "github.com/pharo-project/pharo", "where the source comes from")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: pharo-sim index -o FILE [--commit SHA] [--label TEXT] [--repository URL] SRC")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 1 || *out == "" {
		fs.Usage()
		return 2
	}
	src := fs.Arg(0)
	if *commit == "" {
		*commit = gitCommit(src)
	}
	gen, err := classlib.Generate(src, classlib.Source{Label: *label, Repository: *repo, Commit: *commit})
	if err != nil {
		fmt.Fprintf(stderr, "pharo-sim index: %v\n", err)
		return 2
	}
	for _, e := range gen.Unreadable {
		fmt.Fprintf(stderr, "pharo-sim index: left out: %v\n", e)
	}
	for _, d := range gen.Unpackaged {
		fmt.Fprintf(stderr, "pharo-sim index: skipped %s: .st files without package.st (Pharo does not load them either)\n", d)
	}
	packed, err := classlib.Compress(gen.Index)
	if err != nil {
		fmt.Fprintf(stderr, "pharo-sim index: compressing: %v\n", err)
		return 1
	}
	if _, err := classlib.Parse(packed); err != nil {
		fmt.Fprintf(stderr, "pharo-sim index: the generated index does not read back: %v\n", err)
		return 1
	}
	if err := os.WriteFile(*out, packed, 0o644); err != nil {
		fmt.Fprintf(stderr, "pharo-sim index: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s: %d packages, %d classes and traits, %d methods; %d bytes (%d uncompressed); source %s %s\n",
		*out, gen.Packages, gen.Classes, gen.Methods, len(packed), len(gen.Index), *repo, *commit)
	return 0
}

// gitCommit asks git for the commit of the checkout holding dir.
func gitCommit(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "unknown"
	}
	outb, err := exec.Command("git", "-C", abs, "rev-parse", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(outb))
}
