package api

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadBodyReadsTheWholeBodyUpToTheLimit(t *testing.T) {
	long := strings.Repeat("x", 3*bytes.MinRead) // past the first buffer when no length is declared
	tests := []struct {
		name     string
		body     string
		declared int64 // Content-Length; -1 unknown (chunked)
		limit    int64
		wantErr  error
	}{
		{"declared", `{"class_name":"Calculator"}`, 27, 100, nil},
		{"unknown length", `{"class_name":"Calculator"}`, -1, 100, nil},
		{"unknown length, longer than a read", long, -1, 4 * bytes.MinRead, nil},
		{"declared, longer than a read", long, int64(len(long)), 4 * bytes.MinRead, nil},
		{"empty", "", 0, 100, nil},
		{"exactly the limit", "abcd", 4, 4, nil},
		{"over the limit", "abcde", 5, 4, errBodyTooLarge},
		{"over the limit, unknown length", long, -1, bytes.MinRead, errBodyTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/api/v1/refactor", strings.NewReader(tc.body))
			r.ContentLength = tc.declared
			got, err := readBody(r, tc.limit)
			if tc.wantErr != nil {
				assert.ErrorIs(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.body, string(got))
		})
	}
}
