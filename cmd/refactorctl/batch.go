package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	refactor "github.com/pharo-refactor/refactord"
)

// batchErr carries a batch's exit code: the worst of its methods.
type batchErr struct{ code int }

func (e *batchErr) Error() string { return fmt.Sprintf("batch failed (exit %d)", e.code) }

// batchCmd refactors the listed methods one after another; a failed
// method does not stop the batch. Every line is checked before the first
// run, so a typo on line 40 does not surface after 39 releases.
func (c *cli) batchCmd(ctx context.Context, o options, args []string) error {
	if len(args) != 1 {
		return usagef("batch takes one FILE (or - for stdin), got %d argument(s)", len(args))
	}
	methods, err := c.readBatch(args[0], o.classSide)
	if err != nil {
		return err
	}
	if err := checkWriteOptions(o); err != nil {
		return err
	}
	runs := make([]methodRun, 0, len(methods))
	for i, m := range methods {
		if ctx.Err() != nil {
			break // interrupted: the summary says what ran
		}
		prog := c.newProgress(o)
		prog.note(fmt.Sprintf("==> [%d/%d] %s", i+1, len(methods), m))
		run := c.refactorOne(ctx, o, m, prog)
		c.writeRun(o, &run) // one method's failure to write does not stop the others
		c.report(o, run, prog)
		runs = append(runs, run)
	}
	code := batchCode(runs, ctx.Err() != nil)
	c.summary(o, runs, len(methods), code)
	if code == exitOK {
		return nil
	}
	return reported(&batchErr{code: code})
}

// batchCode is the highest exit code of the methods (usage, 2, concerns
// the invocation only and cannot come from a method); an interrupted batch
// has failed even if what ran succeeded.
func batchCode(runs []methodRun, interrupted bool) int {
	worst := exitOK
	for _, r := range runs {
		worst = max(worst, r.code())
	}
	if interrupted && worst == exitOK {
		worst = exitFailure
	}
	return worst
}

func (c *cli) readBatch(name string, classSide bool) ([]refactor.MethodRef, error) {
	r := c.stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, usagef("batch file: %v", err)
		}
		defer f.Close()
		r = f
	}
	methods, err := parseBatch(r, classSide)
	if err != nil {
		return nil, err
	}
	if len(methods) == 0 {
		return nil, usagef("batch %s lists no methods", name)
	}
	return methods, nil
}

// parseBatch reads one method per line; blank lines and # comments (whole
// lines, or after whitespace at the end of a line — no selector contains
// #) are skipped. All bad lines are reported together.
func parseBatch(r io.Reader, classSide bool) ([]refactor.MethodRef, error) {
	var methods []refactor.MethodRef
	var bad []string
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := stripComment(sc.Text())
		if line == "" {
			continue
		}
		m, err := parseMethod(line)
		if err != nil {
			bad = append(bad, fmt.Sprintf("line %d: %v", n, err))
			continue
		}
		m.ClassSide = m.ClassSide || classSide
		methods = append(methods, m)
	}
	if err := sc.Err(); err != nil {
		return nil, usagef("reading the batch: %v", err)
	}
	if len(bad) > 0 {
		return nil, usagef("bad batch line(s):\n  %s", strings.Join(bad, "\n  "))
	}
	return methods, nil
}

func stripComment(line string) string {
	line = strings.TrimSpace(line)
	if strings.HasPrefix(line, "#") {
		return ""
	}
	if i := strings.Index(line, " #"); i >= 0 {
		line = line[:i]
	}
	if i := strings.Index(line, "\t#"); i >= 0 {
		line = line[:i]
	}
	return strings.TrimSpace(line)
}

// summary prints the table: on stdout, or on stderr with --json so that
// stdout stays a sequence of JSON bodies.
func (c *cli) summary(o options, runs []methodRun, listed, code int) {
	w := c.stdout
	if o.json {
		w = c.stderr
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	header := "METHOD\tRESULT\tEXIT\tROUNDS\tMODEL CALLS\tTIME\tRUN\tREQUEST"
	if o.writeDir != "" {
		header += "\tWRITTEN"
	}
	fmt.Fprintln(tw, header)
	ok := 0
	for _, r := range runs {
		rounds, calls := r.spent()
		if r.failure() == nil {
			ok++
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s", r.m, resultWord(r), r.code(), rounds, calls,
			seconds(r.elapsed), orDash(r.runID), r.requestID)
		if o.writeDir != "" {
			fmt.Fprintf(tw, "\t%s", writtenWord(r))
		}
		fmt.Fprintln(tw)
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "%d of %d method(s) succeeded, %d failed", ok, listed, len(runs)-ok)
	if skipped := listed - len(runs); skipped > 0 {
		fmt.Fprintf(w, ", %d not run (interrupted)", skipped)
	}
	fmt.Fprintf(w, "; exit %d\n", code)
	if o.writeDir != "" {
		c.writeSummary(w, o.writeDir, runs)
	}
}

// spent is the rounds and model calls of a run, from the result or the
// problem body; "-" when unknown.
func (r methodRun) spent() (rounds, calls string) {
	rounds, calls = "-", "-"
	var ae *apiError
	switch {
	case r.result != nil:
		rounds, calls = fmt.Sprint(r.result.Iterations), fmt.Sprint(r.result.Usage.ModelCalls)
	case errors.As(r.err, &ae):
		if ae.Problem.Iterations > 0 {
			rounds = fmt.Sprint(ae.Problem.Iterations)
		}
		if ae.Problem.Usage != nil {
			calls = fmt.Sprint(ae.Problem.Usage.ModelCalls)
		}
	}
	return rounds, calls
}

// resultWord is the outcome, the problem code, or what the client saw.
func resultWord(r methodRun) string {
	var (
		ae *apiError
		be *busyError
		ue *unreachableError
		de *droppedError
	)
	switch {
	case r.err == nil && isWriteConflict(r.writeErr):
		return r.result.Outcome + ", not_written"
	case r.err == nil && r.writeErr != nil:
		return r.result.Outcome + ", write_failed"
	case r.err == nil:
		return r.result.Outcome
	case errors.As(r.err, &ae) && ae.Problem.Code != "":
		return ae.Problem.Code
	case errors.As(r.err, &ae):
		return fmt.Sprintf("http_%d", ae.Status)
	case errors.As(r.err, &be):
		return "still_busy"
	case errors.As(r.err, &de):
		return "stream_dropped"
	case errors.As(r.err, &ue):
		return "unreachable"
	case errors.Is(r.err, context.Canceled):
		return "interrupted"
	}
	return "error"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
