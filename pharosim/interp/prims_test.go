package interp

import (
	"maps"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pragmaCoverage answers the primitive names pragmas give that no
// primitive has, and the primitives no pragma names.
func pragmaCoverage(methods []MethodSource, registered map[string]primitive) (unknown, unused []string) {
	named := map[string]bool{}
	for _, m := range methods {
		if m.parsed == nil {
			continue
		}
		for _, p := range m.parsed.Pragmas {
			if p.Selector == "primitive:" && len(p.Args) == 1 {
				named[p.Args[0].Value] = true
			}
		}
	}
	for n := range named {
		if _, ok := registered[n]; !ok {
			unknown = append(unknown, n)
		}
	}
	for n := range registered {
		if !named[n] {
			unused = append(unused, n)
		}
	}
	sort.Strings(unknown)
	sort.Strings(unused)
	return unknown, unused
}

// TestEveryPrimitivePragmaNamesARegisteredPrimitive: a pragma naming no
// primitive makes its method run its fallback every time (or signal an
// unknown primitive), and a primitive no pragma names is dead code.
func TestEveryPrimitivePragmaNamesARegisteredPrimitive(t *testing.T) {
	k, err := kernel()
	require.NoError(t, err)
	unknown, unused := pragmaCoverage(k.Methods, primitives)
	assert.Empty(t, unknown, "pragmas name these, no primitive is registered under them")
	assert.Empty(t, unused, "these primitives are registered, no pragma names them")
}

// TestPragmaCoverageFindsEitherBreak: the check above fails when a pragma
// names a primitive nobody registered, and when a primitive is registered
// that no pragma names.
func TestPragmaCoverageFindsEitherBreak(t *testing.T) {
	ok := func(in *Interp, r Object, a []Object) (Object, bool) { return r, true }
	methods := func(sources ...string) []MethodSource {
		out := make([]MethodSource, len(sources))
		for i, s := range sources {
			m := compile(nil, s)
			require.NoError(t, m.err, s)
			out[i] = MethodSource{Source: s, parsed: m.ast}
		}
		return out
	}
	cases := []struct {
		name            string
		methods         []MethodSource
		registered      map[string]primitive
		unknown, unused []string
	}{
		{"matched", methods("a <primitive: 'pa'> ^ 1", "b ^ 2"), map[string]primitive{"pa": ok}, nil, nil},
		{"a pragma names nothing registered", methods("a <primitive: 'pa'> ^ 1", "b <primitive: 'typo'> ^ 2"),
			map[string]primitive{"pa": ok}, []string{"typo"}, nil},
		{"a primitive no pragma names", methods("a <primitive: 'pa'> ^ 1"),
			map[string]primitive{"pa": ok, "dead": ok}, nil, []string{"dead"}},
		{"the real kernel without one of its primitives", nil, nil, nil, nil},
	}
	k, err := kernel()
	require.NoError(t, err)
	without := maps.Clone(primitives)
	delete(without, "strSize")
	cases[3].methods, cases[3].registered, cases[3].unknown = k.Methods, without, []string{"strSize"}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			unknown, unused := pragmaCoverage(c.methods, c.registered)
			assert.Equal(t, c.unknown, unknown)
			assert.Equal(t, c.unused, unused)
		})
	}
}

// TestTheRegistryRefusesANameTwice: two areas registering one name stop
// the package at start instead of one silently replacing the other.
func TestTheRegistryRefusesANameTwice(t *testing.T) {
	ok := func(in *Interp, r Object, a []Object) (Object, bool) { return r, true }
	all, err := registerPrimitives(map[string]primitive{"a": ok, "b": ok}, map[string]primitive{"c": ok})
	require.NoError(t, err)
	assert.Len(t, all, 3)
	_, err = registerPrimitives(map[string]primitive{"a": ok, "b": ok}, map[string]primitive{"b": ok})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "two primitives are named b")
}
