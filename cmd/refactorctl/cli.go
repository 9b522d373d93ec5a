package main

import (
	"context"
	cryptorand "crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// deps are the process's contacts with the world that tests replace.
type deps struct {
	now func() time.Time
	// sleep waits d or until ctx ends (then it returns ctx's error).
	sleep func(ctx context.Context, d time.Duration) error
	// jitter returns a random duration in [0, max].
	jitter func(max time.Duration) time.Duration
	// requestID makes the X-Request-ID of one request.
	requestID func() string
	// isTerminal reports whether progress written to w can rewrite a line.
	isTerminal func(w io.Writer) bool
	// transport carries the HTTP requests (nil: a fresh default one).
	transport http.RoundTripper
	// streamIdle: a stream with no bytes (not even keep-alive comments,
	// sent every 15 s) for this long is treated as dropped.
	streamIdle time.Duration
}

func defaultDeps() deps {
	return deps{
		now:        time.Now,
		sleep:      sleepContext,
		jitter:     randomJitter,
		requestID:  newRequestID,
		isTerminal: isTerminal,
		streamIdle: 90 * time.Second,
	}
}

func sleepContext(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func randomJitter(max time.Duration) time.Duration {
	if max <= 0 {
		return 0
	}
	return time.Duration(rand.Int64N(int64(max) + 1))
}

// newRequestID is "ctl-" and 16 hex digits: inside the service's accepted
// alphabet, and recognisable in its logs as coming from this client.
func newRequestID() string {
	var b [8]byte
	_, _ = cryptorand.Read(b[:])
	return "ctl-" + hex.EncodeToString(b[:])
}

// isTerminal: only a character device can take a rewritten status line; a
// file or pipe gets one plain line per event. (golang.org/x/term is in the
// module graph but not required by go.mod, so it is not used here.)
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// cli is one invocation.
type cli struct {
	env    []string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	deps   deps
}

func newCLI(env []string, stdin io.Reader, stdout, stderr io.Writer) *cli {
	return &cli{env: env, stdin: stdin, stdout: stdout, stderr: stderr, deps: defaultDeps()}
}

func (c *cli) getenv(key string) string {
	for i := len(c.env) - 1; i >= 0; i-- { // the last setting wins, as in exec
		if k, v, ok := strings.Cut(c.env[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}

// options are every flag; each command registers the ones it uses.
type options struct {
	url     string
	apiKey  string
	json    bool
	quiet   bool
	events  bool
	waitMax time.Duration
	retries int
	timeout time.Duration

	classSide bool
	dryRun    bool
	noTests   bool
	verify    bool
	writeDir  string

	class   string
	outcome string
	limit   int
	all     bool
	cursor  string
}

const defaultURL = "http://127.0.0.1:8000"

func (c *cli) defaultOptions() options {
	o := options{url: c.getenv("REFACTORD_URL"), apiKey: c.getenv("REFACTORD_API_KEY"),
		waitMax: 10 * time.Minute, retries: 3, timeout: 30 * time.Second}
	if o.url == "" {
		o.url = defaultURL
	}
	return o
}

// commonFlags are accepted before the command and after it.
func commonFlags(fs *flag.FlagSet, o *options) {
	fs.StringVar(&o.url, "url", o.url, "service base URL (env REFACTORD_URL)")
	fs.StringVar(&o.apiKey, "api-key", o.apiKey, "API key, sent as Authorization: Bearer (env REFACTORD_API_KEY)")
	fs.BoolVar(&o.json, "json", o.json, "print only the response body (JSON) on stdout: the result, or the problem body on failure")
	fs.BoolVar(&o.quiet, "quiet", o.quiet, "no progress lines on stderr")
	fs.DurationVar(&o.waitMax, "wait-max", o.waitMax, "how long to wait while the service is busy, per method (0: do not wait)")
	fs.IntVar(&o.retries, "retries", o.retries, "retries after a network error")
	fs.DurationVar(&o.timeout, "timeout", o.timeout, "timeout of one request that is not a run (health, history, …)")
}

// command is one subcommand.
type command struct {
	name  string
	args  string // positional arguments, for usage
	short string
	flags func(fs *flag.FlagSet, o *options)
	run   func(c *cli, ctx context.Context, o options, args []string) error
}

func commands() []command {
	return []command{
		{"refactor", "CLASS SELECTOR | CLASS>>SELECTOR", "refactor one method (streams progress, prints a diff)", refactorFlags, (*cli).refactorCmd},
		{"batch", "FILE|-", "refactor the methods listed in FILE (or stdin), one after another", refactorFlags, (*cli).batchCmd},
		{"health", "", "liveness: version, busy, the image connection", nil, (*cli).healthCmd},
		{"ready", "", "readiness: exit 0 when the service can take a run", nil, (*cli).readyCmd},
		{"history", "", "list past runs, newest first", historyFlags, (*cli).historyCmd},
		{"show", "ID", "show one run with its diff", nil, (*cli).showCmd},
		{"revert", "ID", "put back the code a released run replaced", nil, (*cli).revertCmd},
		{"version", "", "print refactorctl's version (the service's: health)", nil, (*cli).versionCmd},
	}
}

func refactorFlags(fs *flag.FlagSet, o *options) {
	fs.BoolVar(&o.classSide, "class-side", o.classSide, "the method is on the class side (same as CLASS class>>SELECTOR)")
	fs.BoolVar(&o.dryRun, "dry-run", o.dryRun, "stop before release: outcome proposed, the image is not changed")
	fs.BoolVar(&o.noTests, "no-tests", o.noTests, "do not run the method's tests around the release")
	fs.BoolVar(&o.verify, "verify", o.verify, "compile and test the change, then put the original back: outcome verified, the image is not changed")
	fs.StringVar(&o.writeDir, "write", o.writeDir, "with --verify or --dry-run: write the result into the Tonel tree at `DIR` and print a git patch")
	fs.BoolVar(&o.events, "events", o.events, "debug: also print every raw stream event on stderr")
}

func historyFlags(fs *flag.FlagSet, o *options) {
	fs.StringVar(&o.class, "class", o.class, "only runs of this class")
	fs.StringVar(&o.outcome, "outcome", o.outcome, "only runs with this status (released, verified, proposed, failed, rolled_back, reverted, …)")
	fs.IntVar(&o.limit, "limit", o.limit, "runs per page (service default 20, at most 100)")
	fs.BoolVar(&o.all, "all", o.all, "follow next_cursor to the last page")
	fs.StringVar(&o.cursor, "cursor", o.cursor, "start at this page (next_cursor of an earlier listing)")
}

// main parses the invocation and runs its command.
func (c *cli) main(ctx context.Context, args []string) int {
	o := c.defaultOptions()
	top := newFlagSet("refactorctl")
	commonFlags(top, &o)
	help := top.Bool("help", false, "")
	top.BoolVar(help, "h", false, "")
	if err := top.Parse(args); err != nil {
		return c.usageFailure(err, "")
	}
	rest := top.Args()
	if *help || (len(rest) > 0 && rest[0] == "help") {
		c.printUsage(c.stdout, rest)
		return exitOK
	}
	if len(rest) == 0 {
		c.printUsage(c.stderr, nil)
		return exitUsage
	}
	cmd, ok := findCommand(rest[0])
	if !ok {
		return c.usageFailure(fmt.Errorf("unknown command %q", rest[0]), "")
	}
	return c.runCommand(ctx, cmd, o, rest[1:])
}

func (c *cli) runCommand(ctx context.Context, cmd command, o options, args []string) int {
	fs := newFlagSet(cmd.name)
	commonFlags(fs, &o)
	if cmd.flags != nil {
		cmd.flags(fs, &o)
	}
	pos, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		c.printCommandUsage(c.stdout, cmd)
		return exitOK
	}
	if err != nil {
		return c.usageFailure(err, cmd.name)
	}
	if err := checkOptions(o); err != nil {
		return c.usageFailure(err, cmd.name)
	}
	err = cmd.run(c, ctx, o, pos)
	if err != nil && !errors.Is(err, errReported) {
		if _, usage := err.(*usageError); usage {
			return c.usageFailure(err, cmd.name)
		}
		fmt.Fprintf(c.stderr, "refactorctl %s: %v\n", cmd.name, err)
	}
	return exitCode(err)
}

// errReported marks a failure whose message is already printed; wrapped
// with the error that decides the exit code.
var errReported = errors.New("reported")

// reported wraps err so that runCommand does not print it again.
func reported(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%w%w", errReported, err)
}

func checkOptions(o options) error {
	u, err := url.Parse(o.url)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usagef("--url (or REFACTORD_URL) must be an http(s) URL, got %q", o.url)
	}
	switch {
	case o.waitMax < 0:
		return usagef("--wait-max must not be negative")
	case o.retries < 0:
		return usagef("--retries must not be negative")
	case o.timeout <= 0:
		return usagef("--timeout must be positive")
	case o.limit < 0:
		return usagef("--limit must not be negative")
	}
	return nil
}

func findCommand(name string) (command, bool) {
	for _, cmd := range commands() {
		if cmd.name == name {
			return cmd, true
		}
	}
	return command{}, false
}

func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors and usage are printed by the cli
	return fs
}

// parseInterspersed lets flags follow positional arguments (`refactor Foo
// bar --dry-run`), as the documented syntax has them. After `--`
// everything is positional (a binary selector such as `->`).
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		consumed := len(args) - len(rest)
		if consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

func (c *cli) usageFailure(err error, cmd string) int {
	fmt.Fprintf(c.stderr, "refactorctl: %v\n", err)
	if cmd != "" {
		fmt.Fprintf(c.stderr, "Run 'refactorctl %s --help' for usage.\n", cmd)
	} else {
		fmt.Fprintln(c.stderr, "Run 'refactorctl --help' for usage.")
	}
	return exitUsage
}

func (c *cli) printUsage(w io.Writer, rest []string) {
	if len(rest) > 1 {
		if cmd, ok := findCommand(rest[1]); ok {
			c.printCommandUsage(w, cmd)
			return
		}
	}
	fmt.Fprint(w, "refactorctl — the command-line client of refactord\n\nUsage:\n  refactorctl [flags] COMMAND [arguments] [flags]\n\nCommands:\n")
	for _, cmd := range commands() {
		fmt.Fprintf(w, "  %-9s %-34s %s\n", cmd.name, cmd.args, cmd.short)
	}
	fmt.Fprint(w, "\nFlags of every command:\n")
	printFlags(w, commonFlags)
	fmt.Fprint(w, "\nFlags of refactor and batch:\n")
	printFlags(w, refactorFlags)
	fmt.Fprint(w, "\nFlags of history:\n")
	printFlags(w, historyFlags)
	fmt.Fprint(w, usageTail)
}

func (c *cli) printCommandUsage(w io.Writer, cmd command) {
	short := strings.ToUpper(cmd.short[:1]) + cmd.short[1:]
	fmt.Fprintf(w, "Usage: refactorctl %s %s [flags]\n\n%s.\n\nFlags:\n", cmd.name, cmd.args, short)
	if cmd.flags != nil {
		printFlags(w, cmd.flags)
	}
	printFlags(w, commonFlags)
	fmt.Fprint(w, usageTail)
}

func printFlags(w io.Writer, register func(*flag.FlagSet, *options)) {
	o := options{waitMax: 10 * time.Minute, retries: 3, timeout: 30 * time.Second, url: defaultURL}
	fs := newFlagSet("")
	register(fs, &o)
	fs.SetOutput(w)
	fs.PrintDefaults()
}

const usageTail = `
Environment:
  REFACTORD_URL      service base URL when --url is not given (default ` + defaultURL + `)
  REFACTORD_API_KEY  API key when --api-key is not given

--write DIR (with --verify or --dry-run) writes each result into the Tonel
tree at DIR (a checkout) and prints a patch that git apply takes (paths
relative to DIR).

Batch file: one method per line, CLASS>>SELECTOR or CLASS class>>SELECTOR;
blank lines and lines starting with # are ignored.

While the service is busy (503 busy or shutting_down) refactor, batch and
revert wait as its Retry-After says (plus up to 25% jitter; without the
header 1s, 2s, 4s … up to 30s) for at most --wait-max. Network errors are
retried --retries times.

Exit codes:
  0  released, verified (--verify), proposed (dry run) or unchanged (nothing to change); the command succeeded
  1  any other failure (including invalid_request from the service)
  2  usage: unknown flag or command, bad arguments, a bad batch line
  3  not approved: the validation loop ended without approval, or its last candidate
     did not do what the original does (behaviour_changed); nothing was released
  4  tests regressed: the release was rolled back
  5  still busy after waiting --wait-max
  6  the method changed in the image during the run, or another conflict; with --write,
     the method in DIR is absent or not the run's original (nothing written)
  7  the service is unreachable, or the stream dropped mid-run
A batch exits with the highest code of its methods.
`
