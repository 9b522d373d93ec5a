package pipeline

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestWaitIdleWaitsForTheSlot: WaitIdle returns at once on a free slot, and
// on a held one only after its holder let go.
func TestWaitIdleWaitsForTheSlot(t *testing.T) {
	p := &Pipeline{slot: newRunSlot()}
	p.WaitIdle() // free: returns

	release, ok := p.slot.take()
	require.True(t, ok)
	returned := make(chan struct{})
	go func() { p.WaitIdle(); close(returned) }()
	select {
	case <-returned:
		t.Fatal("WaitIdle returned while a run held the slot")
	case <-time.After(50 * time.Millisecond):
	}
	release()
	select {
	case <-returned:
	case <-time.After(10 * time.Second):
		t.Fatal("WaitIdle did not return after the slot was freed")
	}
}
