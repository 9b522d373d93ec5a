package pipeline

import (
	"cmp"
	"context"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// Prefetch in the fewest round trips the image's tools allow: the method's
// source (get_method_source: the conflict check and the rollback compare
// against exactly what the image answers there) and its class as Tonel
// (get_class_source). The class source also holds the method's protocol
// (its `{ #category : … }`) and the class comment, as Pharo's TonelWriter
// writes both (in either style: Pharo 12's strings or Pharo 11's symbols),
// so they are read from there. Only when it does not hold them is the image
// asked: the protocol of a method the class does not define itself (one
// from a trait), a class written without a comment (TonelWriter leaves an
// empty one out, and the image's answer is the reference for what "no
// comment" reads as).

// readMethodAndClass reads the method's source, its class and its protocol.
func readMethodAndClass(ctx context.Context, image refactor.Image, ref refactor.MethodRef) (refactor.Method, *scope, error) {
	m := refactor.Method{Ref: ref}
	// Two reads, asked at once; the method's error comes first, as when
	// they were asked one after the other.
	var classSrc string
	var methodErr, classErr error
	atOnce(ctx,
		func(ctx context.Context) { m.Source, methodErr = image.MethodSource(ctx, ref) },
		func(ctx context.Context) { classSrc, classErr = image.ClassSource(ctx, ref.Class) })
	if err := cmp.Or(methodErr, classErr); err != nil {
		return m, nil, err
	}
	sc, err := newScope(ref, classSrc, m.Source)
	if err != nil {
		return m, nil, err
	}
	if m.Protocol, err = sc.protocol(ctx, image); err != nil {
		return m, nil, err
	}
	return m, sc, nil
}

// protocol is the method's category in the class source, else the image's
// answer.
func (s *scope) protocol(ctx context.Context, image refactor.Image) (string, error) {
	if c, ok := s.categoryInSource(); ok {
		return c, nil
	}
	return image.Protocol(ctx, s.ref)
}

// categoryInSource finds the one method of the class source with the
// ref's side and selector and answers its category, when it has one.
func (s *scope) categoryInSource() (string, bool) {
	var found *tonel.Method
	for _, m := range s.methods {
		if m.Side != s.side() || m.Selector != s.ref.Selector {
			continue
		}
		if found != nil {
			return "", false // written twice: the image knows which one it holds
		}
		found = m
	}
	if found == nil || found.Category == "" {
		return "", false
	}
	return found.Category, true
}

// comment is the class comment in the class source, else the image's
// answer.
func (s *scope) comment(ctx context.Context, image refactor.Image) (string, error) {
	if s.def.Comment != "" {
		return s.def.Comment, nil
	}
	return image.ClassComment(ctx, s.ref.Class)
}
