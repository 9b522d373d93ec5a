package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/pharo-refactor/refactord/pharosim"
	"github.com/pharo-refactor/refactord/pharosim/classlib"
	"github.com/pharo-refactor/refactord/smalltalk"
	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// check parses every method under PATH (a Tonel tree, a package folder or a
// .st file) and prints `FILE:LINE:COL: Class>>selector: message` per broken
// method and `FILE:LINE:COL: message` per file whose Tonel cannot be read,
// every one of them: a broken file is read again as far as it goes, so that
// the methods around a broken one are still checked. Warnings (statements
// after a return, which Pharo compiles) are printed too but do not fail.
// Folders holding .st files but no package.st are named, not read (Pharo
// reads only package folders), and do not fail the check.
// Then, per package, what pharo-sim's interpreter makes of it
// (pharosim.CheckPackages): a warning per class that did not load and per
// class-side initialize that failed, and the classes and selectors of the
// class library it uses that the kernel lacks.
// Then `N methods, N errors` (and `, N warnings` when there are some).
// Exit 0 clean, 1 errors, 2 PATH unreadable.
func check(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: pharo-sim check [--class-library FILE] PATH   (a Tonel tree, a package folder or a .st file)")
	}
	library := fs.String("class-library", os.Getenv(envClassLibrary),
		"a class-library index (pharo-sim index) to tell what the kernel lacks, instead of the embedded Pharo 13 one ("+envClassLibrary+")")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	tree, err := tonel.ReadTree(fs.Arg(0))
	if tree == nil {
		fmt.Fprintf(stderr, "pharo-sim check: cannot read %s: %v\n", fs.Arg(0), err)
		return 2
	}
	var r report
	files := tree.Files()
	for _, e := range flatten(err) {
		var pe *tonel.ParseError
		if !errors.As(e, &pe) {
			r.problem("", fmt.Sprintf("%v", e))
			continue
		}
		files = append(files, r.recover(pe)...)
	}
	sort.SliceStable(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	for _, f := range files {
		for _, m := range f.Methods {
			r.method(f, m)
		}
	}
	skippedFolders(fs.Arg(0), &r)
	lib := classlib.Default()
	if *library != "" {
		var err error
		if lib, err = classlib.LoadFile(*library); err != nil {
			fmt.Fprintf(stderr, "pharo-sim check: %v\n", err)
			return 2
		}
	}
	packages, err := pharosim.CheckPackages(files, lib)
	if err != nil {
		fmt.Fprintf(stderr, "pharo-sim check: %v\n", err)
		return 2
	}
	for _, p := range packages {
		r.packageReport(p, lib.Source().Label)
	}
	r.print(stdout)
	if r.errors > 0 {
		return 1
	}
	return 0
}

// report collects the lines of a check, sorted by file and line at the end.
type report struct {
	lines    []reportLine
	methods  int
	errors   int
	warnings int
}

type reportLine struct {
	path      string
	line, col int
	text      string
}

// problem records a file-level error.
func (r *report) problem(path string, text string) {
	r.errors++
	r.lines = append(r.lines, reportLine{path: path, text: text})
}

// recover reads a file that did not parse as far as it goes: each Tonel
// error is reported; the methods read around them are answered for
// checking.
func (r *report) recover(pe *tonel.ParseError) []*tonel.File {
	data, err := os.ReadFile(pe.Path)
	if err != nil {
		r.errors++
		r.lines = append(r.lines, reportLine{pe.Path, pe.Line, pe.Col, fmt.Sprintf("%s:%d:%d: %s", pe.Path, pe.Line, pe.Col, pe.Msg)})
		return nil
	}
	f, errs := tonel.ParseFileRecovering(pe.Path, data)
	if len(errs) == 0 {
		errs = []*tonel.ParseError{pe}
	}
	for _, e := range errs {
		r.errors++
		r.lines = append(r.lines, reportLine{e.Path, e.Line, e.Col, fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Col, e.Msg)})
	}
	if f == nil {
		return nil
	}
	return []*tonel.File{f}
}

// skippedFolders notes the folders of a tree root that hold .st files but
// no package.st.
func skippedFolders(path string, r *report) {
	if info, err := os.Stat(path); err != nil || !info.IsDir() {
		return
	}
	root, single, err := tonel.FindRoot(path)
	if err != nil || single {
		return
	}
	dirs, err := tonel.UnpackagedDirs(root)
	if err != nil {
		r.problem(root, fmt.Sprintf("listing the folders of %s: %v", root, err))
		return
	}
	for _, d := range dirs {
		r.lines = append(r.lines, reportLine{path: d, text: d + ": skipped: .st files but no package.st (Pharo reads only package folders)"})
	}
}

// packageReport records what the interpreter makes of a package: each
// class that did not load and each class-side initialize that failed (a
// warning: the package's tests run without it), and the classes and
// selectors of the class library (label) it uses that pharo-sim's kernel
// lacks, which the tests that reach them cannot mean anything about.
func (r *report) packageReport(p pharosim.PackageReport, label string) {
	for _, failure := range p.LoadFailures {
		r.warnings++
		r.lines = append(r.lines, reportLine{path: p.Dir, text: fmt.Sprintf("%s: warning: loading %s: %s", p.Dir, p.Package, failure)})
	}
	if len(p.LackedClasses) > 0 {
		r.lines = append(r.lines, reportLine{path: p.Dir, text: fmt.Sprintf("%s: %s uses classes of %s that pharo-sim's kernel lacks: %s",
			p.Dir, p.Package, label, strings.Join(p.LackedClasses, ", "))})
	}
	if len(p.LackedSelectors) > 0 {
		sends := make([]string, len(p.LackedSelectors))
		for i, s := range p.LackedSelectors {
			sends[i] = "#" + s
		}
		r.lines = append(r.lines, reportLine{path: p.Dir, text: fmt.Sprintf("%s: %s sends selectors of %s that no method of pharo-sim's kernel defines: %s",
			p.Dir, p.Package, label, strings.Join(sends, " "))})
	}
	if len(p.DiskSends) > 0 {
		sends := make([]string, len(p.DiskSends))
		for i, s := range p.DiskSends {
			sends[i] = "#" + s
		}
		r.lines = append(r.lines, reportLine{path: p.Dir, text: fmt.Sprintf("%s: %s reaches for the disk, which pharo-sim's kernel lacks (its files are paths; FileSystem memory works): %s",
			p.Dir, p.Package, strings.Join(sends, " "))})
	}
}

// method parses one method and records its error or warnings.
func (r *report) method(f *tonel.File, m *tonel.Method) {
	r.methods++
	parsed, err := smalltalk.ParseMethod(m.Source)
	if err != nil {
		r.errors++
		msg, pos := err.Error(), f.PosAt(m.DeclStart)
		var se *smalltalk.SyntaxError
		if errors.As(err, &se) {
			msg, pos = se.Message, f.MethodPos(m, se.Offset)
		}
		r.lines = append(r.lines, reportLine{f.Path, pos.Line, pos.Col, fmt.Sprintf("%s:%d:%d: %s: %s", f.Path, pos.Line, pos.Col, methodName(m), msg)})
		return
	}
	for _, w := range parsed.Warnings {
		r.warnings++
		pos := f.MethodPos(m, w.Offset)
		r.lines = append(r.lines, reportLine{f.Path, pos.Line, pos.Col, fmt.Sprintf("%s:%d:%d: %s: warning: %s", f.Path, pos.Line, pos.Col, methodName(m), w.Message)})
	}
}

// print writes the lines in file and line order, then the summary.
func (r *report) print(w io.Writer) {
	sort.SliceStable(r.lines, func(i, j int) bool {
		a, b := r.lines[i], r.lines[j]
		if a.path != b.path {
			return a.path < b.path
		}
		if a.line != b.line {
			return a.line < b.line
		}
		return a.col < b.col
	})
	for _, l := range r.lines {
		fmt.Fprintln(w, l.text)
	}
	summary := fmt.Sprintf("%d methods, %d errors", r.methods, r.errors)
	if r.warnings > 0 {
		summary += fmt.Sprintf(", %d warnings", r.warnings)
	}
	fmt.Fprintln(w, summary)
}

// flatten lists the leaves of a tree of joined errors.
func flatten(err error) []error {
	if err == nil {
		return nil
	}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range joined.Unwrap() {
			out = append(out, flatten(e)...)
		}
		return out
	}
	return []error{err}
}

func methodName(m *tonel.Method) string {
	if m.Side == tonel.ClassSide {
		return m.Class + " class>>" + m.Selector
	}
	return m.Class + ">>" + m.Selector
}
