package testenv_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/agents"
	"github.com/pharo-refactor/refactord/internal/testenv"
)

// TestFakeGeminiAnswersByRoleHeader: the role header picks the queue, the
// queue of "" answers a role without one, the last reply repeats, and a
// role nothing was scripted for is refused (400, not retried).
func TestFakeGeminiAnswersByRoleHeader(t *testing.T) {
	f := &testenv.FakeGemini{}
	f.ScriptAll(testenv.Answers{refactor.RoleValidator: {testenv.NeedsWork("No."), testenv.Approved()}})
	url := testenv.Serve(t, f)
	calls := []struct {
		role   refactor.Role
		status int
		answer string
	}{
		{refactor.RoleValidator, http.StatusOK, "NEEDS_IMPROVEMENT"},
		{refactor.RoleValidator, http.StatusOK, "APPROVED"},
		{refactor.RoleValidator, http.StatusOK, "APPROVED"},
		{refactor.RoleWriter, http.StatusBadRequest, "no scripted reply"},
		{"", http.StatusBadRequest, "no scripted reply"},
	}
	for _, c := range calls {
		status, body := generate(t, url, c.role)
		assert.Equal(t, c.status, status, "%s: %s", c.role, body)
		assert.Contains(t, body, c.answer)
	}
	assert.Equal(t, 3, f.Count(refactor.RoleValidator))
	assert.Equal(t, 1, f.Count(""), "one request named no role")
	assert.Equal(t, len(calls), f.Total())

	f.Script("", testenv.Code("x"))
	status, body := generate(t, url, refactor.RoleWriter)
	assert.Equal(t, http.StatusOK, status, "a role without a queue of its own takes the queue of \"\": %s", body)
}

// generate posts a generateContent request naming role.
func generate(t *testing.T, url string, role refactor.Role) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+"/v1beta/models/m:generateContent", strings.NewReader(`{"contents": []}`))
	require.NoError(t, err)
	if role != "" {
		req.Header.Set(agents.RoleHeader, string(role))
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(body)
}
