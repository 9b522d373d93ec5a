package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/internal/testenv"
)

// TestDocsInABrowser loads /docs from the running service in headless
// Chromium: the page renders every operation of the document (checked in
// the page and in a screenshot), the page runs under its Content Security
// Policy without a violation, and "Try it out" on POST /api/v1/refactor
// (its first example, a dry run) reaches the service from the page's own
// origin and answers 200.
func TestDocsInABrowser(t *testing.T) {
	chromium := testenv.Chromium()
	if chromium == "" {
		fmt.Fprintln(os.Stderr, "\n*** chromium is not installed: TestDocsInABrowser is SKIPPED (apt-get install chromium; .ci/run does) ***")
		t.Skip("chromium is not installed (apt-get install chromium)")
	}
	root, err := testenv.Root()
	require.NoError(t, err)
	dir := t.TempDir()
	image := filepath.Join(dir, "image")
	require.NoError(t, testenv.CopyTree("examples/sample-image", image))
	before := mustRead(t, calculatorFile(dir))
	env := append(testenv.ServiceEnv(bins.pharoSim(t), image, filepath.Join(dir, "data")),
		"MODEL_PROVIDER=scripted", "SCRIPTED_MODEL_FILE="+filepath.Join(root, "examples", "sample-image", "demo-model.json"))
	s := start(t, dir, env...)

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	page, err := testenv.StartBrowser(t, chromium).NewPage(ctx)
	require.NoError(t, err)
	require.NoError(t, page.Navigate(ctx, s.URL+"/docs"))

	operations := documentOperations(t, s.URL)
	require.NoError(t, page.WaitFor(ctx, fmt.Sprintf("document.querySelectorAll('.opblock').length >= %d", len(operations))),
		"the page renders every operation")
	var rendered []string
	require.NoError(t, page.Eval(ctx, `[...document.querySelectorAll('.opblock-summary')].map(e =>
		e.querySelector('.opblock-summary-method').textContent + ' ' + e.querySelector('.opblock-summary-path').textContent.replace(/\u200b/g, ''))`, &rendered))
	assert.ElementsMatch(t, operations, rendered, "the operation list is the document's")

	shot, err := page.Screenshot(ctx)
	require.NoError(t, err)
	path := filepath.Join(t.ArtifactDir(), "docs.png")
	require.NoError(t, os.WriteFile(path, shot, 0o644))
	t.Logf("screenshot of /docs: %s", path)
	pic, err := png.Decode(bytes.NewReader(shot))
	require.NoError(t, err)
	// Swagger UI draws each operation as a band in its method's colour.
	for method, colour := range map[string][3]uint8{"POST": {0x49, 0xcc, 0x90}, "GET": {0x61, 0xaf, 0xfe}} {
		assert.Greater(t, pixelsOf(pic, colour), 2000, "the screenshot shows the %s operations", method)
	}

	op := "#operations-default-refactor"
	require.NoError(t, page.Eval(ctx, `document.querySelector('`+op+` .opblock-summary-control').click()`, nil))
	require.NoError(t, page.WaitFor(ctx, `document.querySelector('`+op+` .try-out__btn')`))
	require.NoError(t, page.Eval(ctx, `document.querySelector('`+op+` .try-out__btn').click()`, nil))
	require.NoError(t, page.WaitFor(ctx, `document.querySelector('`+op+` .execute')`))
	var example string
	require.NoError(t, page.Eval(ctx, `document.querySelector('`+op+` textarea.body-param__text').value`, &example))
	assert.Contains(t, example, `"dry_run": true`, "the first example is a dry run")
	require.NoError(t, page.Eval(ctx, `document.querySelector('`+op+` .execute').click()`, nil))
	require.NoError(t, page.WaitFor(ctx, `document.querySelector('`+op+` .live-responses-table tbody .response-col_status')`), "the answer is shown")
	var status, body string
	require.NoError(t, page.Eval(ctx, `document.querySelector('`+op+` .live-responses-table tbody .response-col_status').textContent.trim()`, &status))
	require.NoError(t, page.Eval(ctx, `document.querySelector('`+op+` .live-responses-table tbody .response-col_description').textContent`, &body))
	assert.Equal(t, "200", status, "%s", body)
	assert.Contains(t, body, `"outcome": "proposed"`)

	runs := s.runs()
	require.Len(t, runs, 1, "the page's request reached the service")
	assert.Equal(t, "proposed", runs[0]["status"])
	assert.Equal(t, true, runs[0]["dry_run"])
	assert.Equal(t, before, mustRead(t, calculatorFile(dir)), "a dry run changes nothing")
	assert.NotContains(t, page.Console(), "Content Security Policy", "the page runs under its policy")
}

// documentOperations lists "METHOD /path" for every operation of
// /openapi.json but the CORS preflights (Swagger UI lists OPTIONS too).
func documentOperations(t *testing.T, url string) []string {
	t.Helper()
	resp, err := http.Get(url + "/openapi.json")
	require.NoError(t, err)
	defer resp.Body.Close()
	var doc struct {
		Paths map[string]map[string]any `json:"paths"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&doc))
	var ops []string
	for path, methods := range doc.Paths {
		for method := range methods {
			ops = append(ops, fmt.Sprintf("%s %s", upper(method), path))
		}
	}
	return ops
}

func upper(s string) string { return string(bytes.ToUpper([]byte(s))) }

// pixelsOf counts the pixels of a colour (give or take a little).
func pixelsOf(pic image.Image, want [3]uint8) int {
	n := 0
	b := pic.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := pic.At(x, y).RGBA()
			if near(r>>8, want[0]) && near(g>>8, want[1]) && near(bl>>8, want[2]) {
				n++
			}
		}
	}
	return n
}

func near(got uint32, want uint8) bool {
	d := int(got) - int(want)
	return d >= -6 && d <= 6
}
