package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sort"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
)

// TestWorkersInAPool: GET /api/v1/workers answers, on the real
// PostgreSQL of a pool and behind the API keys, the queue's depth and the
// workers — each live with its image and the run it works on — in the
// shape openapi.yaml documents; GET / links it; a worker marked stopping
// is listed as such, not live.
func TestWorkersInAPool(t *testing.T) {
	const key = "workers-key-4242-abcd"
	p := startPool(t, 2, approvesSum(answerTheSum, 3*time.Second), "API_KEYS="+key)
	front := p.workers[0]
	bearer := map[string]string{"Authorization": "Bearer " + key}
	doc, err := openapi3.NewLoader().LoadFromData(refactor.OpenAPI)
	require.NoError(t, err)
	schema := doc.Components.Schemas["PoolState"]
	require.NotNil(t, schema, "openapi.yaml documents PoolState")

	state := func() refactor.PoolState {
		t.Helper()
		req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, front.URL+"/api/v1/workers", nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", bearer["Authorization"])
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode, "%s", data)
		var v any
		require.NoError(t, json.Unmarshal(data, &v))
		require.NoError(t, schema.Value.VisitJSON(v, openapi3.EnableJSONSchema2020()), "%s", data)
		var s refactor.PoolState
		require.NoError(t, json.Unmarshal(data, &s))
		return s
	}

	resp, out := front.send(http.MethodGet, "/api/v1/workers", "", "", nil)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "no key, no workers: %v", out)
	_, root := front.send(http.MethodGet, "/", "", "", nil)
	assert.Equal(t, "/api/v1/workers", root["links"].(map[string]any)["workers"], "GET / links the workers")

	idle := state()
	assert.Equal(t, 0, idle.Queued)
	assert.Equal(t, 2, idle.LiveWorkers)
	require.Len(t, idle.Workers, 2)
	for i, w := range idle.Workers {
		assert.Equal(t, []string{"w1", "w2"}[i], w.ID, "listed by id")
		assert.NotEmpty(t, w.Image)
		assert.True(t, w.Live)
		assert.False(t, w.Stopping)
		assert.Empty(t, w.Running, "idle")
		assert.False(t, w.HeartbeatAt.Before(w.StartedAt))
	}

	// Three runs for two workers: two run, one waits.
	var ids []string
	for range 3 {
		header := map[string]string{"Authorization": bearer["Authorization"], "Content-Type": "application/json", "Prefer": "respond-async"}
		resp, out := front.send(http.MethodPost, "/api/v1/refactor", dryRunSum, "", header)
		require.Equal(t, http.StatusAccepted, resp.StatusCode, "%v", out)
		ids = append(ids, resp.Header.Get("X-Refactoring-ID"))
	}
	var busy refactor.PoolState
	require.Eventually(t, func() bool {
		busy = state()
		return busy.Queued == 1 && len(busy.Workers) == 2 && busy.Workers[0].Running != "" && busy.Workers[1].Running != ""
	}, 20*time.Second, 50*time.Millisecond, "two workers busy, one run queued: %+v", busy)
	running := []string{busy.Workers[0].Running, busy.Workers[1].Running}
	sort.Strings(running)
	assert.NotEqual(t, running[0], running[1], "each worker on its own run")
	assert.Subset(t, ids, running, "the runs the workers work on are the ones posted")

	// A worker shutting down marks its row stopping (Pool.Stop) until it
	// leaves: such a row is listed stopping, not live, and not counted.
	// (The row is written here: a real worker holds it only for the moment
	// between its last run and its exit.)
	db, err := pgxpool.New(context.Background(), p.url)
	require.NoError(t, err)
	defer db.Close()
	_, err = db.Exec(context.Background(), `INSERT INTO pool_workers (id, image, stopping) VALUES ('w9', 'image-9', true)`)
	require.NoError(t, err)
	stopping := state()
	require.Len(t, stopping.Workers, 3, "%+v", stopping)
	w9 := stopping.Workers[2]
	assert.Equal(t, "w9", w9.ID)
	assert.Equal(t, "image-9", w9.Image)
	assert.True(t, w9.Stopping)
	assert.False(t, w9.Live, "a stopping worker takes no run")
	assert.Equal(t, 2, stopping.LiveWorkers, "a stopping worker is not counted live")
}
