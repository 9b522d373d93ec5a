package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// child is a helper process of the bench (a floor server, the load
// generator), in a process group of its own so that it and anything it
// starts end together.
type child struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	waited chan struct{}
	err    error // of Wait, once waited is closed
}

// startChild starts bin with args; stderr goes to the bench's.
func startChild(ctx context.Context, bin string, args ...string) (*child, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	c := &child{cmd: cmd, stdin: stdin, stdout: bufio.NewReaderSize(stdout, 1<<20), waited: make(chan struct{})}
	go func() { c.err = cmd.Wait(); close(c.waited) }()
	return c, nil
}

func (c *child) pid() int { return c.cmd.Process.Pid }

// line reads one line of the child's stdout, within d.
func (c *child) line(d time.Duration) (string, error) {
	type read struct {
		s   string
		err error
	}
	got := make(chan read, 1)
	go func() {
		s, err := c.stdout.ReadString('\n')
		got <- read{strings.TrimSpace(s), err}
	}()
	select {
	case r := <-got:
		return r.s, r.err
	case <-time.After(d):
		return "", fmt.Errorf("%s said nothing within %s", c.cmd.Path, d)
	}
}

// stop closes the child's stdin (every helper ends at EOF), and kills its
// group if it has not ended within a few seconds.
func (c *child) stop() {
	_ = c.stdin.Close()
	select {
	case <-c.waited:
	case <-time.After(3 * time.Second):
		_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
		<-c.waited
	}
}
