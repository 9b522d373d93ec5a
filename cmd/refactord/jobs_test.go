package main

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/internal/testenv"
)

// TestClientThatGivesUpAfterASecond is the original's IDE client against
// the real binary: the original's wrapped body over a raw socket, the
// headers read — they name the run — and the connection dropped after one
// second, long before the run ends. The run completes, is released, and the
// history shows it released.
func TestClientThatGivesUpAfterASecond(t *testing.T) {
	dir, env := imageEnv(t, approvesSum(answerTheSum, 2*time.Second))
	s := start(t, dir, env...)
	body := `{"refactor_request": {"class_name": "Calculator", "method_name": "sum:with:"}}`
	sent := time.Now()
	conn := testenv.Dial(t, s.URL, fmt.Sprintf("POST /api/v1/refactor HTTP/1.1\r\nHost: 127.0.0.1\r\n"+
		"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body))
	require.NoError(t, conn.SetReadDeadline(sent.Add(time.Second)))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err, "the headers come within the second")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	id := resp.Header.Get("X-Refactoring-ID")
	require.NotEmpty(t, id, "the headers name the run")
	assert.Equal(t, "/api/v1/refactorings/"+id, resp.Header.Get("Location"))
	time.Sleep(time.Until(sent.Add(time.Second)))
	require.NoError(t, conn.Close(), "the client gives up")

	assert.Equal(t, "running", s.row(id)["status"], "the run goes on")
	require.Eventually(t, func() bool { return s.row(id)["status"] == "released" }, 30*time.Second, 50*time.Millisecond)
	assert.Contains(t, string(mustRead(t, calculatorFile(dir))), `"Answer the sum"`, "the image holds the release")
	released, out := s.send(http.MethodGet, "/api/v1/refactorings?outcome=released", "", "", nil)
	require.Equal(t, http.StatusOK, released.StatusCode)
	assert.Contains(t, fmt.Sprint(out["runs"]), id, "the history shows it released")
	assert.Contains(t, s.Log(), "the client left; the run goes on")
}

// TestCancelAfterTheReleaseBegan: a cancel that comes while the release is
// under way is refused with 409 not_cancelable, and the release completes.
func TestCancelAfterTheReleaseBegan(t *testing.T) {
	dir, env := imageEnv(t, approvesSum(answerTheSum, 0))
	s := start(t, dir, append(env, "REFACTORD_HOLD_AT=after_compile:2s")...)
	accepted, out := s.send(http.MethodPost, "/api/v1/refactor", sumRequest, "", map[string]string{
		"Content-Type": "application/json", "Prefer": "respond-async",
	})
	require.Equal(t, http.StatusAccepted, accepted.StatusCode, "%v", out)
	id := out["id"].(string)
	require.Eventually(t, func() bool { return strings.Contains(s.Log(), "holding the release") }, 20*time.Second, 10*time.Millisecond)
	assert.Equal(t, "releasing", s.row(id)["status"])

	resp, problem := s.send(http.MethodPost, accepted.Header.Get("Location")+"/cancel", "", "", nil)
	assert.Equal(t, http.StatusConflict, resp.StatusCode, "%v", problem)
	assert.Equal(t, "not_cancelable", problem["code"])
	assert.Equal(t, "releasing", problem["run_status"])
	require.Eventually(t, func() bool { return s.row(id)["status"] == "released" }, 30*time.Second, 50*time.Millisecond)
	assert.Contains(t, string(mustRead(t, calculatorFile(dir))), `"Answer the sum"`)
}

// TestTheOriginalsDotenv starts the service with the original's .env (its
// names, its JSON list of arguments, its comments): the MCP server it names
// is the one used, /health shows its APP_NAME and APP_VERSION, a run
// through it works, and the log names each of its variables that is
// deprecated or means nothing here.
func TestTheOriginalsDotenv(t *testing.T) {
	dir := t.TempDir()
	image := filepath.Join(dir, "image")
	require.NoError(t, testenv.CopyTree("examples/sample-image", image))
	model, err := approvesSum(answerTheSum, 0).Env(dir, true)
	require.NoError(t, err)
	dotenv := fmt.Sprintf(`# the original's .env
APP_NAME="Pharo Reviewer Agent API"
APP_VERSION=1.0.0
DEBUG=false
PHARO_SERVER_URL=http://localhost:8086
PHARO_MCP_SERVER_COMMAND=%s
PHARO_MCP_SERVER_ARGS=["serve", "--dir", "image"]
PHARO_MCP_SERVER_CWD=%s  # where the MCP server lives
PHARO_MCP_TIMEOUT=30
MAX_VALIDATION_ITERATIONS=3
CORS_ORIGINS=*
CORS_ALLOW_CREDENTIALS=true
CORS_ALLOW_METHODS=*
CORS_ALLOW_HEADERS=*
`, bins.pharoSim(t), dir)
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".env"), []byte(dotenv), 0o600))
	s := start(t, dir, append(model, "DATA_DIR="+filepath.Join(dir, "data"))...)

	h, err := s.Health()
	require.NoError(t, err)
	assert.Equal(t, "Pharo Reviewer Agent API", h.AppName)
	assert.Equal(t, "1.0.0", h.Version)
	assert.True(t, h.MCP.Up, "the MCP server the .env names is up")
	resp, out := s.send(http.MethodPost, "/api/v1/refactor", `{"refactor_request": {"class_name": "Calculator", "method_name": "sum:with:"}}`, "",
		map[string]string{"Content-Type": "application/json"})
	require.Equal(t, http.StatusOK, resp.StatusCode, "%v", out)
	assert.Equal(t, "released", out["outcome"])
	assert.Contains(t, string(mustRead(t, calculatorFile(dir))), `"Answer the sum"`, "released into the image the .env names")
	for _, line := range []string{
		"PHARO_MCP_SERVER_COMMAND is deprecated", "PHARO_MCP_SERVER_ARGS is deprecated", "PHARO_MCP_SERVER_CWD is deprecated",
		"PHARO_SERVER_URL is deprecated", "CORS_ORIGINS is deprecated",
		"DEBUG (the original service's name for LOG_LEVEL) is ignored: LOG_LEVEL is set", // the tests run with LOG_LEVEL=debug
		"CORS_ALLOW_CREDENTIALS (the original service's) has no meaning here",
		"CORS_ALLOW_METHODS (the original service's) has no meaning here",
		"CORS_ALLOW_HEADERS (the original service's) has no meaning here",
	} {
		assert.Contains(t, s.Log(), line)
	}
}
