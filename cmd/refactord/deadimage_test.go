package main

import (
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
func TestTestsThatKillTheImageAreRolledBackFirst(t *testing.T) {
	cases := []struct {
		name, subject, class, method, candidate string
		crash                                   bool
		status                                  int
		code                                    refactor.Kind
		maxRestarts                             int
	}{
		{
			name: "the tests kill the image", subject: "Calculator>>average:", class: "Calculator", method: "average:",
			candidate: "average: aCollection\n\t\"" + crashText + "\"\n\n\taCollection isEmpty ifTrue: [ ^ 0 ].\n\t^ (aCollection inject: 0 into: [ :sum :each | sum + each ]) / aCollection size",
			crash:     true, status: http.StatusUnprocessableEntity, code: refactor.TestsRegressed, maxRestarts: 2,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir, env := imageEnv(t, approves(tc.subject, tc.candidate))
			image := filepath.Join(dir, "image")
			file := filepath.Join(image, "src", "Sample-Shop", tc.class+".class.st")
			before := mustRead(t, file)
			if tc.crash {
				env = append(env, "PHARO_MCP_ARGS=serve --dir '"+image+"' --fault-crash-tests-on '"+crashText+"'")
			}
			s := start(t, dir, env...)

			began := time.Now()
			resp, body, err := s.post("/api/v1/refactor", `{"class_name": "`+tc.class+`", "method_name": "`+tc.method+`"}`)
			took := time.Since(began)
			require.NoError(t, err)
			assert.Equal(t, tc.status, resp.StatusCode, "%v", body)
			assert.Equal(t, string(tc.code), body["code"], "%v", body)
			assert.Equal(t, "rolled_back", body["run_status"], "%v", body)
			assert.Less(t, took, 30*time.Second, "answered in seconds, not after the release budget")
			assert.Equal(t, string(before), string(mustRead(t, file)), "the class file is byte-identical")

			id, _ := body["id"].(string)
			require.NotEmpty(t, id, "%v", body)
			row := s.row(id)
			assert.Equal(t, "rolled_back", row["status"], "%v", row)

			require.NoError(t, s.WaitFor("/ready", 30*time.Second), "/ready comes back")
			health, err := s.Health()
			require.NoError(t, err)
			assert.LessOrEqual(t, health.MCP.Restarts, tc.maxRestarts, "image restarts: %+v", health.MCP)
			if tc.crash {
				assert.GreaterOrEqual(t, health.MCP.Restarts, 1, "the fault killed the image")
				assert.Equal(t, 1, simLines(s.Log(), "fault injection: SIGKILL, the tests reach"),
					"the tests that killed the image ran once after the compile, never again")
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
