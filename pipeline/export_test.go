package pipeline

import (
	"context"

	refactor "github.com/pharo-refactor/refactord"
)

// Prefetch is what a run's prefetch reads for ref: the roles' input and
// the method with its protocol.
func Prefetch(ctx context.Context, image refactor.Image, ref refactor.MethodRef) (refactor.Input, refactor.Method, error) {
	in, m, _, err := readInput(ctx, image, ref)
	return in, m, err
}
