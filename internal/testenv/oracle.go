package testenv

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"
)

// SlowTestClass makes a test class of a pharo-sim test oracle
// (test-oracle.json, format in pharosim/doc.go) take d per run, so that a
// test can hold a test run in flight.
func SlowTestClass(t testing.TB, oracleFile, class string, d time.Duration) {
	t.Helper()
	if err := slowTestClass(oracleFile, class, d); err != nil {
		t.Fatal(err)
	}
}

func slowTestClass(oracleFile, class string, d time.Duration) error {
	data, err := os.ReadFile(oracleFile)
	if err != nil {
		return err
	}
	var oracle map[string]any // "_comment" holds a string
	if err := json.Unmarshal(data, &oracle); err != nil {
		return fmt.Errorf("%s: %w", oracleFile, err)
	}
	entry, ok := oracle[class].(map[string]any)
	if !ok {
		return fmt.Errorf("%s declares no test class %s", oracleFile, class)
	}
	entry["duration"] = d.String()
	if data, err = json.Marshal(oracle); err != nil {
		return err
	}
	return os.WriteFile(oracleFile, data, 0o644)
}
