package strictjson

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDecodeSaysWhatIsWrong: each rule refuses its body, and a refusal
// about one key names it with its path and its type.
func TestDecodeSaysWhatIsWrong(t *testing.T) {
	cases := []struct {
		body    string
		wantErr string
		key     *KeyError // nil when the error names no key
	}{
		{body: `{"class_name": "A", "class_name": "B"}`, wantErr: "is given more than once",
			key: &KeyError{Field: "class_name", Message: "is given more than once", Type: "duplicate_key"}},
		{body: `{"refactor_request": {"class_name": "A", "dry_run": true, "dry_run": false}}`, wantErr: "more than once",
			key: &KeyError{Field: "refactor_request.dry_run", Message: "is given more than once", Type: "duplicate_key"}},
		{body: `{"Class_Name": "A"}`, wantErr: `did you mean "class_name"?`,
			key: &KeyError{Field: "Class_Name", Message: `is not a field: keys are case-sensitive (did you mean "class_name"?)`, Type: "extra_forbidden"}},
		{body: `{"extra": 1}`, wantErr: "is not a field of the request",
			key: &KeyError{Field: "extra", Message: "is not a field of the request", Type: "extra_forbidden"}},
		{body: `{"refactor_request": {"dry_run": "yes"}}`, wantErr: "must be true or false, not a JSON string",
			key: &KeyError{Field: "refactor_request.dry_run", Message: "must be true or false, not a JSON string", Type: "bool_type"}},
		{body: `{"class_name": 7}`, wantErr: "must be a string, not a JSON number",
			key: &KeyError{Field: "class_name", Message: "must be a string, not a JSON number", Type: "string_type"}},
		{body: `{"refactor_request": {}, "dry_run": true}`, wantErr: `"refactor_request" must be the only field when present`},
		{body: `{"refactor_request": []}`, wantErr: `"refactor_request" must be a JSON object`},
		{body: `[]`, wantErr: "the body is not a JSON object"},
		{body: `{} {}`, wantErr: "trailing data after the JSON value"},
		{body: `{"class_name": "A"`, wantErr: "the body is not valid JSON"},
	}
	for _, tc := range cases {
		t.Run(tc.body, func(t *testing.T) {
			_, _, err := requests.Decode([]byte(tc.body))
			require.ErrorContains(t, err, tc.wantErr)
			var ke *KeyError
			if tc.key == nil {
				assert.NotErrorAs(t, err, &ke)
				return
			}
			require.ErrorAs(t, err, &ke)
			assert.Equal(t, tc.key, ke)
		})
	}
}

// A decoder without a wrapper reads the wrapper's name as any other key.
func TestDecodeWithoutAWrapper(t *testing.T) {
	type pair struct {
		A string `json:"a"`
		B *bool  `json:"b,omitempty"`
	}
	d := New[pair]("")
	v, wrapped, err := d.Decode([]byte(`{"a": "x", "b": true}`))
	require.NoError(t, err)
	assert.False(t, wrapped)
	require.NotNil(t, v.B)
	assert.Equal(t, pair{A: "x", B: v.B}, v)
	assert.True(t, *v.B)
	_, _, err = d.Decode([]byte(`{"": {"a": "x"}}`))
	assert.ErrorContains(t, err, "is not a field")
}
