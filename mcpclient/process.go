package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// session is one running MCP server subprocess with its initialized client.
// The process is started and waited for here, not by mcp-go, because mcp-go's
// stdio transport has no exit callback: the watcher goroutine learns of the
// exit from Wait and closes the transport, which fails in-flight calls at once.
type session struct {
	cmd        *exec.Cmd // nil for a server in this process
	mc         *client.Client
	tr         transport.Interface
	stderr     *tailBuffer
	exited     chan struct{} // closed after Wait returns
	exitErr    error         // valid once exited is closed
	sideByName bool          // the server has no is_class_method argument
	compares   bool          // the server offers compare_method (pharo-sim)
	startedAt  time.Time
	// broken is set when a call found the connection dead (closed
	// transport, broken pipe) before Wait has reaped the process: from then
	// on the session is not handed out, so a retry reaches a new one instead
	// of failing on the dead pipe within a millisecond.
	broken atomic.Bool
	// stopOnce closes exited for an in-process session, which has no Wait.
	stopOnce sync.Once
	// calls numbers the tool calls sent (roundtrip.go).
	calls atomic.Uint64
}

// spawn starts the subprocess with its own process group (so a launcher
// like `uv` and its Python child stop together) and pipes on all three
// standard streams. stderr is a plain os.Pipe drained into a tail buffer:
// exec's own copying would make Wait block on grandchildren holding it open.
func spawn(cfg Config, onExit func(*session)) (*session, error) {
	cmd := exec.Command(cfg.Command, cfg.Args...)
	cmd.Dir = cfg.Dir
	cmd.Env = append(os.Environ(), cfg.Env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("stdin pipe: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("stdout pipe: %w", err)
	}
	errRead, errWrite, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("stderr pipe: %w", err)
	}
	cmd.Stderr = errWrite
	if err := cmd.Start(); err != nil {
		_ = errRead.Close()
		_ = errWrite.Close()
		return nil, fmt.Errorf("starting %s: %w", cfg.Command, err)
	}
	_ = errWrite.Close() // the child holds its own copy
	s := &session{
		cmd:       cmd,
		tr:        transport.NewIO(stdout, stdin, nil),
		stderr:    newTailBuffer(stderrTailBytes),
		exited:    make(chan struct{}),
		startedAt: time.Now(),
	}
	go s.drainStderr(errRead, cfg.StderrSink)
	go s.watch(onExit)
	return s, nil
}

func (s *session) drainStderr(r io.ReadCloser, sink io.Writer) {
	defer func() { _ = r.Close() }()
	var w io.Writer = s.stderr
	if sink != nil {
		w = io.MultiWriter(s.stderr, sink)
	}
	_, _ = io.Copy(w, r) // ends at EOF when every holder of the pipe is gone
}

func (s *session) watch(onExit func(*session)) {
	s.exitErr = s.cmd.Wait()
	close(s.exited)
	_ = s.tr.Close() // unblocks every in-flight request with ErrTransportClosed
	if onExit != nil {
		onExit(s)
	}
}

// inProcess opens a session on a server running in this process (tests
// and benchmarks of the layers above, without a subprocess). It has no
// process to watch: it lives until stop.
func inProcess(srv *server.MCPServer) *session {
	return &session{
		tr:        transport.NewInProcessTransport(srv),
		stderr:    newTailBuffer(stderrTailBytes),
		exited:    make(chan struct{}),
		startedAt: time.Now(),
	}
}

// pid is the subprocess's process id; 0 in process.
func (s *session) pid() int {
	if s.cmd == nil || s.cmd.Process == nil {
		return 0
	}
	return s.cmd.Process.Pid
}

// initialize runs the MCP handshake and checks that the required tools exist.
func (s *session) initialize(ctx context.Context, required []string) error {
	s.mc = client.NewClient(s.tr, client.WithLegacyProtocolOnly())
	if err := s.mc.Start(ctx); err != nil {
		return fmt.Errorf("starting MCP client: %w", err)
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "refactord", Version: Version}
	if _, err := s.mc.Initialize(ctx, req); err != nil {
		return fmt.Errorf("MCP initialize: %w", err)
	}
	tools, err := s.mc.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return fmt.Errorf("MCP tools/list: %w", err)
	}
	return s.checkTools(tools.Tools, required)
}

func (s *session) checkTools(tools []mcp.Tool, required []string) error {
	byName := make(map[string]mcp.Tool, len(tools))
	for _, t := range tools {
		byName[t.Name] = t
	}
	var missing []string
	for _, name := range required {
		if _, ok := byName[name]; !ok {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("the MCP server lacks required tools: %s", strings.Join(missing, ", "))
	}
	_, s.compares = byName[compareTool]
	if t, ok := byName["get_method_source"]; ok {
		_, has := t.InputSchema.Properties["is_class_method"]
		s.sideByName = !has
	}
	return nil
}

// alive reports whether the process has not exited and no call has found
// its connection dead.
func (s *session) alive() bool {
	if s.broken.Load() {
		return false
	}
	select {
	case <-s.exited:
		return false
	default:
		return true
	}
}

// stop closes stdin and waits for a clean exit, then SIGTERM, then SIGKILL
// to the whole process group.
func (s *session) stop(grace time.Duration) error {
	_ = s.tr.Close()
	if s.cmd == nil {
		s.stopOnce.Do(func() { close(s.exited) })
		return nil
	}
	if s.waitExit(grace) {
		return nil
	}
	s.signalGroup(syscall.SIGTERM)
	if s.waitExit(grace) {
		return nil
	}
	s.signalGroup(syscall.SIGKILL)
	if s.waitExit(grace) {
		return nil
	}
	return errors.New("the MCP server did not exit after SIGKILL")
}

func (s *session) waitExit(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-s.exited:
		return true
	case <-t.C:
		return false
	}
}

func (s *session) signalGroup(sig syscall.Signal) {
	if s.cmd.Process == nil {
		return
	}
	// A negative pid addresses the process group made by Setpgid.
	if err := syscall.Kill(-s.cmd.Process.Pid, sig); err != nil {
		_ = s.cmd.Process.Signal(sig)
	}
}

const stderrTailBytes = 16 << 10

// tailBuffer keeps the last n bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	n   int
	buf []byte
}

func newTailBuffer(n int) *tailBuffer { return &tailBuffer{n: n} }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.n; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
