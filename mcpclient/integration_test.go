package mcpclient

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/internal/testenv"
	"github.com/pharo-refactor/refactord/pharosim"
)

// startSim starts a client on a fresh copy of the sample image.
func startSim(t *testing.T, env ...string) (*Client, string) {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, testenv.CopyTree("examples/sample-image", dir))
	return startSimOn(t, dir, Config{Env: env}), dir
}

// startSimOn starts a client of pharo-sim serving dir: a subprocess, or
// under -short the same server in this process (its faults read from
// cfg.Env as the subprocess reads them from its environment).
func startSimOn(t *testing.T, dir string, cfg Config) *Client {
	t.Helper()
	if testing.Short() {
		return startInProcess(t, dir, cfg)
	}
	cfg.Command, cfg.Args = pharoSim(t), []string{"serve", "--dir", dir}
	cfg.StopGrace = time.Second
	c, err := New(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, c.Close()) })
	return c
}

func startInProcess(t *testing.T, dir string, cfg Config) *Client {
	t.Helper()
	env := map[string]string{}
	for _, kv := range cfg.Env {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	faults, err := pharosim.FaultsFromEnv(func(k string) string { return env[k] })
	require.NoError(t, err)
	sim, err := pharosim.New(pharosim.Options{Dir: dir, Faults: faults})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, sim.Close()) })
	cfg.Env, cfg.InProcess = nil, sim.MCPServer()
	c, err := New(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, c.Close()) })
	return c
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestOperationsOnSampleImage(t *testing.T) {
	c, _ := startSim(t)
	ctx := ctxT(t)
	require.NoError(t, c.Start(ctx))

	sum := refactor.MethodRef{Class: "Calculator", Selector: "sum:with:"}
	m, err := c.Method(ctx, sum)
	require.NoError(t, err)
	assert.Equal(t, "sum: a with: b\n\n\t^ a + b", m.Source, "LF line endings inside the service")
	assert.Equal(t, "calculating", m.Protocol)

	classSide := refactor.MethodRef{Class: "Calculator", Selector: "compute:with:operation:", ClassSide: true}
	src, err := c.MethodSource(ctx, classSide)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(src, "compute: a with: b operation: aString"), src)
	proto, err := c.Protocol(ctx, classSide)
	require.NoError(t, err)
	assert.Equal(t, "calculating", proto)

	cls, err := c.ClassSource(ctx, "Calculator")
	require.NoError(t, err)
	assert.Contains(t, cls, "#name : 'Calculator'")
	comment, err := c.ClassComment(ctx, "Calculator")
	require.NoError(t, err)
	assert.Contains(t, comment, "arithmetic")

	exists, err := c.ClassExists(ctx, "Calculator")
	require.NoError(t, err)
	assert.True(t, exists)
	exists, err = c.ClassExists(ctx, "NoSuchClass")
	require.NoError(t, err)
	assert.False(t, exists)

	errs, err := c.DryCompile(ctx, sum, "sum: a with: b\n\t^ a + b")
	require.NoError(t, err)
	assert.Empty(t, errs)
	errs, err = c.DryCompile(ctx, sum, "sum: a with: b\n\t^ (a + b")
	require.NoError(t, err)
	require.Len(t, errs, 1)
	assert.Equal(t, "')' expected", errs[0].Message)
	assert.Positive(t, errs[0].Position)
	errs, err = c.DryCompile(ctx, sum, "sum: a with: b\n\t^ a + undefinedThing")
	require.NoError(t, err)
	require.Len(t, errs, 1, "Pharo 12/13 report undeclared variables at compile time")

	rep, err := c.RunTests(ctx, "CalculatorTest")
	require.NoError(t, err)
	assert.Positive(t, rep.Ran)
	assert.Zero(t, rep.Failures+rep.Errors, rep.Summary)

	refs, err := c.References(ctx, "taxRate")
	require.NoError(t, err)
	assert.Contains(t, refs, refactor.Location{Class: "ShoppingCart", Method: "total", Package: "Sample-Shop"})
	impls, err := c.Implementors(ctx, "total")
	require.NoError(t, err)
	assert.NotEmpty(t, impls)

	out, err := c.CallTool(ctx, "get_class_comment", map[string]any{"class_name": "Calculator"})
	require.NoError(t, err)
	assert.Contains(t, out, "arithmetic")
}

func TestInstallRemoveAndTestsFlip(t *testing.T) {
	c, dir := startSim(t)
	ctx := ctxT(t)
	sum := refactor.MethodRef{Class: "Calculator", Selector: "sum:with:"}
	broken := "sum: a with: b\n\t\"broken on purpose\"\n\t^ a - b"
	require.NoError(t, c.Install(ctx, sum, broken, "calculating"))
	got, err := c.Method(ctx, sum)
	require.NoError(t, err)
	assert.True(t, refactor.SameSource(broken, got.Source))
	assert.Equal(t, "calculating", got.Protocol)
	file, err := os.ReadFile(filepath.Join(dir, "src", "Sample-Shop", "Calculator.class.st"))
	require.NoError(t, err)
	assert.Contains(t, string(file), "\"broken on purpose\"", "written through to the Tonel file")

	rep, err := c.RunTests(ctx, "CalculatorTest")
	require.NoError(t, err)
	assert.NotZero(t, rep.Failures+rep.Errors, "testSum fails for real once sum:with: stops adding")
	assert.Contains(t, rep.FailedTests, "CalculatorTest>>#testSum")

	added := refactor.MethodRef{Class: "Calculator", Selector: "double:"}
	require.NoError(t, c.Install(ctx, added, "double: x\n\t^ x * 2", "new things"))
	proto, err := c.Protocol(ctx, added)
	require.NoError(t, err)
	assert.Equal(t, "new things", proto)
	had, err := c.Remove(ctx, added)
	require.NoError(t, err)
	assert.True(t, had, "it was there")
	_, err = c.MethodSource(ctx, added)
	assert.Equal(t, refactor.MethodNotFound, refactor.KindOf(err), "%v", err)
	had, err = c.Remove(ctx, added)
	require.NoError(t, err, "removing an absent method is not an error")
	assert.False(t, had)
}

func TestNotFound(t *testing.T) {
	c, _ := startSim(t)
	ctx := ctxT(t)
	_, err := c.MethodSource(ctx, refactor.MethodRef{Class: "NoSuchClass", Selector: "foo"})
	assert.Equal(t, refactor.ClassNotFound, refactor.KindOf(err), "%v", err)
	_, err = c.MethodSource(ctx, refactor.MethodRef{Class: "Calculator", Selector: "noSuchMethod"})
	assert.Equal(t, refactor.MethodNotFound, refactor.KindOf(err), "%v", err)
	_, err = c.ClassSource(ctx, "NoSuchClass")
	assert.Equal(t, refactor.ClassNotFound, refactor.KindOf(err), "%v", err)
}

// TestNastyStringsRoundTrip compiles sources and protocols full of quoting
// hazards and reads them back unchanged.
func TestNastyStringsRoundTrip(t *testing.T) {
	c, _ := startSim(t)
	ctx := ctxT(t)
	payloads := []string{
		`it''s`,
		`'); Smalltalk at: #X put: 1. ('`,
		`] value. [ ( ) { } #( $] ']' )`,
		"line one\nline two\r\nline three\rend",
		"unicode: ünïcödé — 日本語 😀",
		`"not a comment" $' $"`,
		`\\ backslashes \n are not escapes`,
	}
	for i, p := range payloads {
		ref := refactor.MethodRef{Class: "Calculator", Selector: "nasty" + string(rune('A'+i))}
		// The payload sits inside a Smalltalk string literal in the method.
		src := ref.Selector + "\n\t^ '" + strings.ReplaceAll(p, "'", "''") + "'"
		require.NoError(t, c.Install(ctx, ref, src, "it's [odd] "+p), "payload %q", p)
		back, err := c.MethodSource(ctx, ref)
		require.NoError(t, err)
		assert.Equal(t, refactor.NormalizeSource(src), back, "payload %q", p)
		proto, err := c.Protocol(ctx, ref)
		require.NoError(t, err)
		assert.Equal(t, refactor.NormalizeSource("it's [odd] "+p), refactor.NormalizeSource(proto), "protocol %q", p)
	}
	// Nothing was evaluated: the global the payload names does not exist.
	exists, err := c.ClassExists(ctx, "X")
	require.NoError(t, err)
	assert.False(t, exists)
}

// TestInjectionShapedNamesRejected uses a command that does not exist: a
// name that got past validation would try to start it and fail differently.
func TestInjectionShapedNamesRejected(t *testing.T) {
	c, err := New(Config{Command: filepath.Join(t.TempDir(), "never-started")})
	require.NoError(t, err)
	ctx := ctxT(t)
	refs := []refactor.MethodRef{
		{Class: "Foo. Smalltalk", Selector: "bar"},
		{Class: "Foo", Selector: "bar: x ] value"},
		{Class: "Foo", Selector: "#foo"},
		{Class: "foo", Selector: "bar"},
		{Class: "", Selector: "bar"},
		{Class: "Foo", Selector: ""},
		{Class: "Foo", Selector: "bar:baz"},
		{Class: "(Smalltalk)", Selector: "bar"},
	}
	for _, ref := range refs {
		_, err := c.MethodSource(ctx, ref)
		assert.Equal(t, refactor.InvalidRequest, refactor.KindOf(err), "%s: %v", ref, err)
		assert.Equal(t, refactor.InvalidRequest, refactor.KindOf(c.Install(ctx, ref, "bar ^ 1", "x")), "%s", ref)
		_, err = c.Remove(ctx, ref)
		assert.Equal(t, refactor.InvalidRequest, refactor.KindOf(err), "%s", ref)
		_, err = c.Understands(ctx, ref, false)
		assert.Equal(t, refactor.InvalidRequest, refactor.KindOf(err), "%s", ref)
	}
	_, err = c.ClassExists(ctx, "Foo. Smalltalk")
	assert.Equal(t, refactor.InvalidRequest, refactor.KindOf(err))
	_, err = c.CallTool(ctx, "eval", map[string]any{"code": "1"})
	assert.Equal(t, refactor.InvalidRequest, refactor.KindOf(err), "eval is never passed through")
	assert.False(t, c.Health().Up, "nothing was started")
	assert.Zero(t, c.Health().LastError)
}

func TestKilledMidCallFailsFastAndRestarts(t *testing.T) {
	testenv.SkipShort(t, "kills the pharo-sim process")
	dir := t.TempDir()
	require.NoError(t, testenv.CopyTree("examples/sample-image", dir))
	// Every call takes 20 s in the image; the test kills the server
	// during one and expects pharo_unavailable, not the 60 s deadline.
	c := startSimOn(t, dir, Config{Env: []string{"PHARO_SIM_DELAY=20s"}, StartTimeout: 10 * time.Second})
	ctx := ctxT(t)
	require.NoError(t, c.Start(ctx))
	pid := c.Health().PID
	require.Positive(t, pid)

	done := make(chan error, 1)
	go func() {
		_, err := c.MethodSource(ctx, refactor.MethodRef{Class: "Calculator", Selector: "sum:with:"})
		done <- err
	}()
	time.Sleep(300 * time.Millisecond) // let the call reach the server
	require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
	var err error
	select {
	case err = <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("the in-flight call did not fail when the server died")
	}
	assert.Equal(t, refactor.PharoUnavailable, refactor.KindOf(err), "%v", err)

	// The next use restarts the server (here without the delay fault being
	// relevant: a class check answers after the delay, so use a short one).
	assert.Eventually(t, func() bool { h := c.Health(); return h.Up && h.PID != pid }, 10*time.Second, 50*time.Millisecond)
	assert.Equal(t, 1, c.Health().Restarts)
	assert.Contains(t, c.Health().LastError, "exited")
}

func TestNextCallSucceedsAfterCrash(t *testing.T) {
	testenv.SkipShort(t, "kills the pharo-sim process")
	c, _ := startSim(t)
	ctx := ctxT(t)
	require.NoError(t, c.Start(ctx))
	pid := c.Health().PID
	require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
	require.Eventually(t, func() bool { return c.Health().PID != pid }, 10*time.Second, 20*time.Millisecond)
	src, err := c.MethodSource(ctx, refactor.MethodRef{Class: "Calculator", Selector: "sum:with:"})
	require.NoError(t, err)
	assert.Contains(t, src, "^ a + b")
	assert.GreaterOrEqual(t, c.Health().Restarts, 1)
}

func TestCallDeadline(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, testenv.CopyTree("examples/sample-image", dir))
	c := startSimOn(t, dir, Config{Env: []string{"PHARO_SIM_DELAY=30s"}, CallTimeout: 300 * time.Millisecond})
	ctx := ctxT(t)
	require.NoError(t, c.Start(ctx)) // initialize and tools/list are not tool calls: no delay
	_, err := c.MethodSource(ctx, refactor.MethodRef{Class: "Calculator", Selector: "sum:with:"})
	require.Error(t, err)
	assert.Equal(t, refactor.PharoUnavailable, refactor.KindOf(err))
	assert.Contains(t, err.Error(), "did not answer get_method_source within 300ms")
	assert.NoError(t, ctx.Err(), "the caller's own deadline was not the one that fired")
}

func TestUnreachableImage(t *testing.T) {
	c, _ := startSim(t, "PHARO_SIM_UNREACHABLE=true")
	_, err := c.MethodSource(ctxT(t), refactor.MethodRef{Class: "Calculator", Selector: "sum:with:"})
	assert.Equal(t, refactor.PharoUnavailable, refactor.KindOf(err), "%v", err)
	assert.Contains(t, err.Error(), "cannot reach the image")
}

func TestImageErrorIsPharoError(t *testing.T) {
	c, _ := startSim(t, "PHARO_SIM_FAIL=get_class_comment=ZeroDivide: division by zero")
	_, err := c.ClassComment(ctxT(t), "Calculator")
	assert.Equal(t, refactor.PharoError, refactor.KindOf(err), "%v", err)
	assert.Contains(t, err.Error(), "ZeroDivide")
}

func TestMissingToolAtStart(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, testenv.CopyTree("examples/sample-image", dir))
	c := startSimOn(t, dir, Config{RequiredTools: []string{"eval", "no_such_tool", "another_missing"}})
	err := c.Start(ctxT(t))
	require.Error(t, err)
	assert.Equal(t, refactor.PharoUnavailable, refactor.KindOf(err))
	assert.Contains(t, err.Error(), "lacks required tools: no_such_tool, another_missing")
}

func TestBadCommand(t *testing.T) {
	c, err := New(Config{Command: filepath.Join(t.TempDir(), "missing-binary")})
	require.NoError(t, err)
	err = c.Start(ctxT(t))
	assert.Equal(t, refactor.PharoUnavailable, refactor.KindOf(err))
	assert.Contains(t, err.Error(), "missing-binary")
	_, err = New(Config{})
	assert.Error(t, err)
}

func TestCrashLoopBacksOff(t *testing.T) {
	// A server that cannot start (its image folder is missing) exits
	// during the handshake, every time.
	c, err := New(Config{Command: pharoSim(t), Args: []string{"serve", "--dir", filepath.Join(t.TempDir(), "missing")},
		BackoffMin: time.Hour, StopGrace: time.Second})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, c.Close()) })
	ctx := ctxT(t)
	ref := refactor.MethodRef{Class: "Calculator", Selector: "sum:with:"}
	for attempt := 1; attempt <= 2; attempt++ {
		_, err = c.MethodSource(ctx, ref)
		assert.Equal(t, refactor.PharoUnavailable, refactor.KindOf(err))
		assert.Contains(t, err.Error(), "cannot start the Pharo MCP server", "attempt %d starts the server", attempt)
	}
	_, err = c.MethodSource(ctx, ref)
	require.Error(t, err)
	assert.Equal(t, refactor.PharoUnavailable, refactor.KindOf(err))
	assert.Contains(t, err.Error(), "next restart attempt in", "a crash loop is not restarted on every call")
	assert.False(t, c.Health().Up)
	assert.NotEmpty(t, c.Health().LastError)
}
