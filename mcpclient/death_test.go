package mcpclient

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/internal/testenv"
)

// The MCP server dies (here before answering its second call) while its
// launcher lingers, so Wait has not returned yet: the call that finds the
// connection closed fails, and the next call reaches a new server instead
// of failing on the dead one within a millisecond.
func TestCallAfterADeathReachesANewServer(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, testenv.CopyTree("examples/sample-image", dir))
	launcher := `"$0" "$@"; exec >&- <&-; sleep 5`
	c, err := New(Config{Command: "sh", Args: []string{"-c", launcher, pharoSim(t), "serve", "--dir", dir},
		Env: []string{"PHARO_SIM_EXIT_AFTER=1"}, StopGrace: 200 * time.Millisecond})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, c.Close()) })
	ctx := ctxT(t)
	ref := refactor.MethodRef{Class: "Calculator", Selector: "sum:with:"}

	_, err = c.MethodSource(ctx, ref)
	require.NoError(t, err, "the first call is answered")
	_, err = c.MethodSource(ctx, ref)
	require.Error(t, err, "the server exits before answering the second")
	assert.Equal(t, refactor.PharoUnavailable, refactor.KindOf(err), "%v", err)

	src, err := c.MethodSource(ctx, ref)
	require.NoError(t, err, "the next call goes to a new server, not to the dead one")
	assert.Contains(t, src, "^ a + b")
	assert.Equal(t, 1, c.Health().Restarts)
}
