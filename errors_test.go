package refactor

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestKindOf(t *testing.T) {
	base := errors.New("pipe closed")
	cases := []struct {
		name string
		err  error
		want Kind
		msg  string
	}{
		{"plain error is internal", base, Internal, "pipe closed"},
		{"new", Errorf(ClassNotFound, "class %s not found", "Foo"), ClassNotFound, "class Foo not found"},
		{"wrapped cause", Wrap(PharoUnavailable, base, "reading Foo>>bar"), PharoUnavailable, "reading Foo>>bar: pipe closed"},
		{"wrapped again with fmt", fmt.Errorf("prefetch: %w", Wrap(Timeout, context.DeadlineExceeded, "")), Timeout, "prefetch: context deadline exceeded"},
		{"outermost kind wins", Wrap(ModelBadOutput, Errorf(ModelUnavailable, "x"), "y"), ModelBadOutput, "y: x"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, KindOf(tc.err))
			assert.Equal(t, tc.msg, tc.err.Error())
			assert.True(t, IsKind(tc.err, tc.want))
		})
	}
	assert.False(t, IsKind(nil, Internal))
	assert.ErrorIs(t, Wrap(Timeout, context.DeadlineExceeded, "run"), context.DeadlineExceeded)
}
