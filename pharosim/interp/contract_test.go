package interp

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// redefined is a kernel class's definition with other instance variables.
func redefined(t *testing.T, name string, instVars ...string) tonel.Definition {
	t.Helper()
	k, err := kernel()
	require.NoError(t, err)
	i := slices.IndexFunc(k.Classes, func(d tonel.Definition) bool { return d.Name == name })
	require.GreaterOrEqual(t, i, 0, "the kernel defines %s", name)
	d := k.Classes[i]
	d.InstVars = instVars
	return d
}

// TestTheKernelVariablesGoReadsAreFoundByName: the variables Go reads in
// kernel objects are found by their names, wherever a definition puts
// them; one missing stops New with an error naming it.
func TestTheKernelVariablesGoReadsAreFoundByName(t *testing.T) {
	t.Parallel()
	reordered := []struct {
		name, class string
		instVars    []string
		expr, want  string
	}{
		{"Message", "Message", []string{"lookupClass", "arguments", "selector"},
			"[ nil foo: 1 bar: 2 ] on: MessageNotUnderstood do: [ :e | { e message selector. e message arguments } ]", "#(#foo:bar: #(1 2))"},
		{"ScaledDecimal", "ScaledDecimal", []string{"scale", "fraction"}, "1.40s2 + 1", "2.40s2"},
		{"Random", "Random", []string{"seed", "state"},
			"| g | g := Random seed: 42. (1 to: 2) collect: [ :i | g nextIntegerBetween: 0 and: 16r7FFFFFFF ]", "#(1123384278 1795671209)"},
		{"RxMatcher", "RxMatcher", []string{"lastPositions", "lastString", "ignoreCase", "pattern"}, "'abc' matchesRegex: 'a.c'", "true"},
		{"PositionableStream", "PositionableStream", []string{"readLimit", "position", "collection"},
			"| s | s := ReadStream on: 'abc'. s next. { s next. s peek. s atEnd }", "#($b $c false)"},
	}
	for _, c := range reordered {
		t.Run("reordered "+c.name, func(t *testing.T) {
			in, err := New(&Program{Classes: []tonel.Definition{redefined(t, c.class, c.instVars...)},
				Methods: []MethodSource{{Class: "UndefinedObject", Source: "doIt\n\t^ [ " + c.expr + " ] value printString"}}},
				Limits{Steps: 1_000_000})
			require.NoError(t, err)
			require.Equal(t, c.instVars, in.classes[c.class].ivarNames[len(in.classes[c.class].ivarNames)-len(c.instVars):],
				"the class is redefined")
			var out string
			in.guard(1_000_000, func() { out = str(in.Send(nil, "doIt")) }, func(d string) { out = "ERROR: " + d })
			assert.Equal(t, c.want, out)
		})
	}
	missing := []struct {
		class    string
		instVars []string
		variable string
	}{
		{"Message", []string{"selector", "lookupClass"}, "arguments"},
		{"ScaledDecimal", []string{"fraction"}, "scale"},
		{"Random", []string{"seed"}, "state"},
		{"RxMatcher", []string{"ignoreCase"}, "pattern"},
		{"PositionableStream", []string{"collection", "readLimit"}, "position"},
		{"WriteStream", nil, "writeLimit"},
	}
	for _, c := range missing {
		t.Run("without "+c.class+">>"+c.variable, func(t *testing.T) {
			_, err := New(&Program{Classes: []tonel.Definition{redefined(t, c.class, c.instVars...)}}, Limits{})
			require.Error(t, err)
			assert.Contains(t, err.Error(), "instance variable "+c.variable+" of "+c.class)
		})
	}
}
