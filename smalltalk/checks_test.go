package smalltalk

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestInfo(t *testing.T) {
	t.Parallel()
	src := `at: index put: value
	"comment"
	<foo: #bar baz: #(sym #quoted 1)>
	| temp |
	temp := self helper: #sym.
	items do: [:each | | inner | inner := each. temp := inner + index].
	Transcript show: 'x'; cr.
	^ temp -> #(notASend: other)`
	info := mustMethod(t, src).Info()
	assert.Equal(t, &Info{
		Selector:   "at:put:",
		Args:       []string{"index", "value"},
		Temps:      []string{"temp", "each", "inner"},
		Referenced: []string{"temp", "self", "items", "inner", "each", "index", "Transcript"},
		Assigned:   []string{"temp", "inner"},
		Sends:      []string{"helper:", "do:", "+", "show:", "cr", "->"},
		Symbols:    []string{"bar", "sym", "quoted", "notASend:", "other"},
	}, info)
}

func TestInfoDetails(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, src string
		check     func(t *testing.T, info *Info)
	}{
		{"cascade parts are sends", "foo r a; b: 1; + 2; yourself", func(t *testing.T, info *Info) {
			assert.Equal(t, []string{"a", "b:", "+", "yourself"}, info.Sends)
		}},
		{"literal array symbols are no sends", "foo ^ #(at:put: #size bar)", func(t *testing.T, info *Info) {
			assert.Empty(t, info.Sends)
			assert.Equal(t, []string{"at:put:", "size", "bar"}, info.Symbols)
		}},
		{"duplicates are dropped", "foo x foo. x foo. ^ x", func(t *testing.T, info *Info) {
			assert.Equal(t, []string{"x"}, info.Referenced)
			assert.Equal(t, []string{"foo"}, info.Sends)
		}},
		{"pseudo-variables are references", "foo ^ thisContext sender = super foo", func(t *testing.T, info *Info) {
			assert.Equal(t, []string{"thisContext", "super"}, info.Referenced)
		}},
		{"true false nil are literals", "foo ^ true & false | nil isNil", func(t *testing.T, info *Info) {
			assert.Empty(t, info.Referenced)
		}},
		{"primitive error name is a temp", "foo <primitive: 1 error: ec> ^ ec", func(t *testing.T, info *Info) {
			assert.Equal(t, []string{"ec"}, info.Temps)
			assert.Empty(t, info.Symbols)
		}},
		{"chained assignment", "foo a := b := c", func(t *testing.T, info *Info) {
			assert.Equal(t, []string{"a", "b"}, info.Assigned)
			assert.Equal(t, []string{"a", "b", "c"}, info.Referenced)
		}},
		{"dynamic array and nested blocks", "foo ^ { [:a | [:b | a + b]] }", func(t *testing.T, info *Info) {
			assert.Equal(t, []string{"a", "b"}, info.Temps)
			assert.Equal(t, []string{"+"}, info.Sends)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.check(t, mustMethod(t, tc.src).Info())
		})
	}
}

func TestAnalyzeExpression(t *testing.T) {
	t.Parallel()
	seq, err := ParseExpression("| p | p := (Smalltalk globals at: #Foo) >> #bar. p protocol")
	require.NoError(t, err)
	info := Analyze(seq)
	assert.Empty(t, info.Selector)
	assert.Equal(t, []string{"p"}, info.Temps)
	assert.Equal(t, []string{"p", "Smalltalk"}, info.Referenced)
	assert.Equal(t, []string{"globals", "at:", ">>", "protocol"}, info.Sends)
	assert.Equal(t, []string{"Foo", "bar"}, info.Symbols)
}

func TestCheckSelector(t *testing.T) {
	t.Parallel()
	m := mustMethod(t, "sum: a with: b ^ a + b")
	assert.NoError(t, CheckSelector(m, "sum:with:"))

	err := CheckSelector(m, "sum:")
	require.Error(t, err)
	assert.Equal(t, "the method defines #sum:with: but #sum: was expected", err.Error())

	err = CheckSelector(mustMethod(t, "+ x ^ x"), "odd one")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "#+")
	assert.Contains(t, err.Error(), "#'odd one'")
}

func TestArgumentAssignments(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		src  string
		want []Ref
	}{
		{"none", "foo: a | t | t := a. ^ t", nil},
		{"method argument", "foo: a a := 1", []Ref{{Name: "a", Start: 7, End: 8, Line: 1, Col: 8}}},
		{"block argument and method argument inside a block",
			"foo: a\n\t^ [:x | x := a. a := x] value: 1",
			[]Ref{{Name: "x", Start: 16, End: 17, Line: 2, Col: 10}, {Name: "a", Start: 24, End: 25, Line: 2, Col: 18}}},
		{"a block temp shadowing an argument is fine", "foo: a ^ [ | a | a := 1 ] value", nil},
		{"pseudo-variables", "foo self := 1. super := 2. thisContext := 3",
			[]Ref{{Name: "self", Start: 4, End: 8, Line: 1, Col: 5}, {Name: "super", Start: 15, End: 20, Line: 1, Col: 16}, {Name: "thisContext", Start: 27, End: 38, Line: 1, Col: 28}}},
		{"chained", "foo: a b: b a := b := 1",
			[]Ref{{Name: "a", Start: 12, End: 13, Line: 1, Col: 13}, {Name: "b", Start: 17, End: 18, Line: 1, Col: 18}}},
		{"binary argument", "+ other other := 0", []Ref{{Name: "other", Start: 8, End: 13, Line: 1, Col: 9}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, ArgumentAssignments(mustMethod(t, tc.src)))
		})
	}
}

func TestUndeclared(t *testing.T) {
	t.Parallel()
	src := `foo: arg
	| t |
	t := arg + undeclaredLower.
	[:x | | bt | bt := x + t + instVar. [:y | y + x + bt] value: 2] value: 1.
	^ bt + x + Smalltalk + Missing + self + super + thisContext + true + nil + false + undeclaredLower + Missing`
	known := func(name string) bool { return name == "instVar" || name == "Smalltalk" }
	capitalised, lowercase := Undeclared(mustMethod(t, src), known)
	assert.Equal(t, []Ref{{Name: "Missing", Start: 144, End: 151, Line: 5, Col: 25}}, capitalised)
	assert.Equal(t, []Ref{
		{Name: "undeclaredLower", Start: 28, End: 43, Line: 3, Col: 13},
		{Name: "bt", Start: 123, End: 125, Line: 5, Col: 4},
		{Name: "x", Start: 128, End: 129, Line: 5, Col: 9},
	}, lowercase)
}

func TestUndeclaredScoping(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		src       string
		wantCap   []string
		wantLower []string
	}{
		{"everything declared", "foo: a | t | t := a. ^ [:b | | c | c := a + b + t] value: 1", nil, nil},
		{"method temp in nested blocks", "foo | t | ^ [[[t]]]", nil, nil},
		{"block arg in nested block", "foo ^ [:a | [:b | [a + b]]]", nil, nil},
		{"block temp after its block", "foo [ | t | t := 1 ] value. ^ t", nil, []string{"t"}},
		{"sibling block's arg", "foo [:a | a] value: 1. ^ [:b | a]", nil, []string{"a"}},
		{"capitalised and lower-case", "foo ^ Foo new bar: baz", []string{"Foo"}, []string{"baz"}},
		{"underscore names are lower-case", "foo ^ _x", nil, []string{"_x"}},
		{"primitive error temp is declared", "foo <primitive: 1 error: ec> ^ ec", nil, nil},
		{"assignment target counts", "foo x := 1", nil, []string{"x"}},
		{"nil known function", "foo ^ Object", []string{"Object"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			capitalised, lowercase := Undeclared(mustMethod(t, tc.src), nil)
			assert.Equal(t, tc.wantCap, refNames(capitalised))
			assert.Equal(t, tc.wantLower, refNames(lowercase))
		})
	}
}

func refNames(refs []Ref) []string {
	var out []string
	for _, r := range refs {
		out = append(out, r.Name)
	}
	return out
}
