package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/internal/spans"
)

// imageError is the error object the image side sends when it raised.
type imageError struct {
	Description string          `json:"description"`
	StackTrace  string          `json:"stack_trace"`
	Receiver    json.RawMessage `json:"receiver"`
}

// call invokes a tool and decodes the `result` of its answer into into, or
// answers a classified error.
func (c *Client) call(ctx context.Context, tool string, args map[string]any, into any) (err error) {
	if spans.Recording(ctx) {
		var span trace.Span
		ctx, span = c.startCallSpan(ctx, tool)
		defer func() { spans.End(span, err) }()
	}
	s, err := c.current(ctx)
	if err != nil {
		return err
	}
	limit := c.callLimit(tool)
	callCtx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	done := c.calls.begin(tool)
	began := time.Now()
	raw, err := s.callTool(callCtx, tool, args)
	done()
	if err != nil {
		if callCtx.Err() != nil && s.alive() {
			// Given up on, not lost: the server goes on with it (mcp-go
			// sent notifications/cancelled, which the real server does
			// not act on).
			c.noteAbandoned(s, tool, began)
		}
		err = c.transportError(ctx, callCtx, s, tool, limit, err)
		c.noteOutcome(err)
		return err
	}
	c.answeredSince(began)
	err = c.decode(tool, raw, into)
	c.noteOutcome(err)
	return err
}

// abandonedCall is a call the client stopped waiting for while the server
// was still working on it.
type abandonedCall struct {
	tool  string
	since time.Time // when it was sent
	at    time.Time // when it was given up
	sess  *session
}

// noteAbandoned records a call given up on, and has the background probe
// ask the image at once: its answer comes once the server is done with
// the abandoned call, and clears it.
func (c *Client) noteAbandoned(s *session, tool string, began time.Time) {
	c.mu.Lock()
	if c.abandoned == nil || c.abandoned.sess != s {
		c.abandoned = &abandonedCall{tool: tool, since: began, at: time.Now(), sess: s}
	} else {
		c.abandoned.at = time.Now() // the oldest stays named; a later answer must follow this one too
	}
	c.mu.Unlock()
	c.log.Warn("stopped waiting for a tool call; the MCP server may still be working on it, and the next call waits behind it",
		zap.String("tool", tool), zap.Duration("after", time.Since(began)))
	c.startProbing()
}

// answeredSince clears the abandoned call once a call sent after it was
// given up is answered: the server, one call at a time, is done with it.
func (c *Client) answeredSince(began time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.abandoned != nil && began.After(c.abandoned.at) {
		c.abandoned = nil
	}
}

// callLimit is how long one call may take: a test run has its own budget
// (TEST_TIMEOUT), every other call CallTimeout.
func (c *Client) callLimit(tool string) time.Duration {
	if isTestRun(tool) {
		return c.cfg.TestTimeout
	}
	return c.cfg.CallTimeout
}

func isTestRun(tool string) bool {
	return tool == "run_class_test" || tool == "run_package_test" || tool == compareTool
}

// noteOutcome records what a call says about the image: an answer (even an
// error the image raised) shows it answering; a failure to reach it shows
// it down. A test run over its time limit shows neither (the image is busy,
// not gone), and a caller that gave up says nothing about the image.
func (c *Client) noteOutcome(err error) {
	switch {
	case err == nil:
		c.noteSuccess()
	case refactor.IsKind(err, refactor.PharoUnavailable):
		c.noteCallError(err)
	case refactor.IsKind(err, refactor.TestsInconclusive), refactor.IsKind(err, refactor.Timeout),
		errors.Is(err, context.Canceled), refactor.IsKind(err, refactor.ShuttingDown):
	default:
		c.noteSuccess() // the image answered, even if it raised
	}
}

// transportError classifies a failed MCP round trip.
func (c *Client) transportError(ctx, callCtx context.Context, s *session, tool string, limit time.Duration, err error) error {
	switch {
	case ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return refactor.Wrap(refactor.Timeout, ctx.Err(), "deadline passed during %s", tool)
	case ctx.Err() != nil:
		return fmt.Errorf("%s: %w", tool, ctx.Err())
	case callCtx.Err() != nil && isTestRun(tool):
		return refactor.Errorf(refactor.TestsInconclusive, "the test run did not finish within TEST_TIMEOUT (%s)%s", limit, testLimitAdvice)
	case callCtx.Err() != nil:
		return refactor.Errorf(refactor.PharoUnavailable, "the Pharo MCP server did not answer %s within %s", tool, limit)
	case !s.alive() || isClosed(err):
		s.broken.Store(true)
		return refactor.Wrap(refactor.PharoUnavailable, err, "the Pharo MCP server exited during %s", tool)
	default:
		return refactor.Wrap(refactor.PharoUnavailable, err, "MCP call %s failed", tool)
	}
}

func isClosed(err error) bool {
	return errors.Is(err, transport.ErrTransportClosed) || strings.Contains(err.Error(), "transport closed") ||
		strings.Contains(err.Error(), "file already closed") || strings.Contains(err.Error(), "broken pipe")
}

// toolFailure classifies an MCP-level tool error (isError), e.g. an exception
// inside the Python server.
func (c *Client) toolFailure(tool, text string) error {
	if i := strings.Index(text, "Connection error"); i >= 0 {
		return connectionFailure(tool, text[i:])
	}
	return refactor.Errorf(refactor.PharoError, "%s failed in the MCP server: %s", tool, clip(text, 500))
}

// testLimitAdvice says how to give the tests more time (docs/release.md,
// "Tests around a release").
const testLimitAdvice = ". pharo-smalltalk-interop-mcp-server gives every image call 30 s (the timeout of its HTTP client to the image); " +
	"for longer test classes raise that limit in the server (3.2.1 fixes it in code; PHARO_MCP_ENV passes a setting to a server that reads one) " +
	"and TEST_TIMEOUT with it, narrow the tests (TEST_MAX_CLASSES), or send run_tests: false"

// connectionFailure classifies the MCP server's "Connection error: …": the
// image is down or refused the connection (pharo_unavailable), unless the
// call only ran over the server's time limit ("timed out"). A test run over
// the limit is tests_inconclusive: the image is there, busy running tests.
func connectionFailure(tool, text string) error {
	if !timedOut(text) {
		return refactor.Errorf(refactor.PharoUnavailable, "the MCP server cannot reach the image: %s", clip(text, 300))
	}
	if isTestRun(tool) {
		return refactor.Errorf(refactor.TestsInconclusive, "the test run did not finish within the MCP server's time limit (it answered %q)%s",
			clip(text, 100), testLimitAdvice)
	}
	return refactor.Errorf(refactor.PharoUnavailable, "the image did not answer %s within the MCP server's time limit (it answered %q)", tool, clip(text, 100))
}

// timedOut reports whether a connection error is a time limit (httpx says
// "timed out"; other clients "timeout") rather than a refusal.
func timedOut(text string) bool {
	t := strings.ToLower(text)
	return strings.Contains(t, "timed out") || strings.Contains(t, "timeout")
}

var (
	missingClass  = regexp.MustCompile(`KeyNotFound: key #(\S+) not found in (SystemDictionary|SystemEnvironment)`)
	missingMethod = regexp.MustCompile(`KeyNotFound: key #(\S+) not found in MethodDictionary`)
)

// imageFailure classifies the `error` of an envelope: a string means the MCP
// server could not reach the image; an object means the image raised.
func (c *Client) imageFailure(tool string, raw json.RawMessage) error {
	var text string
	if json.Unmarshal(raw, &text) == nil {
		if strings.HasPrefix(text, "Connection error") {
			return connectionFailure(tool, text)
		}
		return refactor.Errorf(refactor.PharoError, "%s: %s", tool, clip(text, 500))
	}
	var ie imageError
	if err := json.Unmarshal(raw, &ie); err != nil || ie.Description == "" {
		return refactor.Errorf(refactor.PharoError, "%s failed with an unreadable error: %.200q", tool, raw)
	}
	if ie.StackTrace != "" {
		c.log.Debug("image stack trace", zap.String("tool", tool), zap.String("stack_trace", clip(ie.StackTrace, 4000)))
	}
	if m := missingClass.FindStringSubmatch(ie.Description); m != nil {
		return refactor.Errorf(refactor.ClassNotFound, "class %s not found in the image", m[1])
	}
	if m := missingMethod.FindStringSubmatch(ie.Description); m != nil {
		return refactor.Errorf(refactor.MethodNotFound, "method #%s not found in the image", m[1])
	}
	if strings.HasPrefix(ie.Description, "Result is a") {
		// success true, an error and no result: the expression answered an
		// object (every expression built here answers a plain value).
		return refactor.Errorf(refactor.PharoError, "%s answered an object the MCP server cannot serialize: %s", tool, clip(ie.Description, 300))
	}
	return refactor.Errorf(refactor.PharoError, "%s: the image raised %s", tool, clip(ie.Description, 500))
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
