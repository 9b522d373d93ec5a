package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"syscall"
	"time"

	"github.com/pharo-refactor/refactord/pharosim"
	"github.com/pharo-refactor/refactord/pharosim/classlib"
)

// envClassLibrary names the class-library index to use instead of the
// embedded Pharo 13 one (as --class-library).
const envClassLibrary = "PHARO_SIM_CLASS_LIBRARY"

// serveConfig is what the serve flags and environment say.
type serveConfig struct {
	dir       string
	oracle    string
	faults    pharosim.Faults
	kill      pharosim.KillAt
	crash     pharosim.CrashTests
	callLimit time.Duration
	// finishCancelled: a cancelled call runs on, as on the real server.
	finishCancelled bool
	logLevel        slog.Level
	logFormat       string
	library         string // a class-library index file; "" for the embedded one
}

// serve runs the simulated image as an MCP server on stdin/stdout. stdout
// carries MCP frames only; logs go to stderr. It answers 0 when stdin
// closes or a termination signal arrives.
func serve(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cfg, err := parseServe(args, os.Getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "pharo-sim serve: %v\n", err)
		return 2
	}
	log := newLogger(stderr, cfg.logLevel, cfg.logFormat)
	keepLoadGarbageDown()
	var lib *classlib.Library
	if cfg.library != "" {
		if lib, err = classlib.LoadFile(cfg.library); err != nil {
			log.Error("cannot start", "error", err)
			return 1
		}
	}
	srv, err := pharosim.New(pharosim.Options{Dir: cfg.dir, OracleFile: cfg.oracle, Faults: cfg.faults, Kill: cfg.kill, Crash: cfg.crash, CallLimit: cfg.callLimit, FinishCancelled: cfg.finishCancelled, Log: log, ClassLibrary: lib})
	if err != nil {
		log.Error("cannot start", "error", err)
		return 1
	}
	defer srv.Close()
	keepHeapNearTheImage()
	if limit, set := boundMemory(); set {
		log.Info("memory limit set above the loaded image (GOMEMLIMIT overrides)", "limit_mib", limit>>20)
	}
	packages, classes, methods := srv.Image().Stats()
	skipped := srv.Image().Skipped()
	if len(skipped) > 0 {
		log.Warn("some files of the tree could not be read: serving the rest without them (get_settings lists them)",
			"skipped_files", len(skipped))
	}
	for _, d := range srv.Image().SkippedFolders() {
		log.Warn("a folder with .st files and no package.st was not read (Pharo reads only package folders; get_settings lists them)", "folder", d)
	}
	log.Info("pharo-sim serving MCP on stdio", "dir", cfg.dir, "root", srv.Image().Root(),
		"packages", packages, "classes", classes, "methods", methods, "skipped_files", len(skipped))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := srv.ServeStdio(ctx, stdin, stdout); err != nil {
		log.Error("serving failed", "error", err)
		return 1
	}
	log.Info("pharo-sim stopped")
	return 0
}

// parseServe reads the serve flags over the fault settings of the
// environment: a flag given on the command line wins over its variable.
func parseServe(args []string, getenv func(string) string, stderr io.Writer) (serveConfig, error) {
	faults, err := pharosim.FaultsFromEnv(getenv)
	if err != nil {
		return serveConfig{}, err
	}
	kill, err := pharosim.KillAtFromEnv(getenv)
	if err != nil {
		return serveConfig{}, err
	}
	callLimit, err := pharosim.CallLimitFromEnv(getenv)
	if err != nil {
		return serveConfig{}, err
	}
	fs := flag.NewFlagSet("pharo-sim serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := serveConfig{kill: kill, callLimit: callLimit}
	var failSpecs []string
	level := "info"
	fs.StringVar(&cfg.dir, "dir", "", "the Tonel tree to load: a repository root, a package folder or one .st file (required)")
	fs.StringVar(&cfg.oracle, "test-oracle", "", "test oracle JSON file (default: "+pharosim.OracleFileName+" beside the tree)")
	fs.IntVar(&cfg.faults.ExitAfter, "fault-exit-after", faults.ExitAfter,
		"exit (status 3) when tool call N+1 arrives, without answering it ("+pharosim.EnvExitAfter+")")
	fs.DurationVar(&cfg.faults.Delay, "fault-delay", faults.Delay, "delay every tool call by this duration ("+pharosim.EnvDelay+")")
	fs.Func("fault-fail", "TOOL=TEXT: TOOL answers an image error with description TEXT; repeatable ("+pharosim.EnvFail+", ';'-separated)",
		func(s string) error { failSpecs = append(failSpecs, s); return nil })
	fs.BoolVar(&cfg.faults.Unreachable, "fault-unreachable", faults.Unreachable,
		"answer every tool call with \"Connection error: …\" as if the image were down ("+pharosim.EnvUnreachable+")")
	fs.Func("fault-kill-at", "N, N:before or N:after: SIGKILL this process when tool call N arrives, or after handling it and before answering ("+pharosim.EnvKillAt+")",
		cfg.kill.ParseKillAt)
	fs.StringVar(&cfg.kill.Marker, "fault-kill-marker", kill.Marker, "fire the kill fault only while FILE does not exist, creating it ("+pharosim.EnvKillMarker+")")
	fs.StringVar(&cfg.crash.Text, "fault-crash-tests-on", getenv(pharosim.EnvCrashTests),
		"SIGKILL this process whenever a test run reaches code holding TEXT, as a real image dies when a candidate's tests exhaust it ("+pharosim.EnvCrashTests+")")
	fs.DurationVar(&cfg.callLimit, "call-limit", callLimit,
		"cut a tool call that runs longer, answering \"Connection error: timed out\" as the real server does (default 30s; "+pharosim.EnvCallLimit+")")
	fs.StringVar(&cfg.library, "class-library", getenv(envClassLibrary),
		"a class-library index (pharo-sim index) for the classes the tree does not define, instead of the embedded Pharo 13 one ("+envClassLibrary+")")
	fs.BoolVar(&cfg.finishCancelled, "finish-cancelled", getenv(pharosim.EnvFinishCancelled) == "1",
		"run a tool call the client cancelled (notifications/cancelled) on to its end, holding the one turn, as the real server does ("+pharosim.EnvFinishCancelled+"=1)")
	fs.StringVar(&level, "log-level", level, "debug, info, warn or error")
	fs.StringVar(&cfg.logFormat, "log-format", "text", "text or json")
	if err := fs.Parse(args); err != nil {
		return serveConfig{}, err
	}
	if fs.NArg() > 0 {
		return serveConfig{}, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if cfg.dir == "" {
		return serveConfig{}, errors.New("--dir is required")
	}
	if cfg.callLimit < 0 {
		return serveConfig{}, errors.New("--call-limit must be a positive duration")
	}
	cfg.faults.Fail = faults.Fail
	if len(failSpecs) > 0 {
		cfg.faults.Fail = nil
		for _, spec := range failSpecs {
			if err := cfg.faults.AddFail(spec); err != nil {
				return serveConfig{}, fmt.Errorf("--fault-fail: %w", err)
			}
		}
	}
	if err := cfg.logLevel.UnmarshalText([]byte(level)); err != nil {
		return serveConfig{}, fmt.Errorf("--log-level %q: want debug, info, warn or error", level)
	}
	if cfg.logFormat != "text" && cfg.logFormat != "json" {
		return serveConfig{}, fmt.Errorf("--log-format %q: want text or json", cfg.logFormat)
	}
	return cfg, nil
}

// keepLoadGarbageDown halves the garbage collector's headroom while the
// image loads (unless GOGC says otherwise): parsing every method leaves
// much short-lived garbage, and the larger the heap grows meanwhile, the
// more of the collector's own bookkeeping stays resident afterwards. It
// costs the load some CPU (about a sixth on Pharo's src).
func keepLoadGarbageDown() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(50)
	}
}

// keepHeapNearTheImage lowers the garbage collector's headroom once the
// image is loaded (unless GOGC says otherwise): the image is long-lived and
// most of the heap, and the default lets the heap grow to twice the image
// between collections whenever a search answers thousands of methods. A
// quarter keeps the process close to the image's size at the price of more
// frequent, short collections.
func keepHeapNearTheImage() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(25)
	}
}

// memoryAboveImage is what pharo-sim may take beyond its loaded image: a
// test's memory budget and the quarter it may pass it by between two
// measurements (160 MiB), what earlier tests of one run may leave behind
// (256 MiB), the deepest recursion's stack (128 MiB at most), and the
// collector's slack. docs/interpreter.md ("Limits") gives the reckoning.
const memoryAboveImage = 640 << 20

// boundMemory sets Go's memory limit to the loaded image plus
// memoryAboveImage, unless GOMEMLIMIT says otherwise: the collector then
// works harder rather than let garbage take the process past it. It
// answers the limit and whether it set one.
func boundMemory() (int64, bool) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return 0, false
	}
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	limit := int64(s[0].Value.Uint64()) + memoryAboveImage
	debug.SetMemoryLimit(limit)
	return limit, true
}

// newLogger logs to w (stderr), never to the MCP stream.
func newLogger(w io.Writer, level slog.Level, format string) *slog.Logger {
	opts := &slog.HandlerOptions{Level: level}
	if strings.EqualFold(format, "json") {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
