package agents

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"pharo-refactor/pipeline/kind"
)

func TestClassifyError(t *testing.T) {
	live := context.Background()
	expired, cancel := context.WithTimeout(live, 0)
	defer cancel()
	canceled, cancel2 := context.WithCancel(live)
	cancel2()
	cause := errors.New("boom")
	cases := []struct {
		name   string
		ctx    context.Context
		status int
		err    error
		want   kind.Kind
		msg    string
	}{
		{"deadline", expired, 0, context.DeadlineExceeded, kind.Timeout, "deadline passed"},
		{"too large", live, 200, fmt.Errorf("reading: %w", ErrResponseTooLarge), kind.ModelBadOutput, "size limit"},
		{"transport", live, 0, cause, kind.ModelUnavailable, "no usable response"},
		{"auth", live, 401, cause, kind.ModelUnavailable, "refused the credentials (HTTP 401)"},
		{"bad request", live, 400, cause, kind.ModelUnavailable, "rejected the request (HTTP 400): detail"},
		{"rate limited", live, 429, cause, kind.ModelUnavailable, "rate limiting"},
		{"server", live, 503, cause, kind.ModelUnavailable, "still failing"},
		{"already classified", live, 500, kind.New(kind.ModelBadOutput, "x"), kind.ModelBadOutput, "x"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := ClassifyError(tc.ctx, "p", tc.status, "detail", tc.err)
			assert.Equal(t, tc.want, kind.Of(err))
			assert.Contains(t, err.Error(), tc.msg)
		})
	}
	err := ClassifyError(canceled, "p", 0, "", cause)
	assert.ErrorIs(t, err, context.Canceled, "a canceled run is left for the caller to judge")
	assert.ErrorIs(t, err, cause)
	assert.NoError(t, ClassifyError(live, "p", 0, "", nil))
}
