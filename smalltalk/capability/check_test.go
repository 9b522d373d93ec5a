package capability_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pharo-refactor/refactord/smalltalk"
	"github.com/pharo-refactor/refactord/smalltalk/capability"
	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

const original = "total: items\n\t| sum |\n\tsum := 0.\n\titems do: [ :each | sum := sum + each price ].\n\t^ sum"

func parse(t *testing.T, src string) *smalltalk.Method {
	t.Helper()
	m, err := smalltalk.ParseMethod(src)
	require.NoError(t, err, src)
	return m
}

// refusals runs both checks on a candidate of original; no variable of
// the class is declared.
func refusals(t *testing.T, candidate, orig string) []capability.Refusal {
	t.Helper()
	c, o := parse(t, candidate), parse(t, orig)
	out := capability.Check(c, o)
	for _, ref := range capability.Globals(c, o, nil) {
		out = append(out, capability.GlobalRefusal(ref, "Sample-Shop"))
	}
	return out
}

func TestSelectorFamiliesAreRefused(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, body, family, refused string
	}{
		{"perform", "^ items perform: #size", "reflection", "perform:"},
		{"perform with args", "^ self perform: #total: withArguments: { items }", "reflection", "perform:withArguments:"},
		{"instVarAt:put:", "items instVarAt: 1 put: nil. ^ 0", "reflection", "instVarAt:put:"},
		{"instVarNamed:", "^ items instVarNamed: 'array'", "reflection", "instVarNamed:"},
		{"symbol built at run time", "^ ('si', 'ze') asSymbol value: items", "reflection", "asSymbol"},
		{"thisContext", "^ thisContext sender receiver", "reflection", "thisContext"},
		{"become", "items become: OrderedCollection new. ^ 0", "become", "become:"},
		{"compiler evaluate", "^ self class compiler evaluate: '3 + 4'", "evaluation", "compiler"},
		{"evaluate:", "^ self class evaluate: '1'", "evaluation", "evaluate:"},
		{"compile:", "self class compile: 'foo ^ 1'. ^ 0", "evaluation", "compile:"},
		{"readFrom:", "^ Object readFrom: '3 + 4'", "evaluation", "readFrom:"},
		{"fork", "[ items size ] fork. ^ 0", "processes", "fork"},
		{"forkAt:", "[ items size ] forkAt: 30. ^ 0", "processes", "forkAt:"},
		{"newProcess", "^ [ 1 ] newProcess resume", "processes", "newProcess"},
		{"ffiCall:", "^ self ffiCall: #( int getpid () )", "primitives", "ffiCall:"},
		{"primitive pragma", "<primitive: 60>\n\t^ 0", "primitives", "<primitive:>"},
		{"asFileReference", "^ '/etc/passwd' asFileReference contents", "files", "asFileReference"},
		{"asFileLocator", "^ 'x' asFileLocator", "files", "asFileLocator"},
		{"asUrl", "^ 'http://example.com' asUrl retrieveContents", "network", "asUrl"},
		{"asZnUrl", "^ 'http://example.com' asZnUrl", "network", "asZnUrl"},
		{"subclass:", "Object subclass: #Evil instanceVariableNames: '' classVariableNames: '' package: 'X'. ^ 0", "class-definition", "subclass:instanceVariableNames:classVariableNames:package:"},
		{"removeFromSystem", "self class removeFromSystem. ^ 0", "class-definition", "removeFromSystem"},
		{"removeSelector:", "self class removeSelector: #total:. ^ 0", "class-definition", "removeSelector:"},
		{"halt", "self halt. ^ 0", "debugging", "halt"},
		{"halt as a symbol", "^ items collect: #halt", "debugging", "halt"},
		{"halt in a literal array", "^ #(halt) first value: self", "debugging", "halt"},
		{"asClass", "^ #OSProcess asClass", "system", "asClass"},
		{"environment at:", "^ (self class environment at: #OSProcess) new", "system", "environment"},
		{"other pragma", "<script: 'Smalltalk quit'>\n\t^ 0", "pragma", "<script:>"},
		{"Smalltalk", "^ Smalltalk at: #OSProcess", "system", "Smalltalk"},
		{"Processor", "Processor yield. ^ 0", "processes", "Processor"},
		{"OSProcess", "^ OSProcess command: 'ls'", "system", "OSProcess"},
		{"FileSystem", "^ FileSystem workingDirectory", "files", "FileSystem"},
		{"ZnClient", "^ ZnClient new get: 'http://x'", "network", "ZnClient"},
		{"LibC", "^ LibC system: 'ls'", "primitives", "LibC"},
		{"unknown global", "^ NativeEvil new", "global", "NativeEvil"},
		{"signalerContext", "^ [ items size ] on: Error do: [ :e | e signalerContext ]", "reflection", "signalerContext"},
		{"literalAt:put:", "(self class >> #total:) literalAt: 1 put: nil. ^ 0", "reflection", "literalAt:put:"},
		{"addSelectorSilently:withMethod:", "self class addSelectorSilently: #x withMethod: nil. ^ 0", "class-definition", "addSelectorSilently:withMethod:"},
		{"fluid class definition", "(items class << #Pwned) install. ^ 0", "class-definition", "install"},
		{"environment removeKey:", "self class environment removeKey: #Object. ^ 0", "system", "Smalltalk removeKey:"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := refusals(t, "total: items\n\t"+tc.body, original)
			require.NotEmpty(t, got, "refused")
			var names []string
			found := false
			for _, r := range got {
				names = append(names, r.Family+" "+r.Name)
				if r.Family == tc.family && r.Name == tc.refused {
					found = true
					assert.True(t, strings.HasPrefix(r.Message, tc.family+" ("), r.Message)
					assert.Contains(t, r.Message, strings.Trim(tc.refused, "<>"), "the refusal names what was refused")
					assert.Positive(t, r.Line)
				}
			}
			assert.True(t, found, "want %s %s among %v", tc.family, tc.refused, names)
		})
	}
}

func TestWhatTheOriginalUsesStaysAllowed(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, orig, cand string }{
		{"same perform:", "run: s\n\t^ self perform: s", "run: aSelector\n\t^ self perform: aSelector"},
		{"same global", "log: x\n\tTranscript show: x", "log: aString\n\tTranscript show: aString; cr"},
		{"same thisContext", "where\n\t^ thisContext sender", "where\n\t^ thisContext sender method"},
		{"same primitive", "size\n\t<primitive: 62>\n\t^ 0", "size\n\t<primitive: 62>\n\t^ self basicSize"},
		{"value classes", "total: items\n\t^ 0", "total: items\n\t| out |\n\tout := OrderedCollection new.\n\titems do: [ :e | out add: e -> (1 to: 3) ].\n\t^ (out collect: [ :a | a key ]) asArray , (String new: 2) , (Dictionary new) keys , { Character cr. 3 / 4. Float pi. Date today. Error. ZeroDivide }"},
		{"ordinary sends", "total: items\n\t^ 0", "total: items\n\t^ (items inject: 0 into: [ :a :b | a + b ]) printString size max: (items detect: [ :x | x isNil ] ifNone: [ 0 ])"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Empty(t, refusals(t, tc.cand, tc.orig))
		})
	}
}

// Naming Smalltalk in the original does not open the whole system
// dictionary: only the selectors the original sends to it.
func TestSystemDictionaryMessages(t *testing.T) {
	t.Parallel()
	const orig = "log: x\n\t^ (Smalltalk at: #Transcript) show: x"
	cases := []struct{ name, cand, refused string }{
		{"same message", "log: aString\n\t^ (Smalltalk at: #Transcript) show: aString; cr; yourself", ""},
		{"at:put:", "log: x\n\tSmalltalk at: #Pwned put: x.\n\t^ x", "Smalltalk at:put:"},
		{"quit", "log: x\n\tSmalltalk quit.\n\t^ x", "Smalltalk quit"},
		{"through globals", "log: x\n\tSmalltalk globals removeKey: #Object.\n\t^ x", "Smalltalk removeKey:"},
		{"in a cascade", "log: x\n\tSmalltalk at: #A; at: #B put: 1.\n\t^ x", "Smalltalk at:put:"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := refusals(t, tc.cand, orig)
			if tc.refused == "" {
				assert.Empty(t, got)
				return
			}
			var names []string
			for _, r := range got {
				names = append(names, r.Name)
			}
			assert.Contains(t, names, tc.refused)
		})
	}
}

func TestDeclaredNamesAreNotGlobals(t *testing.T) {
	t.Parallel()
	c := parse(t, "total: items\n\t^ Default ifNil: [ Registry size ]")
	o := parse(t, original)
	declared := func(name string) bool { return name == "Default" }
	refs := capability.Globals(c, o, declared)
	require.Len(t, refs, 1)
	assert.Equal(t, "Registry", refs[0].Name, "a class variable is not a global; an unknown name is")
}

func TestExactSelectorOnly(t *testing.T) {
	t.Parallel()
	got := refusals(t, "run: s\n\t^ self perform: s with: 1", "run: s\n\t^ self perform: s")
	require.Len(t, got, 1, "perform:with: is another selector than perform:")
	assert.Equal(t, "perform:with:", got[0].Name)
}

// Every method of the 444-method corpus, fed back as the candidate for
// itself, passes: no false refusals on real code.
func TestCorpusMethodsPassAsTheirOwnCandidates(t *testing.T) {
	t.Parallel()
	_, file, _, _ := runtime.Caller(0)
	tree, err := tonel.ReadTree(filepath.Join(filepath.Dir(file), "..", "..", "testdata", "corpus"))
	require.NoError(t, err)
	methods := 0
	for _, f := range tree.Files() {
		for _, tm := range f.Methods {
			m, err := smalltalk.ParseMethod(tm.Source)
			require.NoError(t, err, "%s>>%s", tm.Class, tm.Selector)
			methods++
			// A fresh parse of the same text: nothing is shared with the original.
			again, err := smalltalk.ParseMethod(tm.Source)
			require.NoError(t, err)
			assert.Empty(t, capability.Check(again, m), "%s>>%s", tm.Class, tm.Selector)
			assert.Empty(t, capability.Globals(again, m, nil), "%s>>%s", tm.Class, tm.Selector)
		}
	}
	assert.Equal(t, 444, methods, "the corpus holds 444 methods")
}

func TestFamiliesAreWellFormed(t *testing.T) {
	t.Parallel()
	seen := map[string]string{}
	for _, f := range capability.Families() {
		assert.NotEmpty(t, f.ID)
		assert.NotEmpty(t, f.Title)
		for _, s := range append(append([]string{}, f.Selectors...), f.Prefixes...) {
			assert.True(t, smalltalk.IsSelector(s) || strings.HasSuffix(s, ":") || smalltalk.IsIdentifier(s), "%s: %q", f.ID, s)
			if prev, dup := seen[s]; dup {
				t.Errorf("%q is in both %s and %s", s, prev, f.ID)
			}
			seen[s] = f.ID
		}
		for _, g := range f.Globals {
			assert.True(t, smalltalk.IsClassName(g), g)
			assert.False(t, capability.IsValueClass(g), "%s is sensitive and harmless at once", g)
		}
	}
	for _, v := range capability.ValueClasses() {
		assert.True(t, smalltalk.IsClassName(v), v)
	}
}

// docs/capabilities.md documents the lists; this keeps it in step with the
// code.
func TestDocsDocumentThePolicy(t *testing.T) {
	t.Parallel()
	_, file, _, _ := runtime.Caller(0)
	data, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "docs", "capabilities.md"))
	require.NoError(t, err)
	doc := string(data)
	quoted := func(s string) string { return "`" + s + "`" }
	has := func(text, context string) {
		t.Helper()
		assert.True(t, strings.Contains(doc, text), "docs/capabilities.md lacks %s (%s)", text, context)
	}
	for _, f := range capability.Families() {
		has("| "+quoted(f.ID)+" | "+f.Title+" |", "family")
		for _, p := range f.Prefixes {
			has(quoted(p+"…"), f.ID)
		}
		for _, s := range append(append([]string{}, f.Selectors...), f.Globals...) {
			has(quoted(s), f.ID)
		}
	}
	for _, v := range capability.ValueClasses() {
		has(quoted(v), "value class")
	}
	for _, p := range capability.PrimitivePragmaPrefixes() {
		has(quoted(p), "primitive pragma")
	}
	globals, accessors := capability.SystemDictionary()
	for _, n := range append(globals, accessors...) {
		has(quoted(n), "system dictionary")
	}
}
