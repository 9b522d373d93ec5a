package api_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// TestEveryInternalAnswerIsLoggedWithItsCause: an error nothing classified
// (here the audit trail closed under the server) is answered 500 internal
// without its text, and the log holds exactly one error line with that
// answer's request id and the cause.
func TestEveryInternalAnswerIsLoggedWithItsCause(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zapcore.ErrorLevel)
	h := newHarness(t, harnessOpts{log: zap.New(core)})
	require.NoError(t, h.audit.Close())
	resp, data := h.do(http.MethodGet, "/api/v1/refactorings", "", map[string]string{"X-Request-ID": "find-me-1"})
	require.Equal(t, http.StatusInternalServerError, resp.StatusCode, "%s", data)
	var p map[string]any
	require.NoError(t, json.Unmarshal(data, &p))
	assert.Equal(t, "internal", p["code"])
	assert.Equal(t, "find-me-1", p["request_id"])
	assert.NotContains(t, p["detail"], "closed", "the cause stays in the log")

	lines := logs.FilterField(zap.String("request_id", "find-me-1")).All()
	require.Len(t, lines, 1, "one error line for the answer: %v", logs.All())
	assert.Contains(t, lines[0].ContextMap()["error"], "closed", "the line carries the cause")
}
