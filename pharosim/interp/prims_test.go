package interp

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
	ok := func(in *Interp, r Object, a []Object) (Object, bool) { return r, true }
	all, err := registerPrimitives(map[string]primitive{"a": ok, "b": ok}, map[string]primitive{"c": ok})
	require.NoError(t, err)
	assert.Len(t, all, 3)
	_, err = registerPrimitives(map[string]primitive{"a": ok, "b": ok}, map[string]primitive{"b": ok})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "two primitives are named b")
}

// primitiveArities answers, for each primitive the kernel names, how many
// arguments its methods take.
func primitiveArities(t *testing.T) map[string]int {
	k, err := kernel()
	require.NoError(t, err)
	arity := map[string]int{}
	for _, m := range k.Methods {
		if m.parsed == nil {
			continue
		}
		for _, p := range m.parsed.Pragmas {
			if p.Selector == "primitive:" && len(p.Args) == 1 {
				arity[p.Args[0].Value] = len(m.parsed.Args)
			}
		}
	}
	return arity
}

// probeSelector is the selector of a probe method of n arguments.
func probeSelector(name string, n int) (selector, header string) {
	base := "probe" + strings.NewReplacer(".", "_").Replace(name)
	if n == 0 {
		return base, base
	}
	selector, header = base+":", base+": a1"
	for i := 2; i <= n; i++ {
		selector += "with:"
		header += fmt.Sprintf(" with: a%d", i)
	}
	return selector, header
}

// TestAWrongTypeFailsThePrimitive: a primitive given a receiver or an
// argument of a kind it does not take fails, and its method's Smalltalk
// fallback runs — as in Pharo, never a Go panic.
func TestAWrongTypeFailsThePrimitive(t *testing.T) {
	t.Parallel()
	cases := []struct{ primitive, receiver string }{
		{"numArgs", "3"}, {"value", "3"}, {"valueWithArguments", "3"}, {"blockSource", "'x'"},
		{"ensure", "nil"}, {"ifCurtailed", "#foo"}, {"onDo", "3"},
		{"signal", "3"}, {"exReturn", "3"}, {"exRetry", "$a"}, {"exResume", "3"}, {"exOuter", "3"},
		{"exHandled", "nil"}, {"unhandledError", "3"},
		{"arrayNew", "3"}, {"strNew", "'x'"}, {"growAdd", "3"}, {"growAddFirst", "nil"}, {"growInsert", "3"},
		{"growRemoveIndex", "3"}, {"growRemoveAll", "3"}, {"sortBlock", "3"},
		{"tableAt", "3"}, {"tableAtPut", "3"}, {"tableRemove", "nil"}, {"tableKeys", "3"}, {"tableValues", "3"},
		{"tableSize", "3"}, {"tableIncludes", "3"}, {"tableAssociationAt", "3"}, {"tableAddAssociation", "3"},
		{"tableCompareByIdentity", "3"}, {"tableCompareWith", "3"}, {"tableIsHealthy", "3"},
		{"tableRemoveAll", "3"}, {"tableRehash", "3"},
		{"includesSelector", "3"}, {"canUnderstand", "'x'"}, {"selectors", "3"}, {"instanceClass", "3"},
		{"isMeta", "nil"}, {"category", "3"}, {"instVarNames", "3"}, {"subclasses", "3"}, {"hasPragma", "3"},
		{"superclass", "3"},
		{"numerator", "3"}, {"denominator", "Fraction basicNew"}, {"printFloat", "3"}, {"floatSpecial", "(1/2)"},
		{"charValue", "3"}, {"char.isLetter", "3"}, {"char.category.isMathSymbol", "'+'"},
	}
	arity := primitiveArities(t)
	var extra []MethodSource
	for _, c := range cases {
		n, ok := arity[c.primitive]
		require.True(t, ok, "the kernel names the primitive %s", c.primitive)
		_, header := probeSelector(c.primitive, n)
		extra = append(extra, MethodSource{Class: "Object",
			Source: header + "\n\t<primitive: '" + c.primitive + "'>\n\t^ #fallback"})
	}
	for _, c := range cases {
		t.Run(c.primitive+" of "+c.receiver, func(t *testing.T) {
			sel, _ := probeSelector(c.primitive, arity[c.primitive])
			send := strings.ReplaceAll(sel, ":", ": 3 ")
			assert.Equal(t, "#fallback", runDoIt(t, extra, "("+c.receiver+") "+send))
		})
	}
}

// TestNoPrimitivePanicsOnWhatItIsGiven: every primitive, sent to
// receivers and arguments of every kind, answers, fails into its
// fallback or signals — the interpreter itself never fails.
func TestNoPrimitivePanicsOnWhatItIsGiven(t *testing.T) {
	t.Parallel()
	arity := primitiveArities(t)
	names := slices.Sorted(maps.Keys(arity))
	var extra []MethodSource
	for _, name := range names {
		_, header := probeSelector(name, arity[name])
		extra = append(extra, MethodSource{Class: "Object",
			Source: header + "\n\t<primitive: '" + name + "'>\n\t^ #fallback"})
	}
	in, err := New(&Program{Methods: extra}, Limits{Steps: 100_000})
	require.NoError(t, err)
	values := []string{"nil", "3", "(1/2)", "1.5", "$a", "#foo", "'x'", "#(1 2)", "[ :x | x ]", "Object", "Error new",
		"Dictionary new", "(1 << 70)"}
	for _, name := range names {
		for _, v := range values {
			sel, _ := probeSelector(name, arity[name])
			send := strings.ReplaceAll(sel, ":", ": "+v+" ")
			doIt := compile(in.classes["UndefinedObject"], "probe\n\t^ ("+v+") "+send)
			require.NoError(t, doIt.err)
			doIt.compileBody()
			var failed string
			in.guard(100_000, func() { in.invoke(doIt, nil, nil) }, func(d string) { failed = d })
			assert.NotContains(t, failed, "interpreter failed", "%s sent to %s with %s", name, v, v)
		}
	}
}
