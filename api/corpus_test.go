package api_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharo-refactor/internal/testenv"
	"pharo-refactor/smalltalk/tonel"
)

// Every method of the 444-method corpus, served by pharo-sim and fed back
// as the candidate for itself, passes the checks end to end — capabilities
// (the image's package lists included), undeclared names, the dry compile —
// and is proposed: no false refusals on real code.
func TestCorpusMethodsAreNotRefusedAsTheirOwnCandidates(t *testing.T) {
	root, err := testenv.Root()
	require.NoError(t, err)
	tree, err := tonel.ReadTree(filepath.Join(root, "testdata", "corpus"))
	require.NoError(t, err)
	h := newHarness(t, harnessOpts{maxIterations: 1, image: "testdata/corpus"})
	h.gem.Set("reviewer", testenv.Review())
	h.gem.Set("validator", testenv.Approved())
	methods, proposed := 0, 0
	for _, f := range tree.Files() {
		for _, m := range f.Methods {
			methods++
			h.gem.Set("writer", testenv.Code(m.Source))
			body, _ := json.Marshal(map[string]any{"class_name": f.Def.Name, "method_name": m.Selector,
				"is_class_method": m.Side == tonel.ClassSide, "dry_run": true})
			// Plain HTTP: validating 444 answers against openapi.yaml would
			// triple the time and prove nothing the other tests do not.
			resp, err := http.Post(h.url+"/api/v1/refactor", "application/json", bytes.NewReader(body))
			require.NoError(t, err)
			data, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			require.NoError(t, resp.Body.Close())
			var out struct {
				Feedback string `json:"feedback"`
			}
			require.NoError(t, json.Unmarshal(data, &out), "%s", data)
			subject := f.Def.Name + ">>" + m.Selector
			if resp.StatusCode == http.StatusOK {
				proposed++
				continue
			}
			assert.NotContains(t, out.Feedback, "- capability", "%s was refused a capability it already uses", subject)
			t.Errorf("%s: %d %s", subject, resp.StatusCode, data)
		}
	}
	assert.Equal(t, 444, methods)
	assert.Equal(t, methods, proposed, "every method passes every check as its own candidate")
}
