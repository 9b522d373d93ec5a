package smalltalk

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseMethodShapes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, src, want string
	}{
		{"unary pattern, empty body", "foo", "foo => "},
		{"binary pattern", "+ other ^ self add: other", "+ other => (^ (self add: other))"},
		{"binary pattern of a run", "==> other ^ other", "==> other => (^ other)"},
		{"keyword pattern", "at: i put: v ^ v", "at:put: i v => (^ v)"},
		{"true as a selector", "true ^ false", "true => (^ false)"},
		{"precedence unary > binary > keyword", "foo ^ a foo + b bar: c", "foo => (^ (((a foo) + b) bar: c))"},
		{"binary is left-associative", "foo ^ 3 + 4 * 2", "foo => (^ ((3 + 4) * 2))"},
		{"keyword parts join", "foo ^ a max: b max: c", "foo => (^ (a max:max: b c))"},
		{"keyword args are binary expressions", "foo ^ a foo: (b bar: c) baz: d qux + 1", "foo => (^ (a foo:baz: (b bar: c) ((d qux) + 1)))"},
		{"parentheses", "foo ^ (a + b) * c", "foo => (^ ((a + b) * c))"},
		{"x-1 is a binary minus", "foo ^ x-1", "foo => (^ (x - 1))"},
		{"x -1 is a binary minus", "foo ^ x -1", "foo => (^ (x - 1))"},
		{"3 - -2", "foo ^ 3 - -2", "foo => (^ (3 - -2))"},
		{"3--2 is the selector --", "foo ^ 3--2", "foo => (^ (3 -- 2))"},
		{"binary run swallows a minus", "foo ^ x>-1", "foo => (^ (x >- 1))"},
		{"negative literal assigned", "foo x := -5", "foo => (x := -5)"},
		{"negative keyword argument", "foo ^ x between: -1 and: 5", "foo => (^ (x between:and: -1 5))"},
		{"chained assignment", "foo a := b := 3", "foo => (a := (b := 3))"},
		{"temporaries", "foo | t u | t := 1. ^ t", "foo => | t u | (t := 1). (^ t)"},
		{"|| is empty temporaries", "foo || ^ 1", "foo => (^ 1)"},
		{"extra periods", "foo . x. . y..", "foo => x. y"},
		{"1. then a statement", "foo x := 1.y := 2", "foo => (x := 1). (y := 2)"},
		{"1. at the end", "foo ^ 1.", "foo => (^ 1)"},
		{"exponent needs digits", "foo ^ 1e", "foo => (^ (1 e))"},
		{"scale needs a non-letter", "foo ^ 3sqrt", "foo => (^ (3 sqrt))"},
		{"thisContext", "foo ^ thisContext sender", "foo => (^ (thisContext sender))"},
		{"literal names as unary selectors", "foo ^ x true nil", "foo => (^ ((x true) nil))"},
		{"keywords without blanks", "foo dict at:#a put:1", "foo => (dict at:put: #a 1)"},
		{"keyword with identifier argument without blank", "foo a max:b", "foo => (a max: b)"},
		{"unicode identifier", "foo ^ café size", "foo => (^ (café size))"},
		{"underscore is a letter", "foo ^ _a_ + a_b", "foo => (^ (_a_ + a_b))"},
		{"cascade", "foo r m1; m2: x; + y", "foo => (cascade r (m1) (m2: x) (+ y))"},
		{"cascade on a unary chain", "foo a b c; d", "foo => (cascade (a b) (c) (d))"},
		{"cascade with binary arguments", "foo Transcript show: 'a'; cr; show: 'b' , 'c'; yourself",
			"foo => (cascade Transcript (show: 'a') (cr) (show: ('b' , 'c')) (yourself))"},
		{"cascade on a parenthesised receiver", "foo (OrderedCollection new) add: 1; yourself",
			"foo => (cascade (OrderedCollection new) (add: 1) (yourself))"},
		{"cascade part with negative number", "foo x foo; -1", "foo => (cascade x (foo) (- 1))"},
		{"block with args and temps", "foo ^ [:a :b | | t | t := a. b]", "foo => (^ [:a :b | | t | (t := a). b])"},
		{"block with an empty body", "foo ^ [:a | ]", "foo => (^ [:a | ])"},
		{"empty block", "foo ^ [ ]", "foo => (^ [])"},
		{"block args without bar", "foo ^ [:a]", "foo => (^ [:a | ])"},
		{"block bar glued to temps", "foo ^ [:a || t | t]", "foo => (^ [:a | | t | t])"},
		{"block without blanks", "foo ^ [:each|each]", "foo => (^ [:each | each])"},
		{"block with a space after the colon", "foo ^ [: each | each]", "foo => (^ [:each | each])"},
		{"return inside block", "foo x ifTrue: [^ 1]", "foo => (x ifTrue: [(^ 1)])"},
		{"dynamic array", "foo ^ { a. b }", "foo => (^ {a. b})"},
		{"empty dynamic array", "foo ^ {}", "foo => (^ {})"},
		{"dynamic array with trailing period", "foo ^ { 1 + 2. }", "foo => (^ {(1 + 2)})"},
		{"pragma", "foo <primitive: 60> ^ nil", "foo <primitive: 60> => (^ nil)"},
		{"pragma after temps", "foo | t | <bar> ^ t", "foo <bar> => | t | (^ t)"},
		{"pragmas before and after temps", "foo <a> | t | <b: 'x' c: #(1)> ^ t", "foo <a> <b:c: 'x' #(1)> => | t | (^ t)"},
		{"binary pragma", "foo < + 1> ^ 1", "foo <+ 1> => (^ 1)"},
		{"pragma with literal kinds", "foo <a: true b: -1 c: $x d: #sym e: #[1]> ", "foo <a:b:c:d:e: true -1 $x #sym #[1]> => "},
		{"primitive with error temp", "foo <primitive: 'f' module: 'm' error: ec> ^ ec", "foo <primitive:module:error: 'f' 'm' ec> => (^ ec)"},
		{"comment with doubled quotes", "foo \"say \"\"hi\"\" \" ^ 1 \"\"", "foo => (^ 1)"},
		{"statement after a block statement", "foo [:x | x] value: 1. ^ 2", "foo => ([:x | x] value: 1). (^ 2)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := mustMethod(t, tc.src)
			assert.Equal(t, tc.want, sexpr(m))
		})
	}
}

func TestParseLiterals(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, src string
		want      string
		kinds     []LiteralKind
	}{
		{"numbers", "123. -5. 16r1F. 2r1010. 36rSMALLTALK. 16r-1F. -16r1F. 1e10. 1.5e-3. 2r1e4. 1.5s2. 3s. 1.50s. 1.5. 16r1F.A. 1q3. 1d-2",
			"123. -5. 16r1F. 2r1010. 36rSMALLTALK. 16r-1F. -16r1F. 1e10. 1.5e-3. 2r1e4. 1.5s2. 3s. 1.50s. 1.5. 16r1F.A. 1q3. 1d-2", nil},
		{"characters", "$a. $ . $'. $]. $$. $\". $é",
			"$a. $ . $'. $]. $$. $\". $é",
			[]LiteralKind{LitCharacter, LitCharacter, LitCharacter, LitCharacter, LitCharacter, LitCharacter, LitCharacter}},
		{"character ] inside a block", "[$]]", "[$]]", nil},
		{"strings", "'it''s'. ''. 'a \"not comment\" b'", "'it''s'. ''. 'a \"not comment\" b'", []LiteralKind{LitString, LitString, LitString}},
		{"symbols", "#foo. #foo:. #foo:bar:. #+. #->. #'with space'. ##foo. #foo:bar. #'it''s'. #Foo1",
			"#foo. #foo:. #foo:bar:. #+. #->. #with space. #foo. #foo:bar. #it's. #Foo1", nil},
		{"true false nil", "true. false. nil", "true. false. nil", []LiteralKind{LitTrue, LitFalse, LitNil}},
		{"literal array", "#(foo bar: #baz $a 'str' 1.5 (nested) #(x) #[1 2] true foo:bar: + )",
			"#(#foo #bar: #baz $a 'str' 1.5 #(#nested) #(#x) #[1 2] true #foo:bar: #+)", nil},
		{"literal array oddities", "#(1 -2 a-1 . ; ^ [ ] { } foo:= := nil false #- - 3)",
			"#(1 -2 #a -1 #. #; #^ #[ #] #{ #} #foo: #= #: #= nil false #- #- 3)", nil},
		{"empty arrays", "#(). #[]. #(())", "#(). #[]. #(#())", nil},
		{"byte arrays", "#[1 2 255]. #[16rFF 1e2 0 2r1e4]", "#[1 2 255]. #[16rFF 1e2 0 2r1e4]", []LiteralKind{LitByteArray, LitByteArray}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			seq, err := ParseExpression(tc.src)
			require.NoError(t, err)
			require.Empty(t, spanProblem(tc.src, seq))
			assert.Equal(t, tc.want, sexpr(seq))
			if tc.kinds == nil {
				return
			}
			require.Len(t, seq.Statements, len(tc.kinds))
			for i, k := range tc.kinds {
				assert.Equal(t, k, seq.Statements[i].(*Literal).Kind, "statement %d", i)
			}
		})
	}
}

func TestLiteralArrayElementKinds(t *testing.T) {
	t.Parallel()
	src := "#(foo bar: #baz $a 'str' 1.5 (nested) #(x) #[1 2] true foo:bar: + )"
	seq, err := ParseExpression(src)
	require.NoError(t, err)
	require.Len(t, seq.Statements, 1)
	arr := seq.Statements[0].(*Literal)
	require.Equal(t, LitArray, arr.Kind)
	assert.Equal(t, src, arr.Value)
	want := []struct {
		kind  LiteralKind
		value string
	}{
		{LitSymbol, "foo"}, {LitSymbol, "bar:"}, {LitSymbol, "baz"}, {LitCharacter, "a"},
		{LitString, "str"}, {LitNumber, "1.5"}, {LitArray, "(nested)"}, {LitArray, "#(x)"},
		{LitByteArray, "#[1 2]"}, {LitTrue, "true"}, {LitSymbol, "foo:bar:"}, {LitSymbol, "+"},
	}
	require.Len(t, arr.Elements, len(want))
	for i, w := range want {
		el := arr.Elements[i]
		assert.Equal(t, w.kind, el.Kind, "element %d", i)
		assert.Equal(t, w.value, el.Value, "element %d", i)
	}
}

func TestLiteralValuesAndSpans(t *testing.T) {
	t.Parallel()
	cases := []struct {
		src   string
		kind  LiteralKind
		value string
	}{
		{"'it''s'", LitString, "it's"},
		{"$ ", LitCharacter, " "},
		{"$'", LitCharacter, "'"},
		{"#'with space'", LitSymbol, "with space"},
		{"#foo:bar:", LitSymbol, "foo:bar:"},
		{"##foo", LitSymbol, "foo"},
		{"16r-1F", LitNumber, "16r-1F"},
		{"2r1e4", LitNumber, "2r1e4"},
		{"1.5s2", LitNumber, "1.5s2"},
		{"-5", LitNumber, "-5"},
		{"nil", LitNil, "nil"},
	}
	for _, tc := range cases {
		t.Run(tc.src, func(t *testing.T) {
			seq, err := ParseExpression(tc.src)
			require.NoError(t, err)
			require.Len(t, seq.Statements, 1)
			lit, ok := seq.Statements[0].(*Literal)
			require.True(t, ok, "got %T", seq.Statements[0])
			assert.Equal(t, tc.kind, lit.Kind)
			assert.Equal(t, tc.value, lit.Value)
			assert.Equal(t, 0, lit.Start())
			assert.Equal(t, len(tc.src), lit.End())
		})
	}
}

func TestNegativeLiteralSplit(t *testing.T) {
	t.Parallel()
	m := mustMethod(t, "foo ^x-1")
	msg := m.Body.Statements[0].(*Return).Value.(*Message)
	assert.Equal(t, "-", msg.Selector)
	assert.Equal(t, 6, msg.SelectorPos)
	lit := msg.Args[0].(*Literal)
	assert.Equal(t, LitNumber, lit.Kind)
	assert.Equal(t, "1", lit.Value)
	assert.Equal(t, 7, lit.Start())
}

func TestSpans(t *testing.T) {
	t.Parallel()
	src := "at: i put: v\n\t| t |\n\tt := (i + 1) foo: v.\n\t^ t bar; baz"
	m := mustMethod(t, src)
	text := func(n Node) string { return src[n.Start():n.End()] }
	assert.Equal(t, src, text(m))
	assert.Equal(t, "i", text(m.Args[0]))
	assert.Equal(t, "| t |\n\tt := (i + 1) foo: v.\n\t^ t bar; baz", text(m.Body))
	asg := m.Body.Statements[0].(*Assignment)
	assert.Equal(t, "t := (i + 1) foo: v", text(asg))
	kw := asg.Value.(*Message)
	assert.Equal(t, "(i + 1) foo: v", text(kw))
	assert.Equal(t, "(i + 1)", text(kw.Receiver))
	assert.Equal(t, 1, kw.Receiver.(*Message).Parens)
	ret := m.Body.Statements[1].(*Return)
	assert.Equal(t, "^ t bar; baz", text(ret))
	casc := ret.Value.(*Cascade)
	assert.Equal(t, "t bar; baz", text(casc))
	assert.Equal(t, "bar", text(casc.Messages[0]))
	assert.Nil(t, casc.Messages[0].Receiver)
	assert.Equal(t, "baz", text(casc.Messages[1]))
}

func TestCommentsBetweenEveryToken(t *testing.T) {
	t.Parallel()
	plain := "at: i put: v <primitive: 1> | t | t := #(1 $a) , { i . v } . ^ [:x | x + t] value: i ; yourself"
	commented := `"0"at:"1"i"2"put:"3"v"4"<"5"primitive:"6"1"7">"8"|"9"t"10"|"11"t"12":="13"#("14"1"15"$a"16")"17","18"{"19"i"20"."21"v"22"}"23"."24"^"25"["26":"27"x"28"|"29"x"30"+"31"t"32"]"33"value:"34"i"35";"36"yourself"37"`
	want := mustMethod(t, plain)
	got := mustMethod(t, commented)
	assert.Equal(t, sexpr(want), sexpr(got))
	assert.Equal(t, want.Info(), got.Info())
}

// corpus returns the realistic methods of testdata/methods.st.
func corpus(t testing.TB) []string {
	data, err := os.ReadFile("testdata/methods.st")
	require.NoError(t, err)
	var out []string
	for _, m := range strings.Split(string(data), "\n!\n") {
		if strings.TrimSpace(m) != "" {
			out = append(out, m)
		}
	}
	return out
}

// withComments re-joins the tokens of src with a comment between each two,
// using the scanner only to find token boundaries.
func withComments(src string) string {
	s := scanner{src: src}
	var b strings.Builder
	for tok := s.next(); tok.kind != tEOF; tok = s.next() {
		b.WriteString(`"c"`)
		b.WriteString(src[tok.start:tok.end])
	}
	b.WriteString(`"end"`)
	return b.String()
}

func TestCorpus(t *testing.T) {
	t.Parallel()
	methods := corpus(t)
	require.GreaterOrEqual(t, len(methods), 20)
	for _, src := range methods {
		name, _, _ := strings.Cut(src, "\n")
		t.Run(name, func(t *testing.T) {
			m := mustMethod(t, src)
			commented := withComments(src)
			mc := mustMethod(t, commented)
			assert.Equal(t, sexpr(m), sexpr(mc))
		})
	}
}

func TestParseExpressionEvalShapes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, src, want string
	}{
		{"protocol",
			"| p | p := ((Smalltalk globals at: #Foo) >> #bar) protocol. (p isNil or: [ p isString ]) ifTrue: [ p ] ifFalse: [ p name ]",
			"| p | (p := ((((Smalltalk globals) at: #Foo) >> #bar) protocol)). (((p isNil) or: [(p isString)]) ifTrue:ifFalse: [p] [(p name)])"},
		{"dry compile",
			"| err | [ (Smalltalk globals at: #Foo) class compiler source: 'foo ^ ''x'''; compile ] on: Error, (Smalltalk globals at: #SyntaxErrorNotification ifAbsent: [ Error ]) do: [ :e | err := e ]. err ifNil: [ 'OK' ] ifNotNil: [ 'ERR|', ((err respondsTo: #location) ifTrue: [ err location printString ] ifFalse: [ '?' ]), '|', err messageText asString ]",
			"| err | ([(cascade ((((Smalltalk globals) at: #Foo) class) compiler) (source: 'foo ^ ''x''') (compile))] on:do: (Error , ((Smalltalk globals) at:ifAbsent: #SyntaxErrorNotification [Error])) [:e | (err := e)]). (err ifNil:ifNotNil: ['OK'] [((('ERR|' , ((err respondsTo: #location) ifTrue:ifFalse: [((err location) printString)] ['?'])) , '|') , ((err messageText) asString))])"},
		{"install", "(Smalltalk globals at: #Foo) compile: 'foo ^ 1' classified: 'accessing'",
			"(((Smalltalk globals) at: #Foo) compile:classified: 'foo ^ 1' 'accessing')"},
		{"remove", "(Smalltalk globals at: #Foo) class removeSelector: #at:put:",
			"((((Smalltalk globals) at: #Foo) class) removeSelector: #at:put:)"},
		{"exists", "Smalltalk globals includesKey: #Foo", "((Smalltalk globals) includesKey: #Foo)"},
		{"empty", "", ""},
		{"only a comment", `"nothing"`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			seq, err := ParseExpression(tc.src)
			require.NoError(t, err)
			require.Empty(t, spanProblem(tc.src, seq))
			assert.Equal(t, tc.want, sexpr(seq))
		})
	}
}

func TestWalkVisitsInSourceOrderAndPrunes(t *testing.T) {
	t.Parallel()
	m := mustMethod(t, "foo: a | t | t := a bar: [:x | x baz]. ^ #(1)")
	var names []string
	Walk(m, func(n Node) bool {
		switch n := n.(type) {
		case *Variable:
			names = append(names, n.Name)
		case *Block:
			return false // prune: x is not visited
		}
		return true
	})
	assert.Equal(t, []string{"a", "t", "t", "a"}, names)

	count := 0
	Walk(m, func(Node) bool { count++; return true })
	// Method, a, Sequence, t, Assignment, t, Message, a, Block, x, Sequence,
	// Message, x, Return, Literal(array), Literal(1)
	assert.Equal(t, 16, count)
	Walk(nil, func(Node) bool { t.Fatal("called for nil"); return true })
}

func TestParenthesesCount(t *testing.T) {
	t.Parallel()
	m := mustMethod(t, "foo ^ ((x))")
	v := m.Body.Statements[0].(*Return).Value.(*Variable)
	assert.Equal(t, 2, v.Parens)
	assert.Equal(t, 6, v.Start())
	assert.Equal(t, 11, v.End())
}
