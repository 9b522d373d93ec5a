package agents

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A method's Smalltalk comment written into "code" without escaping its
// quotes is mended on the tolerant path, and only where the object's shape
// leaves no doubt.
func TestBareQuotesInCodeAreRepairedConservatively(t *testing.T) {
	t.Parallel()
	const method = "total\n\t\"Answer what the customer pays\"\n\n\t^ self totalWithoutTax * 2"
	cases := []struct {
		name  string
		text  string
		code  string // "" when the answer must stay unusable
		notes string
	}{
		{name: "code then notes",
			text: `{"code": "total\n\t"Answer what the customer pays"\n\n\t^ self totalWithoutTax * 2", "notes": "Reuses "totalWithoutTax"."}`,
			code: method, notes: `Reuses "totalWithoutTax".`},
		{name: "raw newlines and quotes",
			text: "{\"code\": \"total\n\t\"Answer what the customer pays\"\n\n\t^ self totalWithoutTax * 2\",\n \"notes\": \"n\"}",
			code: method, notes: "n"},
		{name: "notes first, code last",
			text: `{"notes": "n", "code": "total\n\t"Answer what the customer pays"\n\n\t^ self totalWithoutTax * 2"}`,
			code: method, notes: "n"},
		{name: "in a json fence after reasoning",
			text: "<think>draft</think>\n```json\n" + `{"code": "total\n\t"Answer what the customer pays"\n\n\t^ self totalWithoutTax * 2", "notes": "n"}` + "\n```",
			code: method, notes: "n"},
		{name: "escaped quotes stay as written",
			text: `{"code": "total\n\t\"Answer\" "what"\n\t^ 1", "notes": "n"}`,
			code: "total\n\t\"Answer\" \"what\"\n\t^ 1", notes: "n"},
		{name: "a comment before a closing brace inside the code",
			text: `{"notes": "n", "code": "pair\n\t^ { 1. 2 "two" }"}`,
			code: "pair\n\t^ { 1. 2 \"two\" }", notes: "n"},
		{name: "two places where code could end: ambiguous",
			text: `{"code": "foo\n\t"a", "notes": "b"\n\t^ 1", "notes": "n"}`},
		{name: "prose after the object: not repaired",
			text: `{"code": "foo\n\t"a"\n\t^ 1", "notes": "n"} I hope this helps.`},
		{name: "an unknown key: not repaired",
			text: `{"code": "foo\n\t"a"\n\t^ 1", "verdict": "APPROVED"}`},
		{name: "a key twice: not repaired",
			text: `{"code": "foo\n\t"a"\n\t^ 1", "code": "bar"}`},
		{name: "not a string value: not repaired",
			text: `{"code": "foo\n\t"a"\n\t^ 1", "notes": ["n"]}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := parseCandidate(tc.text, "ShoppingCart", tolerant)
			if tc.code == "" {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.code, c.Code)
			assert.Equal(t, tc.notes, c.Notes)
		})
	}
}

// The constrained path and the validator never repair: an answer made
// under a schema is valid JSON or unusable, and a verdict with bare quotes
// is never read as approval.
func TestRepairIsNeverAppliedToConstrainedAnswersOrVerdicts(t *testing.T) {
	t.Parallel()
	_, err := parseCandidate(`{"code": "foo\n\t"a"\n\t^ 1", "notes": "n"}`, "Foo", constrainedMode)
	assert.Error(t, err)
	for _, mode := range []mode{tolerant, constrainedMode} {
		v, err := parseVerdict(`{"verdict": "APPROVED", "feedback": "keeps the "comment"", "issues": []}`, mode)
		assert.False(t, err == nil && v.Approved(), "mode %d", mode)
	}
}

// Whatever repairQuotes answers is one JSON object of string values under
// the expected keys, and only quotes were added to it.
func FuzzRepairQuotes(f *testing.F) {
	for _, s := range []string{
		`{"code": "foo\n\t"a"\n\t^ 1", "notes": "n"}`, `{"notes": "n", "code": "x "y" z"}`,
		"```json\n{\"code\": \"a\"b\"}\n```", `{"code": "\\"}`, `{"code": "a\", "notes": "b"}`,
	} {
		f.Add(s)
	}
	keys := []string{"code", "notes"}
	f.Fuzz(func(t *testing.T, text string) {
		obj, ok := repairQuotes(text, keys)
		if !ok {
			return
		}
		var fields map[string]string
		require.NoError(t, json.Unmarshal(obj, &fields), "repaired %q into %s", text, obj)
		for k := range fields {
			assert.Contains(t, keys, k)
		}
	})
}
