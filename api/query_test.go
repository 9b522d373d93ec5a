package api_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRepeatedQueryParametersAreRefused: a parameter given twice is a 400
// naming it on every route (a gateway may read the other value); one value
// each is served.
func TestRepeatedQueryParametersAreRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	cases := []struct {
		name   string
		path   string
		status int
		names  string
	}{
		{"limit twice", "/api/v1/refactorings?limit=1&limit=-5", 400, `"limit"`},
		{"outcome twice, other apart", "/api/v1/refactorings?limit=2&outcome=released&outcome=failed", 400, `"outcome"`},
		{"an empty second value", "/api/v1/refactorings?class_name=Calculator&class_name=", 400, `"class_name"`},
		{"on a page", "/health?x=1&x=2", 400, `"x"`},
		{"a run's row", "/api/v1/refactorings/nope?a=1&a=1", 400, `"a"`},
		{"a bad escape", "/api/v1/refactorings?limit=%zz", 400, "cannot be read"},
		{"each once", "/api/v1/refactorings?limit=1&outcome=released", 200, ""},
		{"none", "/health", 200, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, data := h.do(http.MethodGet, tc.path, "", nil)
			require.Equal(t, tc.status, resp.StatusCode, "%s", data)
			if tc.status != 400 {
				return
			}
			var p map[string]any
			require.NoError(t, json.Unmarshal(data, &p))
			assert.Equal(t, "invalid_request", p["code"])
			assert.Contains(t, p["detail"], tc.names)
		})
	}
}
