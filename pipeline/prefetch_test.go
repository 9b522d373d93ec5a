package pipeline_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/pipeline"
	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// prefetchImage is the rig's image, counting the calls prefetch falls back
// to; classSource, when set, replaces what get_class_source answers (the
// same class as another Pharo version's TonelWriter writes it).
type prefetchImage struct {
	refactor.Image
	classSource string

	mu                 sync.Mutex
	protocols, comment int
}

func (i *prefetchImage) ClassSource(ctx context.Context, class string) (string, error) {
	if i.classSource != "" {
		return i.classSource, nil
	}
	return i.Image.ClassSource(ctx, class)
}

func (i *prefetchImage) Protocol(ctx context.Context, ref refactor.MethodRef) (string, error) {
	i.mu.Lock()
	i.protocols++
	i.mu.Unlock()
	return i.Image.Protocol(ctx, ref)
}

func (i *prefetchImage) ClassComment(ctx context.Context, class string) (string, error) {
	i.mu.Lock()
	i.comment++
	i.mu.Unlock()
	return i.Image.ClassComment(ctx, class)
}

// TestPrefetchReadsProtocolAndCommentAsTheImageAnswers checks, for every
// method of the parser corpus (classes, traits, extensions, both sides),
// that the protocol and the class comment prefetch reads from the class
// source are what get_class_comment and the protocol expression answer —
// with the class source as pharo-sim writes it (Pharo 12's string style,
// extension methods included) and as the corpus files hold it (Pharo 11's
// symbol style or Pharo 12's) — and that it asks the image only for what
// the class source does not hold.
func TestPrefetchReadsProtocolAndCommentAsTheImageAnswers(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOpts{noModel: true, tree: "testdata/corpus"})
	tree, err := tonel.ReadTree(r.dir)
	require.NoError(t, err)
	ctx := context.Background()
	styles := map[string]int{}
	fromSource, total := 0, 0
	for _, f := range tree.Files() {
		if f.Kind() == tonel.KindPackage {
			continue
		}
		sources := map[string]string{"as the image writes it": "", "as on disk": string(f.Bytes())}
		if f.SymbolStyle() {
			styles["symbol"]++
		} else {
			styles["string"]++
		}
		for how, classSource := range sources {
			for _, m := range f.Methods {
				ref := refactor.MethodRef{Class: f.Def.Name, Selector: m.Selector, ClassSide: m.Side == tonel.ClassSide}
				t.Run(fmt.Sprintf("%s %s", ref, how), func(t *testing.T) {
					image := &prefetchImage{Image: r.image, classSource: classSource}
					in, got, err := pipeline.Prefetch(ctx, image, ref)
					require.NoError(t, err)
					wantProtocol, err := r.image.Protocol(ctx, ref)
					require.NoError(t, err)
					wantComment, err := r.image.ClassComment(ctx, ref.Class)
					require.NoError(t, err)
					assert.Equal(t, wantProtocol, got.Protocol)
					assert.Equal(t, wantComment, in.ClassComment)

					// The class source holds the protocol of every method it
					// writes; the comment of every class that has one.
					assert.Zero(t, image.protocols, "the protocol is in the class source")
					wantCommentCalls := 0
					if f.Def.Comment == "" {
						wantCommentCalls = 1
					}
					assert.Equal(t, wantCommentCalls, image.comment, "asked for the comment")
					total++
					if image.comment == 0 {
						fromSource++
					}
				})
			}
		}
	}
	assert.Positive(t, styles["symbol"], "the corpus has files in the symbol style")
	assert.Positive(t, styles["string"], "the corpus has files in the string style")
	assert.Greater(t, fromSource, total/2, "most classes of the corpus have a comment")
	assert.Less(t, fromSource, total, "some classes (the extended ones) have none")
}

// TestPrefetchAsksForWhatTheClassSourceLacks covers the fallbacks: a method
// the class source does not write (its class uses it from a trait), one
// written without metadata, and a class without a comment.
func TestPrefetchAsksForWhatTheClassSourceLacks(t *testing.T) {
	t.Parallel()
	r := newRig(t, rigOpts{noModel: true})
	ctx := context.Background()
	ref := refactor.MethodRef{Class: "Calculator", Selector: "sum:with:"}
	real, err := r.image.ClassSource(ctx, ref.Class)
	require.NoError(t, err)
	wantProtocol, err := r.image.Protocol(ctx, ref)
	require.NoError(t, err)
	wantComment, err := r.image.ClassComment(ctx, ref.Class)
	require.NoError(t, err)
	require.NotEmpty(t, wantComment)

	header := real[strings.Index(real, "Class {") : strings.Index(real, "}\n")+2]
	cases := []struct {
		name                   string
		classSource            string
		protocolCalls, comment int
	}{
		{"everything in the class source", real, 0, 0},
		{"the method is not written there", header, 1, 1},
		{"the method has no metadata", header + "\nCalculator >> sum: a with: b [\n\t^ a + b\n]\n", 1, 1},
		{"the method is written twice", header + "\n{ #category : 'x' }\nCalculator >> sum: a with: b [\n\t^ a + b\n]\n\n{ #category : 'y' }\nCalculator >> sum: a with: b [\n\t^ a + b\n]\n", 1, 1},
		{"the instance-side method asked, the class side written", header + "\n{ #category : 'x' }\nCalculator class >> sum: a with: b [\n\t^ a + b\n]\n", 1, 1},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			image := &prefetchImage{Image: r.image, classSource: tt.classSource}
			in, got, err := pipeline.Prefetch(ctx, image, ref)
			require.NoError(t, err)
			assert.Equal(t, wantProtocol, got.Protocol)
			assert.Equal(t, wantComment, in.ClassComment)
			assert.Equal(t, tt.protocolCalls, image.protocols, "protocol calls")
			assert.Equal(t, tt.comment, image.comment, "comment calls")
		})
	}
}
