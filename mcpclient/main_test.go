package mcpclient

import (
	"os"
	"testing"

	"github.com/pharo-refactor/refactord/internal/testenv"
)

// bins builds the pharo-sim binary when a test first runs it.
var bins testenv.Binaries

func TestMain(m *testing.M) { os.Exit(bins.Run(m)) }

// pharoSim is the pharo-sim binary (built once; skips t under -short).
func pharoSim(t *testing.T) string {
	t.Helper()
	return bins.Path(t, "pharo-sim")
}
