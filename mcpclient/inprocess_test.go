package mcpclient_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/internal/testenv"
	"github.com/pharo-refactor/refactord/mcpclient"
	"github.com/pharo-refactor/refactord/pharosim"
)

// A server in this process is reached through the same client: the same
// operations, a session that is up without a process, and a clean close.
func TestInProcessServer(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, testenv.CopyTree("examples/sample-image", dir))
	sim, err := pharosim.New(pharosim.Options{Dir: dir})
	require.NoError(t, err)
	t.Cleanup(func() { _ = sim.Close() })
	c, err := mcpclient.New(mcpclient.Config{InProcess: sim.MCPServer()})
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, c.Start(ctx))

	m, err := c.Method(ctx, refactor.MethodRef{Class: "Calculator", Selector: "divide:by:"})
	require.NoError(t, err)
	assert.Equal(t, "calculating", m.Protocol)
	assert.Contains(t, m.Source, "b isZero ifTrue: [ ^ nil ]")
	h := c.Health()
	assert.True(t, h.Up)
	assert.Zero(t, h.PID, "no process")

	require.NoError(t, c.Close())
	_, err = c.MethodSource(ctx, refactor.MethodRef{Class: "Calculator", Selector: "divide:by:"})
	assert.Equal(t, refactor.ShuttingDown, refactor.KindOf(err))
}
