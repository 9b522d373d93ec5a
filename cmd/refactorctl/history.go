package main

import (
	"context"
	"encoding/json"
	"fmt"
	refactor "github.com/pharo-refactor/refactord"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pharo-refactor/refactord/cmd/refactorctl/internal/udiff"
)

// runMethod is the method a run worked on.
func runMethod(r refactor.Run) refactor.MethodRef {
	return refactor.MethodRef{Class: r.ClassName, Selector: r.Selector, ClassSide: r.IsClassMethod}
}

// historyCmd prints a compact table, newest first.
func (c *cli) historyCmd(ctx context.Context, o options, args []string) error {
	if err := noArgs("history", args); err != nil {
		return err
	}
	cl := c.newClient(o, nil)
	var all []refactor.Run
	cursor := o.cursor
	for {
		page, err := fetchPage(ctx, cl, o, cursor)
		if err != nil {
			return err
		}
		all = append(all, page.Runs...)
		cursor = page.NextCursor
		if !o.all || cursor == "" {
			break
		}
	}
	if o.json {
		return writeJSON(c.stdout, refactor.Page{Runs: nonNil(all), NextCursor: cursor})
	}
	if err := c.historyTable(all); err != nil {
		return err
	}
	if cursor != "" {
		fmt.Fprintf(c.stderr, "more runs: refactorctl history --cursor %s (or --all)\n", cursor)
	}
	return nil
}

func fetchPage(ctx context.Context, cl *client, o options, cursor string) (refactor.Page, error) {
	q := url.Values{}
	setIf(q, "class_name", o.class)
	setIf(q, "outcome", o.outcome)
	setIf(q, "cursor", cursor)
	if o.limit > 0 {
		q.Set("limit", strconv.Itoa(o.limit))
	}
	path := "/api/v1/refactorings"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	_, data, err := cl.getJSON(ctx, path, nil)
	if err != nil {
		return refactor.Page{}, err
	}
	var page refactor.Page
	if err := json.Unmarshal(data, &page); err != nil {
		return refactor.Page{}, fmt.Errorf("the run list is not the expected JSON: %w", err)
	}
	return page, nil
}

func setIf(q url.Values, key, value string) {
	if value != "" {
		q.Set(key, value)
	}
}

func nonNil(runs []refactor.Run) []refactor.Run {
	if runs == nil {
		return []refactor.Run{}
	}
	return runs
}

func writeJSON(w io.Writer, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encoding JSON: %w", err)
	}
	_, err = fmt.Fprintf(w, "%s\n", data)
	return err
}

func (c *cli) historyTable(runs []refactor.Run) error {
	tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tCREATED (UTC)\tKIND\tMETHOD\tSTATUS\tERROR\tROUNDS\tCALLS")
	for _, r := range runs {
		kind := string(r.Kind)
		switch {
		case r.DryRun:
			kind += " (dry)"
		case r.Verify:
			kind += " (verify)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\n", r.ID, stamp(&r.CreatedAt), kind, runMethod(r), r.Status,
			orDash(r.ErrorCode), r.Iterations, r.ModelCalls)
	}
	return tw.Flush()
}

func stamp(t *time.Time) string {
	if t == nil || t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04:05")
}

// showCmd prints one run readably, then its diff.
func (c *cli) showCmd(ctx context.Context, o options, args []string) error {
	id, err := oneID("show", args)
	if err != nil {
		return err
	}
	_, data, err := c.newClient(o, nil).getJSON(ctx, "/api/v1/refactorings/"+url.PathEscape(id), nil)
	if err != nil {
		return err
	}
	if o.json {
		fmt.Fprintf(c.stdout, "%s\n", data)
		return nil
	}
	var r refactor.Run
	if err := json.Unmarshal(data, &r); err != nil {
		return fmt.Errorf("the run is not the expected JSON: %w", err)
	}
	c.printRun(r)
	return nil
}

func oneID(cmd string, args []string) (string, error) {
	if len(args) != 1 || strings.TrimSpace(args[0]) == "" {
		return "", usagef("%s takes one run ID, got %d argument(s)", cmd, len(args))
	}
	return strings.TrimSpace(args[0]), nil
}

func (c *cli) printRun(r refactor.Run) {
	tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	row := func(k, v string) {
		if v != "" {
			fmt.Fprintf(tw, "%s\t%s\n", k, v)
		}
	}
	row("run", fmt.Sprintf("%s (%s)", r.ID, r.Kind))
	row("revert of", r.RevertOf)
	row("method", fmt.Sprintf("%s in protocol '%s'", runMethod(r), r.OriginalProtocol))
	row("status", string(r.Status))
	if r.ErrorCode != "" || r.ErrorMessage != "" {
		row("error", r.ErrorCode+": "+r.ErrorMessage)
	}
	row("request", r.RequestID)
	row("options", fmt.Sprintf("dry_run=%t verify=%t run_tests=%t", r.DryRun, r.Verify, r.RunTests))
	row("rounds", fmt.Sprintf("%d, %s, %d in / %d out tokens", r.Iterations, plural(r.ModelCalls, "model call"), r.InputTokens, r.OutputTokens))
	row("review", reviewLine(r.Review))
	row("verdict", verdictLine(r.Verdict))
	row("models", compact(r.Models))
	row("stages", stagesSummary(r.Stages))
	row("tests before", orCompact(testsSummary(r.TestsBefore), r.TestsBefore))
	row("tests after", orCompact(testsSummary(r.TestsAfter), r.TestsAfter))
	if r.RestoreFailed {
		row("RESTORE FAILED", "the rollback did not succeed; the image may hold the final source")
	}
	row("notes", oneLine(r.Notes))
	for _, t := range []struct {
		name string
		at   *time.Time
	}{{"created", &r.CreatedAt}, {"finished", r.FinishedAt}, {"released", r.ReleasedAt}, {"reverted", r.RevertedAt}} {
		if t.at != nil && !t.at.IsZero() {
			row(t.name, stamp(t.at))
		}
	}
	_ = tw.Flush()
	c.printRunDiff(r)
}

func (c *cli) printRunDiff(r refactor.Run) {
	if r.FinalSource == "" {
		return
	}
	name := runMethod(r).String()
	diff := udiff.Unified(name+" (original)", name+" (final)", r.OriginalSource, r.FinalSource, 3) +
		helpersDiff(r.ClassName, r.Helpers, r.Kind != refactor.RunKindRevert)
	if diff != "" {
		fmt.Fprint(c.stdout, "\n"+diff)
	}
}

func reviewLine(raw json.RawMessage) string {
	var r refactor.Review
	if len(raw) == 0 || json.Unmarshal(raw, &r) != nil || r.Summary == "" {
		return compact(raw)
	}
	return fmt.Sprintf("[%s] %s (%s)", r.Severity, oneLine(r.Summary), plural(len(r.Issues), "issue"))
}

func verdictLine(raw json.RawMessage) string {
	var v refactor.Verdict
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil || v.Verdict == "" {
		return compact(raw)
	}
	return strings.TrimSuffix(string(v.Verdict)+": "+oneLine(v.Feedback), ": ")
}

func orCompact(summary string, raw json.RawMessage) string {
	if summary != "" {
		return summary
	}
	return compact(raw)
}

// compact is a JSON document on one line; "" for null or absent.
func compact(raw json.RawMessage) string {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return ""
	}
	return clip(oneLine(s), 200)
}

// revertCmd puts back what a released run replaced. It takes the run slot
// like a refactoring, so busy is waited out the same way.
func (c *cli) revertCmd(ctx context.Context, o options, args []string) error {
	id, err := oneID("revert", args)
	if err != nil {
		return err
	}
	prog := c.newProgress(o)
	cl := c.newClient(o, prog.note)
	rq := call{method: http.MethodPost, path: "/api/v1/refactorings/" + url.PathEscape(id) + "/revert",
		accept: "application/json", requestID: c.deps.requestID(), waitBusy: true}
	_, data, err := cl.exchange(ctx, rq, nil)
	if err != nil {
		return c.revertFailed(o, id, rq.requestID, err)
	}
	if o.json {
		fmt.Fprintf(c.stdout, "%s\n", data)
		return nil
	}
	var r refactor.Run
	if err := json.Unmarshal(data, &r); err != nil {
		return fmt.Errorf("the revert's run is not the expected JSON: %w", err)
	}
	fmt.Fprintf(c.stderr, "reverted %s (run %s undone by revert run %s, %s)\n", runMethod(r), id, r.ID, r.Status)
	name := runMethod(r).String()
	fmt.Fprint(c.stdout, udiff.Unified(name+" (image)", name+" (reverted)", r.OriginalSource, r.FinalSource, 3)+
		helpersDiff(r.ClassName, r.Helpers, false))
	return nil
}

func (c *cli) revertFailed(o options, id, requestID string, err error) error {
	if ae, ok := err.(*apiError); ok && o.json && len(ae.Raw) > 0 {
		fmt.Fprintf(c.stdout, "%s\n", ae.Raw)
	}
	fmt.Fprintf(c.stderr, "refactorctl revert %s: %v\n  (request %s)\n", id, err, requestID)
	return reported(err)
}
