package kind

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestOf(t *testing.T) {
	base := errors.New("pipe closed")
	cases := []struct {
		name string
		err  error
		want Kind
		msg  string
	}{
		{"plain error is internal", base, Internal, "pipe closed"},
		{"new", New(ClassNotFound, "class %s not found", "Foo"), ClassNotFound, "class Foo not found"},
		{"wrapped cause", Wrap(PharoUnavailable, base, "reading Foo>>bar"), PharoUnavailable, "reading Foo>>bar: pipe closed"},
		{"wrapped again with fmt", fmt.Errorf("prefetch: %w", Wrap(Timeout, context.DeadlineExceeded, "")), Timeout, "prefetch: context deadline exceeded"},
		{"outermost kind wins", Wrap(ModelBadOutput, New(ModelUnavailable, "x"), "y"), ModelBadOutput, "y: x"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Of(tc.err))
			assert.Equal(t, tc.msg, tc.err.Error())
			assert.True(t, Is(tc.err, tc.want))
		})
	}
	assert.False(t, Is(nil, Internal))
	assert.ErrorIs(t, Wrap(Timeout, context.DeadlineExceeded, "run"), context.DeadlineExceeded)
}
