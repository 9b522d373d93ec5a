package main

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestQueueUIInAPool: a worker of a pool serves River UI under /riverui/
// behind the API keys (Bearer, or Basic with the key as password, as a
// browser sends it): its page, and its API listing the run's job once the
// run is done; without a key, nothing. GET / links it.
func TestQueueUIInAPool(t *testing.T) {
	const key = "queue-key-4242-abcd"
	p := startPool(t, 1, approvesSum(answerTheSum, 0), "API_KEYS="+key)
	w := p.workers[0]
	resp, out := w.send(http.MethodPost, "/api/v1/refactor", dryRunSum, "", map[string]string{"Authorization": "Bearer " + key, "Content-Type": "application/json"})
	require.Equal(t, http.StatusOK, resp.StatusCode, "%v", out)

	get := func(path, auth string) (*http.Response, string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, w.URL+path, nil)
		require.NoError(t, err)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp, string(body)
	}
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("ops:"+key))
	jobs := "/riverui/api/jobs?state=completed&limit=20"

	for _, path := range []string{"/riverui/", jobs} {
		resp, body := get(path, "")
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, path)
		assert.Contains(t, resp.Header.Get("WWW-Authenticate"), "Basic")
		assert.NotContains(t, body, "refactor_run")
	}

	resp, page := get("/riverui/", basic)
	require.Equal(t, http.StatusOK, resp.StatusCode, page)
	assert.Contains(t, page, "<title>River</title>")
	assert.Contains(t, page, `/riverui/assets/`, "its files under the same prefix")

	// River marks a job completed shortly after its worker returns.
	var list struct {
		Data []struct {
			Kind  string `json:"kind"`
			State string `json:"state"`
		} `json:"data"`
	}
	var body string
	require.Eventually(t, func() bool {
		resp, body = get(jobs, "Bearer "+key)
		require.Equal(t, http.StatusOK, resp.StatusCode, body)
		require.NoError(t, json.Unmarshal([]byte(body), &list), body)
		return len(list.Data) > 0
	}, 20*time.Second, 100*time.Millisecond, "the run's job is listed as completed: %s", body)
	assert.Equal(t, "refactor_run", list.Data[0].Kind)
	assert.Equal(t, "completed", list.Data[0].State)

	resp, body = get("/", "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, body, `"queue":"/riverui/"`)
}
