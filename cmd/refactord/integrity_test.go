package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/internal/testenv"
	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// maxCallsPerRun bounds the kill trials; a run of the sample image makes
// about fifteen tool calls.
const maxCallsPerRun = 40

// TestImageKilledAtEachCallOfARun SIGKILLs pharo-sim at every tool call of
// a run, as the call arrives and after it was handled (a compile then is on
// disk but unanswered), for a release that succeeds and for one whose tests
// regress (so the restore's calls are hit too). Every time, the image holds
// the original or the released method, the HTTP answer and the audit row
// say which, and after a restart of refactord no row is left unsettled.
// The image comes back at once here, so every release ends released or
// rolled back within its budget: restore_failed would be a failure (it is
// tested where the image stays down, in api).
// The trials of one scenario end at the first call number the run never
// reaches, so every call of the run is covered. A verify run (verify:
// true) is swept the same way, its putting back included: whatever call
// dies, the image holds the original once the run or the restart is done.
func TestImageKilledAtEachCallOfARun(t *testing.T) {
	scenarios := []struct {
		name, candidate string
		verify          bool
	}{
		{"released", "sum: a with: b\n\t\"Answer the sum\"\n\n\t^ a + b", false},
		// testSum fails on this source: it subtracts.
		{"tests regress", "sum: a with: b\n\t\"Answer the total\"\n\n\t^ a - b", false},
		{"verified", "sum: a with: b\n\t\"Answer the sum\"\n\n\t^ a + b", true},
		{"verify, tests regress", "sum: a with: b\n\t\"Answer the total\"\n\n\t^ a - b", true},
	}
	phases := []string{"before", "after"}
	if testing.Short() {
		phases = []string{"after"}
	}
	// KILL_TRIAL_ROUNDS=N repeats every sweep N times (a soak; default 1).
	rounds := 1
	if v := os.Getenv("KILL_TRIAL_ROUNDS"); v != "" {
		n, err := strconv.Atoi(v)
		require.NoError(t, err, "KILL_TRIAL_ROUNDS")
		rounds = max(n, 1)
	}
	for round := 1; round <= rounds; round++ {
		for _, sc := range scenarios {
			for _, phase := range phases {
				sweepTrials(t, fmt.Sprintf("%s/%s/round-%d", sc.name, phase, round), phase, sumTrial(sc.candidate, sc.verify))
			}
		}
	}
}

// killScenario is what a kill trial runs and how it reads the image.
type killScenario struct {
	script testenv.Script
	body   string // the refactoring request
	class  string // the class file of Sample-Shop it changes
	// holds says what the class file holds, given a copy of it from before
	// the run: "original", "released" or anything else (a failure).
	holds func(t *testing.T, file, before string) string
	// verify: a verify run, which must end with the original whatever
	// happens (200 is outcome verified).
	verify bool
}

// verifying is sc as a verify run.
func (sc killScenario) verifying() killScenario {
	sc.verify = true
	sc.body = strings.Replace(sc.body, "}", `, "verify": true}`, 1)
	return sc
}

// sumTrial releases (or verifies) candidate as Calculator>>sum:with:.
func sumTrial(candidate string, verify bool) killScenario {
	sc := killScenario{
		script: approvesSum(candidate, 0), body: `{"class_name": "Calculator", "method_name": "sum:with:"}`, class: "Calculator",
		holds: func(t *testing.T, file, before string) string {
			original := methodInFile(t, before, "sum:with:")
			switch src := methodInFile(t, file, "sum:with:"); {
			case refactor.SameSource(src, original):
				return "original"
			case refactor.SameSource(src, candidate):
				return "released"
			default:
				return "neither: " + src
			}
		},
	}
	if verify {
		return sc.verifying()
	}
	return sc
}

func sweepTrials(t *testing.T, name, phase string, sc killScenario) {
	t.Run(name, func(t *testing.T) {
		fired := 0
		for call := 1; call <= maxCallsPerRun; call++ {
			if !killTrial(t, sc, call, phase) {
				break
			}
			fired++
		}
		require.Less(t, fired, maxCallsPerRun, "the trials reached a call number the run never makes")
		require.Greater(t, fired, 5, "a run makes more than five tool calls")
		t.Logf("%d trials, one per tool call of the run", fired)
	})
}

// killTrial runs one refactoring with pharo-sim set to die at tool call
// number call, checks what the image, the answer and the audit row say,
// restarts refactord and checks that nothing is left unsettled. It answers
// whether the kill fired (false: the run has fewer calls).
func killTrial(t *testing.T, sc killScenario, call int, phase string) bool {
	t.Helper()
	dir, env := imageEnv(t, sc.script)
	image := filepath.Join(dir, "image")
	file := filepath.Join(image, "src", "Sample-Shop", sc.class+".class.st")
	before := filepath.Join(dir, sc.class+".class.st")
	require.NoError(t, os.WriteFile(before, mustRead(t, file), 0o644))
	marker := filepath.Join(dir, "killed")
	env = append(env, fmt.Sprintf("PHARO_MCP_ARGS=serve --dir %s --fault-kill-at %d:%s --fault-kill-marker %s", image, call, phase, marker))
	label := fmt.Sprintf("kill at call %d (%s)", call, phase)

	s := launch(t, dir, env...)
	require.NoError(t, s.WaitFor("/health", 30*time.Second))
	resp, body, err := s.post("/api/v1/refactor", sc.body)
	require.NoError(t, err, label)
	_, statErr := os.Stat(marker)
	fired := statErr == nil

	holds := func() string { return sc.holds(t, file, before) }
	id, _ := body["id"].(string)
	require.NotEmpty(t, id, "%s: every run has an id: %v", label, body)
	row := s.row(id)
	status := testenv.AnsweredStatus(resp, body)
	switch {
	case status == http.StatusOK && sc.verify:
		assert.Equal(t, "verified", body["outcome"], label)
		assert.Equal(t, "verified", row["status"], label)
		assert.Equal(t, "original", holds(), label)
	case status == http.StatusOK:
		assert.Equal(t, "released", body["outcome"], label)
		assert.Equal(t, "released", row["status"], label)
		assert.Equal(t, "released", holds(), label)
	default:
		assert.Equal(t, body["run_status"], row["status"], "%s: the answer and the audit row agree: %v", label, body)
		assert.Equal(t, body["code"], row["error_code"], label)
		switch row["status"] {
		case "failed", "rolled_back":
			assert.Equal(t, "original", holds(), "%s: %v", label, body)
		default:
			t.Errorf("%s: unexpected row status %v for %d %v", label, row["status"], resp.StatusCode, body)
		}
	}

	t.Logf("%s: %d %v, row %v, image holds the %s", label, status, body["code"], row["status"], holds())

	require.NoError(t, s.Signal(syscall.SIGTERM))
	require.NoError(t, s.WaitExit(t, 20*time.Second), label)
	again := launch(t, dir, env...)
	require.NoError(t, again.WaitFor("/health", 30*time.Second))
	after := again.row(id)
	assert.NotContains(t, []any{"running", "releasing", "restore_failed"}, after["status"], "%s: settled after a restart", label)
	switch after["status"] {
	case "released":
		assert.False(t, sc.verify, "%s: a verify run never ends released", label)
		assert.Equal(t, "released", holds(), label)
	default:
		assert.Equal(t, "original", holds(), "%s: row %v", label, after["status"])
	}
	return fired
}

// row reads one audit row over HTTP.
func (s *service) row(id string) map[string]any {
	s.t.Helper()
	resp, err := http.Get(s.URL + "/api/v1/refactorings/" + id)
	require.NoError(s.t, err)
	defer resp.Body.Close()
	require.Equal(s.t, http.StatusOK, resp.StatusCode)
	var row map[string]any
	require.NoError(s.t, json.NewDecoder(resp.Body).Decode(&row))
	return row
}

// methodInFile reads an instance-side method from a Tonel file on disk.
func methodInFile(t *testing.T, file, selector string) string {
	t.Helper()
	src, ok := methodsInFile(t, file)[selector]
	require.True(t, ok, "no %s in %s", selector, file)
	return src
}

// methodsInFile reads the instance-side methods of a Tonel file on disk.
func methodsInFile(t *testing.T, file string) map[string]string {
	t.Helper()
	f, err := tonel.ParseFile(filepath.Base(file), mustRead(t, file))
	require.NoError(t, err, "the class file parses")
	return f.Sources(tonel.InstanceSide)
}

// TestKilledDuringTheModelPhaseIsSettled SIGKILLs refactord while the
// writer model is answering: the row is left running, and the next start
// settles it as not_released (nothing was compiled: the write-ahead row
// always comes before a compile), leaving the image as it was.
func TestKilledDuringTheModelPhaseIsSettled(t *testing.T) {
	dir, env := imageEnv(t, approvesSum(answerTheSum, 10*time.Second))
	file := filepath.Join(dir, "image", "src", "Sample-Shop", "Calculator.class.st")
	before := mustRead(t, file)
	s := start(t, dir, env...)
	go func() {
		_, _, _ = s.post("/api/v1/refactor", `{"class_name": "Calculator", "method_name": "sum:with:"}`)
	}()
	var id string
	require.Eventually(t, func() bool {
		page := s.page("?limit=1")
		if len(page) == 1 && page[0]["status"] == "running" && page[0]["model_calls"] == 0.0 {
			id, _ = page[0]["id"].(string)
		}
		return id != "" && s.busy()
	}, 10*time.Second, 10*time.Millisecond, "the run is in its model phase")
	time.Sleep(200 * time.Millisecond) // into the writer's delay
	require.NoError(t, s.Signal(syscall.SIGKILL))
	_ = s.WaitExit(t, 20*time.Second)

	again := start(t, dir, env...)
	row := again.row(id)
	assert.Equal(t, "not_released", row["status"], "settled at the next start")
	assert.Contains(t, row["notes"], "interrupted before its release began")
	assert.NotNil(t, row["finished_at"])
	assert.Empty(t, again.page("?outcome=running"), "no row is left running")
	assert.Equal(t, before, mustRead(t, file), "the image is as it was")
}

// page lists audit rows over HTTP.
func (s *service) page(query string) []map[string]any {
	s.t.Helper()
	resp, err := http.Get(s.URL + "/api/v1/refactorings" + query)
	require.NoError(s.t, err)
	defer resp.Body.Close()
	var page struct {
		Runs []map[string]any `json:"runs"`
	}
	require.NoError(s.t, json.NewDecoder(resp.Body).Decode(&page))
	return page.Runs
}

// busy reports whether /health says a run is in flight.
func (s *service) busy() bool {
	h, err := s.Health()
	return err == nil && h.Busy
}

// composedTrial releases ShoppingCart>>total as the sample Composed Method:
// the method and two new helpers.
func composedTrial() killScenario {
	answers := testenv.Answers{
		refactor.RoleReviewer:  {testenv.Review()},
		refactor.RoleWriter:    {testenv.ComposedCode(testenv.ComposedTotal, testenv.SubtotalHelper, testenv.DiscountHelper)},
		refactor.RoleValidator: {testenv.Approved()},
	}
	return killScenario{
		script: testenv.Script{"ShoppingCart>>total": answers}, body: `{"class_name": "ShoppingCart", "method_name": "total"}`, class: "ShoppingCart",
		holds: composedHolds,
	}
}

// composedHolds says which whole set the class file holds: the original
// (byte for byte) or the released one (the method and both helpers).
func composedHolds(t *testing.T, file, before string) string {
	if string(mustRead(t, file)) == string(mustRead(t, before)) {
		return "original"
	}
	m := methodsInFile(t, file)
	if refactor.SameSource(m["total"], testenv.ComposedTotal) && refactor.SameSource(m["subtotal"], testenv.SubtotalHelper) &&
		refactor.SameSource(m["loyaltyDiscountOn:"], testenv.DiscountHelper) {
		return "released"
	}
	_, sub := m["subtotal"]
	_, disc := m["loyaltyDiscountOn:"]
	return fmt.Sprintf("part of a set: total %q, subtotal %v, loyaltyDiscountOn: %v", m["total"], sub, disc)
}

// TestImageKilledDuringAComposedRelease SIGKILLs pharo-sim at every tool
// call of a run that releases a method with two helper methods, each call
// handled before the process dies (so a compile is on disk unanswered) —
// among them the helpers' installs, before the method's. Every time the
// image holds the whole original set or the whole new set, and the answer
// and the audit row say which, before and after a restart of refactord.
func TestImageKilledDuringAComposedRelease(t *testing.T) {
	sweepTrials(t, "composed/after", "after", composedTrial())
}

// TestImageKilledDuringAComposedVerify does the same for a verify run of
// the set: the helpers are compiled, tested and removed with the method,
// and whatever call dies the image ends with the whole original set.
func TestImageKilledDuringAComposedVerify(t *testing.T) {
	sweepTrials(t, "composed verify/after", "after", composedTrial().verifying())
}

// TestCrashBetweenHelpersAndMethodIsReconciled kills refactord (SIGKILL)
// after the helpers are installed and before the method is: the next start
// removes the helpers, the file is byte-identical to before, and the row
// says nothing was released and what became of the helpers.
func TestCrashBetweenHelpersAndMethodIsReconciled(t *testing.T) {
	sc := composedTrial()
	dir, env := imageEnv(t, sc.script)
	file := filepath.Join(dir, "image", "src", "Sample-Shop", "ShoppingCart.class.st")
	before := filepath.Join(dir, "ShoppingCart.class.st")
	require.NoError(t, os.WriteFile(before, mustRead(t, file), 0o644))
	s := start(t, dir, append(env, "REFACTORD_CRASH_AT=after_helpers")...)
	_, _, err := s.post("/api/v1/refactor", sc.body)
	require.Error(t, err, "the process died before answering")
	_ = s.WaitExit(t, 20*time.Second)
	m := methodsInFile(t, file)
	require.Contains(t, m, "subtotal", "the crash came after the helpers were installed")
	require.NotContains(t, []string{testenv.ComposedTotal}, m["total"], "and before the method was")

	again := start(t, dir, env...)
	page := again.page("?limit=1")
	require.Len(t, page, 1)
	assert.Equal(t, "not_released", page[0]["status"], "notes: %v", page[0]["notes"])
	assert.Contains(t, page[0]["notes"], "none of the 2 helper methods is in the image")
	assert.Equal(t, "original", composedHolds(t, file, before), "the whole original set, byte for byte")
}
