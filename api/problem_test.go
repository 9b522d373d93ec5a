package api

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/wire"
)

// TestRenderedProblemIsTheEncodedProblem: a problem rendered once and
// given a request id per answer is byte for byte the problem encoded whole
// with that id; an id that JSON would escape is refused (encoded whole).
func TestRenderedProblemIsTheEncodedProblem(t *testing.T) {
	t.Parallel()
	busy := wire.Problem{
		Type: "https://refactord.dev/problems/busy", Title: "Busy", Status: 503, StatusCode: 503,
		Detail: `Agent is busy; "request_id":"x" is not the key`, Code: "busy", RetryAfter: 7,
	}
	cases := []struct {
		id    string
		plain bool
	}{
		{"0123456789abcdef0123456789abcdef", true},
		{"client-id_1.2:3", true},
		{"", true},
		{`quote"d`, false},
		{`back\slash`, false},
		{"<html>&", false},
		{"caf\u00e9", false},
		{"tab\there", false},
	}
	r, err := renderProblem(&busy)
	require.NoError(t, err)
	for _, tc := range cases {
		t.Run(tc.id, func(t *testing.T) {
			p := busy
			p.RequestID = tc.id
			want, err := json.Marshal(&p)
			require.NoError(t, err)
			got, ok := r.body(tc.id)
			assert.Equal(t, tc.plain, ok)
			if ok {
				assert.Equal(t, string(want), string(got))
			}
		})
	}
}

// TestBusyBodyFollowsRetryAfter: the cached busy body is encoded again
// when Retry-After changes.
func TestBusyBodyFollowsRetryAfter(t *testing.T) {
	t.Parallel()
	var s Server
	p := wire.Problem{Type: "https://refactord.dev/problems/busy", Title: "Busy", Status: 503, StatusCode: 503, Code: "busy", RequestID: "a"}
	for _, retry := range []int{3, 3, 9, 1} {
		p.RetryAfter = retry
		want, err := json.Marshal(&p)
		require.NoError(t, err)
		r := s.busyBody(&p)
		require.NotNil(t, r)
		got, ok := r.body("a")
		require.True(t, ok)
		assert.Equal(t, string(want), string(got), "Retry-After %d", retry)
	}
}
