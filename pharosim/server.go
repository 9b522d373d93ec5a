package pharosim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/pharo-refactor/refactord/pharosim/classlib"
)

// ServerName is the name the simulator gives itself in the MCP handshake:
// the real server's, so that nothing can tell them apart by it.
const ServerName = "pharo-smalltalk-interop-mcp-server"

// ServerVersion marks the simulator in the handshake's version field.
const ServerVersion = "0.1.0+pharo-sim"

// OracleFileName is the oracle file looked for beside the tree.
const OracleFileName = "test-oracle.json"

// Options configure a Server.
type Options struct {
	// Dir is the Tonel tree to load (see LoadImage).
	Dir string
	// OracleFile is the test oracle. Empty: test-oracle.json in Dir, in the
	// folder holding the packages, or in its parent — the first found;
	// none found means every test class runs on the interpreter.
	OracleFile string
	// Faults to inject; the zero value injects none.
	Faults Faults
	// Log receives the simulator's logs; nil discards them. It must not
	// write to the MCP stream (stdout).
	Log *slog.Logger
	// Exit ends the process for Faults.ExitAfter; nil means os.Exit.
	Exit func(code int)
	// Kill makes the process SIGKILL itself at one tool call (killfault.go).
	Kill KillAt
	// Crash makes a test run SIGKILL the process when its tests reach
	// code holding a text (killfault.go).
	Crash CrashTests
	// CallLimit cuts a tool call that runs longer, answering the real
	// server's {"success": false, "error": "Connection error: timed out"}
	// (gate.go); 0 means the real server's 30 s.
	CallLimit time.Duration
	// ClassLibrary answers for the classes the tree does not define; nil
	// means Pharo 13's (classlib.Default).
	ClassLibrary *classlib.Library
	// FinishCancelled runs a call the client cancelled on to its end,
	// holding the server's one turn, as the real server does.
	FinishCancelled bool
}

// Server is the simulated image behind the MCP tool surface of
// pharo-smalltalk-interop-mcp-server.
type Server struct {
	img    *Image
	oracle *Oracle
	rec    *Recognizer
	mcp    *server.MCPServer
	log    *slog.Logger
	crash  CrashTests
}

// New loads the image and the oracle and builds the MCP server.
func New(opts Options) (*Server, error) {
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	img, err := LoadImageWithLibrary(opts.Dir, opts.ClassLibrary, log)
	if err != nil {
		return nil, err
	}
	oracle, err := loadOracleFor(opts.OracleFile, opts.Dir, img.Root(), log)
	if err != nil {
		_ = img.Close()
		return nil, err
	}
	rec, err := NewRecognizer()
	if err != nil {
		_ = img.Close()
		return nil, fmt.Errorf("building the eval recognizer: %w", err)
	}
	s := &Server{img: img, oracle: oracle, rec: rec, log: log, crash: opts.Crash}
	s.warnAboutOracle()
	mcpOpts := []server.ServerOption{
		server.WithToolCapabilities(false),
		server.WithRecovery(),
		server.WithToolHandlerMiddleware(s.logCalls),
	}
	if note := skippedNote(img.Skipped()); note != "" {
		mcpOpts = append(mcpOpts, server.WithInstructions(note))
	}
	s.mcp = server.NewMCPServer(ServerName, ServerVersion, mcpOpts...)
	// Outermost of the simulator's own layers: the faults below happen
	// inside a call's turn and its time limit, as a slow image would.
	s.mcp.Use(newGate(opts.CallLimit, opts.FinishCancelled, log).middleware)
	if opts.Faults.Active() {
		exit := opts.Exit
		if exit == nil {
			exit = os.Exit
		}
		fi := &faultInjector{faults: opts.Faults, exit: exit, log: log}
		s.mcp.Use(fi.middleware)
		log.Warn("fault injection is on", "faults", opts.Faults)
	}
	if opts.Kill.Call > 0 {
		s.mcp.Use(killMiddleware(opts.Kill, log))
		log.Warn("fault injection is on: SIGKILL at a tool call", "call", opts.Kill.Call, "after", opts.Kill.After, "marker", opts.Kill.Marker)
	}
	if opts.Crash.Text != "" {
		log.Warn("fault injection is on: SIGKILL when a test run reaches code holding a text", "text", opts.Crash.Text)
	}
	s.register(s.mcp)
	return s, nil
}

// loadOracleFor reads the oracle named by the options, else the first
// test-oracle.json found beside the tree.
func loadOracleFor(file, dir, root string, log *slog.Logger) (*Oracle, error) {
	if file != "" {
		o, err := LoadOracle(file, false)
		if err == nil {
			log.Info("test oracle loaded", "file", file, "classes", len(o.ClassNames()))
		}
		return o, err
	}
	for _, candidate := range []string{dir, root, filepath.Dir(root)} {
		path := filepath.Join(candidate, OracleFileName)
		if _, err := os.Stat(path); err != nil {
			continue
		}
		o, err := LoadOracle(path, false)
		if err == nil {
			log.Info("test oracle loaded", "file", path, "classes", len(o.ClassNames()))
		}
		return o, err
	}
	log.Info("no test oracle: every test class runs on the interpreter")
	return &Oracle{classes: map[string]*OracleClass{}}, nil
}

// warnAboutOracle logs oracle entries that name classes or methods the image
// does not have: such rules can never be what the oracle's author meant.
func (s *Server) warnAboutOracle() {
	for _, name := range s.oracle.ClassNames() {
		if s.img.requireClass(name) != nil {
			s.log.Warn("the test oracle names a class the image does not have", "class", name)
		}
		c, _ := s.oracle.Class(name)
		for _, r := range c.Rules {
			for _, cond := range []*Condition{r.FailsWhen, r.ErrorsWhen} {
				if cond == nil {
					continue
				}
				if _, err := s.img.MethodSource(cond.ref); err != nil {
					s.log.Warn("a test oracle rule names a method the image does not have",
						"class", name, "test", r.Test, "method", cond.Method)
				}
			}
		}
	}
}

// maxNotedFiles bounds the skipped files the handshake names one by one.
const maxNotedFiles = 20

// skippedNote is the handshake's instructions when files were left out:
// an MCP client shows them, and get_settings lists every file.
func skippedNote(skipped []SkippedFile) string {
	if len(skipped) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "pharo-sim: %d file(s) of the Tonel tree could not be read and were left out of the image (get_settings lists them all):", len(skipped))
	for i, sk := range skipped {
		if i == maxNotedFiles {
			fmt.Fprintf(&b, "\n… and %d more", len(skipped)-i)
			break
		}
		b.WriteString("\n" + sk.String())
	}
	return b.String()
}

// Close stops the image's watch of the disk.
func (s *Server) Close() error { return s.img.Close() }

// logCalls logs every tool call at debug level, with its arguments: the
// record says what was asked, so that a call can be made again (the
// bench replays a run's calls on a pharo-sim of its own).
func (s *Server) logCalls(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		start := time.Now()
		res, err := next(ctx, req)
		s.log.Debug("tool call", "tool", req.Params.Name, "arguments", req.Params.Arguments, "duration", time.Since(start), "error", err)
		return res, err
	}
}

// Image returns the simulated image.
func (s *Server) Image() *Image { return s.img }

// MCPServer returns the MCP server, e.g. for an in-process client.
func (s *Server) MCPServer() *server.MCPServer { return s.mcp }

// ServeStdio serves MCP over in and out (the process's stdin and stdout)
// until in reaches end of file (a nil error) or ctx ends. Only MCP frames
// are written to out.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	stdio := server.NewStdioServer(s.mcp)
	stdio.SetErrorLogger(slog.NewLogLogger(s.log.Handler(), slog.LevelError))
	err := stdio.Listen(ctx, in, out)
	if err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("serving MCP over stdio: %w", err)
	}
	return nil
}
