package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/cmd/refactorctl/internal/udiff"
	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// checkWriteOptions refuses --write where it has no meaning: with a
// release the change is in the image already (writing it into a checkout
// as well would make two copies to keep in step), and verify and dry run
// exclude each other. DIR must be a Tonel tree before anything runs.
func checkWriteOptions(o options) error {
	switch {
	case o.verify && o.dryRun:
		return usagef("--verify and --dry-run exclude each other: a verify run compiles and tests the change, a dry run compiles nothing")
	case o.verify && o.noTests:
		return usagef("--verify and --no-tests exclude each other: a verify run is its tests")
	case o.writeDir == "":
		return nil
	case !o.verify && !o.dryRun:
		return usagef("--write needs --verify or --dry-run: a release leaves the change in the image, not in DIR")
	}
	if tree, err := tonel.ReadTree(o.writeDir); tree == nil {
		return usagef("--write %s: not a Tonel tree: %v", o.writeDir, err)
	}
	return nil
}

// writeConflictError: the method in DIR is absent, or is not the source
// the run started from, so nothing was written (exit 6).
type writeConflictError struct {
	file string // the file it names, relative to DIR
	msg  string
}

func (e *writeConflictError) Error() string { return e.file + ": " + e.msg + "; nothing was written" }

// writeResult is what --write did for one method.
type writeResult struct {
	file  string // relative to DIR, with / separators
	patch string // git's form; "" when the file did not change
}

// writes reports whether --write takes a run of this outcome into DIR.
func writes(outcome string) bool { return outcome == "verified" || outcome == "proposed" }

// writeMethod replaces the method in the Tonel tree at dir with final,
// if the tree holds exactly original: in its class file, or for an
// extension method in the `*Package` extension file that holds it. The
// new helper methods of a Composed Method result go into the same file,
// each in its protocol, where Pharo's writer would put them; a helper
// whose selector the file already has on that side stops the write.
func writeMethod(dir string, m refactor.MethodRef, original, final string, helpers []refactor.Helper) (writeResult, error) {
	tree, treeErr := tonel.ReadTree(dir)
	if tree == nil {
		return writeResult{}, fmt.Errorf("reading %s: %w", dir, treeErr)
	}
	side := sideOf(m.ClassSide)
	f, err := methodFile(dir, tree, m, side, treeErr)
	if err != nil {
		return writeResult{}, err
	}
	rel := relPath(dir, f.Path)
	if !refactor.SameSource(f.Method(side, m.Selector).Source, original) {
		return writeResult{file: rel}, &writeConflictError{file: rel,
			msg: fmt.Sprintf("%s differs from the source the run started from (edited since, or another version of the code)", m)}
	}
	for _, h := range helpers {
		if f.Method(sideOf(h.ClassSide), h.Selector) != nil {
			return writeResult{file: rel}, &writeConflictError{file: rel,
				msg: fmt.Sprintf("the result's new helper %s is there already", h.Ref(m.Class))}
		}
	}
	before := string(f.Bytes())
	if err := f.ReplaceMethodInPlace(side, m.Selector, final); err != nil {
		return writeResult{file: rel}, fmt.Errorf("%s: %w; nothing was written", rel, err)
	}
	for _, h := range helpers {
		if err := f.AddMethodInPlace(sideOf(h.ClassSide), h.Source, h.Protocol); err != nil {
			return writeResult{file: rel}, fmt.Errorf("%s: helper %s: %w; nothing was written", rel, h.Ref(m.Class), err)
		}
	}
	after := string(f.Bytes())
	if after == before {
		return writeResult{file: rel}, nil
	}
	if err := f.Save(); err != nil {
		return writeResult{file: rel}, fmt.Errorf("writing %s: %w", rel, err)
	}
	return writeResult{file: rel, patch: udiff.FilePatch(rel, before, after, 3)}, nil
}

// methodFile finds the one file of the tree that defines the method: the
// class's file or one of its extension files.
func methodFile(dir string, tree *tonel.Tree, m refactor.MethodRef, side tonel.Side, treeErr error) (*tonel.File, error) {
	var holders []*tonel.File
	candidates := tree.ExtensionsOf(m.Class)
	named := "(no file of " + dir + " defines " + m.Class + ")"
	if cf := tree.Class(m.Class); cf != nil {
		candidates = append([]*tonel.File{cf}, candidates...)
		named = relPath(dir, cf.Path)
	}
	for _, f := range candidates {
		if f.Method(side, m.Selector) != nil {
			holders = append(holders, f)
		}
	}
	switch len(holders) {
	case 1:
		return holders[0], nil
	case 0:
		msg := m.String() + " is not there"
		if treeErr != nil {
			msg += fmt.Sprintf(" (files that could not be read: %v)", oneLine(treeErr.Error()))
		}
		return nil, &writeConflictError{file: named, msg: msg}
	}
	var names []string
	for _, f := range holders {
		names = append(names, relPath(dir, f.Path))
	}
	return nil, &writeConflictError{file: names[0], msg: m.String() + " is defined in more than one file: " + strings.Join(names, ", ")}
}

func sideOf(classSide bool) tonel.Side {
	if classSide {
		return tonel.ClassSide
	}
	return tonel.InstanceSide
}

func relPath(dir, path string) string {
	rel, err := filepath.Rel(dir, path)
	if err != nil {
		return filepath.ToSlash(path)
	}
	return filepath.ToSlash(rel)
}

// writeRun takes a successful run's change into --write DIR.
func (c *cli) writeRun(o options, run *methodRun) {
	if o.writeDir == "" || run.err != nil || !writes(run.result.Outcome) {
		return
	}
	w, err := writeMethod(o.writeDir, run.m, run.result.OriginalCode, run.result.Refactored, run.result.Helpers)
	run.write, run.writeErr = &w, err
}

// isWriteConflict reports whether err is a conflict with DIR (exit 6).
func isWriteConflict(err error) bool {
	var wc *writeConflictError
	return errors.As(err, &wc)
}

// reportWrite prints the patch of what --write wrote on stdout (git apply
// takes it), and what was or was not written on stderr.
func (c *cli) reportWrite(run methodRun, prog *progress) {
	if run.write != nil && run.write.patch != "" && run.writeErr == nil {
		fmt.Fprint(c.stdout, run.write.patch)
	}
	c.noteWrite(run, prog)
}

// noteWrite says on stderr what --write did.
func (c *cli) noteWrite(run methodRun, prog *progress) {
	switch {
	case run.writeErr != nil:
		fmt.Fprintf(c.stderr, "refactorctl: %s not written: %v\n", run.m, run.writeErr)
	case run.write == nil:
	case run.write.patch == "":
		prog.note("wrote nothing: " + run.write.file + " already holds the result")
	default:
		prog.note("wrote " + run.write.file)
	}
}

// writtenWord is the batch summary's WRITTEN column: the file written, or
// why nothing was.
func writtenWord(r methodRun) string {
	switch {
	case r.writeErr != nil && r.write != nil && r.write.file != "":
		return "no: " + r.write.file
	case r.writeErr != nil:
		return "no"
	case r.write == nil:
		return "-" // failed, or nothing to write (unchanged)
	case r.write.patch == "":
		return "unchanged: " + r.write.file
	}
	return r.write.file
}

// writeSummary lists the files --write changed, and the methods it did
// not write.
func (c *cli) writeSummary(w io.Writer, dir string, runs []methodRun) {
	var files []string
	seen := map[string]bool{}
	notWritten := 0
	for _, r := range runs {
		switch {
		case r.writeErr != nil:
			notWritten++
		case r.write != nil && r.write.patch != "" && !seen[r.write.file]:
			seen[r.write.file] = true
			files = append(files, r.write.file)
		}
	}
	fmt.Fprintf(w, "wrote %d file(s) in %s", len(files), dir)
	if len(files) > 0 {
		fmt.Fprintf(w, ": %s", strings.Join(files, ", "))
	}
	if notWritten > 0 {
		fmt.Fprintf(w, "; %d method(s) not written (see above)", notWritten)
	}
	fmt.Fprintln(w)
}
