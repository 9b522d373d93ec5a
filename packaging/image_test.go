package packaging_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/internal/testenv"
	"github.com/pharo-refactor/refactord/internal/version"
)

// maxImageBytes is the most the image may weigh.
const maxImageBytes = 80 * 1000 * 1000

// quickStart is what docs/install.md tells a reader to type: the key in
// `podman run -e API_KEYS=…` and the body and key of the curl after it.
type quickStart struct {
	key, body, curlKey string
}

func readQuickStart(t *testing.T) quickStart {
	t.Helper()
	root, err := testenv.Root()
	require.NoError(t, err)
	doc, err := os.ReadFile(filepath.Join(root, "docs", "install.md"))
	require.NoError(t, err)
	run := regexp.MustCompile(`podman run [^\n]*-p 8000:8000 [^\n]*-e API_KEYS=(\S+) [^\n]*localhost/refactord:` + regexp.QuoteMeta(version.Version)).FindSubmatch(doc)
	require.NotNil(t, run, "docs/install.md runs the image of this version with -p 8000:8000 and API_KEYS")
	curl := regexp.MustCompile(`curl [^\n]*-H 'Authorization: Bearer ([^']+)'[^\n]*-d '([^']+)'[^\n]*http://127\.0\.0\.1:8000/api/v1/refactor\n`).FindSubmatch(doc)
	require.NotNil(t, curl, "docs/install.md sends a run to the container with the key")
	return quickStart{key: string(run[1]), curlKey: string(curl[1]), body: string(curl[2])}
}

// TestImageAnswersTheQuickStart builds the image with `make image`, runs it
// with API_KEYS as the only setting and a published port, as
// docs/install.md says, and sends its requests: /health answers with the
// build's version, and Calculator>>average: is released into the sample
// image on the container's data volume (so the volume is writable by the
// image's unprivileged user). The image is at most 80 MB, runs as a user
// that is not root, prints its version, and refuses to listen on every
// interface without keys.
func TestImageAnswersTheQuickStart(t *testing.T) {
	pm, image := requireImage(t)
	qs := readQuickStart(t)
	require.Equal(t, qs.key, qs.curlKey, "the curl sends the key the container was given")

	size, err := strconv.ParseInt(pm.run(t, time.Minute, "image", "inspect", "--format", "{{.Size}}", image), 10, 64)
	require.NoError(t, err)
	t.Logf("image size: %.1f MB", float64(size)/1e6)
	assert.LessOrEqual(t, size, int64(maxImageBytes), "the image weighs at most 80 MB")
	user := pm.run(t, time.Minute, "image", "inspect", "--format", "{{.Config.User}}", image)
	assert.NotEmpty(t, user)
	assert.NotContains(t, []string{"0", "root", "0:0", "root:root"}, user, "the image runs as an unprivileged user")

	assert.Equal(t, "refactord "+version.Version, pm.run(t, time.Minute, "run", "--rm", image, "--version"))

	// Listening on every interface with no key is refused at start-up, by
	// the service's own rule, naming the variable.
	out, err := pm.try(2*time.Minute, "run", "--rm", image)
	require.Error(t, err, "the container must not serve without keys")
	assert.Contains(t, err.Error(), "API_KEYS")
	_ = out

	port := freePort(t)
	c := startContainer(t, pm, "-p", fmt.Sprintf("127.0.0.1:%d:8000", port), "-e", "API_KEYS="+qs.key, image)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	waitFor(t, base+"/health", 2*time.Minute)

	var health map[string]any
	status := getJSON(t, base+"/health", "", &health)
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, "healthy", health["status"])
	assert.Equal(t, version.Version, health["version"], "/health shows the build's version")
	waitFor(t, base+"/ready", time.Minute)

	// compose.yaml's health check, run inside the container: healthy.
	for name, w := range readCompose(t).workers() {
		check := w.Healthcheck.Test
		require.Greater(t, len(check), 1, "%s has a health check", name)
		require.Equal(t, "CMD", check[0])
		pm.run(t, time.Minute, append([]string{"exec", c.id}, check[1:]...)...)
		break
	}

	// Without the key, a run is refused; with it, released.
	resp, err := http.Post(base+"/api/v1/refactor", "application/json", strings.NewReader(qs.body))
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)

	var result map[string]any
	status = postJSON(t, base+"/api/v1/refactor", qs.key, qs.body, &result)
	require.Equal(t, http.StatusOK, status, "%v", result)
	assert.Equal(t, "released", result["outcome"], "%v", result)
	assert.NotEqual(t, "", result["refactored_code"])

	// The history (behind the key) has the release, from the store on the
	// data volume.
	var history map[string]any
	status = getJSON(t, base+"/api/v1/refactorings?outcome=released", qs.key, &history)
	require.Equal(t, http.StatusOK, status, "%v", history)
	assert.Len(t, history["runs"], 1)
}

func getJSON(t *testing.T, url, key string, out any) int {
	t.Helper()
	return sendJSON(t, http.MethodGet, url, key, "", out)
}

func postJSON(t *testing.T, url, key, body string, out any) int {
	t.Helper()
	return sendJSON(t, http.MethodPost, url, key, body, out)
}

func sendJSON(t *testing.T, method, url, key, body string, out any) int {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	require.NoError(t, err)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	client := &http.Client{Timeout: 3 * time.Minute}
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, out), "%s %s: %s", method, url, data)
	return resp.StatusCode
}

// sendJSONOrZero posts body and decodes the answer into out; 0 when the
// request or the decoding failed (for goroutines, which must not stop the
// test).
func sendJSONOrZero(url, key, body string, out *map[string]any) int {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return 0
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	client := &http.Client{Timeout: 5 * time.Minute}
	resp, err := client.Do(req)
	if err != nil {
		*out = map[string]any{"error": err.Error()}
		return 0
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		*out = map[string]any{"error": err.Error()}
		return 0
	}
	return resp.StatusCode
}
