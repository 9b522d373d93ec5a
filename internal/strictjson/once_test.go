package strictjson

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/wire"
)

// requests decodes the service's request, the type the decoder was made for.
var requests = New[wire.RefactorRequest]("refactor_request")

// decodeSeeds are bodies well-formed and not: the fuzz targets start from
// them, and every one is checked as a case.
var decodeSeeds = []string{
	`{"class_name": "Calculator", "method_name": "sum:with:"}`,
	`{"class_name": "Calculator", "method_name": "sum:with:", "dry_run": true, "run_tests": false, "is_class_method": null}`,
	`{"refactor_request": {"class_name": "Foo class", "method_name": "bar", "is_class_method": false, "run_tests": null}}`,
	`{"refactor_request": {"class_name": "Foo", "method_name": "bar"}}`,
	`{"refactor_request": {}}`,
	`{}`,
	` {"class_name":"A","method_name":"b\u0021"} `,
	`{"class_name": "Calculator", "method_name": "sum:with:", "dry_run": true, "Dry_Run": false}`,
	`{"class_name": "Calculator", "method_name": "sum:with:", "dry_run": true, "dry_run": false}`,
	`{"refactor_request": {"class_name": "Foo", "method_name": "bar"}, "refactor_request": {}}`,
	`{"refactor_request": {"class_name": "Foo"}, "dry_run": true}`,
	`{"dry_run": true, "refactor_request": {"class_name": "Foo"}}`,
	`{"refactor_request": null}`,
	`{"refactor_request": {"refactor_request": {}}}`,
	`{"class_name": "A", "method_name": "b", "dry\u005frun": true}`,
	`{"CLASS_NAME": "A", "method_name": "b"}`,
	`{"class_name": 1, "method_name": "b"}`,
	`{"class_name": {"a": 1, "a": 2}, "method_name": "b"}`,
	`{"class_name": ["A"], "method_name": "b"}`,
	`{"class_name": "A", "method_name": "b", "dry_run": "yes"}`,
	`{"class_name": "A", "method_name": "b", "run_tests": 1}`,
	`{"class_name": "A", "method_name": "b", "extra": 1}`,
	`{"class_name": "A", "method_name": "b"} {}`,
	`{"class_name": "A", "method_name": "b"`,
	`[{"a": 1, "a": 2}]`,
	`null`,
	``,
}

// TestDecodeOnceAgreesWithTheStrictPasses: what the one pass accepts, the
// strict passes accept as the same request; what it leaves to them, they
// decide.
func TestDecodeOnceAgreesWithTheStrictPasses(t *testing.T) {
	accepted := 0
	for _, body := range decodeSeeds {
		t.Run(body, func(t *testing.T) {
			if agreesWithStrict(t, []byte(body)) {
				accepted++
			}
		})
	}
	assert.Equal(t, 6, accepted, "the well-formed seeds without escapes are read in one pass")
}

// FuzzDecodeOnce holds the one pass to the strict passes' answer.
func FuzzDecodeOnce(f *testing.F) {
	for _, seed := range decodeSeeds {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) { agreesWithStrict(t, body) })
}

// agreesWithStrict checks one body and reports whether the one pass took it.
func agreesWithStrict(t *testing.T, body []byte) bool {
	t.Helper()
	once, onceWrapped, ok := requests.decodeOnce(body)
	if !ok {
		return false
	}
	strict, strictWrapped, err := requests.strictDecode(body)
	require.NoError(t, err, "the one pass accepted what the strict passes refuse")
	assert.Equal(t, strict, once)
	assert.Equal(t, strictWrapped, onceWrapped, "both say whether the body was wrapped")
	return true
}
