package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/internal/testenv"
)

// Tests that run refactorctl against the real service: refactord as a
// subprocess with pharo-sim and the scripted model.

func TestBatchOfThreeWithOneNotApproved(t *testing.T) {
	svc := startService(t, testenv.Script{
		"Calculator>>sum:with:": testenv.ApprovedInRoundOne(newSum),
		"Calculator>>average:": {
			"reviewer":  {testenv.Review()},
			"writer":    {testenv.Code("average: aCollection\n\taCollection isEmpty ifTrue: [ ^ 0 ].\n\t^ (aCollection inject: 0 into: [ :sum :each | sum + each ]) / aCollection size")},
			"validator": {testenv.NeedsWork("Empty collections now fail."), testenv.NeedsWork("Still fails when empty."), testenv.NeedsWork("Still fails when empty.")},
			"refiner":   {testenv.Code("average: aCollection\n\taCollection isEmpty ifTrue: [ ^ 0 ].\n\t^ (aCollection inject: 0 into: [ :sum :each | sum + each ]) / aCollection size"), testenv.Code("average: aCollection\n\taCollection isEmpty ifTrue: [ ^ 0 ].\n\t^ (aCollection inject: 0 into: [ :sum :each | sum + each ]) / aCollection size")},
		},
		"ShoppingCart>>itemCount": testenv.ApprovedInRoundOne(newItemCount),
	}, serviceOpts{})
	cartBefore := svc.classFile(t, "ShoppingCart")
	calcBefore := svc.classFile(t, "Calculator")
	batch := "# three methods\nCalculator>>sum:with:\n\nCalculator>>average:   # this one is not approved\nShoppingCart >> itemCount\n"

	out := ctl(t, svc, batch, "batch", "-")

	assert.Equal(t, exitNotApproved, out.code, "the worst code of the batch; stderr:\n%s", out.stderr)
	rows := summaryRows(t, out.stdout)
	require.Len(t, rows, 3, out.stdout)
	assert.Equal(t, []string{"Calculator>>sum:with:", "released", "0"}, rows[0][:3])
	assert.Equal(t, []string{"Calculator>>average:", "not_approved", "3"}, rows[1][:3])
	assert.Equal(t, []string{"ShoppingCart>>itemCount", "released", "0"}, rows[2][:3])
	assert.Equal(t, "3", rows[1][3], "three rounds before giving up")
	assert.Contains(t, out.stdout, "2 of 3 method(s) succeeded, 1 failed; exit 3")
	assert.Contains(t, out.stdout, "+++ Calculator>>sum:with: (refactored)")
	assert.Contains(t, out.stdout, "+++ ShoppingCart>>itemCount (refactored)")
	assert.Contains(t, out.stderr, "Calculator>>average: failed: not_approved (HTTP 422)")
	assert.Contains(t, out.stderr, "last feedback: Still fails when empty.")
	assert.Contains(t, out.stderr, "(request ctl-", "the request id is printed on failure")

	calc := svc.classFile(t, "Calculator")
	assert.NotEqual(t, calcBefore, calc)
	assert.Contains(t, calc, "sum: aNumber with: anotherNumber", "released")
	assert.Contains(t, calc, "| a b temp |", "the unapproved method is untouched")
	assert.NotEqual(t, cartBefore, svc.classFile(t, "ShoppingCart"))
}

// summaryRows reads the batch summary table: the lines after the header.
func summaryRows(t *testing.T, stdout string) [][]string {
	t.Helper()
	lines := strings.Split(stdout, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "METHOD ") {
			continue
		}
		var rows [][]string
		for _, r := range lines[i+1:] {
			if strings.Contains(r, "method(s) succeeded") || r == "" {
				return rows
			}
			rows = append(rows, strings.Fields(r))
		}
		return rows
	}
	t.Fatalf("no summary table in:\n%s", stdout)
	return nil
}

func TestBatchUsageErrorsRunNothing(t *testing.T) {
	svc := startService(t, testenv.Script{"*": testenv.ApprovedInRoundOne(newSum)}, serviceOpts{})
	before := svc.classFile(t, "Calculator")
	tests := []struct {
		name  string
		batch string
		args  []string
		want  string
	}{
		{"bad line among good ones", "Calculator>>sum:with:\nnot a method\n", []string{"batch", "-"}, "line 2"},
		{"lower-case class", "calculator>>sum:with:\n", []string{"batch", "-"}, `"calculator" is not a class name`},
		{"only comments", "# nothing\n\n", []string{"batch", "-"}, "lists no methods"},
		{"missing file", "", []string{"batch", filepath.Join(t.TempDir(), "none.txt")}, "batch file"},
		{"two files", "", []string{"batch", "a", "b"}, "one FILE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := ctl(t, svc, tt.batch, tt.args...)
			assert.Equal(t, exitUsage, out.code, out.stderr)
			assert.Contains(t, out.stderr, tt.want)
			assert.Empty(t, out.stdout)
		})
	}
	assert.Equal(t, before, svc.classFile(t, "Calculator"), "nothing ran")
}

// TestBusy holds run A with a scripted delay; B first gives up after a
// short --wait-max (exit 5), then waits it out and succeeds.
func TestBusy(t *testing.T) {
	svc := startService(t, testenv.Script{
		// The warm-up run makes the gate's moving average short, so the
		// Retry-After during A is the minimum, 1 s (the first guess is 30 s).
		"Calculator>>percent:of:": testenv.ApprovedInRoundOne(newPercent),
		"Calculator>>sum:with:": {"reviewer": {testenv.Review().Delayed(4 * time.Second)}, "writer": {testenv.Code(newSum)},
			"validator": {testenv.Approved()}},
		"ShoppingCart>>itemCount": testenv.ApprovedInRoundOne(newItemCount),
	}, serviceOpts{})
	require.Equal(t, exitOK, ctl(t, svc, "", "refactor", "Calculator>>percent:of:", "--dry-run").code)

	var aOut, aErr testenv.Buffer
	aCode := make(chan int, 1)
	go func() {
		aCode <- ctlWith(context.Background(), svc, nil, &aOut, &aErr, "refactor", "Calculator", "sum:with:")
	}()
	require.Eventually(t, func() bool { return svc.busy(t) }, 10*time.Second, 20*time.Millisecond, "run A holds the gate")

	t.Run("short wait-max gives up with 5", func(t *testing.T) {
		out := ctl(t, svc, "", "refactor", "ShoppingCart>>itemCount", "--wait-max", "1s")
		assert.Equal(t, exitBusy, out.code, out.stderr)
		assert.Contains(t, out.stderr, "service busy (busy); waiting")
		assert.Contains(t, out.stderr, "still busy after waiting")
		assert.Empty(t, out.stdout)
	})
	t.Run("waits as Retry-After says, then succeeds", func(t *testing.T) {
		var sleeps []time.Duration
		var mu sync.Mutex
		var stdout, stderr testenv.Buffer
		code := ctlWith(context.Background(), svc, func(d *deps) {
			d.sleep = func(ctx context.Context, dur time.Duration) error {
				mu.Lock()
				sleeps = append(sleeps, dur)
				mu.Unlock()
				return sleepContext(ctx, dur)
			}
		}, &stdout, &stderr, "refactor", "ShoppingCart>>itemCount")
		assert.Equal(t, exitOK, code, stderr.String())
		assert.Contains(t, stdout.String(), "+++ ShoppingCart>>itemCount (refactored)")
		mu.Lock()
		defer mu.Unlock()
		require.NotEmpty(t, sleeps, "B was refused at least once while A ran")
		for _, d := range sleeps {
			assert.GreaterOrEqual(t, d, time.Second, "Retry-After: 1")
			assert.LessOrEqual(t, d, 1250*time.Millisecond, "at most 25%% jitter")
		}
	})
	assert.Equal(t, exitOK, <-aCode, aErr.String())
	assert.Contains(t, aOut.String(), "+++ Calculator>>sum:with: (refactored)")
}

// TestStreamTwoRoundRun asserts the event sequence of a two-round run as
// the progress lines show it, and the raw events of --events.
func TestStreamTwoRoundRun(t *testing.T) {
	svc := startService(t, testenv.Script{
		"Calculator>>sum:with:": testenv.ApprovedInRoundTwo("sum: a with: b\n\t^ b + a", "Say what it answers.", newSum),
	}, serviceOpts{})
	out := ctl(t, svc, "", "refactor", "Calculator", "sum:with:", "--no-tests", "--events")
	require.Equal(t, exitOK, out.code, out.stderr)

	var progressLines, names []string
	ids := 0
	for _, line := range strings.Split(strings.TrimSpace(out.stderr), "\n") {
		if f := strings.Fields(line); len(f) >= 3 && f[0] == "event" {
			ids++
			assert.Equal(t, ids, atoi(t, f[1]), "event ids count up from 1")
			names = append(names, f[2])
			continue
		}
		progressLines = append(progressLines, normalize(line))
	}
	assert.Equal(t, []string{
		"accepted", "stage", "stage", "stage", "model_call", "stage", "stage", "model_call", "stage", "stage",
		"candidate", "check", "model_call", "verdict", "model_call", "candidate", "check", "model_call", "verdict",
		"stage", "stage", "release", "release", "stage", "result",
	}, names)
	assert.Equal(t, []string{
		"accepted: run ID (request RID)",
		"prefetch started", "prefetch finished (T)",
		"review started", "reviewer answered (1 model call, N→N tokens)", "review finished (1 model call, T)",
		"write started", "writer answered (1 model call, N→N tokens)", "write finished (1 model call, T)",
		"validate started",
		"round 1: candidate (2 lines)", "round 1: checks passed",
		"validator answered (1 model call, N→N tokens)", "round 1: NEEDS_IMPROVEMENT — Say what it answers.",
		"refiner answered (1 model call, N→N tokens)",
		"round 2: candidate (4 lines)", "round 2: checks passed",
		"validator answered (1 model call, N→N tokens)", "round 2: APPROVED — Good.",
		"validate finished (3 model calls, T)",
		"release started", "release: started", "release: released", "release finished (T)",
		"Calculator>>sum:with: released in T — 2 rounds, 5 model calls (run ID)",
		"same behaviour as the original on N inputs (N recorded from the tests, N generated)",
	}, progressLines)
	assert.Equal(t, "--- Calculator>>sum:with: (image)\n+++ Calculator>>sum:with: (refactored)\n"+
		"@@ -1,3 +1,4 @@\n-sum: a with: b\n+sum: aNumber with: anotherNumber\n+\t\"Answer the sum of aNumber and anotherNumber\"\n \n-\t^ a + b\n+\t^ aNumber + anotherNumber\n",
		out.stdout)
}

// normalize removes what differs between runs: the elapsed-time prefix,
// durations, ids and token counts.
func normalize(line string) string {
	for _, r := range []struct {
		re   *regexp.Regexp
		with string
	}{
		{regexp.MustCompile(`^\[\s*\d+\.\ds\] `), ""},
		{regexp.MustCompile(`\b\d+\.\ds\b`), "T"},
		{regexp.MustCompile(`run [0-9a-f]{8,}`), "run ID"},
		{regexp.MustCompile(`request ctl-[0-9a-f]+`), "request RID"},
		{regexp.MustCompile(`\d+→\d+ tokens`), "N→N tokens"},
		{regexp.MustCompile(`on \d+ inputs \(\d+ recorded from the tests, \d+ generated\)`), "on N inputs (N recorded from the tests, N generated)"},
	} {
		line = r.re.ReplaceAllString(line, r.with)
	}
	return line
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	var n int
	require.NoError(t, json.Unmarshal([]byte(s), &n), s)
	return n
}

// TestDroppedStreamFreesTheGate: refactorctl interrupted mid-run (its
// context cancelled, as Ctrl-C does) cancels its run — the service's runs
// outlive their clients — which leaves the gate free and the image
// unchanged.
func TestDroppedStreamFreesTheGate(t *testing.T) {
	svc := startService(t, testenv.Script{"Calculator>>sum:with:": {
		"reviewer": {testenv.Review().Delayed(30 * time.Second)}, "writer": {testenv.Code(newSum)}, "validator": {testenv.Approved()},
	}}, serviceOpts{})
	before := svc.classFile(t, "Calculator")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr testenv.Buffer
	done := make(chan int, 1)
	go func() { done <- ctlWith(ctx, svc, nil, &stdout, &stderr, "refactor", "Calculator>>sum:with:") }()
	require.Eventually(t, func() bool { return strings.Contains(stderr.String(), "review started") },
		10*time.Second, 10*time.Millisecond, "the run is in review")
	require.True(t, svc.busy(t))

	cancel()
	code := <-done

	assert.Equal(t, exitFailure, code)
	assert.Contains(t, stderr.String(), "interrupted during run")
	assert.Contains(t, stderr.String(), "canceled before its release")
	assert.Eventually(t, func() bool { return !svc.busy(t) }, 10*time.Second, 20*time.Millisecond, "the gate is free again")
	assert.Equal(t, before, svc.classFile(t, "Calculator"), "nothing was released")
}

// TestServiceDiesMidRun: the stream breaks after `accepted` — not retried,
// exit 7 with the run id to look up.
func TestServiceDiesMidRun(t *testing.T) {
	svc := startService(t, testenv.Script{"Calculator>>sum:with:": {
		"reviewer": {testenv.Review().Delayed(30 * time.Second)}, "writer": {testenv.Code(newSum)}, "validator": {testenv.Approved()},
	}}, serviceOpts{})
	var stdout, stderr testenv.Buffer
	done := make(chan int, 1)
	go func() {
		done <- ctlWith(context.Background(), svc, nil, &stdout, &stderr, "refactor", "Calculator>>sum:with:")
	}()
	require.Eventually(t, func() bool { return strings.Contains(stderr.String(), "review started") },
		10*time.Second, 10*time.Millisecond)

	require.NoError(t, svc.Signal(syscall.SIGKILL))

	assert.Equal(t, exitUnreachable, <-done, stderr.String())
	assert.Regexp(t, `connection dropped during run [0-9a-f]+ .*refactorctl show [0-9a-f]+`, stderr.String())
	assert.Empty(t, stdout.String())
}

// TestJSONEqualsTheNonStreamedBody: --json prints exactly the result body.
// Compared with the body of an equivalent non-streamed run after removing
// what differs between any two runs: the run id, its trace id and the
// measured times (duration_ms, stages[].duration_ms). Everything else — rounds, usage
// (the scripted model counts tokens from the prompt, which is the same for
// the same dry run), review, verdict, codes — must be equal.
func TestJSONEqualsTheNonStreamedBody(t *testing.T) {
	svc := startService(t, testenv.Script{"Calculator>>average:": testenv.ApprovedInRoundOne(newAverage)}, serviceOpts{repeat: true})
	out := ctl(t, svc, "", "refactor", "Calculator>>average:", "--dry-run", "--json")
	require.Equal(t, exitOK, out.code, out.stderr)
	require.Equal(t, 1, strings.Count(out.stdout, "\n"), "one line: the body")
	var streamed map[string]any
	require.NoError(t, json.Unmarshal([]byte(out.stdout), &streamed), "--json output parses")
	assert.Contains(t, out.stderr, "accepted: run", "progress goes to stderr")

	status, body := svc.post(t, "/api/v1/refactor", `{"class_name": "Calculator", "method_name": "average:", "dry_run": true}`)
	require.Equal(t, 200, status, "%s", body)
	var plain map[string]any
	require.NoError(t, json.Unmarshal(body, &plain))

	assert.NotEqual(t, streamed["id"], plain["id"], "two runs")
	assert.Equal(t, "proposed", streamed["outcome"])
	assert.Equal(t, withoutRunSpecifics(plain), withoutRunSpecifics(streamed))

	t.Run("batch --json prints one body per line", func(t *testing.T) {
		out := ctl(t, svc, "Calculator>>average:\nCalculator>>noSuchMethod\n", "batch", "-", "--dry-run", "--json")
		assert.Equal(t, exitFailure, out.code, out.stderr)
		lines := strings.Split(strings.TrimSpace(out.stdout), "\n")
		require.Len(t, lines, 2, out.stdout)
		var first, second map[string]any
		require.NoError(t, json.Unmarshal([]byte(lines[0]), &first))
		require.NoError(t, json.Unmarshal([]byte(lines[1]), &second))
		assert.Equal(t, withoutRunSpecifics(plain), withoutRunSpecifics(first))
		assert.Equal(t, "method_not_found", second["code"], "the problem body")
		assert.Contains(t, out.stderr, "1 of 2 method(s) succeeded", "the summary goes to stderr")
	})
}

func withoutRunSpecifics(body map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range body {
		out[k] = v
	}
	delete(out, "id")
	delete(out, "duration_ms")
	delete(out, "trace_id") // each run is its own trace
	stages, _ := out["stages"].([]any)
	kept := make([]any, 0, len(stages))
	for _, s := range stages {
		m := map[string]any{}
		for k, v := range s.(map[string]any) {
			if k != "duration_ms" {
				m[k] = v
			}
		}
		kept = append(kept, m)
	}
	out["stages"] = kept
	return out
}

func TestCommandsAgainstTheService(t *testing.T) {
	svc := startService(t, testenv.Script{"*": testenv.ApprovedInRoundOne(newSum)}, serviceOpts{})
	tests := []struct {
		name     string
		args     []string
		code     int
		stdout   string // a substring
		stderr   string // a substring
		jsonBody bool   // stdout parses as JSON
	}{
		{name: "health", args: []string{"health"}, code: exitOK, stdout: "refactord 1.0.0: healthy\nbusy: no\nimage: up"},
		{name: "health --json", args: []string{"health", "--json"}, code: exitOK, stdout: `"status":"healthy"`, jsonBody: true},
		{name: "ready", args: []string{"ready"}, code: exitOK, stdout: "ready"},
		{name: "ready --json", args: []string{"--json", "ready"}, code: exitOK, stdout: `"ready":true`, jsonBody: true},
		{name: "unknown method is a failure", args: []string{"refactor", "Calculator", "noSuchMethod"}, code: exitFailure, stderr: "method_not_found (HTTP 404)"},
		{name: "unknown class is a failure", args: []string{"refactor", "NoSuchClass>>foo"}, code: exitFailure, stderr: "class_not_found"},
		{name: "problem body with --json", args: []string{"refactor", "Calculator>>noSuchMethod", "--json"}, code: exitFailure, stdout: `"code":"method_not_found"`, jsonBody: true},
		{name: "no command", args: nil, code: exitUsage, stderr: "Usage:"},
		{name: "unknown command", args: []string{"frobnicate"}, code: exitUsage, stderr: `unknown command "frobnicate"`},
		{name: "unknown flag", args: []string{"refactor", "Calculator", "sum:with:", "--bogus"}, code: exitUsage, stderr: "flag provided but not defined: -bogus"},
		{name: "bad class name", args: []string{"refactor", "calculator", "sum:with:"}, code: exitUsage, stderr: "is not a class name"},
		{name: "bad selector", args: []string{"refactor", "Calculator", "sum with"}, code: exitUsage, stderr: "is not a selector"},
		{name: "missing selector", args: []string{"refactor", "Calculator"}, code: exitUsage, stderr: "is not Class>>selector"},
		{name: "too many arguments", args: []string{"refactor", "A", "b", "c"}, code: exitUsage, stderr: "got 3 argument(s)"},
		{name: "bad url", args: []string{"health", "--url", "ftp://x"}, code: exitUsage, stderr: "must be an http(s) URL"},
		{name: "health takes no arguments", args: []string{"health", "now"}, code: exitUsage, stderr: "takes no arguments"},
		{name: "show needs an id", args: []string{"show"}, code: exitUsage, stderr: "one run ID"},
		{name: "help", args: []string{"--help"}, code: exitOK, stdout: "Exit codes:\n  0  released, verified (--verify), proposed (dry run) or unchanged"},
		{name: "command help", args: []string{"refactor", "--help"}, code: exitOK, stdout: "-dry-run"},
		{name: "command help names --write", args: []string{"batch", "--help"}, code: exitOK, stdout: "-write DIR"},
		{name: "help command", args: []string{"help", "batch"}, code: exitOK, stdout: "Usage: refactorctl batch FILE|-"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := ctl(t, svc, "", tt.args...)
			assert.Equal(t, tt.code, out.code, "stderr: %s", out.stderr)
			assert.Contains(t, out.stdout, tt.stdout)
			assert.Contains(t, out.stderr, tt.stderr)
			if tt.jsonBody {
				var v map[string]any
				assert.NoError(t, json.Unmarshal([]byte(out.stdout), &v), out.stdout)
			}
		})
	}
}

func TestUnreachableServiceExits7(t *testing.T) {
	addr, err := testenv.FreeAddr()
	require.NoError(t, err)
	url := "http://" + addr // nothing listens there any more
	tests := []struct {
		name string
		args []string
	}{
		{"health", []string{"health"}},
		{"refactor", []string{"refactor", "Calculator>>sum:with:"}},
		{"batch", []string{"batch", "-"}},
		{"history", []string{"history"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr testenv.Buffer
			var sleeps []time.Duration
			c := newCLI([]string{"REFACTORD_URL=" + url}, strings.NewReader("Calculator>>sum:with:\n"), &stdout, &stderr)
			c.deps.sleep = func(_ context.Context, d time.Duration) error { sleeps = append(sleeps, d); return nil }
			code := c.main(context.Background(), append(tt.args, "--retries", "2"))
			assert.Equal(t, exitUnreachable, code, stderr.String())
			assert.Contains(t, stderr.String(), "unreachable (3 attempt(s))")
			assert.Equal(t, []time.Duration{500 * time.Millisecond, time.Second}, sleeps, "two retries with backoff")
		})
	}
}

// TestAPIKey: the key comes from --api-key or REFACTORD_API_KEY; without
// it a service with API_KEYS refuses the run (exit 1).
func TestAPIKey(t *testing.T) {
	svc := startService(t, testenv.Script{"*": testenv.ApprovedInRoundOne(newSum)}, serviceOpts{env: []string{"API_KEYS=key-one-0123456789,key-two-0123456789"}, repeat: true})
	tests := []struct {
		name string
		env  []string
		args []string
		code int
	}{
		{"no key", nil, nil, exitFailure},
		{"wrong key", []string{"REFACTORD_API_KEY=nope"}, nil, exitFailure},
		{"key from the environment", []string{"REFACTORD_API_KEY=key-two-0123456789"}, nil, exitOK},
		{"flag beats the environment", []string{"REFACTORD_API_KEY=nope"}, []string{"--api-key", "key-one-0123456789"}, exitOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr testenv.Buffer
			env := append([]string{"REFACTORD_URL=" + svc.URL}, tt.env...)
			args := append([]string{"refactor", "Calculator>>sum:with:", "--dry-run"}, tt.args...)
			code := run(args, env, strings.NewReader(""), &stdout, &stderr)
			assert.Equal(t, tt.code, code, stderr.String())
			if tt.code != exitOK {
				assert.Contains(t, stderr.String(), "unauthorized (HTTP 401)")
			}
		})
	}
}

// TestTheBuiltBinary runs the real executable: exit codes reach the shell,
// the environment is read, the diff is on stdout.
func TestTheBuiltBinary(t *testing.T) {
	svc := startService(t, testenv.Script{"Calculator>>sum:with:": testenv.ApprovedInRoundOne(newSum)}, serviceOpts{})
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
	}{
		{"refactor", []string{"refactor", "Calculator", "sum:with:"}, exitOK, "+++ Calculator>>sum:with: (refactored)"},
		{"health", []string{"health"}, exitOK, "healthy"},
		{"usage", []string{"refactor"}, exitUsage, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runBinary(t, []string{"REFACTORD_URL=" + svc.URL}, tt.args...)
			assert.Equal(t, tt.code, code, stderr)
			assert.Contains(t, stdout, tt.stdout)
		})
	}
}

func runBinary(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(built.refactorctl(t), args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr testenv.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		require.NoError(t, err, "starting refactorctl")
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

// TestTestGate: a refactoring that breaks a test is rolled back (exit 4);
// --no-tests sends run_tests false, so the same code is released.
func TestTestGate(t *testing.T) {
	broken := "sum: a with: b\n\t\"Answer the difference (wrong)\"\n\n\t^ a - b"
	// The comparison would stop the broken candidate before its tests run
	// (TestBehaviourChangedExitsNotApproved): here the tests guard alone.
	svc := startService(t, testenv.Script{"Calculator>>sum:with:": testenv.ApprovedInRoundOne(broken)},
		serviceOpts{repeat: true, env: []string{"EQUIVALENCE=off"}})
	original := svc.classFile(t, "Calculator")
	tests := []struct {
		name     string
		args     []string
		code     int
		stderr   string
		released bool
	}{
		{"tests regressed", nil, exitTestsRegressed, "tests_regressed (HTTP 422)", false},
		{"--no-tests", []string{"--no-tests"}, exitOK, "released in", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := ctl(t, svc, "", append([]string{"refactor", "Calculator>>sum:with:"}, tt.args...)...)
			assert.Equal(t, tt.code, out.code, out.stderr)
			assert.Contains(t, out.stderr, tt.stderr)
			assert.Equal(t, tt.released, strings.Contains(svc.classFile(t, "Calculator"), "(wrong)"))
			if !tt.released {
				assert.Equal(t, original, svc.classFile(t, "Calculator"), "rolled back")
				assert.Contains(t, out.stderr, "regressed: CalculatorTest>>#testSum")
			}
		})
	}
}

// A candidate that does not do what the original does is refused before
// the compile, with the input that shows it: exit 3, nothing released.
func TestBehaviourChangedExitsNotApproved(t *testing.T) {
	broken := "sum: a with: b\n\t\"Answer the difference (wrong)\"\n\n\t^ a - b"
	answers := testenv.ApprovedInRoundOne(broken)
	answers["refiner"] = []testenv.Reply{testenv.Code(broken)}
	svc := startService(t, testenv.Script{"Calculator>>sum:with:": answers}, serviceOpts{repeat: true})
	original := svc.classFile(t, "Calculator")
	out := ctl(t, svc, "", "refactor", "Calculator>>sum:with:")
	assert.Equal(t, exitNotApproved, out.code, out.stderr)
	assert.Contains(t, out.stderr, "behaviour_changed (HTTP 422)")
	assert.Contains(t, out.stderr, "last feedback: ", "the witness is in the feedback")
	assert.Equal(t, original, svc.classFile(t, "Calculator"), "nothing compiled")
}

// A review that finds nothing to change: refactorctl says so, prints no
// diff, and exits 0.
func TestUnchangedExitsZeroAndSaysSo(t *testing.T) {
	svc := startService(t, testenv.Script{"Calculator>>sum:with:": {
		"reviewer": {{Text: `{"severity": "LOW", "summary": "Already clear.", "issues": []}`}},
	}}, serviceOpts{})
	before := svc.classFile(t, "Calculator")
	out := ctl(t, svc, "", "refactor", "Calculator>>sum:with:")
	assert.Equal(t, exitOK, out.code, out.stderr)
	assert.Empty(t, out.stdout, "no diff")
	assert.Contains(t, out.stderr, "Calculator>>sum:with: unchanged")
	assert.Contains(t, out.stderr, "unchanged: the review found nothing worth a rewrite (Already clear.)")
	assert.Equal(t, before, svc.classFile(t, "Calculator"))
}
