package store_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/internal/testenv"
	"github.com/pharo-refactor/refactord/store"
)

// TestAFullDataDirIsStoreUnavailable: on a DATA_DIR filled to the last
// byte, writes fail as store_unavailable (never an unclassified error),
// Writable says so while it lasts, and once space is freed Writable
// clears by its own probe and writes succeed — no reopening.
func TestAFullDataDirIsStoreUnavailable(t *testing.T) {
	disk := testenv.MountFullDisk(t, "4m")
	ctx := context.Background()
	s, err := store.Open(ctx, filepath.Join(disk.Dir, "refactord.db"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	create(t, s, newRun("before"))
	require.NoError(t, s.Writable(ctx))

	disk.Fill()
	// The WAL may reuse pages it already holds: write until a page more
	// is needed (a run's sources are a few KB; 4 MB cannot hold 2,000).
	big := strings.Repeat("x", 4<<10)
	var refused error
	for i := 0; i < 2000 && refused == nil; i++ {
		r := newRun(fmt.Sprintf("full-%d", i))
		r.OriginalSource = big
		refused = s.Create(ctx, r)
	}
	require.Error(t, refused, "a full disk refused no write")
	assert.True(t, refactor.IsKind(refused, refactor.StoreUnavailable), "%v", refused)
	assert.Contains(t, refactor.Public(refused), "refuses writes")
	w := s.Writable(ctx)
	require.Error(t, w)
	assert.True(t, refactor.IsKind(w, refactor.StoreUnavailable), "%v", w)

	disk.Free()
	require.Eventually(t, func() bool { return s.Writable(ctx) == nil }, 10*time.Second, 50*time.Millisecond, "the probe sees the freed space")
	create(t, s, newRun("after"))
	got, err := s.Get(ctx, "before")
	require.NoError(t, err)
	assert.Equal(t, "before", got.ID, "the rows before the full disk are intact")
}
