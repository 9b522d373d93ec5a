package mcpclient

import (
	"fmt"
	"os"
	"testing"

	"pharo-refactor/internal/testenv"
)

// pharoSim is the pharo-sim binary built once for this test process.
var pharoSim string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcpclient-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	pharoSim, err = testenv.Build(dir, "pharo-sim")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}
