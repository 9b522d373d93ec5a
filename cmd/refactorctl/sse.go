package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// sseEvent is one Server-Sent Event.
type sseEvent struct {
	ID   string
	Name string
	Data json.RawMessage
}

// sseReader parses a text/event-stream (the WHATWG rules the service's
// writer needs: id, event, multi-line data, comments, one optional space
// after the colon).
type sseReader struct {
	r *bufio.Reader
}

func newSSEReader(r io.Reader) *sseReader { return &sseReader{r: bufio.NewReaderSize(r, 64<<10)} }

// next returns the next event; io.EOF when the stream ended between
// events, io.ErrUnexpectedEOF when it ended inside one.
func (s *sseReader) next() (sseEvent, error) {
	var ev sseEvent
	var data []string
	started := false
	for {
		line, err := s.r.ReadString('\n')
		if err != nil {
			if errors.Is(err, io.EOF) && (started || line != "") {
				return sseEvent{}, io.ErrUnexpectedEOF
			}
			return sseEvent{}, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if ev.Name != "" || len(data) > 0 {
				ev.Data = json.RawMessage(strings.Join(data, "\n"))
				if ev.Name == "" {
					ev.Name = "message"
				}
				return ev, nil
			}
			started = false
			continue
		}
		started = true
		if strings.HasPrefix(line, ":") {
			continue // comment (keep-alive)
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "id":
			ev.ID = value
		case "event":
			ev.Name = value
		case "data":
			data = append(data, value)
		}
	}
}

// idleWatch closes a stream on which nothing arrived for too long; the
// service sends a comment every 15 s, so silence means a dead connection
// that TCP has not noticed yet.
type idleWatch struct {
	r       io.ReadCloser
	timeout time.Duration
	mu      sync.Mutex
	timer   *time.Timer
	fired   bool
}

func newIdleWatch(r io.ReadCloser, timeout time.Duration) *idleWatch {
	w := &idleWatch{r: r, timeout: timeout}
	if timeout > 0 {
		w.timer = time.AfterFunc(timeout, w.fire)
	}
	return w
}

func (w *idleWatch) fire() {
	w.mu.Lock()
	w.fired = true
	w.mu.Unlock()
	_ = w.r.Close()
}

func (w *idleWatch) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	if w.timer != nil && n > 0 {
		w.timer.Reset(w.timeout)
	}
	w.mu.Lock()
	fired := w.fired
	w.mu.Unlock()
	if err != nil && fired {
		return n, fmt.Errorf("no data for %s: %w", w.timeout, err)
	}
	return n, err
}

func (w *idleWatch) Close() error {
	if w.timer != nil {
		w.timer.Stop()
	}
	return w.r.Close()
}
