package main

import (
	"cmp"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/internal/testenv"
)

// approves approves code as the new method subject ("Class>>selector") in
// round 1.
func approves(subject, code string) testenv.Script {
	answers := testenv.ApprovedInRoundOne(code)
	answers[refactor.RoleRefiner] = []testenv.Reply{testenv.Code(code)}
	return testenv.Script{subject: answers}
}

// crashText marks the candidates whose tests kill the image (pharo-sim's
// --fault-crash-tests-on): a real image can die of a candidate's tests
// (its memory exhausted, a VM crash) even where pharo-sim's interpreter
// cannot.
const crashText = "the image dies running this"

// TestTestsThatKillTheImageAreRolledBackFirst: a candidate whose tests
// kill the image after the compile is rolled back at once — the restarted
// image is asked for the restore before any test runs again, and the tests
// that killed it never run again on it. The answer comes in seconds, not
// after the release budget; the file is as it was; /ready comes back.
// A candidate whose tests recurse without end (through a block) cannot
// kill pharo-sim: its tests error, and the run ends tests_regressed with
// no restart at all.
func TestTestsThatKillTheImageAreRolledBackFirst(t *testing.T) {
	cases := []struct {
		name, subject, class, method, candidate string
		crash, equivalenceOff                   bool
		status                                  int
		code                                    refactor.Kind
		runStatus                               string // "" for rolled_back
		maxRestarts                             int
	}{
		{
			name: "the tests kill the image", subject: "Calculator>>average:", class: "Calculator", method: "average:",
			candidate: "average: aCollection\n\t\"" + crashText + "\"\n\n\taCollection isEmpty ifTrue: [ ^ 0 ].\n\t^ (aCollection inject: 0 into: [ :sum :each | sum + each ]) / aCollection size",
			crash:     true, status: http.StatusUnprocessableEntity, code: refactor.TestsRegressed, maxRestarts: 2,
		},
		{
			// Through the comparison (on by default) the recursion is a
			// difference on the first input; with it off, as on a real
			// image, the tests after the compile meet it.
			name: "the tests recurse through a block", subject: "Calculator>>average:", class: "Calculator", method: "average:",
			candidate:      "average: aCollection\n\n\t| loop |\n\tloop := [ :c | loop value: c ].\n\t^ loop value: aCollection",
			equivalenceOff: true, status: http.StatusUnprocessableEntity, code: refactor.TestsRegressed, maxRestarts: 0,
		},
		{
			name: "the comparison meets the recursion first", subject: "Calculator>>average:", class: "Calculator", method: "average:",
			candidate: "average: aCollection\n\n\t| loop |\n\tloop := [ :c | loop value: c ].\n\t^ loop value: aCollection",
			status:    http.StatusUnprocessableEntity, code: refactor.BehaviourChanged, runStatus: "failed", maxRestarts: 0,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir, env := imageEnv(t, approves(tc.subject, tc.candidate))
			image := filepath.Join(dir, "image")
			file := filepath.Join(image, "src", "Sample-Shop", tc.class+".class.st")
			before := mustRead(t, file)
			if tc.equivalenceOff {
				env = append(env, "EQUIVALENCE=off")
			}
			if tc.crash {
				env = append(env, "PHARO_MCP_ARGS=serve --dir '"+image+"' --fault-crash-tests-on '"+crashText+"' --log-level debug")
			}
			s := start(t, dir, env...)

			began := time.Now()
			resp, body, err := s.post("/api/v1/refactor", `{"class_name": "`+tc.class+`", "method_name": "`+tc.method+`"}`)
			took := time.Since(began)
			require.NoError(t, err)
			assert.Equal(t, tc.status, resp.StatusCode, "%v", body)
			assert.Equal(t, string(tc.code), body["code"], "%v", body)
			runStatus := cmp.Or(tc.runStatus, "rolled_back")
			assert.Equal(t, runStatus, body["run_status"], "%v", body)
			// No duration is asserted: what made it take the release budget
			// — the tests run again on every restart — is held below (the
			// restarts, the killing test run once, no test after the crash).
			t.Logf("answered %d %v in %s", resp.StatusCode, body["code"], took.Round(time.Millisecond))
			assert.Equal(t, string(before), string(mustRead(t, file)), "the class file is byte-identical")

			id, _ := body["id"].(string)
			require.NotEmpty(t, id, "%v", body)
			row := s.row(id)
			assert.Equal(t, runStatus, row["status"], "%v", row)

			require.NoError(t, s.WaitFor("/ready", 30*time.Second), "/ready comes back")
			health, err := s.Health()
			require.NoError(t, err)
			assert.LessOrEqual(t, health.MCP.Restarts, tc.maxRestarts, "image restarts: %+v", health.MCP)
			if tc.crash {
				assert.GreaterOrEqual(t, health.MCP.Restarts, 1, "the fault killed the image")
				assert.Equal(t, 1, simLines(s.Log(), "fault injection: SIGKILL, the tests reach"),
					"the tests that killed the image ran once after the compile, never again")
				beforeCrash, afterCrash, found := strings.Cut(s.Log(), "fault injection: SIGKILL, the tests reach")
				require.True(t, found)
				require.Positive(t, simLines(beforeCrash, "tool=run_class_test"), "the simulator logs its test runs")
				assert.Zero(t, simLines(afterCrash, "tool=run_class_test"), "no test ran on the restarted image")
				assert.Positive(t, simLines(afterCrash, "msg=compiled class="+tc.class), "the restarted image was asked for the restore")
			}
		})
	}
}

// simLines counts the lines pharo-sim logged (relayed by refactord under
// the logger pharo-mcp) that hold text; the stderr tail quoted when the
// server exits is not counted again.
func simLines(log, text string) int {
	n := 0
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, `"logger":"pharo-mcp"`) && strings.Contains(line, text) {
			n++
		}
	}
	return n
}
