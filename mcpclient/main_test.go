package mcpclient

import (
	"testing"

	"pharo-refactor/internal/testenv"
)

// pharoSim is the pharo-sim binary built once for this test process.
var pharoSim string

func TestMain(m *testing.M) {
	testenv.RunWithBinaries(m, func(p map[string]string) { pharoSim = p["pharo-sim"] }, "pharo-sim")
}
