package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"pharo-refactor/smalltalk"
	"pharo-refactor/smalltalk/tonel"
)

// check parses every method under PATH (a Tonel tree, a package folder or a
// .st file) and prints `FILE:LINE:COL: Class>>selector: message` per failure,
// then `N methods, N errors`. Exit 0 clean, 1 errors, 2 PATH unreadable.
func check(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: pharo-sim check PATH   (a Tonel tree, a package folder or a .st file)")
	}
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
	methods, failures := 0, 0
	failures += reportFileErrors(stdout, err)
	for _, f := range tree.Files() {
		for _, m := range f.Methods {
			methods++
			if msg, pos, bad := checkMethod(f, m); bad {
				failures++
				fmt.Fprintf(stdout, "%s:%d:%d: %s: %s\n", f.Path, pos.Line, pos.Col, methodName(m), msg)
			}
		}
	}
	fmt.Fprintf(stdout, "%d methods, %d errors\n", methods, failures)
	if failures > 0 {
		return 1
	}
	return 0
}

// checkMethod parses one method; on failure it answers the message and the
// error's position in the file.
func checkMethod(f *tonel.File, m *tonel.Method) (string, tonel.Pos, bool) {
	_, err := smalltalk.ParseMethod(m.Source)
	if err == nil {
		return "", tonel.Pos{}, false
	}
	var se *smalltalk.SyntaxError
	if errors.As(err, &se) {
		return se.Message, f.MethodPos(m, se.Offset), true
	}
	return err.Error(), f.PosAt(m.DeclStart), true
}

// reportFileErrors prints the files whose Tonel structure could not be read.
func reportFileErrors(w io.Writer, err error) int {
	if err == nil {
		return 0
	}
	var errs []error
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		errs = joined.Unwrap()
	} else {
		errs = []error{err}
	}
	for _, e := range errs {
		var pe *tonel.ParseError
		if errors.As(e, &pe) {
			fmt.Fprintf(w, "%s:%d:%d: %s\n", pe.Path, pe.Line, pe.Col, pe.Msg)
			continue
		}
		fmt.Fprintf(w, "%v\n", e)
	}
	return len(errs)
}

func methodName(m *tonel.Method) string {
	if m.Side == tonel.ClassSide {
		return m.Class + " class>>" + m.Selector
	}
	return m.Class + ">>" + m.Selector
}
