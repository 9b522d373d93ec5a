package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/cmd/refactorctl/internal/udiff"
	"github.com/pharo-refactor/refactord/wire"
)

// newMethod names a method with the domain's one validation of names, so
// that a typo is a usage error (2) before anything is sent; "Foo class" as
// the class selects the class side.
func newMethod(class, selector string, classSide bool) (refactor.MethodRef, error) {
	class, selector = strings.TrimSpace(class), strings.TrimSpace(selector)
	if base, ok := strings.CutSuffix(class, " class"); ok {
		class, classSide = strings.TrimSpace(base), true
	}
	m := refactor.MethodRef{Class: class, Selector: selector, ClassSide: classSide}
	if err := m.Validate(); err != nil {
		return refactor.MethodRef{}, &usageError{msg: err.Error()}
	}
	return m, nil
}

// parseMethod reads "Class>>selector" or "Class class>>selector".
func parseMethod(s string) (refactor.MethodRef, error) {
	class, selector, ok := strings.Cut(s, ">>")
	if !ok {
		return refactor.MethodRef{}, usagef("%q is not Class>>selector or Class class>>selector", s)
	}
	return newMethod(class, selector, false)
}

// methodArgs reads the refactor command's positional arguments.
func methodArgs(args []string, classSide bool) (refactor.MethodRef, error) {
	var m refactor.MethodRef
	var err error
	switch len(args) {
	case 1:
		m, err = parseMethod(args[0])
	case 2:
		m, err = newMethod(args[0], args[1], false)
	default:
		return refactor.MethodRef{}, usagef("refactor takes CLASS SELECTOR or CLASS>>SELECTOR, got %d argument(s)", len(args))
	}
	m.ClassSide = m.ClassSide || classSide
	return m, err
}

// methodRun is one method's run as this client saw it.
type methodRun struct {
	m         refactor.MethodRef
	requestID string
	runID     string
	result    *wire.RefactorBody
	raw       []byte // the result body, as received
	err       error
	elapsed   time.Duration
	// write and writeErr are what --write did with a successful run.
	write    *writeResult
	writeErr error
}

// code is the run's exit code, or the write's when that is worse.
func (r methodRun) code() int { return max(exitCode(r.err), exitCode(r.writeErr)) }

// failure is the run's error, else its write's.
func (r methodRun) failure() error {
	if r.err != nil {
		return r.err
	}
	return r.writeErr
}

func (c *cli) refactorCmd(ctx context.Context, o options, args []string) error {
	m, err := methodArgs(args, o.classSide)
	if err != nil {
		return err
	}
	if err := checkWriteOptions(o); err != nil {
		return err
	}
	prog := c.newProgress(o)
	run := c.refactorOne(ctx, o, m, prog)
	c.writeRun(o, &run)
	c.report(o, run, prog)
	return reported(run.failure())
}

func (c *cli) newProgress(o options) *progress {
	return &progress{w: c.stderr, tty: c.deps.isTerminal(c.stderr), quiet: o.quiet, events: o.events,
		now: c.deps.now, start: c.deps.now()}
}

// refactorOne runs one method over the event stream.
func (c *cli) refactorOne(ctx context.Context, o options, m refactor.MethodRef, prog *progress) methodRun {
	start := c.deps.now()
	run := methodRun{m: m, requestID: c.deps.requestID()}
	run.err = c.streamRun(ctx, o, &run, prog)
	run.elapsed = c.deps.now().Sub(start)
	prog.done()
	return run
}

func (c *cli) streamRun(ctx context.Context, o options, run *methodRun, prog *progress) error {
	body, err := json.Marshal(wire.RefactorRequest{ClassName: run.m.Class, MethodName: run.m.Selector,
		IsClassMethod: run.m.ClassSide, DryRun: o.dryRun, Verify: o.verify, RunTests: new(!o.noTests)})
	if err != nil {
		return fmt.Errorf("encoding the request: %w", err)
	}
	cl := c.newClient(o, prog.note)
	resp, err := cl.send(ctx, call{method: http.MethodPost, path: "/api/v1/refactor", body: body,
		accept: "text/event-stream", requestID: run.requestID, waitBusy: true})
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return readProblem(resp, run.requestID)
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return readPlainResult(resp, run) // a service without the stream
	}
	return c.readStream(ctx, o, resp, run, prog)
}

func readPlainResult(resp *http.Response, run *methodRun) error {
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return &droppedError{runID: "(unknown)", err: err}
	}
	return run.setResult(data)
}

func (run *methodRun) setResult(data []byte) error {
	var res wire.RefactorBody
	if err := json.Unmarshal(data, &res); err != nil {
		return fmt.Errorf("the service's result is not the expected JSON: %w", err)
	}
	run.result, run.raw, run.runID = &res, data, res.ID
	return nil
}

// readStream shows the events until `result` or `error`.
func (c *cli) readStream(ctx context.Context, o options, resp *http.Response, run *methodRun, prog *progress) error {
	body := newIdleWatch(resp.Body, c.deps.streamIdle)
	defer body.Close()
	events := newSSEReader(body)
	for {
		ev, err := events.next()
		if err != nil {
			return c.streamBroken(ctx, o, run, err)
		}
		prog.event(ev)
		switch ev.Name {
		case "accepted":
			var a wire.AcceptedEvent
			if json.Unmarshal(ev.Data, &a) == nil {
				run.runID = a.ID
			}
		case "result":
			return run.setResult(ev.Data)
		case "error":
			return eventProblem(ev.Data, run.requestID)
		}
	}
}

func eventProblem(data []byte, requestID string) *apiError {
	e := &apiError{Raw: data, RequestID: requestID}
	_ = json.Unmarshal(data, &e.Problem)
	e.Status = e.Problem.Status
	return e
}

// streamBroken explains a stream that ended without an outcome. It is not
// retried: the run may have gone on to release.
func (c *cli) streamBroken(ctx context.Context, o options, run *methodRun, err error) error {
	if ctx.Err() != nil {
		return c.cancelInterrupted(o, run, ctx.Err())
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		err = errors.New("the stream ended before the result")
	}
	if run.runID == "" {
		return &unreachableError{attempts: 1, err: err, maybeSent: true}
	}
	return &droppedError{runID: run.runID, err: err}
}

// cancelWait bounds the cancel an interrupted refactorctl sends.
const cancelWait = 30 * time.Second

// cancelInterrupted cancels the run of an interrupted refactorctl (Ctrl-C):
// the service's runs outlive their clients, so leaving alone would not stop
// it. A run whose release has begun completes; the message says which.
func (c *cli) cancelInterrupted(o options, run *methodRun, cause error) error {
	if run.runID == "" {
		return fmt.Errorf("interrupted before the service named the run: %w", cause)
	}
	ctx, cancel := context.WithTimeout(context.Background(), cancelWait)
	defer cancel()
	rq := call{method: http.MethodPost, path: "/api/v1/refactorings/" + url.PathEscape(run.runID) + "/cancel",
		accept: "application/json", requestID: c.deps.requestID(), idempotent: true, timeout: cancelWait}
	if _, _, err := c.newClient(o, nil).exchange(ctx, rq, nil); err != nil {
		return fmt.Errorf("interrupted during run %s, which was not canceled (%v): see `refactorctl show %s`: %w",
			run.runID, err, run.runID, cause)
	}
	return fmt.Errorf("interrupted during run %s: canceled before its release, nothing was released: %w", run.runID, cause)
}

// report prints one method's outcome: the diff (or --json body) on stdout,
// the rest on stderr.
func (c *cli) report(o options, run methodRun, prog *progress) {
	if run.err != nil {
		c.reportFailure(o, run)
		return
	}
	res := run.result
	prog.note(fmt.Sprintf("%s %s in %s — %s, %s (run %s)", run.m, res.Outcome, seconds(run.elapsed),
		plural(res.Iterations, "round"), plural(res.Usage.ModelCalls, "model call"), res.ID))
	if o.json {
		fmt.Fprintf(c.stdout, "%s\n", run.raw)
		if o.writeDir != "" {
			c.noteWrite(run, prog)
		}
		return
	}
	if res.Outcome == "unchanged" {
		prog.note("unchanged: the review found nothing worth a rewrite (" + clip(oneLine(res.Review.Summary), 160) + "); the image was not touched")
		return
	}
	if line := equivalenceNote(res.Equivalence); line != "" {
		prog.note(line)
	}
	if o.writeDir != "" {
		c.reportWrite(run, prog)
		return
	}
	diff := udiff.Unified(run.m.String()+" (image)", run.m.String()+" (refactored)", res.OriginalCode, res.Refactored, 3) +
		helpersDiff(run.m.Class, res.Helpers, true)
	if diff == "" {
		prog.note("no change: the refactored source equals the original")
		return
	}
	fmt.Fprint(c.stdout, diff)
}

func (c *cli) reportFailure(o options, run methodRun) {
	var ae *apiError
	isAPI := errors.As(run.err, &ae)
	if o.json && isAPI && len(ae.Raw) > 0 {
		fmt.Fprintf(c.stdout, "%s\n", ae.Raw)
	}
	ids := "request " + run.requestID
	if run.runID != "" {
		ids += ", run " + run.runID
	} else if isAPI && ae.Problem.ID != "" {
		ids += ", run " + ae.Problem.ID
	}
	fmt.Fprintf(c.stderr, "refactorctl: %s failed: %v\n  (%s)\n", run.m, run.err, ids)
	if !isAPI {
		return
	}
	if ae.Problem.Feedback != "" {
		fmt.Fprintf(c.stderr, "  last feedback: %s\n", oneLine(ae.Problem.Feedback))
	}
	if ae.Problem.RefactoredCode != "" {
		label := "refactored code (not in the image)"
		if ae.Problem.Code == "not_approved" {
			label = "last candidate"
		}
		fmt.Fprintf(c.stderr, "  %s:\n%s\n", label, indent(ae.Problem.RefactoredCode, "    "))
	}
}

func indent(s, prefix string) string {
	lines := udiff.Lines(s)
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n")
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.1fs", d.Seconds()) }

// helpersDiff is the unified diff of a change's helper methods: each one
// added (from nothing) or, for a revert, removed (to nothing).
func helpersDiff(class string, helpers []refactor.Helper, added bool) string {
	var b strings.Builder
	for _, h := range helpers {
		name := h.Ref(class).String()
		if added {
			b.WriteString(udiff.Unified("/dev/null", name+" (new helper)", "", h.Source, 3))
		} else {
			b.WriteString(udiff.Unified(name+" (helper, image)", "/dev/null", h.Source, "", 3))
		}
	}
	return b.String()
}

// equivalenceNote says what the comparison of the original and the
// candidate showed, and that no test calls the method when none did: the
// tests then vouch for nothing about it.
func equivalenceNote(eq refactor.Equivalence) string {
	switch eq.Outcome {
	case refactor.EquivalenceSame:
		line := fmt.Sprintf("same behaviour as the original on %s (%d recorded from the tests, %d generated)",
			plural(eq.Compared, "input"), eq.Recorded, eq.Generated)
		if eq.Activations == 0 {
			line += "; no test calls this method: its tests vouch for nothing about it"
		}
		return line
	case refactor.EquivalenceNotChecked:
		if eq.Reason == "" {
			return "not compared with the original"
		}
		return "not compared with the original: " + clip(oneLine(eq.Reason), 200)
	}
	return ""
}
