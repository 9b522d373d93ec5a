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
// test can hold a test run in flight. A class the oracle does not declare
// (pharo-sim runs it on its interpreter) is declared with tests, which all
// pass: a duration is a fault scenario only the oracle plays.
func SlowTestClass(t testing.TB, oracleFile, class string, d time.Duration, tests ...string) {
	t.Helper()
	if err := slowTestClass(oracleFile, class, d, tests); err != nil {
		t.Fatal(err)
	}
}

func slowTestClass(oracleFile, class string, d time.Duration, tests []string) error {
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
		if len(tests) == 0 {
			return fmt.Errorf("%s declares no test class %s, and no tests were given to declare it with", oracleFile, class)
		}
		entry = map[string]any{"tests": tests}
		oracle[class] = entry
	}
	entry["duration"] = d.String()
	if data, err = json.Marshal(oracle); err != nil {
		return err
	}
	return os.WriteFile(oracleFile, data, 0o644)
}

// CalculatorTests are the tests of the sample image's CalculatorTest, for
// declaring it in an oracle as a slow class (SlowTestClass).
func CalculatorTests() []string {
	return []string{"testAverage", "testAverageOfEmpty", "testCompute", "testDivide", "testDivideByZero", "testPercent", "testSum"}
}
