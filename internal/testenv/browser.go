package testenv

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Browser is headless Chromium (Debian's package) driven over the DevTools
// protocol on a pipe (--remote-debugging-pipe: commands on its fd 3,
// answers and events on its fd 4, each a JSON message ending in a NUL
// byte). No websocket, no browser download.
type Browser struct {
	cmd  *exec.Cmd
	in   *os.File // commands to chromium
	log  *Buffer
	done chan struct{} // closed when the answers stop

	mu      sync.Mutex
	next    int
	pending map[int]chan cdpMessage
	console []string // console messages, exceptions and log entries, in order
}

type cdpMessage struct {
	ID        int             `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// Chromium is the path of Debian's chromium, or "" when it is not
// installed.
func Chromium() string {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	return ""
}

// StartBrowser starts headless chromium at path with a fresh profile; it
// is closed (with every process it started) when the test ends, its output
// printed when the test failed. Under -short it skips the test.
func StartBrowser(t testing.TB, path string) *Browser {
	t.Helper()
	SkipShort(t, "starts Chromium")
	args := []string{
		"--headless", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-extensions", "--mute-audio", "--hide-scrollbars", "--window-size=1280,2400",
		"--user-data-dir=" + t.TempDir(), "--remote-debugging-pipe", "about:blank",
	}
	if os.Geteuid() == 0 {
		args = append(args, "--no-sandbox") // chromium refuses to run as root with its sandbox
	}
	cmdRead, cmdWrite, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	ansRead, ansWrite, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	b := &Browser{in: cmdWrite, log: &Buffer{}, done: make(chan struct{}), pending: map[int]chan cdpMessage{}}
	b.cmd = exec.Command(path, args...)
	b.cmd.ExtraFiles = []*os.File{cmdRead, ansWrite} // fd 3, fd 4
	b.cmd.Stdout, b.cmd.Stderr = b.log, b.log
	b.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // chromium starts helpers: stop them together
	if err := b.cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	_ = cmdRead.Close()
	_ = ansWrite.Close()
	go b.read(ansRead)
	t.Cleanup(func() {
		b.close()
		if t.Failed() {
			t.Logf("chromium's output:\n%s\nits console:\n%s", b.log.String(), b.Console())
		}
	})
	return b
}

// read dispatches chromium's messages until the pipe closes.
func (b *Browser) read(r *os.File) {
	defer close(b.done)
	defer r.Close()
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		raw, err := br.ReadBytes(0)
		if err != nil {
			return
		}
		var m cdpMessage
		if json.Unmarshal(bytes.TrimSuffix(raw, []byte{0}), &m) != nil {
			continue
		}
		b.mu.Lock()
		if ch, ok := b.pending[m.ID]; ok && m.ID != 0 {
			delete(b.pending, m.ID)
			ch <- m
		} else if line := consoleLine(m); line != "" {
			b.console = append(b.console, line)
		}
		b.mu.Unlock()
	}
}

// consoleLine renders what a page said: console calls, uncaught
// exceptions, log entries (where Content-Security-Policy violations go).
func consoleLine(m cdpMessage) string {
	switch m.Method {
	case "Runtime.consoleAPICalled":
		var p struct {
			Type string `json:"type"`
			Args []struct {
				Value       any    `json:"value"`
				Description string `json:"description"`
			} `json:"args"`
		}
		_ = json.Unmarshal(m.Params, &p)
		line := "console." + p.Type + ":"
		for _, a := range p.Args {
			line += fmt.Sprintf(" %v%s", a.Value, a.Description)
		}
		return line
	case "Runtime.exceptionThrown":
		return "exception: " + string(m.Params)
	case "Log.entryAdded":
		var p struct {
			Entry struct {
				Source, Level, Text, URL string
			} `json:"entry"`
		}
		_ = json.Unmarshal(m.Params, &p)
		return fmt.Sprintf("log %s/%s: %s %s", p.Entry.Source, p.Entry.Level, p.Entry.Text, p.Entry.URL)
	}
	return ""
}

// Console is what the pages said so far, one line each.
func (b *Browser) Console() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out bytes.Buffer
	for _, l := range b.console {
		out.WriteString(l + "\n")
	}
	return out.String()
}

// call sends one command (to a page when session is set) and decodes its
// result into result (when not nil).
func (b *Browser) call(ctx context.Context, session, method string, params, result any) error {
	b.mu.Lock()
	b.next++
	id := b.next
	ch := make(chan cdpMessage, 1)
	b.pending[id] = ch
	b.mu.Unlock()
	cmd := map[string]any{"id": id, "method": method, "params": params}
	if session != "" {
		cmd["sessionId"] = session
	}
	msg, err := json.Marshal(cmd)
	if err != nil {
		return err
	}
	if _, err := b.in.Write(append(msg, 0)); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			return fmt.Errorf("%s: %s (%d)", method, m.Error.Message, m.Error.Code)
		}
		if result == nil {
			return nil
		}
		return json.Unmarshal(m.Result, result)
	case <-b.done:
		return fmt.Errorf("%s: chromium went away", method)
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// close asks chromium to quit, then stops its process group.
func (b *Browser) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_ = b.call(ctx, "", "Browser.close", map[string]any{}, nil)
	_ = b.in.Close()
	exited := make(chan struct{})
	go func() { _ = b.cmd.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
	}
	_ = syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
	<-exited
}

// Page is one tab.
type Page struct {
	b       *Browser
	session string
}

// NewPage opens a blank tab that reports its console.
func (b *Browser) NewPage(ctx context.Context) (*Page, error) {
	var target struct {
		TargetID string `json:"targetId"`
	}
	if err := b.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		return nil, err
	}
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached); err != nil {
		return nil, err
	}
	p := &Page{b: b, session: attached.SessionID}
	for _, domain := range []string{"Page.enable", "Runtime.enable", "Log.enable"} {
		if err := b.call(ctx, p.session, domain, map[string]any{}, nil); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// Navigate loads url in the tab.
func (p *Page) Navigate(ctx context.Context, url string) error {
	var nav struct {
		ErrorText string `json:"errorText"`
	}
	if err := p.b.call(ctx, p.session, "Page.navigate", map[string]any{"url": url}, &nav); err != nil {
		return err
	}
	if nav.ErrorText != "" {
		return fmt.Errorf("navigating to %s: %s", url, nav.ErrorText)
	}
	return nil
}

// Eval evaluates a JavaScript expression in the page (awaiting a promise)
// and decodes its value into out (when not nil).
func (p *Page) Eval(ctx context.Context, expr string, out any) error {
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	params := map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}
	if err := p.b.call(ctx, p.session, "Runtime.evaluate", params, &res); err != nil {
		return err
	}
	if d := res.ExceptionDetails; d != nil {
		return fmt.Errorf("evaluating %q: %s %s", expr, d.Text, d.Exception.Description)
	}
	if out == nil || len(res.Result.Value) == 0 {
		return nil
	}
	return json.Unmarshal(res.Result.Value, out)
}

// WaitFor polls a JavaScript condition until it is true or ctx ends.
func (p *Page) WaitFor(ctx context.Context, condition string) error {
	for {
		var ok bool
		err := p.Eval(ctx, "Boolean("+condition+")", &ok)
		if err == nil && ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return errors.Join(fmt.Errorf("waiting for %s: %w", condition, ctx.Err()), err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Screenshot is a PNG of the whole page.
func (p *Page) Screenshot(ctx context.Context) ([]byte, error) {
	var shot struct {
		Data string `json:"data"`
	}
	params := map[string]any{"format": "png", "captureBeyondViewport": true}
	if err := p.b.call(ctx, p.session, "Page.captureScreenshot", params, &shot); err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(shot.Data)
}

// Console is what the browser's pages said so far (Browser.Console).
func (p *Page) Console() string { return p.b.Console() }
