package pipeline

import (
	"context"
	"fmt"

	"go.uber.org/zap"

	refactor "github.com/pharo-refactor/refactord"
)

// helpersAbsent refuses a release whose helpers someone added to the class
// during the run: installing them would overwrite that work.
func (p *Pipeline) helpersAbsent(ctx context.Context, class string, helpers []refactor.Helper) error {
	for _, h := range helpers {
		_, err := p.image.MethodSource(ctx, h.Ref(class))
		switch {
		case refactor.IsKind(err, refactor.MethodNotFound):
			continue
		case err != nil:
			return fmt.Errorf("checking that helper %s is still new: %w", h.Ref(class), err)
		}
		return refactor.Errorf(refactor.MethodChanged, "%s was added to the image during the run; nothing was released", h.Ref(class))
	}
	return nil
}

// removeHelpers removes the helpers and confirms each is gone, waiting out
// a restart of the image connection. Removing one that is absent is fine:
// a rollback may come before every helper was installed.
func (p *Pipeline) removeHelpers(ctx context.Context, log *zap.Logger, class string, helpers []refactor.Helper) error {
	for _, h := range helpers {
		ref := h.Ref(class)
		err := untilImageAnswers(ctx, log, "removing "+ref.String(), func(ctx context.Context) error {
			_, err := p.image.Remove(ctx, ref)
			return err
		})
		if err != nil {
			return fmt.Errorf("removing helper %s: %w", ref, err)
		}
		err = untilImageAnswers(ctx, log, "confirming "+ref.String()+" is gone", func(ctx context.Context) error {
			_, err := p.image.MethodSource(ctx, ref)
			return err
		})
		if !refactor.IsKind(err, refactor.MethodNotFound) {
			return fmt.Errorf("helper %s is still in the image after its removal: %v", ref, err)
		}
	}
	return nil
}

// helpersHeld counts the helpers the image holds with their source, and
// those it holds with other source (someone else's methods now).
func (p *Pipeline) helpersHeld(ctx context.Context, class string, helpers []refactor.Helper) (held, foreign int, err error) {
	for _, h := range helpers {
		src, err := p.image.MethodSource(ctx, h.Ref(class))
		switch {
		case refactor.IsKind(err, refactor.MethodNotFound):
		case err != nil:
			return 0, 0, fmt.Errorf("reading helper %s: %w", h.Ref(class), err)
		case refactor.SameSource(src, h.Source):
			held++
		default:
			foreign++
		}
	}
	return held, foreign, nil
}

// installHelpers compiles every helper the image lacks and reads it back
// (reconciliation completing a set; helpersHeld has ruled out foreign
// sources).
func (p *Pipeline) installHelpers(ctx context.Context, class string, helpers []refactor.Helper) error {
	for _, h := range helpers {
		ref := h.Ref(class)
		src, err := p.image.MethodSource(ctx, ref)
		switch {
		case err == nil && refactor.SameSource(src, h.Source):
			continue
		case !refactor.IsKind(err, refactor.MethodNotFound):
			return fmt.Errorf("reading helper %s: %w", ref, err)
		}
		if err := p.image.Install(ctx, ref, h.Source, h.Protocol); err != nil {
			return fmt.Errorf("installing helper %s: %w", ref, err)
		}
		back, err := p.image.MethodSource(ctx, ref)
		if err != nil {
			return fmt.Errorf("reading helper %s back: %w", ref, err)
		}
		if !refactor.SameSource(back, h.Source) {
			return fmt.Errorf("%s holds other source after installing the helper", ref)
		}
	}
	return nil
}
