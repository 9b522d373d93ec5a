package api_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOversizedBodiesAlwaysGetTheirAnswer: a client that sends a 2 MB body
// reads a complete 413 every time — or, with API keys and no key, a
// complete 401 — never a connection reset under it while it still sends:
// the service drains what it refused before closing (nginx's
// lingering_close).
func TestOversizedBodiesAlwaysGetTheirAnswer(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		keys   []string
		status int
	}{
		{"no keys: 413", nil, http.StatusRequestEntityTooLarge},
		{"keys set, none given: 401 before the body is read", []string{"a-key-of-sixteen-chars"}, http.StatusUnauthorized},
	}
	body := `{"class_name": "Calculator", "method_name": "` + strings.Repeat("x", 2<<20) + `"}`
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, harnessOpts{apiKeys: tc.keys})
			for i := range 30 {
				status, err := postRaw(h.url, body)
				require.NoError(t, err, "attempt %d: the client read its whole answer", i)
				assert.Equal(t, tc.status, status, "attempt %d", i)
			}
		})
	}
}

// postRaw sends body on its own connection, all of it before reading the
// answer (as Python's requests and curl do), and answers the status of a
// complete response; a write cut by a reset is an error.
func postRaw(serverURL, body string) (int, error) {
	u, err := url.Parse(serverURL)
	if err != nil {
		return 0, err
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(30 * time.Second)); err != nil {
		return 0, err
	}
	head := fmt.Sprintf("POST /api/v1/refactor HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(body))
	if _, err := io.WriteString(conn, head+body); err != nil {
		return 0, fmt.Errorf("sending the body: %w", err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if _, err := io.ReadAll(resp.Body); err != nil {
		return 0, fmt.Errorf("reading the %d body: %w", resp.StatusCode, err)
	}
	return resp.StatusCode, nil
}
