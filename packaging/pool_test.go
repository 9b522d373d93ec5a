package packaging_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/internal/testenv"
)

// TestContainersArePoolWorkers runs two containers of the image as workers
// of one pool against a PostgreSQL on the host (--network host), each with
// its own WORKER_ID and its own copy of the sample image (the volume each
// container gets), and sends concurrent dry runs to one of them: every run
// completes and the runs are spread over both workers. A scripted model
// holds each run half a second in its writer, so that a worker busy with
// one run cannot take them all.
func TestContainersArePoolWorkers(t *testing.T) {
	pm, image := requireImage(t)
	pg := testenv.StartPostgres(t)
	dbURL := pg.NewDatabase(t)

	const sum = "sum: a with: b\n\t\"Answer the sum\"\n\n\t^ a + b"
	answers := testenv.ApprovedInRoundOne(sum)
	answers[refactor.RoleWriter] = []testenv.Reply{testenv.Code(sum).Delayed(500 * time.Millisecond)}
	answers[refactor.RoleRefiner] = []testenv.Reply{testenv.Code(sum)}
	models := t.TempDir()
	_, err := testenv.Script{"Calculator>>sum:with:": answers}.Env(models, true)
	require.NoError(t, err)
	// The container's user is not root: it must be able to read the file.
	require.NoError(t, os.Chmod(models, 0o755))
	require.NoError(t, os.Chmod(filepath.Join(models, "model.json"), 0o644))

	const key = "pool-test-key-0123456789"
	var bases []string
	for _, worker := range []string{"w1", "w2"} {
		port := freePort(t)
		startContainer(t, pm, "--network", "host",
			"-v", models+":/models:ro",
			"-e", "API_KEYS="+key,
			"-e", "DATABASE_URL="+dbURL,
			"-e", "WORKER_ID="+worker,
			"-e", fmt.Sprintf("LISTEN_ADDR=127.0.0.1:%d", port),
			"-e", "MODEL_PROVIDER=scripted",
			"-e", "SCRIPTED_MODEL_FILE=/models/model.json",
			image)
		bases = append(bases, fmt.Sprintf("http://127.0.0.1:%d", port))
	}
	for _, base := range bases {
		waitFor(t, base+"/ready", 2*time.Minute)
	}

	const runs = 6
	body := `{"class_name": "Calculator", "method_name": "sum:with:", "dry_run": true}`
	results := make([]map[string]any, runs)
	statuses := make([]int, runs)
	var wg sync.WaitGroup
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = sendJSONOrZero(bases[0]+"/api/v1/refactor", key, body, &results[i])
		}()
	}
	wg.Wait()
	workers := map[string]int{}
	for i := range runs {
		require.Equal(t, http.StatusOK, statuses[i], "run %d: %v", i, results[i])
		assert.Equal(t, "proposed", results[i]["outcome"], "run %d", i)
		w, _ := results[i]["worker"].(string)
		workers[w]++
	}
	t.Logf("runs per worker: %v", workers)
	assert.Len(t, workers, 2, "the runs are spread over both workers: %v", workers)
	assert.Contains(t, workers, "w1")
	assert.Contains(t, workers, "w2")

	// Either instance lists the pool's whole history.
	for _, base := range bases {
		var history map[string]any
		require.Equal(t, http.StatusOK, getJSON(t, base+"/api/v1/refactorings?limit=100", key, &history))
		assert.Len(t, history["runs"], runs, "%s lists every run of the pool", base)
	}
}
