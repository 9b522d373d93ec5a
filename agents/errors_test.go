package agents

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	refactor "github.com/pharo-refactor/refactord"
)

func TestClassifyError(t *testing.T) {
	t.Parallel()
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
		want   refactor.Kind
		msg    string
	}{
		{"deadline", expired, 0, context.DeadlineExceeded, refactor.Timeout, "deadline passed"},
		{"too large", live, 200, fmt.Errorf("reading: %w", errResponseTooLarge), refactor.ModelBadOutput, "size limit"},
		{"transport", live, 0, cause, refactor.ModelUnavailable, "no usable response"},
		{"auth", live, 401, cause, refactor.ModelUnavailable, "refused the credentials (HTTP 401)"},
		{"bad request", live, 400, cause, refactor.ModelUnavailable, "rejected the request (HTTP 400): detail"},
		{"rate limited", live, 429, cause, refactor.ModelUnavailable, "rate limiting"},
		{"server", live, 503, cause, refactor.ModelUnavailable, "still failing"},
		{"already classified", live, 500, refactor.Errorf(refactor.ModelBadOutput, "x"), refactor.ModelBadOutput, "x"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := ClassifyError(tc.ctx, "p", tc.status, "detail", tc.err)
			assert.Equal(t, tc.want, refactor.KindOf(err))
			assert.Contains(t, err.Error(), tc.msg)
		})
	}
	err := ClassifyError(canceled, "p", 0, "", cause)
	assert.ErrorIs(t, err, context.Canceled, "a canceled run is left for the caller to judge")
	assert.ErrorIs(t, err, cause)
	assert.NoError(t, ClassifyError(live, "p", 0, "", nil))
}
