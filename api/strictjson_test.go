package api

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzDecodeRefactor: a body the service accepts is read the same way by a
// reader that matches keys exactly (a gateway, a log, a map): no key twice,
// none in another case, so the case-folding struct decoder cannot disagree.
func FuzzDecodeRefactor(f *testing.F) {
	for _, seed := range []string{
		`{"class_name": "Calculator", "method_name": "sum:with:"}`,
		`{"class_name": "Calculator", "method_name": "sum:with:", "dry_run": true, "Dry_Run": false}`,
		`{"class_name": "Calculator", "method_name": "sum:with:", "dry_run": true, "dry_run": false}`,
		`{"refactor_request": {"class_name": "Foo class", "method_name": "bar", "is_class_method": false, "run_tests": null}}`,
		`{"refactor_request": {"class_name": "Foo", "method_name": "bar"}, "refactor_request": {}}`,
		`{"class_name": "A", "method_name": "b", "dry\u005frun": true}`,
		`{"CLASS_NAME": "A", "method_name": "b"}`,
		`[{"a": 1, "a": 2}]`,
		`null`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, wrapped, err := decodeRefactor(body)
		if err != nil {
			return
		}
		var exact map[string]any
		require.NoError(t, json.Unmarshal(body, &exact))
		inner, isWrapped := exact[wrapperKey]
		assert.Equal(t, isWrapped, wrapped)
		if isWrapped {
			exact = inner.(map[string]any)
		}
		// Names are read without the blanks around them; "Foo class" is the
		// class side.
		class, _ := exact["class_name"].(string)
		class = strings.TrimSpace(class)
		classSide, _ := exact["is_class_method"].(bool)
		if words := strings.Fields(class); len(words) == 2 && words[1] == "class" {
			class, classSide = words[0], true
		}
		assert.Equal(t, class, req.ClassName)
		method, _ := exact["method_name"].(string)
		assert.Equal(t, strings.TrimSpace(method), req.MethodName)
		assert.Equal(t, classSide, req.IsClassMethod)
		dry, _ := exact["dry_run"].(bool)
		assert.Equal(t, dry, req.DryRun)
		tests, given := exact["run_tests"].(bool)
		if given {
			require.NotNil(t, req.RunTests)
			assert.Equal(t, tests, *req.RunTests)
		}
	})
}
