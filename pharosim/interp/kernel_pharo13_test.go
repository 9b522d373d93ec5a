package interp

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestKernelAnswersAsPharo13sKernelTests: behaviours Pharo 13's own
// kernel tests (Kernel-Tests, SUnit-Tests, STON-Tests,
// Collections-Streams-Tests at commit 9b55ea4) check, each with the
// answer Pharo 13 gives. CI cannot read Pharo's sources: these rows keep
// what those tests found.
func TestKernelAnswersAsPharo13sKernelTests(t *testing.T) {
	t.Parallel()
	cases := []struct{ expr, want string }{
		// BlockClosureTest>>#testSupplyAnswer…, #testSuppressInform…:
		// ProvideAnswerNotification answers confirm: and inform: in a
		// block run with valueSupplyingAnswers:, matched by the whole
		// caption, a part of it (any case), a pattern or a regex.
		{"[ ProvideAnswerNotification signal: 'Your favorite color?' ] valueSupplyingAnswer: #('Your favorite color?' 'blue')", "'blue'"},
		{"[ (ProvideAnswerNotification signal: 'Your favorite color?') == #default ifTrue: [ 'red' ] ] valueSupplyingAnswer: #('Your favorite color?' #default)", "'red'"},
		{"[ [ nil confirm: 'You like Smalltalk?' ] valueSupplyingAnswer: #('Blub' false) ] valueSupplyingAnswer: #('Smalltalk' true)", "true"},
		{"[ nil confirm: 'You like Smalltalk?' ] valueSupplyingAnswer: #('LIKE' false)", "false"},
		{"[ nil confirm: 'You like Smalltalk?' ] valueSupplyingAnswer: #('.*Smalltalk\\?' true)", "true"},
		{"[ nil confirm: 'You like Smalltalk?' ] valueSupplyingAnswer: #('*Smalltalk#' true)", "true"},
		{"[ { nil confirm: 'One'. nil confirm: 'Two' } ] valueSupplyingAnswer: true", "#(true true)"},
		{"[ { nil confirm: 'One'. nil confirm: 'Two' } ] valueSupplyingAnswers: #( ('One' false) ('Two' true) )", "#(false true)"},
		{"[ nil inform: 'Should not see this' ] valueSuppressingAllMessages", "nil"},
		{"[ 3 inform: 'Should not see this' ] valueSuppressingMessages: #('*see*')", "3"},
		{"ProvideAnswerNotification signal: 'unanswered'", "nil"},
		{"ProvideAnswerNotification superclass", "Notification"},
	}
	for _, tc := range cases {
		t.Run(tc.expr, func(t *testing.T) {
			assert.Equal(t, tc.want, evalIn(t, tc.expr))
		})
	}
}
