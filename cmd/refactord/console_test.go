package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/internal/testenv"
	"github.com/pharo-refactor/refactord/store"
)

// TestConsoleInABrowser is an operator at the console in headless
// Chromium, with API keys set. Without the key the page asks for one and
// shows no run and no source. With it: a run started by another client is
// listed in flight and followed live to its end; the history lists the
// runs; a Composed Method's run shows its review, its rounds and its diff
// with the helper methods; Revert asks for a confirmation and then puts
// the original back — the class file is byte-identical to what it was.
// Every page runs under its Content Security Policy without a violation.
func TestConsoleInABrowser(t *testing.T) {
	chromium := testenv.Chromium()
	if chromium == "" {
		fmt.Fprintln(os.Stderr, "\n*** chromium is not installed: TestConsoleInABrowser is SKIPPED (apt-get install chromium; .ci/run does) ***")
		t.Skip("chromium is not installed (apt-get install chromium)")
	}
	const key = "operator-key-7f3a"
	// The model: first the Composed Method of ShoppingCart>>total, then
	// Calculator>>sum:with: in two rounds, its writer held until the
	// console has seen the run in flight.
	writerHeld := make(chan struct{})
	var releaseWriter sync.Once
	letWriterGo := func() { releaseWriter.Do(func() { close(writerHeld) }) }
	t.Cleanup(letWriterGo)
	gem := &testenv.FakeGemini{Key: "test-key"}
	heldWriter := testenv.Code("sum: a with: b\n\n\t^ b + a")
	heldWriter.Before = func() { <-writerHeld }
	gem.ScriptAll(testenv.Answers{
		refactor.RoleReviewer:  {testenv.Review(), testenv.Review()},
		refactor.RoleWriter:    {testenv.ComposedCode(testenv.ComposedTotal, testenv.SubtotalHelper, testenv.DiscountHelper), heldWriter},
		refactor.RoleValidator: {testenv.Approved(), testenv.NeedsWork("Keep the method comment."), testenv.Approved()},
		refactor.RoleRefiner:   {testenv.Code(answerTheSum)},
	})
	dir, env := modelEnv(t, "MODEL_PROVIDER=gemini", "GEMINI_API_KEY=test-key", "GOOGLE_GEMINI_BASE_URL="+testenv.Serve(t, gem), "MODEL_ID=gemini-test",
		"API_KEYS="+key)
	cartFile := filepath.Join(dir, "image", "src", "Sample-Shop", "ShoppingCart.class.st")
	cartBefore := mustRead(t, cartFile)
	s := start(t, dir, env...)
	bearer := map[string]string{"Authorization": "Bearer " + key, "Content-Type": "application/json"}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	page, err := testenv.StartBrowser(t, chromium).NewPage(ctx)
	require.NoError(t, err)
	shoot := func(name string) {
		t.Helper()
		shot, err := page.Screenshot(ctx)
		require.NoError(t, err)
		path := filepath.Join(t.ArtifactDir(), name)
		require.NoError(t, os.WriteFile(path, shot, 0o644))
		t.Logf("screenshot: %s", path)
	}
	text := func(selector string) string {
		t.Helper()
		var out string
		require.NoError(t, page.Eval(ctx, `document.querySelector(`+jsString(selector)+`).innerText`, &out))
		return out
	}

	count := func(selector string) int {
		t.Helper()
		var n int
		require.NoError(t, page.Eval(ctx, `document.querySelectorAll(`+jsString(selector)+`).length`, &n))
		return n
	}

	// A released run exists before the operator comes: without the key it
	// stays out of sight.
	resp, out := s.send(http.MethodPost, "/api/v1/refactor", `{"class_name": "ShoppingCart", "method_name": "total"}`, "", bearer)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%v", out)
	require.Equal(t, "released", out["outcome"])
	composedID := out["id"].(string)

	require.NoError(t, page.Navigate(ctx, s.URL+"/"), "a browser opening / lands on the console")
	require.NoError(t, page.WaitFor(ctx, `location.pathname === '/console' && !document.getElementById('key-form').hidden`), "the page asks for a key")
	require.NoError(t, page.WaitFor(ctx, `document.querySelector('#image dd')`), "health is public")
	assert.Contains(t, text("#image"), "up, answering")
	body := text("body")
	assert.NotContains(t, body, "subtotal", "no source without the key")
	assert.NotContains(t, body, "ShoppingCart", "no run without the key")
	var html string
	require.NoError(t, page.Eval(ctx, `document.documentElement.outerHTML`, &html))
	assert.NotContains(t, html, "loyaltyDiscountOn", "nothing of the history in the page")
	shoot("console-without-key.png")

	require.NoError(t, page.Eval(ctx, `document.getElementById('key').value = 'wrong-key'; document.getElementById('key-form').requestSubmit()`, nil))
	require.NoError(t, page.WaitFor(ctx, `document.getElementById('key-message').textContent.includes('refused')`), "a wrong key is refused")
	assert.NotContains(t, text("body"), "ShoppingCart")

	require.NoError(t, page.Eval(ctx, `document.getElementById('key').value = `+jsString(key)+`; document.getElementById('key-form').requestSubmit()`, nil))
	require.NoError(t, page.WaitFor(ctx, `document.querySelectorAll('#history tbody tr').length === 1`), "the history shows the run")
	assert.Contains(t, text("#history"), "ShoppingCart>>#total")

	// Another client starts a run; the console lists it in flight and
	// follows it live.
	resp, out = s.send(http.MethodPost, "/api/v1/refactor", `{"class_name": "Calculator", "method_name": "sum:with:"}`, "",
		map[string]string{"Authorization": "Bearer " + key, "Content-Type": "application/json", "Prefer": "respond-async"})
	require.Equal(t, http.StatusAccepted, resp.StatusCode, "%v", out)
	require.NoError(t, page.WaitFor(ctx, `[...document.querySelectorAll('#inflight button')].some(b => b.textContent.includes('sum:with:'))`), "the run in flight is listed")
	require.NoError(t, page.Eval(ctx, `[...document.querySelectorAll('#inflight button')].find(b => b.textContent.includes('sum:with:')).click()`, nil))
	require.NoError(t, page.WaitFor(ctx, `document.getElementById('progress').textContent.includes('stage write started')`), "progress is followed")
	assert.NotContains(t, text("#progress"), "ended", "the writer is held: what the page shows came live")
	assert.Contains(t, text("#inflight"), "stage write")
	assert.Contains(t, text("#equivalence"), "Not compared yet", "no candidate was compared yet")
	shoot("console-run-in-flight.png")
	letWriterGo()
	require.NoError(t, page.WaitFor(ctx, `document.getElementById('progress').textContent.includes('ended: released')`), "followed to its end")
	require.NoError(t, page.WaitFor(ctx, `document.querySelectorAll('#rounds details').length === 2`), "both rounds are shown")
	assert.Contains(t, text("#rounds"), "Round 1: NEEDS_IMPROVEMENT")
	assert.Contains(t, text("#rounds"), "Keep the method comment.")
	assert.Contains(t, text("#rounds"), "Round 2: APPROVED")
	require.NoError(t, page.WaitFor(ctx, `document.getElementById('equivalence').textContent.includes('Outcome')`),
		"once the run has ended, its comparison is read from its row")
	assert.Contains(t, text("#equivalence"), "Compared")
	require.NoError(t, page.WaitFor(ctx, `document.querySelectorAll('#history tbody tr').length === 2`))

	// The Composed Method: review, round, and the diff with its helpers.
	require.NoError(t, page.Eval(ctx, `[...document.querySelectorAll('#history button')].find(b => b.textContent.includes('ShoppingCart')).click()`, nil))
	require.NoError(t, page.WaitFor(ctx, `document.getElementById('run-h').textContent.includes('ShoppingCart') && document.getElementById('progress').textContent.includes('ended: released')`),
		"the run's events are replayed to its end")
	require.Equal(t, 1, count(`#rounds details`))
	assert.Contains(t, text("#run-facts"), composedID)
	assert.Contains(t, text("#review"), "MEDIUM")
	diff := text("#diff")
	assert.Contains(t, diff, "helper added: #subtotal (private)")
	assert.Contains(t, diff, "helper added: #loyaltyDiscountOn: (private)")
	assert.Contains(t, diff, "+ \tnet := self subtotal.", "the new line of the method")
	assert.Contains(t, diff, "- \t", "the original's lines, taken out")
	assert.Greater(t, count(`#diff ins`), 10)
	assert.Greater(t, count(`#diff del`), 3)
	shoot("console-run-diff.png")

	// Revert, with a confirmation: "Keep it" changes nothing.
	require.NoError(t, page.Eval(ctx, `document.getElementById('revert').click()`, nil))
	require.NoError(t, page.WaitFor(ctx, `document.getElementById('confirm-revert').open`), "a confirmation is asked")
	assert.Contains(t, text("#confirm-text"), "ShoppingCart>>#total")
	shoot("console-revert-confirm.png")
	require.NoError(t, page.Eval(ctx, `document.getElementById('confirm-no').click()`, nil))
	require.NoError(t, page.WaitFor(ctx, `!document.getElementById('confirm-revert').open`))
	resp, out = s.send(http.MethodGet, "/api/v1/refactorings", "", "", map[string]string{"Authorization": "Bearer " + key})
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Len(t, out["runs"], 2, "nothing was reverted")

	require.NoError(t, page.Eval(ctx, `document.getElementById('revert').click()`, nil))
	require.NoError(t, page.WaitFor(ctx, `document.getElementById('confirm-revert').open`))
	require.NoError(t, page.Eval(ctx, `document.getElementById('confirm-yes').click()`, nil))
	require.NoError(t, page.WaitFor(ctx, `document.getElementById('run-message').textContent.startsWith('Reverted')`), "the revert is reported")
	require.NoError(t, page.WaitFor(ctx, `document.querySelectorAll('#history tbody tr').length === 3`), "the revert is a run of its own")
	assert.Equal(t, cartBefore, mustRead(t, cartFile), "the image holds the original again, helpers gone")
	row := s.getRun(composedID, key)
	assert.Equal(t, "reverted", row["status"])
	shoot("console-after-revert.png")

	// The filters: outcome reverted lists that one run.
	require.NoError(t, page.Eval(ctx, `document.querySelector('#filters select').value = 'reverted'; document.getElementById('filters').requestSubmit()`, nil))
	require.NoError(t, page.WaitFor(ctx, `document.querySelectorAll('#history tbody tr').length === 1`))
	assert.Contains(t, text("#history tbody"), "ShoppingCart>>#total")

	// An instance started since holds no run's events: the rounds of a
	// run of the history come from its row.
	require.NoError(t, s.Signal(syscall.SIGTERM))
	require.NoError(t, s.WaitExit(t, 20*time.Second))
	again := start(t, dir, env...)
	require.NoError(t, page.Navigate(ctx, again.URL+"/console"))
	require.NoError(t, page.WaitFor(ctx, `!document.getElementById('key-form').hidden`), "a new origin asks for the key again")
	require.NoError(t, page.Eval(ctx, `document.getElementById('key').value = `+jsString(key)+`; document.getElementById('key-form').requestSubmit()`, nil))
	require.NoError(t, page.WaitFor(ctx, `document.querySelectorAll('#history tbody tr').length === 3`))
	require.NoError(t, page.Eval(ctx, `[...document.querySelectorAll('#history button')].find(b => b.textContent.includes('sum:with:')).click()`, nil))
	require.NoError(t, page.WaitFor(ctx, `document.querySelectorAll('#rounds details').length === 2`), "both rounds, read from the row")
	assert.Contains(t, text("#rounds"), "Round 1: NEEDS_IMPROVEMENT")
	assert.Contains(t, text("#rounds"), "Keep the method comment.")
	assert.Contains(t, text("#rounds"), "Round 2: APPROVED")
	assert.NotContains(t, text("#progress"), "ended", "no event was replayed: the rounds are the row's")
	shoot("console-rounds-from-the-row.png")

	assert.NotContains(t, page.Console(), "Content Security Policy", "the page runs under its policy")
	assert.NotContains(t, page.Console(), "exception", "the page's script does not fail")
}

// TestConsoleLinksToARun: a run's console address, /console#/runs/{id},
// opens that run. A colleague's tab opens the link, asks for the key, then
// shows the run; opened by a fresh load or pasted into an open console,
// a run's address shows that run, an unknown id a "no such run" state, a
// malformed one the same state without any request made with it (".."
// would have fetched /api/v1/), and #/runs the list. Opening a run from
// the history puts its address in the location bar, and "Back to the
// list" takes it out again. All under the page's Content Security Policy.
func TestConsoleLinksToARun(t *testing.T) {
	chromium := testenv.Chromium()
	if chromium == "" {
		fmt.Fprintln(os.Stderr, "\n*** chromium is not installed: TestConsoleLinksToARun is SKIPPED (apt-get install chromium; .ci/run does) ***")
		t.Skip("chromium is not installed (apt-get install chromium)")
	}
	const key = "operator-key-4c1d"
	gem := &testenv.FakeGemini{Key: "test-key"}
	gem.ScriptAll(testenv.Answers{
		refactor.RoleReviewer:  {testenv.Review(), testenv.Review()},
		refactor.RoleWriter:    {testenv.Code(answerTheSum), testenv.Code(answerTheSum)},
		refactor.RoleValidator: {testenv.Approved(), testenv.Approved()},
	})
	dir, env := modelEnv(t, "MODEL_PROVIDER=gemini", "GEMINI_API_KEY=test-key", "GOOGLE_GEMINI_BASE_URL="+testenv.Serve(t, gem), "MODEL_ID=gemini-test",
		"API_KEYS="+key)
	s := start(t, dir, env...)
	var ids []string
	for range 2 {
		resp, out := s.send(http.MethodPost, "/api/v1/refactor", `{"class_name": "Calculator", "method_name": "sum:with:", "dry_run": true}`, "",
			map[string]string{"Authorization": "Bearer " + key, "Content-Type": "application/json"})
		require.Equal(t, http.StatusOK, resp.StatusCode, "%v", out)
		require.Equal(t, "proposed", out["outcome"])
		ids = append(ids, out["id"].(string))
	}
	first, second := ids[0], ids[1]
	unknown := strings.Repeat("0", 24)
	require.NotContains(t, ids, unknown)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	page, err := testenv.StartBrowser(t, chromium).NewPage(ctx)
	require.NoError(t, err)
	shoot := func(name string) {
		t.Helper()
		shot, err := page.Screenshot(ctx)
		require.NoError(t, err)
		path := filepath.Join(t.ArtifactDir(), name)
		require.NoError(t, os.WriteFile(path, shot, 0o644))
		t.Logf("screenshot: %s", path)
	}
	eval := func(expr string) string {
		t.Helper()
		var out string
		require.NoError(t, page.Eval(ctx, expr, &out))
		return out
	}
	showsRun := func(id string) string {
		return `!document.getElementById('run').hidden && document.getElementById('no-run').hidden && ` +
			`document.getElementById('run-facts').textContent.includes(` + jsString(id) + `)`
	}
	showsNoRun := func(text string) string {
		return `document.getElementById('run').hidden && !document.getElementById('no-run').hidden && ` +
			`document.getElementById('no-run-text').textContent.includes(` + jsString(text) + `)`
	}
	const showsList = `document.getElementById('run').hidden && document.getElementById('no-run').hidden && ` +
		`document.querySelectorAll('#history tbody tr').length === 2`

	// A colleague opens the link in a tab of their own: the key first,
	// then the run.
	require.NoError(t, page.Navigate(ctx, s.URL+"/console#/runs/"+first))
	require.NoError(t, page.WaitFor(ctx, `!document.getElementById('key-form').hidden`), "the page asks for a key")
	assert.True(t, strings.Contains(eval(`document.getElementById('run').hidden + ''`), "true"), "no run without the key")
	assert.NotContains(t, eval(`document.body.innerText`), "sum: a with: b", "no source without the key")
	require.NoError(t, page.Eval(ctx, `document.getElementById('key').value = `+jsString(key)+`; document.getElementById('key-form').requestSubmit()`, nil))
	require.NoError(t, page.WaitFor(ctx, showsRun(first)), "the key accepted, the link's run is shown")
	assert.Equal(t, "Calculator>>#sum:with:", eval(`document.getElementById('run-h').textContent`))
	assert.Equal(t, "#/runs/"+first, eval(`location.hash`))
	shoot("console-linked-run.png")

	// Each address, opened by a fresh load and pasted into the open console.
	cases := []struct {
		name, hash, shows string
		screenshot        string
	}{
		{"a run", "#/runs/" + second, showsRun(second), ""},
		{"an unknown run", "#/runs/" + unknown, showsNoRun("No run has the id " + unknown), "console-no-such-run.png"},
		{"not a run id", "#/runs/..", showsNoRun("is not a run id"), ""},
		{"an id with a path in it", "#/runs/" + first + "%2F..%2F..", showsNoRun("is not a run id"), ""},
		{"the list", "#/runs", showsList, ""},
	}
	for _, tc := range cases {
		for _, how := range []string{"loaded", "pasted"} {
			t.Run(tc.name+", "+how, func(t *testing.T) {
				if how == "loaded" {
					require.NoError(t, page.Navigate(ctx, "about:blank"))
					require.NoError(t, page.Navigate(ctx, s.URL+"/console"+tc.hash))
				} else {
					require.NoError(t, page.Navigate(ctx, s.URL+"/console#/runs/"+first))
					require.NoError(t, page.WaitFor(ctx, showsRun(first)))
					require.NoError(t, page.Eval(ctx, `location.hash = `+jsString(tc.hash), nil))
				}
				wait, cancel := context.WithTimeout(ctx, 30*time.Second) // a page that never shows it fails this case, not the rest
				defer cancel()
				assert.NoError(t, page.WaitFor(wait, tc.shows))
				var paths []string
				require.NoError(t, page.Eval(ctx, `performance.getEntriesByType('resource').map(e => new URL(e.name).pathname)`, &paths))
				for _, p := range paths {
					assert.NotEqual(t, "/api/v1/", p, "no id reaches a request unchecked")
					assert.False(t, strings.HasPrefix(p, "/api/v1/refactorings/.") || strings.Contains(p, "%2F"), "no id reaches a request unchecked: %s", p)
				}
				if tc.screenshot != "" && how == "loaded" {
					shoot(tc.screenshot)
				}
			})
		}
	}

	// Opened from the history, a run puts its address in the location bar;
	// back to the list takes it out.
	require.NoError(t, page.Navigate(ctx, s.URL+"/console"))
	require.NoError(t, page.WaitFor(ctx, showsList))
	require.Equal(t, "", eval(`location.hash`))
	for _, id := range []string{second, first} {
		require.NoError(t, page.Eval(ctx, `document.querySelector('#history tr[data-id=`+jsString(id)+`] button').click()`, nil))
		require.NoError(t, page.WaitFor(ctx, showsRun(id)))
		assert.Equal(t, "#/runs/"+id, eval(`location.hash`), "the location names the run opened")
	}
	require.NoError(t, page.Eval(ctx, `document.getElementById('close-run').click()`, nil))
	require.NoError(t, page.WaitFor(ctx, showsList))
	assert.Equal(t, "", eval(`location.hash`), "back to the list, the location names no run")
	assert.Equal(t, "/console", eval(`location.pathname`))

	assert.NotContains(t, page.Console(), "Content Security Policy", "the page runs under its policy")
	assert.NotContains(t, page.Console(), "exception", "the page's script does not fail")
}

// TestConsoleShowsTheEquivalence: a run's view shows the run's last
// comparison of the original and a candidate, read from its row. Rows with
// each outcome are written into the audit trail before the service starts:
// a same one shows its outcome and counts; a changed one its witness, and
// "no test calls this method" (activations 0) — the witness and the round's
// behaviour_changed check error carry hostile text and a long print
// string, shown as text (no element made of them, no policy violation) and
// wrapped, the whole text in the page; a not_checked one its reason and no
// "no test calls" (nothing was compared); a row recorded before the
// comparison (null) "Not compared", without an error.
func TestConsoleShowsTheEquivalence(t *testing.T) {
	chromium := testenv.Chromium()
	if chromium == "" {
		fmt.Fprintln(os.Stderr, "\n*** chromium is not installed: TestConsoleShowsTheEquivalence is SKIPPED (apt-get install chromium; .ci/run does) ***")
		t.Skip("chromium is not installed (apt-get install chromium)")
	}
	const key = "operator-key-9e2b"
	gem := &testenv.FakeGemini{Key: "test-key"}
	dir, env := modelEnv(t, "MODEL_PROVIDER=gemini", "GEMINI_API_KEY=test-key", "GOOGLE_GEMINI_BASE_URL="+testenv.Serve(t, gem), "MODEL_ID=gemini-test",
		"API_KEYS="+key)

	const hostile = `<img src=x onerror=alert(1)>`
	const hostileScript = `<script>document.title='pwned'</script>`
	long := "a Dictionary(" + strings.Repeat("#key->'value' ", 300) + ")" // one unbroken print string of 4 KB
	const (
		sameID       = "0000000000000000000000a1"
		changedID    = "0000000000000000000000b2"
		notCheckedID = "0000000000000000000000c3"
		olderID      = "0000000000000000000000d4"
	)
	doc := func(v any) json.RawMessage {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		return b
	}
	finished := time.Now().Add(-time.Minute)
	row := func(id, selector string, status refactor.Status, eq *refactor.Equivalence) refactor.Run {
		r := refactor.Run{ID: id, Kind: refactor.RunKindRefactor, ClassName: "Calculator", Selector: selector, DryRun: true,
			Status: status, Stage: "validate", Iterations: 1, CreatedAt: finished, FinishedAt: &finished}
		if eq != nil {
			r.Equivalence = doc(eq)
		}
		return r
	}
	same := row(sameID, "sum:with:", refactor.StatusProposed, &refactor.Equivalence{
		Outcome: refactor.EquivalenceSame, Activations: 12, Recorded: 7, Generated: 41, Compared: 46, Unstable: 2})
	same.FinalSource, same.OriginalSource = answerTheSum, "sum: a with: b\n\t^ a + b"
	changed := row(changedID, "average:", refactor.StatusFailed, &refactor.Equivalence{
		Outcome: refactor.EquivalenceChanged, Activations: 0, Recorded: 0, Generated: 9, Compared: 3, Unstable: 0,
		Witness: &refactor.Witness{Input: "a Calculator average: " + hostile, Original: hostileScript, Candidate: long, Aspect: "answer"}})
	changed.ErrorCode, changed.ErrorMessage = "behaviour_changed", "the last candidate does not do what the original does"
	changed.Rounds = doc([]refactor.Round{{Iteration: 1, Code: "average: aCollection\n\t^ 0", Helpers: []refactor.Helper{},
		CheckErrors: []refactor.CheckError{{Check: "behaviour_changed", Message: "the candidate does not do what the original does (answer differs)",
			Input: "round input " + hostile, Original: "round original " + hostileScript, Candidate: "round candidate " + long}}}})
	notChecked := row(notCheckedID, "max:", refactor.StatusProposed, &refactor.Equivalence{
		Outcome: refactor.EquivalenceNotChecked, Reason: "the comparison is turned off (EQUIVALENCE=off)"})
	older := row(olderID, "min:", refactor.StatusProposed, nil)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	audit, err := store.Open(ctx, filepath.Join(dir, "data", "refactord.db"))
	require.NoError(t, err)
	for _, r := range []refactor.Run{older, notChecked, changed, same} {
		require.NoError(t, audit.Create(ctx, r), r.ID)
	}
	require.NoError(t, audit.Close())
	s := start(t, dir, env...)
	require.Nil(t, s.getRun(olderID, key)["equivalence"], "an older row has no comparison")
	require.Equal(t, "changed", testenv.Dig(s.getRun(changedID, key), "equivalence", "outcome"))

	page, err := testenv.StartBrowser(t, chromium).NewPage(ctx)
	require.NoError(t, err)
	shoot := func(name string) {
		t.Helper()
		shot, err := page.Screenshot(ctx)
		require.NoError(t, err)
		path := filepath.Join(t.ArtifactDir(), name)
		require.NoError(t, os.WriteFile(path, shot, 0o644))
		t.Logf("screenshot: %s", path)
	}
	eval := func(expr string, out any) {
		t.Helper()
		require.NoError(t, page.Eval(ctx, expr, out))
	}
	text := func(selector string) string {
		t.Helper()
		var out string
		eval(`document.querySelector(`+jsString(selector)+`).innerText`, &out)
		return out
	}
	open := func(id string) {
		t.Helper()
		require.NoError(t, page.Eval(ctx, `location.hash = `+jsString("#/runs/"+id), nil))
		wait, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		require.NoError(t, page.WaitFor(wait, `!document.getElementById('run').hidden && `+
			`document.getElementById('run-facts').textContent.includes(`+jsString(id)+`) && `+
			`document.getElementById('equivalence') && document.getElementById('equivalence').childElementCount > 0 && `+
			`!document.getElementById('rounds').textContent.includes('Loading')`), "run %s and its comparison are shown", id)
	}

	require.NoError(t, page.Navigate(ctx, s.URL+"/console"))
	require.NoError(t, page.WaitFor(ctx, `!document.getElementById('key-form').hidden`))
	require.NoError(t, page.Eval(ctx, `document.getElementById('key').value = `+jsString(key)+`; document.getElementById('key-form').requestSubmit()`, nil))
	require.NoError(t, page.WaitFor(ctx, `document.querySelectorAll('#history tbody tr').length === 4`))

	// same: the outcome and every count.
	open(sameID)
	eq := text("#equivalence")
	assert.Contains(t, eq, "same")
	for _, want := range []string{"Compared\n46", "Recorded\n7", "Generated\n41", "Unstable\n2", "Reached by the tests\n12 time(s)"} {
		assert.Contains(t, eq, want)
	}
	assert.NotContains(t, eq, "No test calls this method", "the tests reach it")
	assert.NotContains(t, eq, "Witness")
	shoot("console-equivalence-same.png")

	// changed: the witness, as text, and no test reaching the method.
	open(changedID)
	eq = text("#equivalence")
	assert.Contains(t, eq, "changed")
	assert.Contains(t, eq, "No test calls this method")
	assert.Contains(t, eq, "Aspect\nanswer")
	var witness struct{ Input, Original, Candidate string }
	eval(`(() => { const w = document.querySelectorAll('#equivalence .witness-text'); `+
		`return {Input: w[0].textContent, Original: w[1].textContent, Candidate: w[2].textContent}; })()`, &witness)
	assert.Equal(t, "a Calculator average: "+hostile, witness.Input, "the image's words, as text")
	assert.Equal(t, hostileScript, witness.Original)
	assert.Equal(t, long, witness.Candidate, "the whole of a long text is in the page")
	var wrapped bool
	eval(`[...document.querySelectorAll('#equivalence .witness-text, #rounds .witness-text')].every(e => e.scrollWidth <= e.clientWidth + 1)`, &wrapped)
	assert.True(t, wrapped, "long texts wrap inside their box instead of running off the page")
	rounds := text("#rounds")
	assert.Contains(t, rounds, "behaviour_changed")
	assert.Contains(t, rounds, "round input "+hostile)
	assert.Contains(t, rounds, "round original "+hostileScript)
	var roundCandidate string
	eval(`[...document.querySelectorAll('#rounds .witness-text')].map(e => e.textContent).find(t => t.startsWith('round candidate'))`, &roundCandidate)
	assert.Equal(t, "round candidate "+long, roundCandidate)
	var made struct{ Images, Scripts int }
	eval(`({Images: document.querySelectorAll('img').length, Scripts: document.querySelectorAll('body script').length})`, &made)
	assert.Zero(t, made.Images, "no element is made of the witness")
	assert.Zero(t, made.Scripts)
	var title string
	eval(`document.title`, &title)
	assert.Equal(t, "refactord console", title, "no script of the witness ran")
	var paths []string
	eval(`performance.getEntriesByType('resource').map(e => new URL(e.name).pathname)`, &paths)
	for _, p := range paths {
		assert.False(t, strings.HasSuffix(p, "/x"), "nothing is loaded from the witness: %s", p)
	}
	shoot("console-equivalence-changed.png")

	// not_checked: its reason; nothing compared, so no word on the tests.
	open(notCheckedID)
	eq = text("#equivalence")
	assert.Contains(t, eq, "not checked")
	assert.Contains(t, eq, "EQUIVALENCE=off")
	assert.NotContains(t, eq, "No test calls this method")

	// An older row: not compared, no error.
	open(olderID)
	assert.Contains(t, text("#equivalence"), "Not compared")
	assert.Empty(t, text("#run-message"))

	assert.NotContains(t, page.Console(), "Content Security Policy", "the page runs under its policy")
	assert.NotContains(t, page.Console(), "exception", "the page's script does not fail")
}

// getRun reads one run's row with a key.
func (s *service) getRun(id, key string) map[string]any {
	s.t.Helper()
	resp, out := s.send(http.MethodGet, "/api/v1/refactorings/"+id, "", "", map[string]string{"Authorization": "Bearer " + key})
	require.Equal(s.t, http.StatusOK, resp.StatusCode, "%v", out)
	return out
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return strings.ReplaceAll(string(b), "</", `<\/`)
}
