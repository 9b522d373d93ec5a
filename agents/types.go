package agents

import refactor "github.com/pharo-refactor/refactord"

// checkInput refuses an Input whose names are not Smalltalk-shaped: they go
// into prompts unfenced and name the scripted model's answers.
func checkInput(in refactor.Input) error { return in.Validate() }

// countCall adds one model call and its tokens to s.
func countCall(s *refactor.CallStats, u Usage) {
	s.Calls++
	s.InputTokens += u.InputTokens
	s.OutputTokens += u.OutputTokens
}
