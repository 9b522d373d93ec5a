package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
)

// TestWritableProbesAtMostOncePerInterval steps a clock through a spell
// of refused writes: the storage is probed at most once per probeEvery, a
// failed probe keeps the refusal (with the time it began), a successful
// one ends it, and a successful write ends it as well.
func TestWritableProbesAtMostOncePerInterval(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	now := start
	w := &writeState{now: func() time.Time { return now }}
	probes, probeErr := 0, errors.New("still full")
	probe := func(context.Context) error { probes++; return probeErr }
	full := refactor.Wrap(refactor.StoreUnavailable, errors.New("disk full"), "refuses writes")

	require.NoError(t, w.refusal(ctx, probe), "no refused write yet")
	require.Zero(t, probes, "nothing to probe while writes succeed")

	w.note(full)
	now = now.Add(10 * time.Second)
	w.note(full) // a later refusal of the same spell keeps its start
	steps := []struct {
		advance    time.Duration
		wantProbes int
	}{
		{0, 1},                // the first call probes
		{probeEvery / 2, 1},   // too soon for another
		{probeEvery/2 - 1, 1}, // still a nanosecond short
		{1, 2},                // exactly probeEvery after the last
		{3 * probeEvery, 3},   // a long pause: one probe, not three
		{0, 3},                // same instant: none
	}
	for i, st := range steps {
		now = now.Add(st.advance)
		err := w.refusal(ctx, probe)
		require.Error(t, err, "step %d", i)
		assert.True(t, refactor.IsKind(err, refactor.StoreUnavailable), "step %d: %v", i, err)
		assert.Contains(t, err.Error(), "since 2026-03-01T12:00:00Z", "step %d: the spell's first refusal", i)
		assert.Equal(t, st.wantProbes, probes, "step %d", i)
	}

	probeErr = nil
	now = now.Add(probeEvery)
	assert.NoError(t, w.refusal(ctx, probe), "a probe that succeeds ends the refusal")
	assert.Equal(t, 4, probes)
	assert.NoError(t, w.refusal(ctx, probe))
	assert.Equal(t, 4, probes, "no probe once writes succeed")

	w.note(full)
	w.note(nil)
	assert.NoError(t, w.refusal(ctx, probe), "a write that succeeds ends the refusal")
	w.note(errors.New("a constraint failed"))
	assert.NoError(t, w.refusal(ctx, probe), "only a refusal of the storage counts")
	assert.Equal(t, 4, probes)
}
