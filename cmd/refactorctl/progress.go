package main

import (
	"encoding/json"
	"fmt"
	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/wire"
	"io"
	"strings"
	"time"
)

// progress writes a run's live progress to stderr. On a terminal, passing
// steps share one status line rewritten with \r; elsewhere (CI logs, files)
// every event is one plain line, so logs read top to bottom.
type progress struct {
	w      io.Writer
	tty    bool
	quiet  bool
	events bool // also print raw events
	now    func() time.Time
	start  time.Time
	// stageCalls counts model calls since the current stage started.
	stageCalls int
	// status: a rewritten status line is on screen.
	status bool
}

// note prints a line that stays (also used for waiting and retry notices).
func (p *progress) note(msg string) {
	if p.quiet {
		return
	}
	p.clearStatus()
	fmt.Fprintf(p.w, "[%5.1fs] %s\n", p.now().Sub(p.start).Seconds(), msg)
}

// passing prints a step that the next one replaces on a terminal.
func (p *progress) passing(msg string) {
	if p.quiet {
		return
	}
	if !p.tty {
		p.note(msg)
		return
	}
	fmt.Fprintf(p.w, "\r\033[K[%5.1fs] %s", p.now().Sub(p.start).Seconds(), clip(msg, 100))
	p.status = true
}

func (p *progress) clearStatus() {
	if p.status {
		fmt.Fprint(p.w, "\r\033[K")
		p.status = false
	}
}

// done leaves the terminal on a clean line.
func (p *progress) done() { p.clearStatus() }

// event shows one stream event.
func (p *progress) event(e sseEvent) {
	if p.events && !p.quiet {
		p.clearStatus()
		fmt.Fprintf(p.w, "event %s %s %s\n", e.ID, e.Name, e.Data)
	}
	switch e.Name {
	case "accepted":
		var d wire.AcceptedEvent
		_ = json.Unmarshal(e.Data, &d)
		p.note(fmt.Sprintf("accepted: run %s (request %s)", d.ID, d.RequestID))
	case "queued":
		var d refactor.QueuedEvent
		_ = json.Unmarshal(e.Data, &d)
		msg := fmt.Sprintf("queued: position %d of %d waiting, %s", d.Position, d.Queued, plural(d.Workers, "worker"))
		if d.Reason != "" {
			msg = "queued again: " + d.Reason
		}
		p.note(msg)
	case "stage":
		p.stage(e.Data)
	case "model_call":
		var d refactor.ModelCallEvent
		_ = json.Unmarshal(e.Data, &d)
		p.stageCalls += d.Calls
		p.passing(fmt.Sprintf("%s answered (%s, %d→%d tokens)", d.Role, plural(d.Calls, "model call"), d.InputTokens, d.OutputTokens))
	case "candidate":
		var d refactor.CandidateEvent
		_ = json.Unmarshal(e.Data, &d)
		line := fmt.Sprintf("round %d: candidate (%s", d.Iteration, plural(strings.Count(d.Code, "\n")+1, "line"))
		if len(d.Helpers) > 0 {
			line += ", " + plural(len(d.Helpers), "helper method")
		}
		p.passing(line + ")")
	case "check":
		p.check(e.Data)
	case "verdict":
		var d refactor.VerdictEvent
		_ = json.Unmarshal(e.Data, &d)
		p.note(fmt.Sprintf("round %d: %s — %s", d.Iteration, d.Verdict, clip(oneLine(d.Feedback), 160)))
	case "release":
		var d refactor.ReleaseEvent
		_ = json.Unmarshal(e.Data, &d)
		msg := "release: " + d.Status
		tests, _ := json.Marshal(d.Tests) // a list of reports, or the whole record of the tests
		if tests := testsSummary(tests); tests != "" {
			msg += " — " + tests
		}
		p.note(msg)
	case "result", "error":
		// The outcome line is printed by the caller, which knows more.
	default:
		p.passing(e.Name) // an event this client does not know yet
	}
}

func (p *progress) stage(data json.RawMessage) {
	var d refactor.StageEvent
	_ = json.Unmarshal(data, &d)
	if d.Status == "started" {
		p.stageCalls = 0
		p.passing(d.Name + " started")
		return
	}
	extra := fmt.Sprintf("%.1fs", float64(d.DurationMS)/1000)
	if p.stageCalls > 0 {
		extra = plural(p.stageCalls, "model call") + ", " + extra
	}
	p.note(fmt.Sprintf("%s %s (%s)", d.Name, d.Status, extra))
}

func (p *progress) check(data json.RawMessage) {
	var d refactor.CheckEvent
	_ = json.Unmarshal(data, &d)
	if len(d.Errors) == 0 {
		p.passing(fmt.Sprintf("round %d: checks passed", d.Iteration))
		return
	}
	msgs := make([]string, 0, len(d.Errors))
	for _, ce := range d.Errors {
		msgs = append(msgs, ce.Check+": "+ce.Message)
	}
	p.note(fmt.Sprintf("round %d: %s — %s", d.Iteration, plural(len(d.Errors), "check error"), clip(oneLine(strings.Join(msgs, "; ")), 160)))
}

func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
