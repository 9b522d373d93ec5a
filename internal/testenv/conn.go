package testenv

import (
	"io"
	"net"
	"net/url"
	"testing"
	"time"
)

// Dial opens a raw TCP connection to the server at serverURL
// (http://host:port) and writes head: a client that sends what it wants,
// when it wants (a stalled body, headers that never end). The connection
// is closed when the test ends.
func Dial(t testing.TB, serverURL, head string) net.Conn {
	t.Helper()
	u, err := url.Parse(serverURL)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	return conn
}

// ClosedWithin reports whether the server closed conn (EOF) within bound,
// reading and dropping whatever it sent before.
func ClosedWithin(t testing.TB, conn net.Conn, bound time.Duration) bool {
	t.Helper()
	if err := conn.SetReadDeadline(time.Now().Add(bound)); err != nil {
		t.Fatal(err)
	}
	_, err := io.Copy(io.Discard, conn)
	return err == nil // io.Copy answers nil at EOF; a timeout is an error
}
